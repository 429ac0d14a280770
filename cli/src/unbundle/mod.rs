//! `offload unbundle` and `offload bundle --unbundle` (and `--list` with either): one
//! dispatcher for every spelling and every `--type`, answering as clang-offload-bundler does.
//!
//! - `--type=a`: a heterogeneous device archive, one device-specific archive per target
//!   ([`device_archive`]);
//! - a compressed bundle alone in its file: decoded as it is read, never held whole
//!   ([`streamed`]);
//! - anything else: read whole ([`whole`], which also holds the rules both paths share).

mod device_archive;
mod streamed;
mod whole;

use crate::bundler::{check_type, BundlerArgs};
use crate::fail::Outcome;
use crate::input::{open_input, Input};

/// Unbundles (or lists) the one input of `a`.
pub fn run(a: &BundlerArgs) -> Outcome<()> {
    check_type(&a.file_type)?;
    let path = a.single_input()?;
    if a.file_type == "a" {
        return device_archive::run(a, path);
    }
    match open_input(path)? {
        Input::Compressed(single) => streamed::run(a, path, single),
        Input::Other(raw) => whole::run(a, path, &raw),
    }
}
