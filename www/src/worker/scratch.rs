//! Large inflated members kept on disk instead of in memory: the page's counterpart of the
//! CLI's unlinked temporary file ([`offload::explore::Hooks::spill`]).
//!
//! A worker that is to explore a package member of [`offload::explore::SPILL_OVER`] bytes or
//! more opens a scratch file in the origin's private file system (OPFS) with a synchronous
//! access handle, which only dedicated workers have, before it starts. The member is inflated
//! into it a block at a time and explored from there, read on demand, so only its headers and
//! offload sections come back into the worker's memory: a worker's memory follows the device
//! code, not the largest library (a wasm module's memory never shrinks, so a 965 MiB library
//! inflated once would be held by the worker until it ends).
//!
//! An ELF library, the usual large member, is not written at all: what the host reader reads
//! of it (headers, section table, offload sections) is kept in memory as it is inflated
//! ([`offload::explore::sparse`]), the rest dropped. Writing took a second for TensorFlow's
//! 965 MiB library on a quiet machine, and ten under disk load. The scratch file takes what is
//! not an ELF file, and a library whose reads could not all be kept.
//!
//! The scratch files are a few fixed names (`offload-scratch-N`, [`crate::wire::scratch`]), each
//! held by one worker at a time (a synchronous access handle locks its file), emptied when taken
//! and when let go; what a worker stopped while it explored (Cancel, a closed tab) leaves, the
//! page sweeps. Where the browser has no OPFS for the page (an insecure origin,
//! a private window of some browsers, an older engine) nothing is written: an ELF library is
//! still kept by what is read of it, and any other member is inflated into memory, as before.
//!
//! The explorer keeps one for later once a package is explored ([`keep_for_later`]): showing
//! the bytes of an image inside a large member explores that member again, and inflates it
//! into the scratch file as the first exploration did.

use crate::wire::scratch as scratch_names;
use object::read::{ReadCache, ReadCacheOps};
use offload::explore::shares::ShareMember;
use offload::explore::sparse::{self, Keeping};
use offload::explore::{SpillExplore, SpillFill, SPILL_OVER};
use offload::format::package::Compression;
use offload::util::window::Window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetFileOptions, FileSystemReadWriteOptions,
    FileSystemSyncAccessHandle,
};

/// How many inflated bytes are gathered before one write: each write is a call out of the
/// module and a system call.
const WRITE_BLOCK: usize = 4 << 20;

/// A scratch file held by this worker, emptied when let go.
pub(crate) struct Scratch {
    handle: FileSystemSyncAccessHandle,
}

impl Scratch {
    /// A scratch file of its own for this worker, or `None` where the browser gives the page no
    /// OPFS with synchronous access or every name is taken.
    pub(crate) async fn open() -> Option<Scratch> {
        let directory = private_directory().await?;
        for n in 0..scratch_names::NAMES {
            let options = FileSystemGetFileOptions::new();
            options.set_create(true);
            let name = scratch_names::name(n);
            let Ok(file) = JsFuture::from(directory.get_file_handle_with_options(&name, &options)).await else {
                return None;
            };
            let file: FileSystemFileHandle = file.unchecked_into();
            // Refused while another worker holds this name.
            if let Ok(handle) = JsFuture::from(file.create_sync_access_handle()).await {
                let handle: FileSystemSyncAccessHandle = handle.unchecked_into();
                handle.truncate_with_f64(0.0).ok()?;
                return Some(Scratch { handle });
            }
        }
        None
    }

    /// Inflates a member of `size` bytes through `fill` and explores it with `explore`
    /// ([`offload::explore::Spill`]): an ELF library from what the host reader reads of it, kept
    /// in memory as it passes ([`sparse::keep`]), and anything else (or a library whose reads
    /// could not all be kept) from the scratch file. `None` when the file could not take it (a
    /// full disk, a quota), and the member is to be inflated into memory instead.
    pub(crate) fn spill(
        &self,
        size: u64,
        fill: &mut SpillFill<'_>,
        explore: &mut SpillExplore<'_>,
    ) -> Option<offload::Result<()>> {
        self.handle.truncate_with_f64(0.0).ok()?;
        let mut writer = self.writer();
        let filled = match sparse::keep(size, fill, &mut |chunk| writer.take(chunk)) {
            Err(e) => return Some(Err(e)),
            Ok(Keeping::Kept(kept)) => {
                let input = &kept;
                explore(Window::whole(&input));
                return Some(Ok(()));
            }
            Ok(Keeping::Elsewhere(size)) => Ok(size),
            Ok(Keeping::Missed) => fill(&mut |chunk: &[u8]| writer.take(chunk)),
        };
        self.explore_written(writer, filled, explore)
    }

    fn writer(&self) -> Writer<'_> {
        Writer { handle: &self.handle, at: 0, pending: Vec::with_capacity(WRITE_BLOCK), failed: false }
    }

    /// Explores what `writer` wrote of a member whose inflating ended as `filled` says.
    fn explore_written(
        &self,
        mut writer: Writer<'_>,
        filled: offload::Result<u64>,
        explore: &mut SpillExplore<'_>,
    ) -> Option<offload::Result<()>> {
        writer.write_pending();
        if writer.failed {
            return None;
        }
        let size = match filled {
            Ok(size) => size,
            Err(e) => return Some(Err(e)),
        };
        if writer.at != size || self.handle.flush().is_err() {
            return None;
        }
        let cache = ReadCache::new(ScratchReader { handle: &self.handle, pos: 0, len: size });
        let input = &cache;
        explore(Window::whole(&input));
        Some(Ok(()))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.handle.truncate_with_f64(0.0);
        self.handle.close();
    }
}

thread_local! {
    /// The scratch file this worker keeps for exploring members again ([`keep_for_later`]).
    static LATER: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/// Keeps `scratch` (when there is one) for exploring members again, or opens one if none is
/// kept: a package with a member of [`SPILL_OVER`] bytes or more has been explored.
pub(crate) fn keep_for_later(scratch: Option<Scratch>) {
    if LATER.with(|l| l.borrow().is_some()) {
        return;
    }
    match scratch {
        Some(scratch) => LATER.with(|l| *l.borrow_mut() = Some(scratch)),
        None => wasm_bindgen_futures::spawn_local(async {
            if let Some(scratch) = Scratch::open().await {
                LATER.with(|l| {
                    l.borrow_mut().get_or_insert(scratch);
                });
            }
        }),
    }
}

/// `f` with the scratch file kept for later, if there is one yet.
pub(crate) fn with_later<T>(f: impl FnOnce(Option<&Scratch>) -> T) -> T {
    LATER.with(|l| f(l.borrow().as_ref()))
}

/// Whether `member` is one a scratch file would take: deflated, and inflating to
/// [`SPILL_OVER`] bytes or more.
pub(crate) fn wanted(member: &ShareMember) -> bool {
    member.compression == Compression::Deflate && member.size >= SPILL_OVER
}

/// The explorer's [`offload::explore::Hooks::spill`]: into `scratch` where there is one
/// ([`Scratch::spill`]); where the browser gives the page none, an ELF library is still kept by
/// what is read of it, and anything else is inflated into memory.
pub(crate) fn spill_hook(
    scratch: Option<&Scratch>,
) -> impl Fn(u64, &mut SpillFill<'_>, &mut SpillExplore<'_>) -> Option<offload::Result<()>> + '_ {
    move |size, fill, explore| match scratch {
        Some(scratch) => scratch.spill(size, fill, explore),
        None => spill_in_memory(size, fill, explore),
    }
}

/// [`spill_hook`] without a scratch file: a member that is not an ELF file is gathered in
/// memory as it comes (in the one pass), as the explorer would have inflated it; `None` for an
/// ELF library whose reads could not all be kept, which the explorer then inflates into memory.
fn spill_in_memory(size: u64, fill: &mut SpillFill<'_>, explore: &mut SpillExplore<'_>) -> Option<offload::Result<()>> {
    let mut whole = Vec::new();
    let mut gather = |chunk: &[u8]| {
        if (whole.len() + chunk.len()) as u64 <= size {
            whole.extend_from_slice(chunk);
        }
    };
    match sparse::keep(size, fill, &mut gather) {
        Err(e) => Some(Err(e)),
        Ok(Keeping::Kept(kept)) => {
            let input = &kept;
            explore(Window::whole(&input));
            Some(Ok(()))
        }
        Ok(Keeping::Elsewhere(produced)) if produced == whole.len() as u64 => {
            let input = &whole[..];
            explore(Window::whole(&input));
            Some(Ok(()))
        }
        Ok(Keeping::Elsewhere(_) | Keeping::Missed) => None,
    }
}

/// The origin's private directory, where this engine gives workers synchronous access to it.
async fn private_directory() -> Option<FileSystemDirectoryHandle> {
    // Looked up rather than called blindly: an engine without synchronous handles would throw.
    let class = js_sys::Reflect::get(&js_sys::global(), &"FileSystemFileHandle".into()).ok()?;
    let prototype = js_sys::Reflect::get(&class, &"prototype".into()).ok()?;
    if !scratch_names::has_function(&prototype, "createSyncAccessHandle") {
        return None;
    }
    scratch_names::private_directory().await
}

/// Inflated bytes on their way into the scratch file, gathered into blocks.
struct Writer<'a> {
    handle: &'a FileSystemSyncAccessHandle,
    at: u64,
    pending: Vec<u8>,
    failed: bool,
}

impl Writer<'_> {
    fn take(&mut self, chunk: &[u8]) {
        if self.failed {
            return;
        }
        self.pending.extend_from_slice(chunk);
        if self.pending.len() >= WRITE_BLOCK {
            self.write_pending();
        }
    }

    fn write_pending(&mut self) {
        if self.failed || self.pending.is_empty() {
            return;
        }
        let options = FileSystemReadWriteOptions::new();
        options.set_at(self.at as f64);
        match self.handle.write_with_u8_array_and_options(&self.pending, &options) {
            Ok(written) if written as usize == self.pending.len() => {
                self.at += self.pending.len() as u64;
                self.pending.clear();
            }
            _ => self.failed = true,
        }
    }
}

/// The scratch file read on demand, for `object::ReadCache`.
struct ScratchReader<'a> {
    handle: &'a FileSystemSyncAccessHandle,
    pos: u64,
    len: u64,
}

impl ReadCacheOps for ScratchReader<'_> {
    fn len(&mut self) -> Result<u64, ()> {
        Ok(self.len)
    }

    fn seek(&mut self, pos: u64) -> Result<u64, ()> {
        self.pos = pos;
        Ok(pos)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let options = FileSystemReadWriteOptions::new();
        options.set_at(self.pos as f64);
        let n = self.handle.read_with_u8_array_and_options(buf, &options).map_err(|_| ())? as usize;
        self.pos += n as u64;
        Ok(n)
    }

    fn read_exact(&mut self, mut buf: &mut [u8]) -> Result<(), ()> {
        while !buf.is_empty() {
            match self.read(buf)? {
                0 => return Err(()),
                n => buf = &mut buf[n..],
            }
        }
        Ok(())
    }
}
