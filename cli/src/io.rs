//! File input and output for the CLI: lazily read inputs (only the parts a command needs are
//! read) and outputs written through a temporary file and a rename, so that a failed or
//! interrupted command never leaves a half-written file, and an input is never overwritten
//! unless the user says so (`--overwrite-input`).

use crate::fail::{Failure, Outcome};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// The files this run has read, canonicalized, so that no output lands on one of them.
static INPUTS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Set by `--overwrite-input`.
static OVERWRITE_INPUT: AtomicBool = AtomicBool::new(false);

pub fn allow_overwriting_inputs(allow: bool) {
    OVERWRITE_INPUT.store(allow, Ordering::Relaxed);
}

fn note_input(path: &Path) {
    if let (Ok(canonical), Ok(mut inputs)) = (std::fs::canonicalize(path), INPUTS.lock()) {
        inputs.push(canonical);
    }
}

fn is_input(path: &Path) -> bool {
    let Ok(canonical) = std::fs::canonicalize(path) else { return false };
    INPUTS.lock().map(|inputs| inputs.contains(&canonical)).unwrap_or(false)
}

/// An input file read on demand, in the ranges asked for.
pub type LazyFile = object::ReadCache<InputFile>;

/// A command's input: a file on disk, or one over HTTP(S) read by range requests.
pub enum InputFile {
    Local(File),
    Remote(crate::remote::Cursor),
}

impl std::io::Read for InputFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            InputFile::Local(f) => f.read(buf),
            InputFile::Remote(r) => r.read(buf),
        }
    }
}

impl std::io::Seek for InputFile {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        match self {
            InputFile::Local(f) => f.seek(pos),
            InputFile::Remote(r) => r.seek(pos),
        }
    }
}

/// The URL a command's file argument is, if it is one (`http://`, `https://`).
pub fn url_of(path: &Path) -> Option<&str> {
    path.to_str().filter(|text| crate::remote::is_url(text))
}

pub fn open_lazy(path: &Path) -> Outcome<LazyFile> {
    if let Some(url) = url_of(path) {
        let remote = crate::remote::Remote::open(url)?;
        return Ok(object::ReadCache::new(InputFile::Remote(crate::remote::Cursor::new(remote))));
    }
    let file = File::open(path).map_err(|e| Failure::io(path, "open", e))?;
    note_input(path);
    let meta = file.metadata().map_err(|e| Failure::io(path, "open", e))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(Failure::new(format!("{}: cannot open: {what}", path.display())));
    }
    Ok(object::ReadCache::new(InputFile::Local(file)))
}

/// A file read at any offset into bytes of their own (`pread`, or range requests for a URL),
/// from any thread: what the explorer reads a package's members with
/// ([`offload::explore::Hooks::read_owned`]).
pub enum OwnedReader {
    Local { file: File, len: u64 },
    Remote(crate::remote::Remote),
}

impl OwnedReader {
    /// The file at `path` (a URL this run has opened), or `None` when it cannot be opened (the
    /// explorer then reads through the input it was given).
    pub fn open(path: &Path) -> Option<OwnedReader> {
        if let Some(url) = url_of(path) {
            return crate::remote::Remote::opened(url).map(OwnedReader::Remote);
        }
        let file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        Some(OwnedReader::Local { file, len })
    }

    /// The `size` bytes at `offset`, or `None` when they are not all in the file.
    pub fn read(&self, offset: u64, size: u64) -> Option<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let (file, len) = match self {
            OwnedReader::Local { file, len } => (file, *len),
            OwnedReader::Remote(remote) => return remote.read_owned(offset, size),
        };
        if offset.checked_add(size)? > len {
            return None;
        }
        let mut bytes = vec![0; usize::try_from(size).ok()?];
        file.read_exact_at(&mut bytes, offset).ok()?;
        Some(bytes)
    }
}

/// Inflates a large package member and explores it without holding it whole
/// ([`offload::explore::Hooks::spill`]): an ELF library by what the host reader reads of it,
/// kept in memory as it passes ([`offload::explore::sparse`]); anything else (or a library whose
/// reads could not all be kept) from an unlinked temporary file in `$TMPDIR`, read back on
/// demand. `None` when that file cannot be made; the member is then inflated into memory.
pub fn spill_to_temporary_file(
    size: u64,
    fill: &mut offload::explore::SpillFill<'_>,
    explore: &mut offload::explore::SpillExplore<'_>,
) -> Option<offload::Result<()>> {
    use offload::explore::sparse::{self, Keeping};
    let mut file = crate::temporary::unlinked_file()?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 20, &mut file);
    let mut written = Ok(());
    let mut write = |chunk: &[u8]| {
        if written.is_ok() {
            written = writer.write_all(chunk);
        }
    };
    let filled = match sparse::keep(size, fill, &mut write) {
        Err(e) => return Some(Err(e)),
        Ok(Keeping::Kept(kept)) => {
            let input = &kept;
            explore(offload::util::window::Window::whole(&input));
            return Some(Ok(()));
        }
        Ok(Keeping::Elsewhere(size)) => Ok(size),
        Ok(Keeping::Missed) => fill(&mut write),
    };
    let flushed = written.and_then(|()| writer.flush());
    drop(writer);
    let size = match (filled, flushed) {
        (Err(e), _) => return Some(Err(e)),
        (Ok(_), Err(e)) => {
            return Some(Err(offload::Error::new(0, "temporary file", "the member written", e.to_string())))
        }
        (Ok(size), Ok(())) => size,
    };
    let cache = object::ReadCache::new(file);
    let input = &cache;
    let window = offload::util::window::Window::whole(&input);
    if object::ReadRef::len(window) != Ok(size) {
        return Some(Err(offload::Error::new(0, "temporary file", format!("{size} bytes"), "a file of another size")));
    }
    explore(window);
    Some(Ok(()))
}

/// Reads a whole file.
pub fn read_all(path: &Path) -> Outcome<Vec<u8>> {
    if let Some(url) = url_of(path) {
        let remote = crate::remote::Remote::open(url)?;
        return remote.read_at(0, remote.len()).map_err(Failure::new);
    }
    let bytes = std::fs::read(path).map_err(|e| Failure::io(path, "read", e))?;
    note_input(path);
    Ok(bytes)
}

/// The size of the input file at `path` when it is a regular file (whose bytes can then be copied
/// by the kernel), or `None` for anything else (a pipe, a device, a URL), which must be read whole.
pub fn input_size(path: &Path) -> Outcome<Option<u64>> {
    if url_of(path).is_some() {
        return Ok(None);
    }
    let meta = std::fs::metadata(path).map_err(|e| Failure::io(path, "read", e))?;
    note_input(path);
    Ok(meta.is_file().then_some(meta.len()))
}

/// Opens an input file for reading.
pub fn open_input(path: &Path) -> Outcome<File> {
    let file = File::open(path).map_err(|e| Failure::io(path, "read", e))?;
    note_input(path);
    Ok(file)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Outcome<()> {
    let mut file = AtomicFile::create(path)?;
    file.write(bytes)?;
    file.commit()
}

/// An output being written: the bytes go to a temporary file next to `path` (same directory,
/// so the rename cannot cross file systems), which becomes `path` only on [`AtomicFile::commit`].
/// Dropped without a commit (an error, a hash that does not match), the temporary file is
/// removed: a failed command never leaves a file that looks valid.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    /// The rename replaces one of the command's inputs (`--overwrite-input`).
    replaces: bool,
}

impl AtomicFile {
    /// Creates the temporary file, refusing an output that is one of the command's inputs
    /// unless `--overwrite-input` was given.
    pub fn create(path: &Path) -> Outcome<AtomicFile> {
        let replaces = is_input(path);
        if replaces && !OVERWRITE_INPUT.load(Ordering::Relaxed) {
            return Err(Failure::new(format!(
                "{}: is also an input of this command; refusing to overwrite it (write elsewhere, or pass --overwrite-input)",
                path.display()
            )));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
        // One run may write the same name twice (an output given twice): each temporary file
        // gets its own number.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.offload-tmp-{}-{n}", std::process::id()));
        let file = File::create(&tmp).map_err(|e| Failure::io(path, "write", e))?;
        Ok(AtomicFile { path: path.to_path_buf(), tmp, file: Some(file), replaces })
    }

    /// The path the file will have once committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes` to the temporary file.
    pub fn write(&mut self, bytes: &[u8]) -> Outcome<()> {
        let Some(file) = self.file.as_mut() else {
            return Err(Failure::new(format!("{}: cannot write: already committed", self.path.display())));
        };
        file.write_all(bytes).map_err(|e| Failure::io(&self.path, "write", e))
    }

    /// The open temporary file, for copies done by the kernel (`std::io::copy`).
    pub fn file(&mut self) -> Option<&mut File> {
        self.file.as_mut()
    }

    /// Renames the temporary file to its path. Forcing the bytes to disk costs seconds for
    /// large outputs, and LLVM's tools never do it; we do it only where the rename replaces one
    /// of the command's inputs, whose old contents a power loss could otherwise take with the
    /// new ones.
    pub fn commit(mut self) -> Outcome<()> {
        let Some(file) = self.file.take() else { return Ok(()) };
        if self.replaces {
            file.sync_all().ok();
        }
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Failure::io(&self.path, "write", e))?;
        // Renamed: nothing left for Drop to remove.
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.file.take();
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The file name a user sees for a path.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
