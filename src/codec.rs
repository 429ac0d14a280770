//! Compression methods of compressed offload bundles: zlib and zstd, bounded decompression,
//! cheap prefix decoding, streaming MD5, and LLVM's truncated MD5.
//!
//! # Methods
//!
//! | value | method | stream format                          | built in with feature |
//! |------:|--------|----------------------------------------|-----------------------|
//! | 0     | zlib   | RFC 1950 (zlib header, deflate, Adler-32) | `zlib` (miniz_oxide) |
//! | 1     | zstd   | RFC 8878 frames (skippable frames allowed) | `zstd` (ruzstd)      |
//!
//! The values are LLVM's `llvm::compression::Format`, which the bundler writes as the method.
//!
//! # Levels
//!
//! Levels follow LLVM's `--compression-level` / `OFFLOAD_BUNDLER_COMPRESSION_LEVEL`. The level is
//! not recorded in the container, so any mapping gives output every reader accepts:
//!
//! | method | requested level            | level used                                    |
//! |--------|----------------------------|-----------------------------------------------|
//! | zlib   | none, or negative (zlib's `-1` = default) | 6, LLVM's and zlib's default       |
//! | zlib   | 0 ..= 9                    | the same (0 stores without compressing)       |
//! | zlib   | above 9                    | 9, zlib's maximum                             |
//! | zstd   | any                        | ruzstd's only matcher, close to zstd level 1  |
//!
//! ruzstd implements a single compression strategy, so zstd output is larger than what
//! clang-offload-bundler writes (zstd level 3 with long-distance matching), but it decodes the same.
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
    let mut out = Vec::new();
    raw_deflate(data, budget, Overflow::Fail, &mut |chunk| push_bounded(&mut out, chunk, budget as usize))?;
    check_complete(out.len() as u64, size, data.len())?;
    Ok(out)
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

/// xz through `lzma-rust2` (pure Rust, no_std), feature `xz`.
mod xz {
    use super::*;

    /// The dictionary an xz block may ask for before it is refused: xz's preset 9 uses 64 MiB.
    #[cfg(feature = "xz")]
    const MEMORY_LIMIT_KIB: u32 = 256 << 10;

    #[cfg(feature = "xz")]
    pub(super) fn decode(data: &[u8], budget: u64, overflow: Overflow, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
        use lzma_rust2::{Read as _, XzReader};
        const CONTEXT: &str = "xz stream";
        let mut out = Output { produced: 0, budget, overflow, sink };
        let mut reader = XzReader::new_mem_limit(data, true, MEMORY_LIMIT_KIB);
        let mut buf = alloc::vec![0u8; CHUNK];
        while out.flow() == Flow::Continue {
            let at = (data.len() - reader.inner().len()) as u64;
            let n = reader.read(&mut buf).map_err(|e| corrupt(at, CONTEXT, format_args!("{e:?}")))?;
            if n == 0 {
                break;
            }
            if out.emit(&buf[..n], at, CONTEXT)? == Flow::Done {
                break;
            }
        }
        Ok(out.produced)
    }

    #[cfg(not(feature = "xz"))]
    pub(super) fn decode(_data: &[u8], _budget: u64, _overflow: Overflow, _sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
        Err(Error::new(
            0,
            "compression method",
            "a build of offload with the `xz` feature",
            "xz compression, which this build does not include: xz members are not decoded",
        ))
    }
}

/// How many compressed bytes [`decompress_read`] reads at a time.
#[cfg(feature = "std")]
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

/// MD5 of decompressed data, computed while decompressing in chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamDigest {
    /// Number of decompressed bytes.
    pub size: u64,
    pub md5: [u8; 16],
}

impl StreamDigest {
    /// The hash LLVM stores for these bytes; see [`truncated_md5`].
    pub fn truncated(&self) -> u64 {
        truncated_digest(&self.md5)
    }
}

/// MD5 of what `data` decompresses to, which must be exactly `expected_size` bytes (at most
/// `limit`). Memory stays small whatever the size: a chunk, and for zstd the stream's window.
pub fn decompressed_md5(method: Method, data: &[u8], expected_size: u64, limit: u64) -> Result<StreamDigest> {
    let budget = checked_budget(expected_size, limit)?;
    let (size, md5) = hashing_beside(|feed| run(method, data, budget, Overflow::Fail, feed));
    let size = size?;
    check_complete(size, expected_size, data.len())?;
    Ok(StreamDigest { size, md5 })
}

/// Decompresses `data` like [`decompress`] and hashes the output as it comes out, so that the
/// bytes are walked once: returns them with LLVM's truncated MD5 ([`truncated_md5`]).
/// `progress` hears how many bytes have come out after each chunk (for a progress bar).
pub fn decompress_hashed(
    method: Method,
    data: &[u8],
    expected_size: u64,
    limit: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<u8>, u64)> {
    let budget = checked_budget(expected_size, limit)?;
    let mut out = Vec::with_capacity(first_reservation(expected_size, data.len()));
    let (produced, md5) = hashing_beside(|feed| {
        run(method, data, budget, Overflow::Fail, &mut |chunk| {
            feed(chunk);
            push_bounded(&mut out, chunk, budget as usize);
            progress(out.len() as u64);
        })
    });
    check_complete(produced?, expected_size, data.len())?;
    Ok((out, truncated_digest(&md5)))
}

/// Runs `produce`, which hands the bytes it makes to the function it is given, and returns
/// what it returns with the MD5 digest of those bytes.
///
/// Natively with `std`, a second thread hashes while `produce` goes on: the bytes are copied
/// into a few reused [`CHUNK`]-sized buffers on their way to it, so the hash (MD5 is sequential,
/// about 0.35 s for 256 MiB here) costs little beyond the slower of the two. The thread is
/// joined before this returns. Without `std`, in the browser, or where no thread can be
/// started, the bytes are hashed as they come.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub fn hashing_beside<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    use std::sync::mpsc::{channel, sync_channel};
    /// Buffers in flight: enough to ride out either side's hiccups, 2 MiB in all.
    const IN_FLIGHT: usize = 16;
    std::thread::scope(|scope| {
        let (full, received) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, free) = channel::<Vec<u8>>();
        for _ in 0..IN_FLIGHT {
            let _ = give_back.send(Vec::with_capacity(CHUNK));
        }
        let started = std::thread::Builder::new().name("md5".into()).spawn_scoped(scope, move || {
            let mut md5 = Md5::new();
            for piece in received {
                md5.update(&piece);
                // The producing side stops taking buffers back only when it is done.
                let _ = give_back.send(piece);
            }
            <[u8; 16]>::from(md5.finalize())
        });
        let Ok(hasher) = started else {
            return hashing_inline(produce);
        };
        let mut piece = Vec::new();
        let result = produce(&mut |mut bytes: &[u8]| {
            while !bytes.is_empty() {
                if piece.capacity() == 0 {
                    // A buffer comes back for every one sent, so this waits only while all
                    // are queued; should the hasher be gone, a fresh one keeps things going
                    // (join reports why below).
                    piece = free.recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                    piece.clear();
                }
                // Sent as soon as it is full, so it has room for at least one byte.
                let n = (CHUNK - piece.len()).min(bytes.len());
                piece.extend_from_slice(&bytes[..n]);
                bytes = &bytes[n..];
                if piece.len() >= CHUNK {
                    let _ = full.send(core::mem::take(&mut piece));
                }
            }
        });
        if !piece.is_empty() {
            let _ = full.send(piece);
        }
        drop(full);
        let md5 = hasher.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (result, md5)
    })
}

/// [`hashing_beside`] where there are no threads: the bytes are hashed as they come.
#[cfg(not(all(feature = "std", not(target_arch = "wasm32"))))]
pub fn hashing_beside<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    hashing_inline(produce)
}

fn hashing_inline<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    let mut md5 = Md5::new();
    let result = produce(&mut |bytes| md5.update(bytes));
    (result, md5.finalize().into())
}

/// MD5 computed piece by piece, for callers that hash data as it arrives (on another thread,
/// say); [`Md5Stream::truncated`] is the hash LLVM stores.
#[derive(Clone, Default)]
pub struct Md5Stream(Md5);

impl Md5Stream {
    pub fn new() -> Self {
        Md5Stream(Md5::new())
    }

    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// LLVM's truncated MD5 of everything given so far ([`truncated_md5`]).
    pub fn truncated(self) -> u64 {
        truncated_digest(&self.0.finalize().into())
    }
}

/// The MD5 digest of `data`.
pub fn md5(data: &[u8]) -> [u8; 16] {
    Md5::digest(data).into()
}

/// The hash clang-offload-bundler stores in a compressed bundle: LLVM's `MD5Result::low()`, the
/// first 8 bytes of the MD5 digest read as a little-endian integer. Written back little-endian,
/// the stored bytes are exactly the first 8 bytes of the digest.
pub fn truncated_md5(data: &[u8]) -> u64 {
    truncated_digest(&md5(data))
}

/// LLVM's truncated MD5 ([`truncated_md5`]) from the whole digest.
pub fn truncated_digest(digest: &[u8; 16]) -> u64 {
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
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

/// Appends `chunk`, growing the buffer geometrically but never past `bound`, so a declared size
/// is never allocated before the data is really there.
/// How much output to reserve before decoding: the declared size when the input could
/// plausibly expand to it, so that a large payload is written in place rather than copied at
/// every doubling; a few bytes declaring gigabytes get only what they could plausibly hold, and
/// grow from there as their output actually comes.
fn first_reservation(expected_size: u64, input_len: usize) -> usize {
    const PLAUSIBLE_RATIO: u64 = 64;
    let plausible = (input_len as u64).saturating_mul(PLAUSIBLE_RATIO).max(1 << 20);
    usize::try_from(expected_size.min(plausible)).unwrap_or(0)
}

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

mod zlib {
    use super::*;

    #[cfg(feature = "zlib")]
    pub(super) fn compress(level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
        Ok(miniz_oxide::deflate::compress_to_vec_zlib(data, zlib_level(level)))
    }

    #[cfg(not(feature = "zlib"))]
    pub(super) fn compress(_level: Option<i32>, _data: &[u8]) -> Result<Vec<u8>> {
        Err(not_built_in(Method::Zlib))
    }

    /// Inflates one zlib stream into `out`, chunk by chunk. Bytes after the end of the stream are
    /// ignored, as zlib's `uncompress` (which LLVM uses) ignores them.
    #[cfg(feature = "zlib")]
    pub(super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
        inflate_stream(data, false, out).map(|_| ())
    }

    /// Inflates one zlib stream (`raw` false) or one raw deflate stream (`raw` true: zip and
    /// gzip members) into `out`; returns how many input bytes the stream took.
    #[cfg(feature = "zlib")]
    pub(super) fn inflate_stream(data: &[u8], raw: bool, out: &mut Output<'_>) -> Result<usize> {
        use miniz_oxide::inflate::stream::{inflate, InflateState};
        use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
        let context: &'static str = if raw { "deflate stream" } else { "zlib stream" };

        if out.flow() == Flow::Done {
            return Ok(0);
        }
        let format = if raw { DataFormat::Raw } else { DataFormat::Zlib };
        let mut state = InflateState::new_boxed(format);
        let mut buf = alloc::vec![0u8; CHUNK];
        let mut pos = 0usize;
        loop {
            let step = inflate(&mut state, &data[pos..], &mut buf, MZFlush::None);
            pos += step.bytes_consumed;
            if out.emit(&buf[..step.bytes_written], pos as u64, context)? == Flow::Done {
                return Ok(pos);
            }
            match step.status {
                Ok(MZStatus::StreamEnd) => return Ok(pos),
                Ok(_) if step.bytes_consumed == 0 && step.bytes_written == 0 => {
                    return Err(truncated(pos as u64, context))
                }
                Ok(_) => {}
                Err(MZError::Buf) => return Err(truncated(pos as u64, context)),
                Err(e) => return Err(corrupt(pos as u64, context, format_args!("corrupt data ({e:?})"))),
            }
        }
    }

    /// [`decode`] on a stream read [`READ_CHUNK`] bytes at a time. The end of the input before
    /// the end of the zlib stream is a truncated stream; bytes after it are not read.
    #[cfg(all(feature = "std", feature = "zlib"))]
    pub(super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
        use miniz_oxide::inflate::stream::{inflate, InflateState};
        use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
        const CONTEXT: &str = "zlib stream";

        let mut state = InflateState::new_boxed(DataFormat::Zlib);
        let mut chunk = alloc::vec![0u8; READ_CHUNK];
        let mut buf = alloc::vec![0u8; CHUNK];
        let mut read = 0u64;
        loop {
            let n = read_some(input, &mut chunk, read, CONTEXT)?;
            if n == 0 {
                return Err(truncated(read, CONTEXT));
            }
            let mut pos = 0usize;
            // Until this chunk is used up and the inflater has no more output waiting.
            loop {
                let step = inflate(&mut state, &chunk[pos..n], &mut buf, MZFlush::None);
                pos += step.bytes_consumed;
                let at = read + pos as u64;
                if out.emit(&buf[..step.bytes_written], at, CONTEXT)? == Flow::Done {
                    return Ok(());
                }
                match step.status {
                    Ok(MZStatus::StreamEnd) => return Ok(()),
                    // `Buf`: no progress possible with what it was given; see below.
                    Ok(_) | Err(MZError::Buf) => {}
                    Err(e) => return Err(corrupt(at, CONTEXT, format_args!("corrupt data ({e:?})"))),
                }
                // The chunk is used up and no output waits: the next chunk is needed (or its
                // absence says the stream is truncated).
                if pos == n && step.bytes_written < buf.len() {
                    break;
                }
                if step.bytes_consumed == 0 && step.bytes_written == 0 {
                    return Err(corrupt(at, CONTEXT, "a stream that makes no progress"));
                }
            }
            read += n as u64;
        }
    }
}

mod zstd {
    use super::*;

    /// ruzstd decodes from memory: the stream is read whole, then decoded chunk by chunk.
    #[cfg(all(feature = "std", feature = "zstd", not(feature = "zstd-c")))]
    pub(super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
        let mut data = Vec::new();
        input.read_to_end(&mut data).map_err(|e| {
            Error::new(data.len() as u64, "zstd stream", "readable compressed data", format!("a read error: {e}"))
        })?;
        decode(&data, out)
    }

    #[cfg(feature = "zstd-c")]
    pub(super) use libzstd::decode_read;

    /// libzstd at the requested level (3, zstd's and LLVM's default, when none), with
    /// long-distance matching as clang-offload-bundler uses it, on every core.
    #[cfg(feature = "zstd-c")]
    pub(super) fn compress(level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
        libzstd::compress(level.unwrap_or(3), data)
    }

    /// ruzstd implements one strategy (its `Fastest`); see the module table.
    #[cfg(all(feature = "zstd", not(feature = "zstd-c")))]
    pub(super) fn compress(_level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
        use ruzstd::encoding::{compress_to_vec, CompressionLevel};
        Ok(compress_to_vec(data, CompressionLevel::Fastest))
    }

    #[cfg(not(feature = "zstd"))]
    pub(super) fn compress(_level: Option<i32>, _data: &[u8]) -> Result<Vec<u8>> {
        Err(not_built_in(Method::Zstd))
    }

    #[cfg(all(feature = "zstd", not(feature = "zstd-c")))]
    pub(super) use decoding::decode;
    /// ruzstd's decoder stays built beside libzstd's, so the two are compared in the tests.
    #[cfg(all(test, feature = "zstd-c"))]
    pub(super) use decoding::decode as decode_ruzstd;
    #[cfg(feature = "zstd-c")]
    pub(super) use libzstd::decode;

    /// libzstd through the `zstd` crate (feature `zstd-c`): streaming decompression into
    /// [`CHUNK`]-sized pieces counted against the budget like ruzstd's, so the same bounds hold
    /// for output; libzstd's own window is capped by its default `WindowLogMax` (128 MiB).
    #[cfg(feature = "zstd-c")]
    mod libzstd {
        use super::*;
        use zstd_c::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

        const CONTEXT: &str = "zstd stream";

        /// Decodes with libzstd; where that fails, ruzstd decodes again, counting only, to say
        /// where and why in the same words and at the same offset as the pure-Rust build (libzstd
        /// reads ahead, so its own position is not where the stream went wrong).
        pub(in super::super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
            let Err(fast) = decode_fast(data, out) else { return Ok(()) };
            let mut discard = |_: &[u8]| {};
            let mut recount = Output { produced: 0, budget: out.budget, overflow: out.overflow, sink: &mut discard };
            match super::decoding::decode(data, &mut recount) {
                Err(precise) => Err(precise),
                Ok(()) => Err(fast),
            }
        }

        fn decode_fast(data: &[u8], out: &mut Output<'_>) -> Result<()> {
            let mut decoder = Decoder::new().map_err(|e| corrupt(0, CONTEXT, e))?;
            let mut buf = alloc::vec![0u8; CHUNK];
            let mut input = InBuffer::around(data);
            let mut frame_open = false;
            while out.flow() == Flow::Continue {
                if !frame_open && input.pos == data.len() {
                    return Ok(());
                }
                let mut output = OutBuffer::around(&mut buf[..]);
                let before = input.pos;
                let left = decoder.run(&mut input, &mut output).map_err(|e| corrupt(before as u64, CONTEXT, e))?;
                let written = output.pos();
                if out.emit(&buf[..written], input.pos as u64, CONTEXT)? == Flow::Done {
                    return Ok(());
                }
                // `left` is 0 exactly when a frame has just been completed and flushed.
                frame_open = left != 0;
                if frame_open && written == 0 && input.pos == before {
                    return Err(truncated(input.pos as u64, CONTEXT));
                }
            }
            Ok(())
        }

        /// libzstd on a stream read [`READ_CHUNK`] bytes at a time: frames back to back and
        /// skippable frames as [`decode_fast`] takes them; the end of the input inside a frame is
        /// a truncated stream.
        #[cfg(feature = "std")]
        pub(in super::super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
            let mut decoder = Decoder::new().map_err(|e| corrupt(0, CONTEXT, e))?;
            let mut chunk = alloc::vec![0u8; READ_CHUNK];
            let mut buf = alloc::vec![0u8; CHUNK];
            let mut read = 0u64;
            let mut frame_open = false;
            loop {
                let n = read_some(input, &mut chunk, read, CONTEXT)?;
                if n == 0 {
                    return if frame_open { Err(truncated(read, CONTEXT)) } else { Ok(()) };
                }
                let mut input = InBuffer::around(&chunk[..n]);
                // Until this chunk is used up and libzstd has nothing more to give from it (a
                // full output buffer may mean more is waiting).
                loop {
                    let mut output = OutBuffer::around(&mut buf[..]);
                    let before = input.pos;
                    let left =
                        decoder.run(&mut input, &mut output).map_err(|e| corrupt(read + before as u64, CONTEXT, e))?;
                    let written = output.pos();
                    if out.emit(&buf[..written], read + input.pos as u64, CONTEXT)? == Flow::Done {
                        return Ok(());
                    }
                    // libzstd may take the last bytes of a chunk into its own buffer and decode
                    // them only on the next call: the chunk is done once a call moves nothing.
                    if written == 0 && input.pos == before {
                        if input.pos == n {
                            break;
                        }
                        // With input and room it always moves; should it not, stop, not spin.
                        return Err(corrupt(read + before as u64, CONTEXT, "a decoder that makes no progress"));
                    }
                    // `left` is 0 exactly when a call has completed and flushed a frame (a call
                    // that moves nothing hints at the next frame's header instead).
                    frame_open = left != 0;
                }
                read += n as u64;
            }
        }

        pub(super) fn compress(level: i32, data: &[u8]) -> Result<Vec<u8>> {
            let fail = |e: std::io::Error| Error::new(0, "zstd compression", "libzstd to compress", e.to_string());
            let mut encoder = zstd_c::stream::Encoder::new(Vec::new(), level).map_err(fail)?;
            encoder.long_distance_matching(true).map_err(fail)?;
            // Threads where there are some (the CLI); the browser's workers compress on one.
            #[cfg(feature = "zstd-mt")]
            {
                let workers = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
                encoder.multithread(workers).map_err(fail)?;
            }
            encoder.include_contentsize(true).map_err(fail)?;
            encoder.set_pledged_src_size(Some(data.len() as u64)).map_err(fail)?;
            std::io::Write::write_all(&mut encoder, data).map_err(fail)?;
            encoder.finish().map_err(fail)
        }
    }

    #[cfg(feature = "zstd")]
    mod decoding {
        use super::*;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
        use ruzstd::io::Read;

        const CONTEXT: &str = "zstd stream";

        /// An empty raw block marked last, followed by room for a checksum: appended after the
        /// blocks already decoded, it ends the frame early so that what was decoded can be read.
        const END_OF_FRAME: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];

        /// Decodes every frame of `data` (skippable frames are skipped, as libzstd does) into
        /// `out`. Bytes that are not a frame are an error, as they are for libzstd.
        pub(in super::super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
            let mut input = data;
            let mut buf = alloc::vec![0u8; CHUNK];
            while !input.is_empty() && out.flow() == Flow::Continue {
                let frame_start = (data.len() - input.len()) as u64;
                // A fresh decoder for every frame: reusing one would reserve the whole declared
                // window up front, and the declared window is not to be trusted.
                let mut decoder = FrameDecoder::new();
                // Memory is bounded by the output budget, not by the window, so any window the
                // format allows is accepted, within what this platform can address.
                decoder.set_max_window_size(isize::MAX as u64);
                match decoder.init(&mut input) {
                    Ok(()) => {}
                    Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                        length, ..
                    })) => {
                        input = skip(input, length, data.len())?;
                        continue;
                    }
                    Err(e) => return Err(corrupt(frame_start, CONTEXT, e)),
                }
                let mut frame = Frame { decoder, input: &mut input, start: frame_start, decoded_at_least: 0 };
                frame.decode(out, &mut buf)?;
            }
            Ok(())
        }

        fn skip(input: &[u8], length: u32, total: usize) -> Result<&[u8]> {
            input.get(length as usize..).ok_or_else(|| truncated((total - input.len()) as u64, "zstd skippable frame"))
        }

        /// One frame being decoded.
        struct Frame<'i, 'd> {
            decoder: FrameDecoder,
            input: &'i mut &'d [u8],
            start: u64,
            /// A lower bound of the bytes this frame has decoded so far, including those the
            /// decoder still holds as its window and has not handed over.
            decoded_at_least: u64,
        }

        impl Frame<'_, '_> {
            fn position(&self) -> u64 {
                self.start + self.decoder.bytes_read_from_source()
            }

            fn decode(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<()> {
                let frame_base = out.produced;
                loop {
                    // Each call decodes whole blocks until at least `step` more bytes exist
                    // (blocks are at most 128 KiB), which gives a lower bound of the output
                    // even while the decoder keeps it as its window.
                    let step = self.step(out, frame_base);
                    let finished = self
                        .decoder
                        .decode_blocks(&mut *self.input, BlockDecodingStrategy::UptoBytes(step))
                        .map_err(|e| corrupt(self.position(), CONTEXT, e))?;
                    if !finished {
                        self.decoded_at_least = self.decoded_at_least.saturating_add(step as u64);
                    }
                    if self.drain(out, buf)? == Flow::Done || finished {
                        return Ok(());
                    }
                    let at_least = frame_base.saturating_add(self.decoded_at_least).max(out.produced);
                    if at_least >= out.budget && out.overflow == Overflow::Stop {
                        return self.end_early(out, buf);
                    }
                    if at_least > out.budget {
                        return Err(out.too_much(self.position(), CONTEXT));
                    }
                }
            }

            /// How much to decode next: a chunk, or for a prefix no more than is still wanted.
            fn step(&self, out: &Output<'_>, frame_base: u64) -> usize {
                if out.overflow == Overflow::Fail {
                    return CHUNK;
                }
                let have = frame_base.saturating_add(self.decoded_at_least).max(out.produced);
                out.budget.saturating_sub(have).clamp(1, CHUNK as u64) as usize
            }

            /// Hands over everything the decoder can release.
            fn drain(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<Flow> {
                loop {
                    let n = self.decoder.read(buf).map_err(|e| corrupt(self.position(), CONTEXT, e))?;
                    if n == 0 {
                        return Ok(Flow::Continue);
                    }
                    if out.emit(&buf[..n], self.position(), CONTEXT)? == Flow::Done {
                        return Ok(Flow::Done);
                    }
                }
            }

            /// Enough of a prefix is decoded: close the frame so the decoder releases the bytes
            /// it keeps as its window, and hand them over.
            fn end_early(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<()> {
                self.decoder
                    .decode_blocks(&END_OF_FRAME[..], BlockDecodingStrategy::All)
                    .map_err(|e| corrupt(self.position(), CONTEXT, e))?;
                self.drain(out, buf).map(|_| ())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn method_numbers_and_names_are_llvms() {
        assert_eq!(Method::Zlib as u16, 0);
        assert_eq!(Method::Zstd as u16, 1);
        assert_eq!(Method::from_u16(1), Some(Method::Zstd));
        assert_eq!(Method::from_u16(2), None);
        assert_eq!(Method::from_name("ZSTD"), Some(Method::Zstd));
        assert_eq!(Method::Zlib.to_string(), "zlib");
    }

    #[test]
    fn zlib_levels_map_like_llvm() {
        assert_eq!(zlib_level(None), 6);
        assert_eq!(zlib_level(Some(-1)), 6);
        assert_eq!(zlib_level(Some(0)), 0);
        assert_eq!(zlib_level(Some(9)), 9);
        assert_eq!(zlib_level(Some(22)), 9);
    }

    #[test]
    fn truncated_md5_is_first_eight_digest_bytes_little_endian() {
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e
        assert_eq!(truncated_md5(b""), 0x04b2_008f_d98c_1dd4);
        assert_eq!(truncated_md5(b"").to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04]);
    }

    #[test]
    fn hashing_beside_hashes_what_is_produced_in_pieces_of_any_size() {
        let data: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i * 7 + i / 251) as u8).collect();
        // Pieces around and across the hashing buffers' size, empty ones among them.
        let sizes = [0, 1, CHUNK - 1, 0, CHUNK + 1, 5, CHUNK, 2 * CHUNK];
        let (given, digest) = hashing_beside(|feed| {
            let mut at = 0;
            for n in sizes.iter().cycle() {
                let n = (*n).min(data.len() - at);
                feed(&data[at..at + n]);
                at += n;
                if at == data.len() {
                    break;
                }
            }
            at
        });
        assert_eq!(given, data.len());
        assert_eq!(digest, md5(&data));
        assert_eq!(hashing_beside(|_| ()).1, md5(b""));
    }

    #[cfg(all(feature = "zlib", feature = "zstd"))]
    mod with_codecs {
        use super::*;
        use alloc::vec;

        const GIB: u64 = 1 << 30;

        fn sample(n: usize) -> Vec<u8> {
            // Compressible but not trivial: a counter pattern with some variety.
            (0..n).map(|i| ((i / 7) as u8).wrapping_mul(31) ^ (i % 13) as u8).collect()
        }

        #[test]
        fn round_trips_and_prefixes() {
            for method in Method::ALL {
                for size in [0usize, 1, 1000, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
                    let data = sample(size);
                    let packed = compress(method, None, &data).unwrap();
                    let unpacked = decompress(method, &packed, size as u64, u64::MAX).unwrap();
                    assert_eq!(unpacked, data, "{method} {size}");
                    for n in [0usize, 1, 100, CHUNK, CHUNK + 5, size, size + 10] {
                        let prefix = decompress_prefix(method, &packed, n).unwrap();
                        assert_eq!(prefix, data[..n.min(size)], "{method} {size} prefix {n}");
                    }
                    let digest = decompressed_md5(method, &packed, size as u64, u64::MAX).unwrap();
                    assert_eq!(digest.md5, md5(&data));
                    assert_eq!(digest.truncated(), truncated_md5(&data));
                    assert_eq!(digest.size, size as u64);
                }
            }
        }

        #[test]
        fn wrong_declared_sizes_are_errors() {
            for method in Method::ALL {
                let data = sample(5000);
                let packed = compress(method, Some(9), &data).unwrap();
                let short = decompress(method, &packed, 4999, u64::MAX).unwrap_err();
                assert!(short.found.contains("more"), "{short}");
                let long = decompress(method, &packed, 5001, u64::MAX).unwrap_err();
                assert!(long.found.contains("5000"), "{long}");
                let limited = decompress(method, &packed, 5000, 4000).unwrap_err();
                assert!(limited.expected.contains("4000"), "{limited}");
            }
        }

        #[test]
        fn declared_sizes_near_2_pow_63_allocate_nothing() {
            for method in Method::ALL {
                let packed = compress(method, None, b"tiny").unwrap();
                // Refused up front by the limit...
                assert!(decompress(method, &packed, 1 << 63, GIB).is_err());
                // ...and without a limit, the stream ends long before: no huge buffer is made.
                let e = decompress(method, &packed, 1 << 63, u64::MAX).unwrap_err();
                assert!(e.found.contains("ends after 4 bytes") || e.expected.contains("memory"), "{e}");
            }
        }

        #[test]
        fn truncated_and_corrupt_streams_are_errors() {
            for method in Method::ALL {
                let data = sample(300_000);
                let packed = compress(method, None, &data).unwrap();
                for cut in [0, 1, 2, 5, packed.len() / 2, packed.len() - 1] {
                    assert!(
                        decompress(method, &packed[..cut], data.len() as u64, u64::MAX).is_err(),
                        "{method} cut at {cut}"
                    );
                }
                let mut bad = packed.clone();
                bad[0] ^= 0xff;
                assert!(decompress(method, &bad, data.len() as u64, u64::MAX).is_err());
                assert!(decompress_prefix(method, &bad, 10).is_err());
            }
        }

        #[test]
        fn zstd_trailing_garbage_is_an_error_but_skippable_frames_are_skipped() {
            let data = sample(1000);
            let mut packed = compress(Method::Zstd, None, &data).unwrap();
            let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9];
            skippable.extend_from_slice(&packed);
            assert_eq!(decompress(Method::Zstd, &skippable, 1000, u64::MAX).unwrap(), data);
            packed.extend_from_slice(&[0, 0, 0, 0]);
            assert!(decompress(Method::Zstd, &packed, 1000, u64::MAX).is_err());
        }

        #[test]
        fn concatenated_zstd_frames_decode_in_order() {
            let (a, b) = (sample(70_000), vec![7u8; 200_000]);
            let mut packed = compress(Method::Zstd, None, &a).unwrap();
            packed.extend(compress(Method::Zstd, None, &b).unwrap());
            let whole = [a.clone(), b].concat();
            let n = whole.len() as u64;
            assert_eq!(decompress(Method::Zstd, &packed, n, n).unwrap(), whole);
            assert_eq!(decompress_prefix(Method::Zstd, &packed, 80_000).unwrap(), whole[..80_000]);
            assert!(decompress(Method::Zstd, &packed, n - 1, n).is_err());
        }

        /// A reader handing out at most `step` bytes per call, so chunk edges fall everywhere.
        #[cfg(feature = "std")]
        struct Dribble<'d> {
            data: &'d [u8],
            step: usize,
        }

        #[cfg(feature = "std")]
        impl std::io::Read for Dribble<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.step.min(buf.len()).min(self.data.len());
                buf[..n].copy_from_slice(&self.data[..n]);
                self.data = &self.data[n..];
                Ok(n)
            }
        }

        #[cfg(feature = "std")]
        fn read_all_of(method: Method, packed: &[u8], limit: u64, step: usize) -> Result<Vec<u8>> {
            let mut out = Vec::new();
            let mut input = Dribble { data: packed, step };
            decompress_read(method, &mut input, limit, &mut |c| out.extend_from_slice(c)).map(|_| out)
        }

        /// Reading from a stream gives what decoding from memory gives, and fails where it fails.
        #[cfg(feature = "std")]
        #[test]
        fn streams_read_in_pieces_decode_like_memory() {
            let big = sample(3 * READ_CHUNK + 12_345);
            for method in Method::ALL {
                for data in [Vec::new(), sample(1000), big.clone()] {
                    let packed = compress(method, None, &data).unwrap();
                    for step in [1usize << 30, READ_CHUNK - 1, 4093] {
                        let n = data.len() as u64;
                        assert_eq!(read_all_of(method, &packed, n, step).unwrap(), data, "{method} {n} by {step}");
                    }
                    if !data.is_empty() {
                        let n = data.len() as u64;
                        assert!(read_all_of(method, &packed, n - 1, 1 << 30).is_err(), "{method}: over the limit");
                        for cut in [1, packed.len() / 2, packed.len() - 1] {
                            assert!(read_all_of(method, &packed[..cut], n, 4093).is_err(), "{method} cut at {cut}");
                        }
                    }
                }
                let packed = compress(method, None, &big).unwrap();
                let mut bad = packed.clone();
                let at = packed.len() / 2;
                bad[at..at + 16].iter_mut().for_each(|b| *b ^= 0x5a);
                let (from_memory, from_reader) = (
                    decompress(method, &bad, big.len() as u64, u64::MAX),
                    read_all_of(method, &bad, big.len() as u64, 4093),
                );
                // Corrupt data may still decode (to other bytes, which the hash catches); the two
                // ways agree on whether it does.
                assert_eq!(from_memory.is_ok(), from_reader.is_ok(), "{method}: corrupt");
                if let (Ok(a), Ok(b)) = (from_memory, from_reader) {
                    assert_eq!(a, b);
                }
            }
            // zstd: frames back to back and skippable frames; zlib: bytes after the stream ignored.
            let (a, b) = (sample(70_000), vec![7u8; 2 * READ_CHUNK]);
            let mut two = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9];
            two.extend(compress(Method::Zstd, None, &a).unwrap());
            two.extend(compress(Method::Zstd, None, &b).unwrap());
            let whole = [a.clone(), b].concat();
            assert_eq!(read_all_of(Method::Zstd, &two, whole.len() as u64, 4093).unwrap(), whole);
            let mut zlib = compress(Method::Zlib, None, &a).unwrap();
            zlib.extend_from_slice(b"trailing");
            assert_eq!(read_all_of(Method::Zlib, &zlib, a.len() as u64, 4093).unwrap(), a);
        }

        #[cfg(feature = "std")]
        #[test]
        fn bombs_read_from_a_stream_fail_fast_under_a_limit() {
            for (method, bomb) in [(Method::Zlib, zlib_bomb()), (Method::Zstd, zstd_bomb())] {
                let limit = 8 << 20;
                let mut seen = 0u64;
                let mut input = Dribble { data: &bomb, step: 1 << 30 };
                let e = decompress_read(method, &mut input, limit, &mut |c| seen += c.len() as u64).unwrap_err();
                assert!(seen <= limit && e.found.contains("more"), "{method}: {e}");
            }
        }

        #[test]
        fn methods_not_built_in_say_so() {
            assert!(Method::Zlib.is_built_in() && Method::Zstd.is_built_in());
        }

        /// A zlib stream of about 1 MiB that inflates to 1 GiB of zeros: the raw deflate blocks
        /// of 1 MiB of zeros, ended by a sync flush so they are byte-aligned and self-contained,
        /// repeated 1024 times, then a final empty stored block and the Adler-32 of the zeros.
        fn zlib_bomb() -> Vec<u8> {
            use miniz_oxide::deflate::core::{
                compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush,
            };
            let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(9, -15, 0));
            let zeros = vec![0u8; 1 << 20];
            let mut out = vec![0u8; 1 << 16];
            let (_, used, written) = compress(&mut c, &zeros, &mut out, TDEFLFlush::Sync);
            assert_eq!(used, zeros.len());
            let mut packed = vec![0x78, 0x9c];
            for _ in 0..1024 {
                packed.extend_from_slice(&out[..written]);
            }
            packed.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]);
            let adler = (((1u64 << 30) % 65521) << 16 | 1) as u32;
            packed.extend_from_slice(&adler.to_be_bytes());
            packed
        }

        /// A zstd frame of a few KiB that expands to 4 GiB: RLE blocks of 128 KiB, 4 bytes each.
        fn zstd_bomb() -> Vec<u8> {
            let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88]; // no size, window 128 MiB
            let blocks = 32 * 1024;
            for i in 0..blocks {
                let last = (i == blocks - 1) as u32;
                let header = last | (1 << 1) | ((128 * 1024) << 3); // RLE block of 128 KiB
                frame.extend_from_slice(&header.to_le_bytes()[..3]);
                frame.push(0xab);
            }
            frame
        }

        #[test]
        fn bombs_fail_fast_under_a_limit() {
            let zlib = zlib_bomb();
            assert!(zlib.len() < 2 << 20);
            let zstd = zstd_bomb();
            for (method, bomb) in [(Method::Zlib, &zlib), (Method::Zstd, &zstd)] {
                let limit = 8 << 20;
                let e = decompress(method, bomb, limit, limit).unwrap_err();
                assert!(e.found.contains("more"), "{method}: {e}");
                let mut seen = 0u64;
                let e = decompress_chunks(method, bomb, limit, &mut |c| seen += c.len() as u64).unwrap_err();
                assert!(seen <= limit, "{method}: {e}");
                assert!(decompressed_md5(method, bomb, limit, limit).is_err());
                // A prefix of a bomb is cheap and fine.
                assert_eq!(decompress_prefix(method, bomb, 4096).unwrap().len(), 4096);
            }
        }
    }

    /// With libzstd built in, both zstd decoders read the same inputs the same way: the same
    /// bytes out, or both an error.
    #[cfg(feature = "zstd-c")]
    #[test]
    fn libzstd_and_ruzstd_agree() {
        let decode_with = |ruzstd: bool, data: &[u8], budget: u64| {
            let mut bytes = Vec::new();
            let mut sink = |c: &[u8]| bytes.extend_from_slice(c);
            let mut out = Output { produced: 0, budget, overflow: Overflow::Fail, sink: &mut sink };
            let result = if ruzstd { zstd::decode_ruzstd(data, &mut out) } else { zstd::decode(data, &mut out) };
            result.map(|()| bytes)
        };
        let text: Vec<u8> = (0..400_000u32).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect();
        let ruzstd_frame = {
            use ruzstd::encoding::{compress_to_vec, CompressionLevel};
            compress_to_vec(&text[..], CompressionLevel::Fastest)
        };
        let libzstd_frame = compress(Method::Zstd, Some(19), &text).unwrap();
        let mut inputs =
            vec![ruzstd_frame.clone(), libzstd_frame.clone(), [&ruzstd_frame[..], &libzstd_frame].concat()];
        inputs.push([&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 7, 7][..], &libzstd_frame].concat());
        for cut in [0, 3, 4, 9, libzstd_frame.len() / 2, libzstd_frame.len() - 1] {
            inputs.push(libzstd_frame[..cut].to_vec());
        }
        let mut flipped = libzstd_frame.clone();
        flipped[libzstd_frame.len() / 2] ^= 0x5a;
        inputs.push(flipped);
        inputs.push([&libzstd_frame[..], &[1, 2, 3, 4]].concat());
        for (i, data) in inputs.iter().enumerate() {
            for budget in [u64::MAX, 100_000] {
                let (a, b) = (decode_with(true, data, budget), decode_with(false, data, budget));
                match (&a, &b) {
                    (Ok(x), Ok(y)) => assert!(x == y, "input {i}, budget {budget}: different bytes"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("input {i}, budget {budget}: ruzstd {:?} vs libzstd {:?}", a.is_ok(), b.is_ok()),
                }
            }
        }
    }

    #[cfg(not(feature = "zstd"))]
    #[test]
    fn zstd_not_built_in_is_a_clear_error() {
        let e = decompress(Method::Zstd, b"", 0, 0).unwrap_err();
        assert!(e.expected.contains("`zstd` feature"), "{e}");
        assert!(compress(Method::Zstd, None, b"").is_err());
    }
}
