//! Compression methods with output limits: zlib and zstd (the methods of compressed offload
//! bundles), raw deflate and xz (package members and streams), bounded decompression, cheap
//! prefix decoding, and the MD5 hashes compressed bundles carry. One file per method:
//! `zlib` (miniz_oxide), `zstd` (libzstd with the `zstd-c` feature — the CLI, and the page's
//! workers, compiled to wasm32 —, else ruzstd),
//! `xz` (lzma-rust2), and `hash` (MD5, streamed and truncated as LLVM stores it).
//!
//! # Methods
//!
//! | value | method | stream format                              | built in with feature            |
//! |------:|--------|--------------------------------------------|----------------------------------|
//! | 0     | zlib   | RFC 1950 (zlib header, deflate, Adler-32)  | `zlib` (miniz_oxide)             |
//! | 1     | zstd   | RFC 8878 frames (skippable frames allowed) | `zstd` (ruzstd), `zstd-c` (libzstd) |
//!
//! The values are LLVM's `llvm::compression::Format`, which the bundler writes as the method.
//!
//! # Levels
//!
//! Levels follow LLVM's `--compression-level` / `OFFLOAD_BUNDLER_COMPRESSION_LEVEL`. The level is
//! not recorded in the container, so any mapping gives output every reader accepts:
//!
//! | method | requested level            | level used                                          |
//! |--------|----------------------------|-----------------------------------------------------|
//! | zlib   | none, or negative (zlib's `-1` = default) | 6, LLVM's and zlib's default             |
//! | zlib   | 0 ..= 9                    | the same (0 stores without compressing)             |
//! | zlib   | above 9                    | 9, zlib's maximum                                   |
//! | zstd   | any, with `zstd-c`         | libzstd at that level (3 when none), long-distance matching, as clang-offload-bundler |
//! | zstd   | any, ruzstd only           | ruzstd's only matcher, close to zstd level 1        |
//!
//! ruzstd implements a single compression strategy, so where libzstd is not built in (the core
//! alone, `--no-default-features` builds) zstd output is larger than what clang-offload-bundler
//! writes, but it decodes the same.
//!
//! # Bounds
//!
//! Decompression never trusts a declared size. Output is produced in chunks of at most
//! [`CHUNK`] bytes and counted; a stream that produces more than its budget is an error as soon as
//! that is known, after at most a budget's worth plus two chunks of decoding work, so a tiny
//! stream that expands to gigabytes fails fast. Output buffers grow with the data actually
//! produced, never beyond the budget. zstd keeps its window of recent output, which is at most
//! what has been produced so far.

use crate::error::{Error, Result};
use alloc::format;
use alloc::vec::Vec;
use core::fmt;
use md5::{Digest as _, Md5};

mod hash;
#[cfg(test)]
mod tests;
mod xz;
mod zlib;
mod zstd;

pub use hash::{
    decompress_hashed, decompressed_md5, hashing_beside, md5, truncated_digest, truncated_md5, Md5Stream, StreamDigest,
};

/// Size of the chunks in which decompressed output is produced and handed on.
pub const CHUNK: usize = 128 * 1024;

/// A compression method, numbered as LLVM writes it in a compressed bundle header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u16)]
pub enum Method {
    Zlib = 0,
    Zstd = 1,
}

impl Method {
    pub const ALL: [Method; 2] = [Method::Zlib, Method::Zstd];

    /// The method with LLVM's number `value`.
    pub fn from_u16(value: u16) -> Option<Method> {
        match value {
            0 => Some(Method::Zlib),
            1 => Some(Method::Zstd),
            _ => None,
        }
    }

    pub fn as_u16(self) -> u16 {
        self as u16
    }

    /// `"zlib"` or `"zstd"`, as LLVM prints them.
    pub fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }

    /// The method named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// Whether this build can compress and decompress the method.
    pub fn is_built_in(self) -> bool {
        match self {
            Method::Zlib => cfg!(feature = "zlib"),
            Method::Zstd => cfg!(feature = "zstd"),
        }
    }

    /// The level clang-offload-bundler uses when none is given: zstd 3, zlib 6.
    pub fn default_level(self) -> i32 {
        match self {
            Method::Zlib => 6,
            Method::Zstd => 3,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The zlib level (0 to 9) used for an LLVM-style requested level; see the module table.
pub fn zlib_level(level: Option<i32>) -> u8 {
    match level {
        None => 6,
        Some(l) if l < 0 => 6,
        Some(l) => l.min(9) as u8,
    }
}

/// Compresses `data` as one zlib stream or one zstd frame.
pub fn compress(method: Method, level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
    match method {
        Method::Zlib => zlib::compress(level, data),
        Method::Zstd => zstd::compress(level, data),
    }
}

/// Decompresses `data`, which must expand to exactly `expected_size` bytes. Fails without
/// decoding when `expected_size` exceeds `limit`, and as soon as the stream produces more than
/// `expected_size` bytes; never holds more than `expected_size` bytes of output.
pub fn decompress(method: Method, data: &[u8], expected_size: u64, limit: u64) -> Result<Vec<u8>> {
    let budget = checked_budget(expected_size, limit)?;
    let mut out = Vec::with_capacity(first_reservation(expected_size, data.len()));
    let produced =
        run(method, data, budget, Overflow::Fail, &mut |chunk| push_bounded(&mut out, chunk, budget as usize))?;
    check_complete(produced, expected_size, data.len())?;
    Ok(out)
}

/// The first `n` bytes of the decompressed data, or all of it when it is shorter. Decoding stops
/// once `n` bytes are known: the rest of the stream is not decoded, and not checked either.
pub fn decompress_prefix(method: Method, data: &[u8], n: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    run(method, data, n as u64, Overflow::Stop, &mut |chunk| push_bounded(&mut out, chunk, n))?;
    Ok(out)
}

/// Decompresses `data` chunk by chunk (each at most [`CHUNK`] bytes), handing each chunk to
/// `sink` and keeping none; fails as soon as more than `limit` bytes come out. Returns how many
/// bytes came out. For progress reports and for work on payloads too large to hold.
pub fn decompress_chunks(method: Method, data: &[u8], limit: u64, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    run(method, data, limit, Overflow::Fail, sink)
}

/// Decompresses `data`, whose size is not declared, into at most `limit` bytes: an error as
/// soon as more come out. For package streams (a `.tar.zst`, a conda member), whose frames may
/// leave their size out.
pub fn decompress_unsized(method: Method, data: &[u8], limit: u64) -> Result<Vec<u8>> {
    let bound = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    run(method, data, limit, Overflow::Fail, &mut |chunk| push_bounded(&mut out, chunk, bound))?;
    Ok(out)
}

/// Inflates one raw deflate stream (RFC 1951: a zip member, the body of a gzip member), handing
/// its output to `sink` in chunks; an error as soon as more than `limit` bytes come out. Returns
/// how many input bytes the stream took (a gzip trailer follows them) and how many came out.
pub fn inflate_raw_chunks(data: &[u8], limit: u64, sink: &mut dyn FnMut(&[u8])) -> Result<(usize, u64)> {
    let mut produced = 0u64;
    let used = raw_deflate(data, limit, Overflow::Fail, &mut |chunk| {
        produced += chunk.len() as u64;
        sink(chunk)
    })?;
    Ok((used, produced))
}

/// Inflates one raw deflate stream that must come out as exactly `size` bytes (a zip member's
/// declared size, at most `limit`): a stream that would expand past it fails as soon as it does.
pub fn inflate_raw(data: &[u8], size: u64, limit: u64) -> Result<Vec<u8>> {
    let budget = checked_budget(size, limit)?;
    let mut out = Vec::with_capacity(first_reservation(size, data.len()));
    raw_deflate(data, budget, Overflow::Fail, &mut |chunk| push_bounded(&mut out, chunk, budget as usize))?;
    check_complete(out.len() as u64, size, data.len())?;
    Ok(out)
}

/// [`inflate_raw`] on a stream of `stored_size` bytes that `read(offset, len)` reads a piece
/// at a time ([`READ_CHUNK`] bytes at most, from the stream's start), so that the stored bytes
/// are never held whole: a package member read from a file.
pub fn inflate_raw_read(
    read: &dyn Fn(u64, u64) -> Option<Vec<u8>>,
    stored_size: u64,
    size: u64,
    limit: u64,
) -> Result<Vec<u8>> {
    let budget = checked_budget(size, limit)?;
    // Reserved once: doubling up to a 1 GiB library would hold 1.5 times it while copying, and a
    // wasm memory never gives back what it grew to.
    let stored = usize::try_from(stored_size).unwrap_or(usize::MAX);
    let mut plain = Vec::with_capacity(first_reservation(size, stored));
    inflate_raw_read_chunks(read, stored_size, size, limit, &mut |chunk| {
        push_bounded(&mut plain, chunk, budget as usize)
    })?;
    Ok(plain)
}

/// [`inflate_raw_read`] handing what comes out to `sink` a chunk at a time instead of holding
/// it: a member written to a file rather than memory. The same checks: at most `size` bytes
/// (and `limit`), and exactly `size` in the end.
#[cfg(feature = "zlib")]
pub fn inflate_raw_read_chunks(
    read: &dyn Fn(u64, u64) -> Option<Vec<u8>>,
    stored_size: u64,
    size: u64,
    limit: u64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<u64> {
    let budget = checked_budget(size, limit)?;
    let mut out = Output { produced: 0, budget, overflow: Overflow::Fail, sink };
    let mut pull = |chunk: &mut [u8], at: u64| {
        let n = (chunk.len() as u64).min(stored_size.saturating_sub(at));
        if n == 0 {
            return Ok(0);
        }
        match read(at, n) {
            Some(bytes) if bytes.len() as u64 == n => {
                chunk[..n as usize].copy_from_slice(&bytes);
                Ok(n as usize)
            }
            _ => Err(Error::new(at, "deflate stream", format!("{n} readable stored bytes"), "a read that failed")),
        }
    };
    let chunk = (READ_CHUNK as u64).min(stored_size.max(1)) as usize;
    zlib::inflate_pulled(&mut pull, chunk, true, &mut out)?;
    check_complete(out.produced, size, stored_size as usize)?;
    Ok(out.produced)
}

#[cfg(not(feature = "zlib"))]
pub fn inflate_raw_read_chunks(
    _read: &dyn Fn(u64, u64) -> Option<Vec<u8>>,
    _stored_size: u64,
    _size: u64,
    _limit: u64,
    _sink: &mut dyn FnMut(&[u8]),
) -> Result<u64> {
    Err(not_built_in(Method::Zlib))
}

/// How many stored bytes one raw deflate stream takes, its bytes pulled by `pull` (which fills
/// the buffer it is given from the stream's offset it is told, with as many bytes as it has:
/// at least one, or none at the end of the input), inflated with the output dropped and held
/// to at most `limit` bytes: where a zip member whose local header leaves its sizes to a data
/// descriptor ends, found as the member arrives.
#[cfg(feature = "zlib")]
pub fn raw_deflate_length(pull: &mut dyn FnMut(&mut [u8], u64) -> Result<usize>, limit: u64) -> Result<u64> {
    let mut out = Output { produced: 0, budget: limit, overflow: Overflow::Fail, sink: &mut |_| {} };
    zlib::inflate_pulled(pull, READ_CHUNK, true, &mut out)
}

#[cfg(not(feature = "zlib"))]
pub fn raw_deflate_length(_pull: &mut dyn FnMut(&mut [u8], u64) -> Result<usize>, _limit: u64) -> Result<u64> {
    Err(not_built_in(Method::Zlib))
}

#[cfg(all(test, feature = "zlib"))]
mod length_tests {
    /// A stream pulled a few bytes at a time (as a download arrives) is measured to its end,
    /// whatever follows it; a stream cut short is an error.
    #[test]
    fn a_deflate_stream_is_measured_as_it_arrives() {
        let plain: alloc::vec::Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let stream = miniz_oxide::deflate::compress_to_vec(&plain, 6);
        let mut bytes = stream.clone();
        bytes.extend_from_slice(b"PK\x07\x08 and more");
        let mut pull = |buf: &mut [u8], at: u64| {
            let rest = bytes.get(at as usize..).unwrap_or_default();
            let n = rest.len().min(buf.len()).min(977);
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        };
        assert_eq!(super::raw_deflate_length(&mut pull, 1 << 30).unwrap(), stream.len() as u64);
        let cut = &stream[..stream.len() / 2];
        let mut short = |buf: &mut [u8], at: u64| {
            let rest = cut.get(at as usize..).unwrap_or_default();
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        };
        assert!(super::raw_deflate_length(&mut short, 1 << 30).is_err());
        assert!(super::raw_deflate_length(&mut pull, 1000).is_err(), "held to the limit");
    }
}

/// The first `n` bytes of a raw deflate stream (or all of it when shorter): enough to tell what a
/// zip member holds without inflating it.
pub fn inflate_raw_prefix(data: &[u8], n: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    raw_deflate(data, n as u64, Overflow::Stop, &mut |chunk| push_bounded(&mut out, chunk, n))?;
    Ok(out)
}

#[cfg(feature = "zlib")]
fn raw_deflate(data: &[u8], budget: u64, overflow: Overflow, sink: &mut dyn FnMut(&[u8])) -> Result<usize> {
    let mut out = Output { produced: 0, budget, overflow, sink };
    zlib::inflate_stream(data, true, &mut out)
}

#[cfg(not(feature = "zlib"))]
fn raw_deflate(_data: &[u8], _budget: u64, _overflow: Overflow, _sink: &mut dyn FnMut(&[u8])) -> Result<usize> {
    Err(not_built_in(Method::Zlib))
}

/// Decompresses every xz stream of `data` (`.deb` and `.rpm` payloads), handing the output to
/// `sink` in chunks; an error as soon as more than `limit` bytes come out. Returns how many did.
pub fn unxz_chunks(data: &[u8], limit: u64, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    xz::decode(data, limit, Overflow::Fail, sink)
}

/// The first `n` bytes of what an xz stream holds.
pub fn unxz_prefix(data: &[u8], n: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    xz::decode(data, n as u64, Overflow::Stop, &mut |chunk| push_bounded(&mut out, chunk, n))?;
    Ok(out)
}

/// How many compressed bytes [`decompress_read`] and [`inflate_raw_read`] read at a time.
pub const READ_CHUNK: usize = 1 << 20;

/// Decompresses a stream read from `input`, for callers that hold neither the compressed nor
/// the decompressed bytes (the CLI on large files): input is read [`READ_CHUNK`] bytes at a time,
/// output goes to `sink` in chunks of at most [`CHUNK`] bytes and keeping none, counted against
/// `limit` as [`decompress_chunks`] counts it. Returns how many bytes came out.
///
/// A failure is reported, but its offset is only how far reading had got (decoders read ahead
/// of where a stream goes wrong): [`decompress_chunks`] on the same bytes in memory says exactly
/// where and why, which is what a caller should show. With `zstd` but not `zstd-c`, ruzstd
/// decodes zstd from the stream read whole (output is still handed on chunk by chunk).
#[cfg(feature = "std")]
pub fn decompress_read(
    method: Method,
    input: &mut dyn std::io::Read,
    limit: u64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<u64> {
    let mut out = Output { produced: 0, budget: limit, overflow: Overflow::Fail, sink };
    match method {
        #[cfg(feature = "zlib")]
        Method::Zlib => zlib::decode_read(input, &mut out).map(|_| out.produced),
        #[cfg(feature = "zstd")]
        Method::Zstd => zstd::decode_read(input, &mut out).map(|_| out.produced),
        #[allow(unreachable_patterns)]
        _ => Err(not_built_in(method)),
    }
}

/// Reads up to `buf.len()` bytes (fewer only at the end), retrying interrupted reads; `at` is
/// how much was read before, for the error.
#[cfg(feature = "std")]
fn read_some(input: &mut dyn std::io::Read, buf: &mut [u8], at: u64, context: &'static str) -> Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(Error::new(
                    at + filled as u64,
                    context,
                    "readable compressed data",
                    format!("a read error: {e}"),
                ))
            }
        }
    }
    Ok(filled)
}

/// What to do when a stream has more output than its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Overflow {
    /// It is an error: the budget is the exact size the stream must have (or a limit).
    Fail,
    /// Stop there quietly: only a prefix is wanted.
    Stop,
}

/// The output budget for a declared size, refused up front when it is beyond the limit or
/// cannot be held in memory on this platform.
fn checked_budget(expected_size: u64, limit: u64) -> Result<u64> {
    if expected_size > limit {
        return Err(Error::new(
            0,
            "decompression",
            format!("an uncompressed size within the limit of {limit} bytes"),
            format!("a declared uncompressed size of {expected_size} bytes"),
        ));
    }
    if usize::try_from(expected_size).is_err() {
        return Err(Error::new(
            0,
            "decompression",
            "an uncompressed size that fits in this platform's memory",
            format!("a declared uncompressed size of {expected_size} bytes"),
        ));
    }
    Ok(expected_size)
}

/// A stream that ended before its declared size is refused: LLVM would silently accept it, but
/// its hash cannot match and its size field is wrong.
fn check_complete(produced: u64, expected_size: u64, input_len: usize) -> Result<()> {
    if produced == expected_size {
        return Ok(());
    }
    Err(Error::new(
        input_len as u64,
        "decompression",
        format!("{expected_size} decompressed bytes (the declared uncompressed size)"),
        format!("a stream that ends after {produced} bytes"),
    ))
}

/// How much output to reserve before decoding: the declared size when the input could
/// plausibly expand to it, so that a large payload is written in place rather than copied at
/// every doubling; a few bytes declaring gigabytes get only what they could plausibly hold, and
/// grow from there as their output actually comes.
fn first_reservation(expected_size: u64, input_len: usize) -> usize {
    const PLAUSIBLE_RATIO: u64 = 64;
    let plausible = (input_len as u64).saturating_mul(PLAUSIBLE_RATIO).max(1 << 20);
    usize::try_from(expected_size.min(plausible)).unwrap_or(0)
}

/// Appends `chunk`, growing the buffer geometrically but never past `bound`, so a declared size
/// is never allocated before the data is really there.
fn push_bounded(out: &mut Vec<u8>, chunk: &[u8], bound: usize) {
    let needed = out.len() + chunk.len();
    if needed > out.capacity() {
        let target = out.capacity().saturating_mul(2).min(bound).max(needed);
        out.reserve_exact(target - out.len());
    }
    out.extend_from_slice(chunk);
}

fn not_built_in(method: Method) -> Error {
    Error::new(
        0,
        "compression method",
        format!("a build of offload with the `{}` feature", method.name()),
        format!("{} compression, which this build does not include", method.name()),
    )
}

/// Decompresses with `method`, handing output chunks to `sink`, never more than `budget` bytes.
/// Returns the number of bytes handed over.
#[cfg_attr(not(any(feature = "zlib", feature = "zstd")), allow(unused_variables))]
fn run(method: Method, data: &[u8], budget: u64, overflow: Overflow, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    #[cfg(any(feature = "zlib", feature = "zstd"))]
    let mut out = Output { produced: 0, budget, overflow, sink };
    match method {
        #[cfg(feature = "zlib")]
        Method::Zlib => zlib::decode(data, &mut out).map(|_| out.produced),
        #[cfg(feature = "zstd")]
        Method::Zstd => zstd::decode(data, &mut out).map(|_| out.produced),
        #[allow(unreachable_patterns)]
        _ => Err(not_built_in(method)),
    }
}

/// Whether decoding should go on after some output was handed over.
#[cfg(any(feature = "zlib", feature = "zstd", feature = "xz"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    /// The prefix budget is full.
    Done,
}

/// Counts output against the budget on its way to the sink.
#[cfg(any(feature = "zlib", feature = "zstd", feature = "xz"))]
struct Output<'s> {
    produced: u64,
    budget: u64,
    overflow: Overflow,
    sink: &'s mut dyn FnMut(&[u8]),
}

#[cfg(any(feature = "zlib", feature = "zstd", feature = "xz"))]
impl Output<'_> {
    /// Hands `chunk` on. `at` is the input position, for the error.
    fn emit(&mut self, chunk: &[u8], at: u64, context: &'static str) -> Result<Flow> {
        let room = self.budget - self.produced;
        if chunk.len() as u64 > room {
            if self.overflow == Overflow::Fail {
                return Err(self.too_much(at, context));
            }
            (self.sink)(&chunk[..room as usize]);
            self.produced = self.budget;
            return Ok(Flow::Done);
        }
        if !chunk.is_empty() {
            (self.sink)(chunk);
        }
        self.produced += chunk.len() as u64;
        Ok(self.flow())
    }

    fn flow(&self) -> Flow {
        if self.overflow == Overflow::Stop && self.produced >= self.budget {
            Flow::Done
        } else {
            Flow::Continue
        }
    }

    fn too_much(&self, at: u64, context: &'static str) -> Error {
        Error::new(
            at,
            context,
            format!("a stream that expands to at most {} bytes", self.budget),
            "a stream that expands to more",
        )
    }
}

#[cfg(any(feature = "zlib", feature = "zstd", feature = "xz"))]
fn corrupt(at: u64, context: &'static str, what: impl fmt::Display) -> Error {
    Error::new(at, context, format!("a valid {context}"), format!("{what}"))
}

#[cfg(any(feature = "zlib", feature = "zstd", feature = "xz"))]
fn truncated(at: u64, context: &'static str) -> Error {
    Error::new(at, context, format!("the rest of the {context}"), "the end of the compressed data")
}
