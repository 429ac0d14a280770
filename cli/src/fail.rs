//! How the CLI fails: one line naming the file, the byte offset, what was expected and what was
//! found, and exit code 1.

use std::fmt;
use std::path::Path;

#[derive(Debug)]
pub struct Failure {
    pub message: String,
}

pub type Outcome<T> = Result<T, Failure>;

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Failure { message: message.into() }
    }

    /// A format error in `path`.
    pub fn format(path: &Path, e: offload::Error) -> Self {
        Failure::new(format!("{}: {e}", path.display()))
    }

    pub fn io(path: &Path, action: &str, e: std::io::Error) -> Self {
        Failure::new(format!("{}: cannot {action}: {e}", path.display()))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Attaches the file name to a core error.
pub trait InFile<T> {
    fn in_file(self, path: &Path) -> Outcome<T>;
}

impl<T> InFile<T> for offload::Result<T> {
    fn in_file(self, path: &Path) -> Outcome<T> {
        self.map_err(|e| Failure::format(path, e))
    }
}
