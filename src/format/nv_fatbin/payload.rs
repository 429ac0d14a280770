//! Compressed fatbin payloads: LZ4 (one raw block, `lz4_flex`) and zstd (one frame, the core's
//! [`crate::codec`]), always within an output limit.
//!
//! The declared uncompressed size is never trusted for an allocation: above `limit` it is refused
//! before decoding, and for LZ4 it must also be within what the compressed bytes can expand to
//! (an LZ4 block grows at most 255 times, plus a few bytes), so a tiny entry declaring gigabytes
//! fails at once. zstd output grows with the data produced and stops past the declared size.

use super::{Compression, Entry};
use crate::codec::{self, Method};
use crate::error::{Error, Result};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

const CONTEXT: &str = "NVIDIA fatbin payload";

/// The most bytes `n` bytes of an LZ4 block can decompress to.
pub fn lz4_bound(n: u64) -> u64 {
    n.saturating_mul(255).saturating_add(16)
}

/// Decompresses `stored` (compressed with `method`) to exactly `expected` bytes, refusing more
/// than `limit`. Errors are at offset 0 of the stored data.
pub fn decompress(method: Compression, stored: &[u8], expected: u64, limit: u64) -> Result<Vec<u8>> {
    if expected > limit {
        return Err(Error::new(
            56,
            "NVIDIA fatbin entry uncompressed size",
            format!("at most {limit} bytes (--max-decompressed)"),
            format!("{expected} bytes"),
        ));
    }
    match method {
        Compression::None => Ok(stored.to_vec()),
        Compression::Zstd => codec::decompress(Method::Zstd, stored, expected, limit),
        Compression::Lz4 => {
            if expected > lz4_bound(stored.len() as u64) {
                return Err(Error::new(
                    56,
                    "NVIDIA fatbin entry uncompressed size",
                    format!(
                        "at most {} bytes, the most {} bytes of LZ4 can expand to",
                        lz4_bound(stored.len() as u64),
                        stored.len()
                    ),
                    format!("{expected} bytes"),
                ));
            }
            let mut out = vec![0u8; expected as usize];
            let n = lz4_flex::block::decompress_into(stored, &mut out)
                .map_err(|e| Error::new(0, CONTEXT, "a valid LZ4 block", format!("{e}")))?;
            if n as u64 != expected {
                return Err(Error::new(
                    0,
                    CONTEXT,
                    format!("LZ4 data that expands to {expected} bytes, the declared uncompressed size"),
                    format!("{n} bytes"),
                ));
            }
            Ok(out)
        }
    }
}

/// Compresses `data` with `method` (`None` gives it back).
pub fn compress(method: Compression, data: &[u8]) -> Result<Vec<u8>> {
    match method {
        Compression::None => Ok(data.to_vec()),
        Compression::Lz4 => Ok(lz4_flex::block::compress(data)),
        Compression::Zstd => {
            if !cfg!(feature = "zstd") {
                return Err(Error::new(0, CONTEXT, "a build with zstd", "a build without the zstd feature"));
            }
            codec::compress(Method::Zstd, None, data)
        }
    }
}

/// An entry's data, decompressed when it is compressed (within `limit`). Errors are at offsets
/// from the entry's start: a declared size that is refused at its field, a damaged or lying
/// stream at the payload's start (the message says where in the stream decoding stopped).
pub fn entry_data(entry: &Entry, limit: u64) -> Result<Vec<u8>> {
    let method = entry.compression();
    if method == Compression::None {
        return Ok(entry.payload.to_vec());
    }
    decompress(method, entry.stored(), entry.uncompressed_size, limit).map_err(|e| {
        if e.offset == 56 && e.context == "NVIDIA fatbin entry uncompressed size" {
            return e;
        }
        Error::new(
            u64::from(entry.header_size),
            CONTEXT,
            e.expected,
            format!("{} (at byte {} of the {} data: {})", e.found, e.offset, method.name(), e.context),
        )
    })
}
