//! How the CLI fails: one line naming the file, the byte offset, what was expected and what was
//! found, and exit code 1.

use std::fmt;
use std::path::Path;

#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// The byte offset the message names, when it is about a place in a file (in the byte
    /// space the error was found in: the file's, or a decompressed container's).
    pub offset: Option<u64>,
}

pub type Outcome<T> = Result<T, Failure>;

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Failure { message: message.into(), offset: None }
    }

    /// A format error in `path`.
    pub fn format(path: &Path, e: offload::Error) -> Self {
        Failure { offset: Some(e.offset), ..Failure::new(format!("{}: {e}", path.display())) }
    }

    /// The first error diagnostic of a tree read from the file shown as `shown`: a command
    /// prints everything it could read, then fails with this so that scripts notice.
    pub fn in_tree(shown: &str, tree: &offload::tree::Tree) -> Option<Self> {
        let (_, d) = tree.errors().into_iter().next()?;
        Some(Failure { offset: d.span.map(|s| s.offset), ..Failure::new(format!("{shown}: {}", d.message)) })
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
