//! Downloads as they cross the worker boundary: the page asks for bytes (a span, a tar of
//! [`TarItem`]s, a device archive), the worker explores them again before they may be saved,
//! and a download that does not pass says so with one [`Refusal`], which the page shows as it
//! is.

use offload::tree::Span;
use serde::{Deserialize, Serialize};

/// One member of the tar of every device image: the image's bytes, its name in the tar, and
/// how many error diagnostics its source had (the check refuses one that reads back worse).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TarItem {
    pub span: Span,
    pub name: String,
    pub source_errors: u32,
}

/// Why a download is not offered: a sentence, and the errors its bytes read back with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub reason: String,
    pub errors: Vec<String>,
}

impl From<String> for Refusal {
    /// A refusal that is only a reason (the bytes could not even be read or written).
    fn from(reason: String) -> Self {
        Refusal { reason, errors: Vec::new() }
    }
}
