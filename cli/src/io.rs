//! File input and output for the CLI: lazily read inputs (only the parts a command needs are
//! read) and outputs written through a temporary file and a rename, so that a failed or
//! interrupted command never leaves a half-written file, and an input is never overwritten
//! unless the user names it as the output on purpose.

use crate::fail::{Failure, Outcome};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An input file read on demand, in the ranges asked for.
pub type LazyFile = object::ReadCache<File>;

pub fn open_lazy(path: &Path) -> Outcome<LazyFile> {
    let file = File::open(path).map_err(|e| Failure::io(path, "open", e))?;
    let meta = file.metadata().map_err(|e| Failure::io(path, "open", e))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(Failure::new(format!("{}: cannot open: {what}", path.display())));
    }
    Ok(object::ReadCache::new(file))
}

/// Reads a whole file.
pub fn read_all(path: &Path) -> Outcome<Vec<u8>> {
    std::fs::read(path).map_err(|e| Failure::io(path, "read", e))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Outcome<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.offload-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all().ok();
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
