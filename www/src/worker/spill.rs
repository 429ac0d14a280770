//! Large package members inflated into a file of the origin's private file system (OPFS)
//! instead of the worker's memory, and explored from there, read back by slices
//! ([`offload::explore::Hooks::spill`], as the CLI does with a temporary file): only what is
//! explored (headers, offload sections) comes back into memory, so a wheel's 965 MiB library
//! no longer grows the worker's memory by as much (a wasm memory never shrinks).
//!
//! A worker opens its file once, before its first exploration ([`prepare`]: opening is
//! asynchronous, exploring is not), and empties it after each member; a worker stopped while
//! it wrote leaves its file to the next worker that takes the same one, which empties it first. Where the browser has no
//! OPFS or refuses it (a private window, an insecure origin), members are inflated into memory
//! as before.

use object::read::{ReadCache, ReadCacheOps};
use offload::explore::{SpillExplore, SpillFill};
use offload::util::window::Window;
use offload::Error;
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetFileOptions, FileSystemReadWriteOptions,
    FileSystemSyncAccessHandle,
};

/// The names of the workers' files, numbered.
const PREFIX: &str = "offload-member-";
/// Workers that may hold a file at once, in every tab of the page.
const MAX_FILES: usize = 32;
/// What is written to the file at once: the inflater's chunks gathered.
const WRITE_BLOCK: usize = 4 << 20;
/// Reads up to this size are served from one block read ahead (parsers read headers a few
/// bytes at a time).
const SMALL_READ: usize = 64 << 10;
const READ_BLOCK: usize = 1 << 20;

thread_local! {
    /// This worker's file, once [`prepare`]d; `None` while it is in use or where there is none.
    static FILE: RefCell<Option<FileSystemSyncAccessHandle>> = const { RefCell::new(None) };
    static PREPARED: RefCell<bool> = const { RefCell::new(false) };
}

/// Opens this worker's file, once: before an exploration, which cannot wait for it.
pub(crate) async fn prepare() {
    if PREPARED.with(|p| std::mem::replace(&mut *p.borrow_mut(), true)) {
        return;
    }
    match open().await {
        Ok(handle) => FILE.with(|f| *f.borrow_mut() = Some(handle)),
        Err(why) => web_sys::console::info_1(
            &format!("large members are inflated into memory: no private file could be opened ({why:?})").into(),
        ),
    }
}

async fn open() -> Result<FileSystemSyncAccessHandle, JsValue> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().dyn_into()?;
    // Called on an engine without them, these would throw where no error is caught.
    let has = |on: &JsValue, name: &str| js_sys::Reflect::get(on, &name.into()).is_ok_and(|v| !v.is_undefined());
    let storage = js_sys::Reflect::get(&scope.navigator(), &"storage".into()).unwrap_or(JsValue::UNDEFINED);
    let handles = js_sys::Reflect::get(&js_sys::global(), &"FileSystemFileHandle".into())
        .and_then(|c| js_sys::Reflect::get(&c, &"prototype".into()))
        .unwrap_or(JsValue::UNDEFINED);
    if !has(&storage, "getDirectory") || !has(&handles, "createSyncAccessHandle") {
        return Err("this browser has no private file system for workers".into());
    }
    let root: FileSystemDirectoryHandle =
        JsFuture::from(scope.navigator().storage().get_directory()).await?.dyn_into()?;
    let options = FileSystemGetFileOptions::new();
    options.set_create(true);
    let mut last = JsValue::from_str("no file tried");
    // A file another worker (of this tab or another) has open refuses a second handle: the
    // first free one is taken, so the files are reused rather than left behind, one per worker
    // that ever ran at once.
    for n in 0..MAX_FILES {
        let file: FileSystemFileHandle =
            JsFuture::from(root.get_file_handle_with_options(&format!("{PREFIX}{n}"), &options)).await?.dyn_into()?;
        match JsFuture::from(file.create_sync_access_handle()).await {
            Ok(handle) => return handle.dyn_into(),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The spill hook: `fill`'s bytes written to this worker's file, then explored by `explore`
/// from there. `None` when the worker has no file (or it is in use): the member is inflated
/// into memory.
pub(crate) fn spill(fill: &mut SpillFill<'_>, explore: &mut SpillExplore<'_>) -> Option<offload::Result<()>> {
    let handle = FILE.with(|f| f.borrow_mut().take())?;
    let result = spill_into(&handle, fill, explore);
    // Emptied for the next member, and so that it takes no room on disk meanwhile.
    let _ = handle.truncate_with_f64(0.0);
    FILE.with(|f| *f.borrow_mut() = Some(handle));
    Some(result)
}

fn spill_into(
    handle: &FileSystemSyncAccessHandle,
    fill: &mut SpillFill<'_>,
    explore: &mut SpillExplore<'_>,
) -> offload::Result<()> {
    let failed = |what: &str, e: JsValue| Error::new(0, "the page's private file", what.to_string(), format!("{e:?}"));
    handle.truncate_with_f64(0.0).map_err(|e| failed("an emptied file", e))?;
    let mut writer = Writer { handle, block: Vec::with_capacity(WRITE_BLOCK), at: 0, error: None };
    let size = fill(&mut |chunk: &[u8]| writer.write(chunk))?;
    writer.flush();
    if let Some(e) = writer.error {
        return Err(failed("the member written", e));
    }
    if writer.at != size {
        return Err(Error::new(
            0,
            "the page's private file",
            format!("{size} bytes written"),
            format!("{}", writer.at),
        ));
    }
    // For whoever looks at the console (and the page's tests): where the member went.
    web_sys::console::info_1(&format!("a member of {size} bytes was inflated into a private file").into());
    let cache = ReadCache::new(FileReader { handle, size, pos: 0, block: RefCell::new((0, Vec::new())) });
    let input = &cache;
    explore(Window::whole(&input));
    Ok(())
}

/// Writes the inflater's chunks to the file a block at a time.
struct Writer<'h> {
    handle: &'h FileSystemSyncAccessHandle,
    block: Vec<u8>,
    /// Bytes written to the file so far.
    at: u64,
    error: Option<JsValue>,
}

impl Writer<'_> {
    fn write(&mut self, chunk: &[u8]) {
        self.block.extend_from_slice(chunk);
        if self.block.len() >= WRITE_BLOCK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.error.is_some() || self.block.is_empty() {
            self.block.clear();
            return;
        }
        let options = FileSystemReadWriteOptions::new();
        options.set_at(self.at as f64);
        match self.handle.write_with_u8_array_and_options(&self.block, &options) {
            Ok(n) if n as usize == self.block.len() => self.at += n as u64,
            Ok(n) => self.error = Some(format!("{n} of {} bytes written", self.block.len()).into()),
            Err(e) => self.error = Some(e),
        }
        self.block.clear();
    }
}

/// The file read back by slices, for `object::ReadCache`, which keeps what it reads.
struct FileReader<'h> {
    handle: &'h FileSystemSyncAccessHandle,
    size: u64,
    pos: u64,
    /// The last block read for small reads: where it starts, and its bytes.
    block: RefCell<(u64, Vec<u8>)>,
}

impl FileReader<'_> {
    fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<usize, ()> {
        let options = FileSystemReadWriteOptions::new();
        options.set_at(at as f64);
        self.handle.read_with_u8_array_and_options(buf, &options).map(|n| n as usize).map_err(|_| ())
    }

    /// A small read, from the block around `self.pos` (read first when it is not held).
    fn read_small(&self, buf: &mut [u8]) -> Result<usize, ()> {
        let mut block = self.block.borrow_mut();
        let inside = |b: &(u64, Vec<u8>)| self.pos >= b.0 && self.pos + buf.len() as u64 <= b.0 + b.1.len() as u64;
        if !inside(&block) {
            let len = (READ_BLOCK as u64).min(self.size.saturating_sub(self.pos)) as usize;
            let mut bytes = vec![0; len];
            let n = self.read_at(self.pos, &mut bytes)?;
            bytes.truncate(n);
            *block = (self.pos, bytes);
        }
        let start = (self.pos - block.0) as usize;
        let n = buf.len().min(block.1.len().saturating_sub(start));
        buf[..n].copy_from_slice(&block.1[start..start + n]);
        Ok(n)
    }
}

impl ReadCacheOps for FileReader<'_> {
    fn len(&mut self) -> Result<u64, ()> {
        Ok(self.size)
    }

    fn seek(&mut self, pos: u64) -> Result<u64, ()> {
        self.pos = pos;
        Ok(pos)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let n = if buf.len() <= SMALL_READ { self.read_small(buf)? } else { self.read_at(self.pos, buf)? };
        self.pos += n as u64;
        Ok(n)
    }

    fn read_exact(&mut self, mut buf: &mut [u8]) -> Result<(), ()> {
        while !buf.is_empty() {
            let n = self.read(buf)?;
            if n == 0 {
                return Err(());
            }
            buf = &mut buf[n..];
        }
        Ok(())
    }
}
