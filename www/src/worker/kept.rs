//! What the worker keeps of the file it explored, and the reads from it: the file (a `Blob`,
//! read by slices through `FileReaderSync`, which a worker may block on, or a file on another
//! site, read by range requests: `worker::remote`), and the explored tree, which holds the bytes
//! of decompressed spaces that only the worker has.

use crate::wire::js::describe_error;
use crate::wire::messages::{Loading, RemoteFile, Report, Source};
use crate::wire::settings::Settings;
use crate::worker::outbox::report;
use crate::worker::remote;
use crate::worker::scratch;
use object::read::ReadCache;
use object::read::ReadCacheOps;
use offload::explore::{member_spaces_again_hooked, Companion, Hooks, Options, Recovered, Spill, KEEP_AGAIN};
use offload::tree::{Node, Span, Tree};
use std::cell::RefCell;
use web_sys::FileReaderSync;

/// Largest single read from the file: big reads are split so that progress can be reported.
const READ_CHUNK: u64 = 16 << 20;
/// Progress is reported after at least this many more bytes were read.
const PROGRESS_STEP: u64 = 4 << 20;

/// What the worker keeps after exploring: the tree (with the bytes of decompressed spaces) and
/// the file, to answer byte requests, edits and downloads.
pub(crate) struct Explored {
    pub(crate) tree: Tree,
    pub(crate) file: Source,
    /// The file's name.
    pub(crate) name: String,
    /// The limits it was explored with: an edit made with other settings explores it again,
    /// and downloads are explored again within the same ones.
    pub(crate) settings: Settings,
    /// The files explored with it that it refers to (name, bytes): `.kpack` archives.
    pub(crate) companions: Vec<(String, Vec<u8>)>,
    /// The compressed bundle decompressed on demand in this tree (`explore_decompressing`).
    pub(crate) decompressed: Option<Span>,
    /// The options it was explored with: a package's are explored with their bytes dropped
    /// ([`Options::keep_bytes`] off), and what is shown of them is found again with these.
    pub(crate) options: Options,
    /// The spaces of the package member whose bytes were last found again (one member's at a
    /// time: memory stays bounded by the largest member).
    pub(crate) found_again: RefCell<Option<Recovered>>,
}

/// Takes the companion files out of what is kept, for the version explored next to keep.
pub(crate) fn take_companions(kept: &RefCell<Option<Explored>>) -> Vec<(String, Vec<u8>)> {
    kept.borrow_mut().as_mut().map(|k| std::mem::take(&mut k.companions)).unwrap_or_default()
}

impl Explored {
    /// What was explored, with these options, to keep.
    pub(crate) fn new(tree: Tree, file: Source, name: String, settings: Settings, options: Options) -> Explored {
        Explored {
            tree,
            file,
            name,
            settings,
            companions: Vec::new(),
            decompressed: None,
            options,
            found_again: RefCell::new(None),
        }
    }

    /// `f` of the bytes of a decompressed space: held in the tree, or found again from the file
    /// when the tree dropped them (a package's members); `None` when neither has them (a space
    /// only partly decompressed, or whose bytes were never kept).
    fn with_space<T>(&self, space: u32, f: impl FnOnce(&[u8]) -> T) -> Result<Option<T>, String> {
        let info = self.tree.spaces.get(space as usize).ok_or_else(|| format!("there is no byte space {space}"))?;
        if let Some(data) = info.data.as_deref() {
            return Ok(Some(f(data)));
        }
        if self.options.keep_bytes {
            return Ok(None);
        }
        let held = |found: &Recovered| found.iter().position(|(s, _)| *s == space);
        if self.found_again.borrow().as_ref().and_then(held).is_none() {
            // The member held before is let go first: one member's bytes at a time.
            *self.found_again.borrow_mut() = None;
            let cache = ReadCache::new(SourceReader::new(self.file.clone()));
            let companions = Companion::all(&self.companions);
            // Read and inflated as when explored: stored bytes a block at a time, a large member
            // into a scratch file, so that only what is asked for comes into memory.
            let read = owned_reads(&self.file);
            let found = scratch::with_later(|scratch| {
                let spill = Some(scratch::spill_hook(scratch));
                let spill = spill.as_ref().map(|s| s as Spill<'_>);
                let hooks = Hooks { read_owned: Some(&read), spill, ..Hooks::default() };
                let (tree, options, asked) = (&self.tree, &self.options, self.decompressed);
                member_spaces_again_hooked(&cache, tree, space, options, &companions, asked, hooks, KEEP_AGAIN)
            })?;
            *self.found_again.borrow_mut() = Some(found);
        }
        let found = self.found_again.borrow();
        Ok(found.as_ref().and_then(|all| held(all).map(|i| f(&all[i].1))))
    }

    /// Up to `len` bytes of `space` from `offset`, fewer where the space ends or was only
    /// partly decompressed: what the hex view shows.
    pub(crate) fn read(&self, space: u32, offset: u64, len: u32) -> Result<Vec<u8>, String> {
        if space == 0 {
            return SourceReader::new(self.file.clone()).read_at(offset, len as u64);
        }
        let part = |data: &[u8]| {
            let start = offset.min(data.len() as u64) as usize;
            let end = offset.saturating_add(len as u64).min(data.len() as u64) as usize;
            data[start..end].to_vec()
        };
        Ok(self.with_space(space, part)?.unwrap_or_default())
    }

    /// Exactly the bytes of `span`, of the file or of a decompressed space: what a download
    /// holds.
    pub(crate) fn span_bytes(&self, span: Span) -> Result<Vec<u8>, String> {
        if span.space == 0 {
            let bytes = SourceReader::new(self.file.clone()).read_at(span.offset, span.size)?;
            if bytes.len() as u64 != span.size {
                let (size, offset, read) = (span.size, span.offset, bytes.len());
                return Err(format!("expected {size} bytes at offset {offset} of the file, read {read}"));
            }
            return Ok(bytes);
        }
        let range = usize::try_from(span.offset).ok().zip(usize::try_from(span.end()).ok());
        let take = |data: &[u8]| {
            range.and_then(|(start, end)| data.get(start..end)).map(<[u8]>::to_vec).ok_or_else(|| {
                let (start, end, space, held) = (span.offset, span.end(), span.space, data.len());
                format!("expected bytes {start}..{end} of byte space {space}, which holds {held} bytes")
            })
        };
        self.with_space(span.space, take)?.ok_or_else(|| format!("byte space {} was not decompressed", span.space))?
    }

    /// A node's bytes: from the file for space 0, from the explored tree for decompressed
    /// spaces.
    pub(crate) fn node_bytes(&self, node: &Node) -> Result<Vec<u8>, String> {
        if node.span.space == 0 {
            return SourceReader::new(self.file.clone()).read_at(node.span.offset, node.span.size);
        }
        let not_at_hand = || format!("the bytes of '{}' are not at hand", node.label);
        self.span_bytes(node.span).map_err(|_| not_at_hand())
    }
}

/// A file read on demand, for `object::ReadCache`: a `Blob` through `FileReaderSync`, a remote
/// file through `worker::remote`'s block cache; reports how much was read as it goes.
///
/// Small reads of a `Blob` are served from a block of [`BLOCK`] bytes read at once: each `FileReaderSync`
/// read costs far more than the bytes it brings (a slice, a reader, a buffer, a copy into the
/// module), and a package's listing reads one small local header per member, one after the
/// other: a wheel of 13,000 members made 13,000 reads, 30 s in all.
pub(crate) struct SourceReader {
    source: Source,
    pos: u64,
    read_so_far: u64,
    reported: u64,
    /// The block small reads were last served from: its offset in the file and its bytes.
    block: (u64, Vec<u8>),
}

/// Reads of at most this many bytes are served from a block ([`SourceReader`]).
const SMALL_READ: usize = 64 << 10;
/// How many bytes a block holds.
const BLOCK: u64 = 1 << 20;

impl SourceReader {
    pub(crate) fn new(source: Source) -> SourceReader {
        SourceReader { source, pos: 0, read_so_far: 0, reported: 0, block: (0, Vec::new()) }
    }

    /// The bytes `pos..pos + len` from the current block, reading a new one from `pos` when
    /// it does not hold them (fewer at the end of the file).
    fn held_bytes(&mut self, pos: u64, len: usize) -> Result<&[u8], String> {
        let held = |b: &(u64, Vec<u8>)| pos >= b.0 && pos + len as u64 <= b.0 + b.1.len() as u64;
        if !held(&self.block) {
            self.block = (pos, self.read_at(pos, BLOCK)?);
            self.count(self.block.1.len() as u64);
        }
        let start = (pos - self.block.0) as usize;
        let end = (start + len).min(self.block.1.len());
        Ok(&self.block.1[start.min(end)..end])
    }

    /// Counts `n` more bytes read, reporting progress every [`PROGRESS_STEP`] bytes.
    fn count(&mut self, n: u64) {
        self.read_so_far += n;
        if self.read_so_far - self.reported >= PROGRESS_STEP {
            self.reported = self.read_so_far;
            let fetched = matches!(self.source, Source::Remote(_)).then(remote::fetched);
            report(Report::Progress(Loading { fetched, ..Loading::at("reading and decompressing", self.read_so_far) }));
        }
    }

    /// The file on another site this reads by ranges, if it is one.
    pub(crate) fn remote(&self) -> Option<&RemoteFile> {
        match &self.source {
            Source::Remote(remote) => Some(remote),
            _ => None,
        }
    }

    /// Up to `len` bytes from `offset` (fewer at the end of the file).
    pub(crate) fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, String> {
        let blob = match &self.source {
            Source::Blob(blob) => blob,
            Source::Remote(file) => return remote::read_at(file, offset, len),
        };
        let end = offset.saturating_add(len).min(blob.size() as u64);
        let slice = blob.slice_with_f64_and_f64(offset as f64, end as f64).map_err(describe_error)?;
        let reader = FileReaderSync::new().map_err(describe_error)?;
        let buffer = reader.read_as_array_buffer(&slice).map_err(describe_error)?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }
}

impl ReadCacheOps for SourceReader {
    fn len(&mut self) -> Result<u64, ()> {
        Ok(self.source.size())
    }

    fn seek(&mut self, pos: u64) -> Result<u64, ()> {
        self.pos = pos;
        Ok(pos)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        // A remote file's small reads are served by its own cache, which fetches exactly what
        // is read (the bytes the CLI fetches), never a block around it.
        if buf.len() <= SMALL_READ && !matches!(self.source, Source::Remote(_)) {
            let bytes = self.held_bytes(self.pos, buf.len()).map_err(|_| ())?;
            let n = bytes.len();
            buf[..n].copy_from_slice(bytes);
            self.pos += n as u64;
            return Ok(n);
        }
        let want = (buf.len() as u64).min(READ_CHUNK);
        let bytes = self.read_at(self.pos, want).map_err(|_| ())?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        self.pos += bytes.len() as u64;
        self.count(bytes.len() as u64);
        Ok(bytes.len())
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

/// How a package's members are read from `file`: into bytes of their own, dropped once
/// inflated, rather than through the exploration's cache of slices, which keeps all it reads.
/// The core reads a member a piece at a time as it inflates it; the file is read in blocks of
/// [`OWNED_BLOCK`] bytes, the pieces served from the last one (a read of the file costs far
/// more than a copy).
pub(crate) fn owned_reads(file: &Source) -> impl Fn(u64, u64) -> Option<Vec<u8>> {
    let reader = SourceReader::new(file.clone());
    let reader_source = file.clone();
    let block: std::cell::RefCell<(u64, Vec<u8>)> = Default::default();
    move |offset, size| {
        // A remote file's reads are fetched as the core plans them, never a block around them.
        if let Source::Remote(remote) = &reader_source {
            return crate::worker::remote::read_owned(remote, offset, size).ok();
        }
        let mut block = block.borrow_mut();
        let inside = |b: &(u64, Vec<u8>)| offset >= b.0 && offset + size <= b.0 + b.1.len() as u64;
        if !inside(&block) {
            // Fewer bytes at the end of the file.
            *block = (offset, reader.read_at(offset, size.max(OWNED_BLOCK)).ok()?);
            if !inside(&block) {
                return None;
            }
        }
        let start = (offset - block.0) as usize;
        Some(block.1[start..start + size as usize].to_vec())
    }
}

/// How many bytes of the file [`owned_reads`] reads at a time.
const OWNED_BLOCK: u64 = 4 << 20;
