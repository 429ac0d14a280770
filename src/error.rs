//! Errors as values: every error says where (byte offset in its byte space), what structure
//! was being read, what was expected and what was found.

use alloc::string::String;
use core::fmt;

/// A failure to read or write a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Byte offset, in the byte space being read, where the problem is.
    pub offset: u64,
    /// The structure being read, for example "compressed bundle header".
    pub context: &'static str,
    /// What a valid input has there.
    pub expected: String,
    /// What this input has there.
    pub found: String,
}

impl Error {
    pub fn new(offset: u64, context: &'static str, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error { offset, context, expected: expected.into(), found: found.into() }
    }

    /// The same error seen from an enclosing byte range that starts at `base`.
    pub fn shifted(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {} ({}): expected {}, found {}", self.offset, self.context, self.expected, self.found)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;
