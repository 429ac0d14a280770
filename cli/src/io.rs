//! File input and output for the CLI: lazily read inputs (only the parts a command needs are
//! read) and outputs written through a temporary file and a rename, so that a failed or
//! interrupted command never leaves a half-written file, and an input is never overwritten
//! unless the user says so (`--overwrite-input`).

use crate::fail::{Failure, Outcome};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
pub type LazyFile = object::ReadCache<File>;

pub fn open_lazy(path: &Path) -> Outcome<LazyFile> {
    let file = File::open(path).map_err(|e| Failure::io(path, "open", e))?;
    note_input(path);
    let meta = file.metadata().map_err(|e| Failure::io(path, "open", e))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(Failure::new(format!("{}: cannot open: {what}", path.display())));
    }
    Ok(object::ReadCache::new(file))
}

/// Reads a whole file.
pub fn read_all(path: &Path) -> Outcome<Vec<u8>> {
    let bytes = std::fs::read(path).map_err(|e| Failure::io(path, "read", e))?;
    note_input(path);
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Outcome<()> {
    if is_input(path) && !OVERWRITE_INPUT.load(Ordering::Relaxed) {
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
    let tmp = dir.join(format!(".{name}.offload-tmp-{}", std::process::id()));
    // Forcing the bytes to disk costs seconds for large outputs, and LLVM's tools never do it;
    // we do it only where the rename replaces one of the command's inputs (--overwrite-input),
    // whose old contents a power loss could otherwise take with the new ones.
    let replaces = is_input(path);
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        if replaces {
            f.sync_all().ok();
        }
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Failure::io(path, "write", e));
    }
    Ok(())
}

/// The file name a user sees for a path.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
