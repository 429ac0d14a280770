//! The user's settings: the limits the explorer works within for files opened from now on.
//!
//! Four of the core's [`Options`] can be set — the largest decompressed size of one compressed
//! bundle, the deepest nesting explored, the most entries shown under one container, and
//! whether every compressed bundle is decompressed and its hash checked — starting from the
//! core's own defaults. Shared because the page sends them with every file it opens, edits and
//! downloads, and the worker explores within them ([`Settings::options`]); how the page shows,
//! checks and stores them is the page's (`crate::page::settings`).

use offload::explore::Options;
use serde::{Deserialize, Serialize};

/// Bytes in a MiB: the decompressed-size limit is set in MiB.
pub const MIB: u64 = 1 << 20;

/// The largest decompressed-size limit: a worker's WebAssembly memory holds at most 4 GiB, so a
/// larger limit could never be used anyway.
pub const MAX_DECOMPRESSED_MIB: u32 = 4096;
/// The deepest nesting that can be set. Each level is a few nested calls in the worker, on a
/// 1 MiB stack; real files nest fewer than ten levels, and a hostile file nests as deep as the
/// limit lets it.
pub const MAX_DEPTH: u32 = 32;
/// The most entries under one container that can be set: beyond this the views themselves
/// slow down, and no real file comes near it.
pub const MAX_ENTRIES: u32 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Largest decompressed size of one compressed bundle, in MiB.
    pub max_decompressed_mib: u32,
    /// Deepest nesting of containers explored.
    pub max_depth: u32,
    /// Decompress and check the hash of every compressed bundle, however large (otherwise
    /// bundles larger than the core's `full_decompress_up_to` are listed from their header).
    pub verify_all: bool,
    /// Most entries shown under one container (bundle entries, archive members, binaries).
    pub max_entries: u32,
}

impl Default for Settings {
    /// The core's defaults.
    fn default() -> Self {
        let core = Options::default();
        Settings {
            max_decompressed_mib: u32::try_from(core.max_decompressed / MIB).unwrap_or(MAX_DECOMPRESSED_MIB),
            max_depth: core.max_depth,
            verify_all: core.verify_all,
            max_entries: u32::try_from(core.max_entries).unwrap_or(MAX_ENTRIES),
        }
    }
}

impl Settings {
    /// The core's options for exploring with these settings (the rest are the core's defaults).
    pub fn options(&self) -> Options {
        Options {
            max_decompressed: u64::from(self.max_decompressed_mib) * MIB,
            max_depth: self.max_depth,
            verify_all: self.verify_all,
            max_entries: self.max_entries as usize,
            ..Options::default()
        }
    }
}
