//! Compressed offload bundles (`CCOB`), as written by `clang-offload-bundler --compress` and
//! `clang --offload-compress`: a small header, then one zlib stream or zstd frame holding a whole
//! offload bundle.
//!
//! # Byte layout
//!
//! All integers are little-endian. Offsets in bytes from the start of the bundle.
//!
//! | offset | version 1                | version 2                | version 3                |
//! |-------:|--------------------------|--------------------------|--------------------------|
//! | 0      | magic `CCOB` (4)         | magic `CCOB` (4)         | magic `CCOB` (4)         |
//! | 4      | version u16 = 1          | version u16 = 2          | version u16 = 3          |
//! | 6      | method u16               | method u16               | method u16               |
//! | 8      | uncompressed size u32    | total size u32           | total size u64           |
//! | 12     | hash u64                 | uncompressed size u32    |                          |
//! | 16     |                          | hash u64                 | uncompressed size u64    |
//! | 20     | payload, to the end      |                          |                          |
//! | 24     |                          | payload                  | hash u64                 |
//! | 32     |                          |                          | payload                  |
//!
//! - method: 0 = zlib, 1 = zstd (see [`crate::codec`]).
//! - total size: the whole compressed bundle, header included; it bounds the payload. Version 1
//!   has none, so its payload runs to the end of the buffer and it can only be the last thing in
//!   a buffer.
//! - hash: LLVM's `MD5Result::low()` of the uncompressed bundle, i.e. the first 8 bytes of its MD5
//!   digest ([`truncated_md5`]).
//!
//! clang-offload-bundler 22 writes version 3 by default and version 2 when the environment
//! variable `COMPRESSED_BUNDLE_FORMAT_VERSION=2` is set (it refuses 1). It reads all three. It
//! picks zstd when built with zstd and zlib otherwise; nothing on its command line chooses.
//!
//! # Sequences
//!
//! A linked `.hip_fatbin` section holds one compressed bundle per translation unit, each starting
//! at a multiple of 4096 bytes, with zero padding between them. [`walk`] steps from one bundle to
//! the next by its total size, never by looking for the text `CCOB`, which compressed data may
//! contain by chance.

use crate::codec;
use crate::error::{Error, Result};
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span, Value};
use crate::util::bytes::{align_up, human_size, Reader};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub use crate::codec::{truncated_md5, Method};

/// The four bytes every compressed bundle starts with.
pub const MAGIC: [u8; 4] = *b"CCOB";

/// The version clang-offload-bundler 22 writes when not told otherwise.
pub const DEFAULT_VERSION: u16 = 3;

/// The versions this module reads and writes.
pub const VERSIONS: [u16; 3] = [1, 2, 3];

/// The largest header (version 3): enough bytes to read any header.
pub const MAX_HEADER_SIZE: u64 = 32;

/// Alignment of compressed bundles in a linked `.hip_fatbin` section.
pub const SECTION_ALIGN: u64 = 4096;

const CONTEXT: &str = "compressed bundle header";

/// Whether `data` starts like a compressed bundle.
pub fn is_compressed(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// The header size of `version`, or `None` for an unknown version.
pub fn header_size(version: u16) -> Option<u64> {
    layout(version).map(|l| l.size)
}

/// Where the bundle after one at `offset` of `size` bytes starts in a `.hip_fatbin` section.
pub fn next_bundle_offset(offset: u64, size: u64) -> Option<u64> {
    align_up(offset.checked_add(size)?, SECTION_ALIGN)
}

/// A field's place in the header.
#[derive(Clone, Copy, Debug)]
struct At {
    offset: u64,
    width: u64,
}

/// Where a version keeps its fields.
#[derive(Clone, Copy, Debug)]
struct Layout {
    total_size: Option<At>,
    uncompressed_size: At,
    hash: At,
    size: u64,
}

const MAGIC_AT: At = At { offset: 0, width: 4 };
const VERSION_AT: At = At { offset: 4, width: 2 };
const METHOD_AT: At = At { offset: 6, width: 2 };

fn layout(version: u16) -> Option<Layout> {
    let (total_size, uncompressed_size, hash, size) = match version {
        1 => (None, At { offset: 8, width: 4 }, 12, 20),
        2 => (Some(At { offset: 8, width: 4 }), At { offset: 12, width: 4 }, 16, 24),
        3 => (Some(At { offset: 8, width: 8 }), At { offset: 16, width: 8 }, 24, 32),
        _ => return None,
    };
    Some(Layout { total_size, uncompressed_size, hash: At { offset: hash, width: 8 }, size })
}

/// Reads the little-endian integer at `at`.
fn read_uint(data: &[u8], at: At, what: &'static str) -> Result<u64> {
    let mut r = Reader::at(data, at.offset as usize);
    if r.position() != at.offset {
        return Err(Error::new(at.offset, what, format!("{} bytes", at.width), "the end of input"));
    }
    match at.width {
        2 => r.u16(what).map(u64::from),
        4 => r.u32(what).map(u64::from),
        _ => r.u64(what),
    }
}

/// Appends `value` as a little-endian integer of `at.width` bytes, refusing values that do not fit.
fn write_uint(out: &mut Vec<u8>, value: u64, at: At, what: &'static str) -> Result<()> {
    let bytes = value.to_le_bytes();
    let width = at.width as usize;
    if bytes[width..].iter().any(|&b| b != 0) {
        return Err(Error::new(
            at.offset,
            what,
            format!("a value that fits in {} bits", width * 8),
            format!("{value}"),
        ));
    }
    out.extend_from_slice(&bytes[..width]);
    Ok(())
}

/// The header of a compressed bundle, readable from its first [`MAX_HEADER_SIZE`] bytes alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u16,
    pub method: Method,
    /// The whole bundle's size, header included; `None` in version 1.
    pub total_size: Option<u64>,
    pub uncompressed_size: u64,
    /// The truncated MD5 of the uncompressed bundle, as the integer LLVM prints.
    pub hash: u64,
}

impl Header {
    /// Reads a header from the start of `data`; the payload need not be there.
    pub fn parse(data: &[u8]) -> Result<Header> {
        let magic = Reader::new(data).array::<4>("compressed bundle magic")?;
        if magic != MAGIC {
            return Err(Error::new(0, CONTEXT, "the magic \"CCOB\"", format!("{}", Escaped(&magic))));
        }
        let version = read_uint(data, VERSION_AT, "compressed bundle version")? as u16;
        let layout = layout(version)
            .ok_or_else(|| Error::new(VERSION_AT.offset, CONTEXT, "version 1, 2 or 3", format!("version {version}")))?;
        let method_value = read_uint(data, METHOD_AT, "compressed bundle method")? as u16;
        let method = Method::from_u16(method_value).ok_or_else(|| {
            Error::new(
                METHOD_AT.offset,
                CONTEXT,
                "compression method 0 (zlib) or 1 (zstd)",
                format!("method {method_value}"),
            )
        })?;
        let total_size = match layout.total_size {
            Some(at) => Some(read_uint(data, at, "compressed bundle total size")?),
            None => None,
        };
        let uncompressed_size = read_uint(data, layout.uncompressed_size, "compressed bundle uncompressed size")?;
        let hash = read_uint(data, layout.hash, "compressed bundle hash")?;
        Ok(Header { version, method, total_size, uncompressed_size, hash })
    }

    /// The header's size in bytes, 0 for an unknown version.
    pub fn size(&self) -> u64 {
        header_size(self.version).unwrap_or(0)
    }

    fn layout(&self) -> Result<Layout> {
        layout(self.version).ok_or_else(|| {
            Error::new(VERSION_AT.offset, CONTEXT, "version 1, 2 or 3", format!("version {}", self.version))
        })
    }

    /// Appends the header's bytes, refusing values its version cannot hold.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        let layout = self.layout()?;
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.method.as_u16().to_le_bytes());
        match (layout.total_size, self.total_size) {
            (Some(at), Some(total)) => write_uint(out, total, at, "compressed bundle total size")?,
            (None, None) => {}
            (Some(at), None) => {
                return Err(Error::new(at.offset, CONTEXT, "a total size (versions 2 and 3 have one)", "none"))
            }
            (None, Some(total)) => {
                return Err(Error::new(8, CONTEXT, "no total size (version 1 has none)", format!("{total}")))
            }
        }
        write_uint(out, self.uncompressed_size, layout.uncompressed_size, "compressed bundle uncompressed size")?;
        write_uint(out, self.hash, layout.hash, "compressed bundle hash")
    }
}

/// A compressed bundle: its header and the compressed stream it bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedBundle<'a> {
    pub header: Header,
    /// The zlib stream or zstd frames.
    pub payload: &'a [u8],
}

impl<'a> CompressedBundle<'a> {
    /// Reads the compressed bundle at the start of `data`. In versions 2 and 3 the total size
    /// bounds the payload (bytes after it are not part of the bundle); in version 1 the payload
    /// is the rest of `data`.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = Header::parse(data)?;
        let start = header.size();
        let end = match header.total_size {
            Some(total) => checked_total_size(&header, total, data.len())?,
            None => data.len() as u64,
        };
        Ok(CompressedBundle { header, payload: &data[start as usize..end as usize] })
    }

    /// How many bytes the bundle occupies: header and payload.
    pub fn size(&self) -> u64 {
        self.header.size() + self.payload.len() as u64
    }

    /// Where the payload starts, from the start of the bundle.
    pub fn payload_offset(&self) -> u64 {
        self.header.size()
    }

    /// Appends the bundle's bytes: byte-identical to its input when unedited. Refuses a total
    /// size that disagrees with the payload, and sizes the version cannot hold.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        if let Some(total) = self.header.total_size {
            if total != self.size() {
                return Err(Error::new(
                    8,
                    CONTEXT,
                    format!("a total size of {} (header and payload)", self.size()),
                    format!("{total}"),
                ));
            }
        }
        self.header.write(out)?;
        out.extend_from_slice(self.payload);
        Ok(())
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(out)
    }

    /// The same bundle with a header of another version; the payload is kept, not recompressed.
    pub fn with_version(&self, version: u16) -> Result<CompressedBundle<'a>> {
        let size = header_size(version)
            .ok_or_else(|| Error::new(VERSION_AT.offset, CONTEXT, "version 1, 2 or 3", format!("version {version}")))?;
        let total_size = (version >= 2).then(|| size + self.payload.len() as u64);
        let header = Header { version, total_size, ..self.header.clone() };
        let bundle = CompressedBundle { header, payload: self.payload };
        bundle.to_bytes()?; // checks that the sizes fit the version
        Ok(bundle)
    }

    /// Refuses, before any decoding, a declared uncompressed size beyond `limit`.
    fn check_limit(&self, limit: u64) -> Result<()> {
        if self.header.uncompressed_size <= limit {
            return Ok(());
        }
        let at = layout(self.header.version).map_or(0, |l| l.uncompressed_size.offset);
        Err(Error::new(
            at,
            CONTEXT,
            format!("an uncompressed size within the limit of {limit} bytes"),
            format!("{} bytes", self.header.uncompressed_size),
        ))
    }

    /// The uncompressed bundle, which must be exactly the declared size, at most `limit` bytes.
    pub fn decompress(&self, limit: u64) -> Result<Vec<u8>> {
        self.check_limit(limit)?;
        codec::decompress(self.header.method, self.payload, self.header.uncompressed_size, limit)
            .map_err(|e| e.shifted(self.payload_offset()))
    }

    /// The uncompressed bundle and the truncated MD5 of it, hashed while it is decoded;
    /// `progress` hears how many bytes have come out so far.
    pub fn decompress_hashed(&self, limit: u64, progress: &mut dyn FnMut(u64)) -> Result<(Vec<u8>, u64)> {
        self.check_limit(limit)?;
        codec::decompress_hashed(self.header.method, self.payload, self.header.uncompressed_size, limit, progress)
            .map_err(|e| e.shifted(self.payload_offset()))
    }

    /// The first `n` bytes of the uncompressed bundle (fewer if it is shorter), decoding no more
    /// of the stream than that needs: enough to read the bundle's header and list its entries.
    pub fn header_prefix(&self, n: usize) -> Result<Vec<u8>> {
        let n = u64::try_from(n).unwrap_or(u64::MAX).min(self.header.uncompressed_size) as usize;
        codec::decompress_prefix(self.header.method, self.payload, n).map_err(|e| e.shifted(self.payload_offset()))
    }

    /// Checks the hash by decompressing in chunks, never holding the uncompressed bundle.
    pub fn verify(&self, limit: u64) -> Result<Verification> {
        self.check_limit(limit)?;
        let digest = codec::decompressed_md5(self.header.method, self.payload, self.header.uncompressed_size, limit)
            .map_err(|e| e.shifted(self.payload_offset()))?;
        Ok(Verification { stored: self.header.hash, computed: digest.truncated(), size: digest.size })
    }

    /// Uncompressed size over compressed size, as LLVM's "compression rate".
    pub fn ratio(&self) -> Option<f64> {
        (!self.payload.is_empty()).then(|| self.header.uncompressed_size as f64 / self.payload.len() as f64)
    }
}

/// The end of a bundle whose header declares `total` bytes, checked against the header and the
/// `available` bytes.
fn checked_total_size(header: &Header, total: u64, available: usize) -> Result<u64> {
    if total < header.size() {
        return Err(Error::new(
            8,
            CONTEXT,
            format!("a total size of at least {} bytes (the version {} header)", header.size(), header.version),
            format!("{total}"),
        ));
    }
    if total > available as u64 {
        return Err(Error::new(
            8,
            CONTEXT,
            format!("a total size within the {available} bytes available"),
            format!("{total} (the bundle is truncated, or its total size is wrong)"),
        ));
    }
    Ok(total)
}

/// The outcome of checking a compressed bundle's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    /// The hash in the header.
    pub stored: u64,
    /// The truncated MD5 of the decompressed bundle.
    pub computed: u64,
    /// Decompressed size.
    pub size: u64,
}

impl Verification {
    pub fn ok(&self) -> bool {
        self.stored == self.computed
    }
}

/// The error text for a hash that does not match, in the usual where/expected/found form.
pub fn hash_mismatch(header: &Header, computed: u64) -> Error {
    let at = layout(header.version).map_or(0, |l| l.hash.offset);
    Error::new(
        at,
        "compressed bundle hash",
        format!("0x{computed:016x}, the truncated MD5 of the decompressed bundle"),
        format!("0x{:016x} stored: the payload is not what was compressed", header.hash),
    )
}

/// Compresses an offload bundle into a compressed bundle of `version` (1, 2 or 3), as
/// clang-offload-bundler does. Sizes the version cannot hold are refused, as LLVM refuses them.
pub fn compress(bundle: &[u8], method: Method, level: Option<i32>, version: u16) -> Result<Vec<u8>> {
    let size = header_size(version)
        .ok_or_else(|| Error::new(0, "compressing a bundle", "version 1, 2 or 3", format!("version {version}")))?;
    let uncompressed_size = bundle.len() as u64;
    if version < 3 && uncompressed_size > u64::from(u32::MAX) {
        return Err(Error::new(
            0,
            "compressing a bundle",
            format!("an uncompressed size that fits version {version}'s 32 bits (use version 3)"),
            format!("{uncompressed_size} bytes"),
        ));
    }
    let payload = codec::compress(method, level, bundle)?;
    let header = Header {
        version,
        method,
        total_size: (version >= 2).then(|| size + payload.len() as u64),
        uncompressed_size,
        hash: truncated_md5(bundle),
    };
    CompressedBundle { header, payload: &payload }.to_bytes()
}

/// The bytes the decompressed bundle opens as a new byte space, with `payload_span` (the payload
/// in its parent space) as its origin.
pub fn decompressed_space(cb: &CompressedBundle, payload_span: Span, limit: u64) -> Result<ByteSpace> {
    let data = cb.decompress(limit)?;
    Ok(ByteSpace {
        label: format!("decompressed {} bundle ({})", cb.header.method, human_size(data.len() as u64)),
        size: data.len() as u64,
        origin: Some(payload_span),
        data: Some(data),
    })
}

// ---------------------------------------------------------------------------------------------
// Walking a sequence of compressed bundles
// ---------------------------------------------------------------------------------------------

/// One part of a sequence of compressed bundles.
#[derive(Clone, Debug, PartialEq)]
pub struct Found<'a> {
    /// Where the part starts in the walked buffer.
    pub offset: u64,
    pub size: u64,
    /// The part's bytes.
    pub bytes: &'a [u8],
    pub piece: Piece<'a>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece<'a> {
    Bundle(CompressedBundle<'a>),
    /// Zero bytes: alignment padding.
    Padding,
    /// Bytes that are neither zero padding nor a compressed bundle. Walking stops here unless
    /// they are only the padding after a bundle.
    Unknown {
        /// Offset of the first non-zero byte, in the walked buffer.
        first_nonzero: u64,
    },
    /// Something that starts like a compressed bundle but cannot be read; walking stops here.
    /// The error's offset is in the walked buffer.
    Unreadable(Error),
}

/// Walks compressed bundles laid out as in a `.hip_fatbin` section (each at a multiple of 4096).
pub fn walk(data: &[u8]) -> Walk<'_> {
    walk_aligned(data, SECTION_ALIGN)
}

/// Walks compressed bundles that each start at a multiple of `align` bytes (1: back to back).
pub fn walk_aligned(data: &[u8], align: u64) -> Walk<'_> {
    Walk { data, pos: 0, align: align.max(1), after_bundle: false, done: false }
}

/// An iterator over the parts of a buffer of compressed bundles; see [`walk`].
#[derive(Clone, Debug)]
pub struct Walk<'a> {
    data: &'a [u8],
    pos: u64,
    align: u64,
    /// `pos` is the end of a bundle, so the bytes up to the next aligned offset are its padding.
    after_bundle: bool,
    done: bool,
}

impl<'a> Iterator for Walk<'a> {
    type Item = Found<'a>;

    fn next(&mut self) -> Option<Found<'a>> {
        let len = self.data.len() as u64;
        if self.done || self.pos >= len {
            return None;
        }
        let rest = &self.data[self.pos as usize..];
        if is_compressed(rest) {
            return Some(self.bundle(rest));
        }
        if self.after_bundle {
            self.after_bundle = false;
            let end = align_up(self.pos, self.align).unwrap_or(len).min(len);
            if end > self.pos {
                return Some(self.gap(end, false));
            }
        }
        Some(self.stretch(rest))
    }
}

impl<'a> Walk<'a> {
    fn bundle(&mut self, rest: &'a [u8]) -> Found<'a> {
        let offset = self.pos;
        match CompressedBundle::parse(rest) {
            Ok(cb) => {
                let size = cb.size();
                // Version 1 has no total size: it runs to the end, nothing can follow it.
                self.done = cb.header.total_size.is_none();
                self.pos += size;
                self.after_bundle = true;
                Found { offset, size, bytes: &rest[..size as usize], piece: Piece::Bundle(cb) }
            }
            Err(e) => {
                self.done = true;
                let size = rest.len() as u64;
                Found { offset, size, bytes: rest, piece: Piece::Unreadable(e.shifted(offset)) }
            }
        }
    }

    /// The bytes from `pos` to `end`, zero padding or not. `last` ends the walk.
    fn gap(&mut self, end: u64, last: bool) -> Found<'a> {
        let offset = self.pos;
        let bytes = &self.data[offset as usize..end as usize];
        let piece = match bytes.iter().position(|&b| b != 0) {
            None => Piece::Padding,
            Some(i) => Piece::Unknown { first_nonzero: offset + i as u64 },
        };
        self.pos = end;
        self.done |= last;
        Found { offset, size: end - offset, bytes, piece }
    }

    /// Bytes at a place where a bundle could start but does not: a run of zeros up to an aligned
    /// bundle is padding; anything else ends the walk, as nothing tells where a next bundle is.
    fn stretch(&mut self, rest: &'a [u8]) -> Found<'a> {
        let len = self.data.len() as u64;
        match rest.iter().position(|&b| b != 0) {
            Some(zeros) if zeros > 0 => {
                let next = self.pos + zeros as u64;
                let aligned = next % self.align == 0;
                if aligned && is_compressed(&rest[zeros..]) {
                    self.gap(next, false)
                } else {
                    self.gap(len, true)
                }
            }
            _ => self.gap(len, true),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tree
// ---------------------------------------------------------------------------------------------

/// The node of a compressed bundle that occupies `span`. `hash_ok` is the result of checking the
/// hash, or `None` when it was not checked (checking needs decompression: see [`verified_node`]).
pub fn to_node(cb: &CompressedBundle, span: Span, hash_ok: Option<bool>) -> Node {
    header_node(&cb.header, span, hash_ok)
}

/// The node of a compressed bundle known only by its header and its `span` (the payload is the
/// rest of the span): what listing a large bundle needs without reading its payload.
pub fn header_node(h: &Header, span: Span, hash_ok: Option<bool>) -> Node {
    let payload_len = span.size.saturating_sub(h.size());
    let mut node = Node::new(NodeKind::CompressedBundle, label(h, payload_len), span);
    header_fields(&mut node, h, span);
    let hash_span = layout(h.version).map(|l| field_span(span, l.hash));
    node.field("hash_ok", hash_ok.map_or(Value::Null, Value::Bool), hash_span);
    let payload_span = span.sub(h.size(), payload_len);
    node.field("compressed_size", payload_len, Some(payload_span));
    let ratio = (payload_len > 0).then(|| h.uncompressed_size as f64 / payload_len as f64);
    node.field("ratio", ratio.map_or(Value::Null, |r| Value::Text(format!("{r:.2}"))), Some(payload_span));
    if hash_ok == Some(false) {
        node.diag(
            Severity::Error,
            format!(
                "hash mismatch: the stored hash 0x{:016x} is not the truncated MD5 of the decompressed bundle",
                h.hash
            ),
            hash_span,
        );
    }
    if h.total_size.is_none() {
        node.diag(Severity::Note, "version 1 has no total size: the payload runs to the end of the data", None);
    }
    node.children.push(payload_node(h, payload_span));
    node
}

/// [`to_node`] after checking the hash (decompressing in chunks, at most `limit` bytes).
pub fn verified_node(cb: &CompressedBundle, span: Span, limit: u64) -> Node {
    match cb.verify(limit) {
        Ok(v) => {
            let mut node = to_node(cb, span, Some(v.ok()));
            if !v.ok() {
                if let Some(d) = node.diagnostics.iter_mut().find(|d| d.message.starts_with("hash mismatch")) {
                    d.message = format!("{} (it is 0x{:016x})", d.message, v.computed);
                }
            }
            node
        }
        Err(e) => {
            let mut node = to_node(cb, span, None);
            let at = span.sub(e.offset, 1);
            node.diag(Severity::Error, format!("the hash could not be checked: {e}"), Some(at));
            node
        }
    }
}

/// The node for the bytes `data` at `span`, which should be one compressed bundle: what could
/// be read, diagnostics for what could not, for a total size that disagrees with the bytes, and
/// for bytes after the bundle. The hash is checked when `verify_limit` is given.
pub fn node(data: &[u8], span: Span, verify_limit: Option<u64>) -> Node {
    let cb = match CompressedBundle::parse(data) {
        Ok(cb) => cb,
        Err(e) => return unreadable_node(data, span, &e),
    };
    let bundle_span = span.sub(0, cb.size());
    let mut node = match verify_limit {
        Some(limit) => verified_node(&cb, bundle_span, limit),
        None => to_node(&cb, bundle_span, None),
    };
    let trailing = data.len() as u64 - cb.size();
    if trailing > 0 {
        let zeros = data[cb.size() as usize..].iter().all(|&b| b == 0);
        let what = if zeros { "zero bytes" } else { "bytes, not all zero," };
        node.diag(
            if zeros { Severity::Note } else { Severity::Warning },
            format!("{trailing} {what} after the bundle's total size of {} bytes", cb.size()),
            Some(span.sub(cb.size(), trailing)),
        );
    }
    node
}

/// A node for bytes that start like a compressed bundle but cannot be read: the header fields
/// that can be read, and the error.
pub fn unreadable_node(data: &[u8], span: Span, error: &Error) -> Node {
    let mut node = Node::new(NodeKind::CompressedBundle, "compressed bundle (unreadable)", span);
    match Header::parse(data) {
        Ok(h) => header_fields(&mut node, &h, span),
        Err(_) => raw_header_fields(&mut node, data, span),
    }
    node.diag(Severity::Error, format!("{error}"), Some(span.sub(error.offset, 1)));
    node
}

/// The node of one part of a [`walk`], whose buffer is at `base`.
pub fn found_to_node(found: &Found, base: Span) -> Node {
    let span = base.sub(found.offset, found.size);
    match &found.piece {
        Piece::Bundle(cb) => to_node(cb, span, None),
        Piece::Padding => Node::new(NodeKind::Padding, format!("zero padding ({})", human_size(found.size)), span),
        Piece::Unknown { first_nonzero } => {
            let mut node =
                Node::new(NodeKind::Unknown, format!("unrecognized bytes ({})", human_size(found.size)), span);
            node.diag(
                Severity::Warning,
                "non-zero bytes where only zero padding or a compressed bundle is expected",
                Some(base.sub(*first_nonzero, 1)),
            );
            node
        }
        Piece::Unreadable(e) => {
            let local = Error { offset: e.offset.saturating_sub(found.offset), ..e.clone() };
            unreadable_node(found.bytes, span, &local)
        }
    }
}

fn label(h: &Header, payload_len: u64) -> String {
    format!(
        "compressed bundle v{} ({}, {} → {})",
        h.version,
        h.method,
        human_size(payload_len),
        human_size(h.uncompressed_size)
    )
}

fn field_span(span: Span, at: At) -> Span {
    span.sub(at.offset, at.width)
}

/// Fields `magic`, `version`, `method`, `total_size`, `uncompressed_size` and `hash`.
fn header_fields(node: &mut Node, h: &Header, span: Span) {
    node.field("magic", "CCOB", Some(field_span(span, MAGIC_AT)));
    // Version and method can be changed: writing then rewraps or recompresses the payload.
    node.editable("version", u64::from(h.version), Some(field_span(span, VERSION_AT)));
    node.editable("method", h.method.name(), Some(field_span(span, METHOD_AT)));
    let Some(l) = layout(h.version) else { return };
    match (h.total_size, l.total_size) {
        (Some(total), Some(at)) => node.field("total_size", total, Some(field_span(span, at))),
        _ => node.field("total_size", Value::Null, None),
    };
    node.field("uncompressed_size", h.uncompressed_size, Some(field_span(span, l.uncompressed_size)));
    node.field("hash", format!("0x{:016x}", h.hash), Some(field_span(span, l.hash)));
}

/// Whatever of the magic, version and method fields `data` holds, undecoded.
fn raw_header_fields(node: &mut Node, data: &[u8], span: Span) {
    if let Some(magic) = data.get(..4) {
        node.field("magic", format!("{}", Escaped(magic)), Some(field_span(span, MAGIC_AT)));
    }
    if let Ok(v) = read_uint(data, VERSION_AT, "version") {
        node.field("version", v, Some(field_span(span, VERSION_AT)));
    }
    if let Ok(m) = read_uint(data, METHOD_AT, "method") {
        let name = Method::from_u16(m as u16).map_or_else(|| format!("unknown ({m})"), |m| m.name().into());
        node.field("method", name, Some(field_span(span, METHOD_AT)));
    }
}

fn payload_node(h: &Header, span: Span) -> Node {
    let label = format!("{} payload ({})", h.method, human_size(span.size));
    Node::new(NodeKind::CompressedPayload, label, span)
}

/// Bytes shown as text with escapes, for error messages about magics.
struct Escaped<'b>(&'b [u8]);

impl core::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("\"")?;
        for &b in self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(version: u16, method: u16, total: u64, uncompressed: u64, hash: u64, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"CCOB");
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&method.to_le_bytes());
        match version {
            1 => out.extend_from_slice(&(uncompressed as u32).to_le_bytes()),
            2 => {
                out.extend_from_slice(&(total as u32).to_le_bytes());
                out.extend_from_slice(&(uncompressed as u32).to_le_bytes());
            }
            _ => {
                out.extend_from_slice(&total.to_le_bytes());
                out.extend_from_slice(&uncompressed.to_le_bytes());
            }
        }
        out.extend_from_slice(&hash.to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn header_sizes_per_version() {
        assert_eq!(header_size(1), Some(20));
        assert_eq!(header_size(2), Some(24));
        assert_eq!(header_size(3), Some(32));
        assert_eq!(header_size(4), None);
        assert_eq!(MAX_HEADER_SIZE, 32);
    }

    #[test]
    fn parses_each_version_and_writes_back_identically() {
        let payload = [1u8, 2, 3, 4, 5];
        for (version, hs) in [(1u16, 20u64), (2, 24), (3, 32)] {
            let bytes = v(version, 1, hs + 5, 1234, 0x1122_3344_5566_7788, &payload);
            let cb = CompressedBundle::parse(&bytes).unwrap();
            assert_eq!(cb.header.version, version);
            assert_eq!(cb.header.method, Method::Zstd);
            assert_eq!(cb.header.total_size, (version > 1).then_some(hs + 5));
            assert_eq!(cb.header.uncompressed_size, 1234);
            assert_eq!(cb.header.hash, 0x1122_3344_5566_7788);
            assert_eq!(cb.payload, payload);
            assert_eq!(cb.to_bytes().unwrap(), bytes);
        }
    }

    #[test]
    fn total_size_bounds_the_payload_and_v1_runs_to_the_end() {
        let mut bytes = v(2, 0, 24 + 3, 9, 0, &[7, 8, 9]);
        bytes.extend_from_slice(&[0; 10]);
        let cb = CompressedBundle::parse(&bytes).unwrap();
        assert_eq!(cb.payload, [7, 8, 9]);
        assert_eq!(cb.size(), 27);
        let mut v1 = v(1, 0, 0, 9, 0, &[7, 8, 9]);
        v1.extend_from_slice(&[0; 10]);
        assert_eq!(CompressedBundle::parse(&v1).unwrap().payload.len(), 13);
    }

    #[test]
    fn truncated_headers_fail_at_every_boundary() {
        for version in VERSIONS {
            let hs = header_size(version).unwrap();
            let bytes = v(version, 1, hs, 0, 0, &[]);
            for cut in 0..hs as usize {
                let e = CompressedBundle::parse(&bytes[..cut]).unwrap_err();
                assert!(e.offset <= cut as u64, "v{version} cut {cut}: {e}");
                assert!(Header::parse(&bytes[..cut]).is_err());
            }
            assert!(CompressedBundle::parse(&bytes).is_ok());
        }
    }

    #[test]
    fn bad_magic_version_method_and_sizes_are_errors() {
        let good = v(3, 1, 40, 10, 0, &[0; 8]);
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(CompressedBundle::parse(&bad).unwrap_err().offset, 0);
        for version in [0u16, 4, 0xffff] {
            let mut bad = good.clone();
            bad[4..6].copy_from_slice(&version.to_le_bytes());
            let e = CompressedBundle::parse(&bad).unwrap_err();
            assert_eq!((e.offset, e.found.as_str()), (4, format!("version {version}").as_str()));
        }
        let mut bad = good.clone();
        bad[6] = 2;
        assert_eq!(CompressedBundle::parse(&bad).unwrap_err().offset, 6);
        // Total sizes smaller than the header, larger than the buffer, or near 2^64.
        for total in [0u64, 31, 41, 1 << 63, u64::MAX] {
            let bad = v(3, 1, total, 10, 0, &[0; 8]);
            let e = CompressedBundle::parse(&bad).unwrap_err();
            assert_eq!(e.offset, 8, "{total}: {e}");
        }
    }

    #[test]
    fn huge_declared_uncompressed_sizes_are_not_allocated() {
        let bytes = v(3, 1, 32 + 4, 1 << 63, 0, &[0x28, 0xb5, 0x2f, 0xfd]);
        let cb = CompressedBundle::parse(&bytes).unwrap();
        let e = cb.decompress(1 << 30).unwrap_err();
        assert!(e.expected.contains("limit"), "{e}");
        assert_eq!(e.offset, 16); // the uncompressed size field
        assert!(cb.verify(1 << 30).is_err());
        // A truncated frame, found out before any big buffer is made.
        assert!(cb.decompress(u64::MAX).is_err());
        #[cfg(feature = "zstd")]
        assert_eq!(cb.header_prefix(0).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn writing_refuses_what_the_version_cannot_hold() {
        let payload = [0u8; 4];
        let header =
            Header { version: 2, method: Method::Zlib, total_size: Some(28), uncompressed_size: 1 << 32, hash: 0 };
        assert!(CompressedBundle { header: header.clone(), payload: &payload }.to_bytes().is_err());
        let header = Header { uncompressed_size: 5, total_size: Some(29), ..header };
        assert!(CompressedBundle { header: header.clone(), payload: &payload }.to_bytes().is_err());
        let header = Header { version: 1, total_size: Some(24), ..header };
        assert!(CompressedBundle { header, payload: &payload }.to_bytes().is_err());
        assert!(compress(b"x", Method::Zlib, None, 4).is_err());
    }

    #[cfg(all(feature = "zlib", feature = "zstd"))]
    #[test]
    fn compress_decompress_verify_and_prefix() {
        let bundle: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        for method in Method::ALL {
            for version in VERSIONS {
                let bytes = compress(&bundle, method, None, version).unwrap();
                let cb = CompressedBundle::parse(&bytes).unwrap();
                assert_eq!(cb.header.hash, truncated_md5(&bundle));
                assert_eq!(cb.decompress(u64::MAX).unwrap(), bundle);
                assert!(cb.verify(u64::MAX).unwrap().ok());
                assert_eq!(cb.header_prefix(1000).unwrap(), bundle[..1000]);
                assert_eq!(cb.to_bytes().unwrap(), bytes);
                for other in VERSIONS {
                    let rewrapped = cb.with_version(other).unwrap().to_bytes().unwrap();
                    assert_eq!(CompressedBundle::parse(&rewrapped).unwrap().decompress(u64::MAX).unwrap(), bundle);
                }
                let node = verified_node(&cb, Span::new(0, 0, bytes.len() as u64), u64::MAX);
                assert_eq!(node.get("hash_ok"), Some(&Value::Bool(true)));
                assert!(node.diagnostics.iter().all(|d| d.severity < Severity::Warning));
            }
        }
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn hash_mismatch_is_an_error_diagnostic() {
        let mut bytes = compress(b"hello bundle", Method::Zstd, None, 3).unwrap();
        bytes[24] ^= 1;
        let cb = CompressedBundle::parse(&bytes).unwrap();
        assert!(!cb.verify(1000).unwrap().ok());
        let node = node(&bytes, Span::new(0, 0, bytes.len() as u64), Some(1000));
        assert_eq!(node.get("hash_ok"), Some(&Value::Bool(false)));
        assert_eq!(node.worst_severity(), Some(Severity::Error));
        let unchecked = to_node(&cb, Span::new(0, 0, bytes.len() as u64), None);
        assert_eq!(unchecked.get("hash_ok"), Some(&Value::Null));
    }

    #[test]
    fn node_fields_have_spans_of_their_bytes() {
        let bytes = v(2, 1, 24 + 4, 100, 0xab, &[9; 4]);
        let cb = CompressedBundle::parse(&bytes).unwrap();
        let node = to_node(&cb, Span::new(0, 1000, 28), None);
        let span = |name: &str| node.fields.iter().find(|f| f.name == name).unwrap().span.unwrap();
        assert_eq!(span("version"), Span::new(0, 1004, 2));
        assert_eq!(span("method"), Span::new(0, 1006, 2));
        assert_eq!(span("total_size"), Span::new(0, 1008, 4));
        assert_eq!(span("uncompressed_size"), Span::new(0, 1012, 4));
        assert_eq!(span("hash"), Span::new(0, 1016, 8));
        assert_eq!(span("compressed_size"), Span::new(0, 1024, 4));
        assert_eq!(node.text("method"), Some("zstd"));
        assert_eq!(node.text("hash"), Some("0x00000000000000ab"));
        assert_eq!(node.text("ratio"), Some("25.00"));
        assert_eq!(node.get("hash_ok"), Some(&Value::Null));
        assert_eq!(node.children[0].span, Span::new(0, 1024, 4));
    }

    #[test]
    fn node_reports_unknown_method_and_trailing_bytes() {
        let mut bytes = v(3, 7, 36, 1, 0, &[0; 4]);
        let n = node(&bytes, Span::new(0, 0, 36), None);
        assert_eq!(n.text("method"), Some("unknown (7)"));
        assert_eq!(n.worst_severity(), Some(Severity::Error));
        bytes[6] = 1;
        bytes.extend_from_slice(&[0, 0, 5]);
        let n = node(&bytes, Span::new(0, 0, 39), None);
        assert_eq!(n.span.size, 36);
        assert_eq!(n.worst_severity(), Some(Severity::Warning));
        let truncated = node(&bytes[..34], Span::new(0, 0, 34), None);
        assert_eq!(truncated.get("total_size"), Some(&Value::Uint(36)));
        assert_eq!(truncated.worst_severity(), Some(Severity::Error));
    }

    fn section(bundles: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for b in bundles {
            out.resize(align_up(out.len() as u64, 4096).unwrap() as usize, 0);
            out.extend_from_slice(b);
        }
        out
    }

    #[test]
    fn walks_aligned_bundles_by_total_size() {
        // The second bundle's payload holds the text CCOB: it must not be taken for a bundle.
        let a = v(3, 1, 32 + 8, 1, 0, b"CCOBCCOB");
        let b = v(2, 0, 24 + 5000, 1, 0, &[0x43; 5000]);
        let c = v(3, 1, 32 + 1, 1, 0, &[1]);
        let data = section(&[a.clone(), b.clone(), c.clone()]);
        let parts: Vec<_> = walk(&data).collect();
        let kinds: Vec<_> = parts
            .iter()
            .map(|f| match f.piece {
                Piece::Bundle(_) => "bundle",
                Piece::Padding => "padding",
                Piece::Unknown { .. } => "unknown",
                Piece::Unreadable(_) => "unreadable",
            })
            .collect();
        assert_eq!(kinds, ["bundle", "padding", "bundle", "padding", "bundle"]);
        assert_eq!(parts[2].offset, 4096);
        assert_eq!(parts[4].offset, 4096 * 3);
        assert_eq!(parts[4].bytes, c);
        let covered: u64 = parts.iter().map(|f| f.size).sum();
        assert_eq!(covered, data.len() as u64);
    }

    #[test]
    fn walk_reports_nonzero_padding_and_keeps_going() {
        let a = v(3, 1, 33, 1, 0, &[1]);
        let mut data = section(&[a.clone(), a.clone()]);
        data[100] = 0xee;
        data.extend_from_slice(&[0; 10]);
        let parts: Vec<_> = walk(&data).collect();
        assert!(matches!(parts[1].piece, Piece::Unknown { first_nonzero: 100 }));
        assert!(matches!(parts[2].piece, Piece::Bundle(_)));
        assert!(matches!(parts[3].piece, Piece::Padding));
        assert_eq!(parts.len(), 4);
        let node = found_to_node(&parts[1], Span::new(0, 0, data.len() as u64));
        assert_eq!(node.worst_severity(), Some(Severity::Warning));
    }

    #[test]
    fn walk_stops_at_garbage_unreadable_bundles_and_v1() {
        let mut data = section(&[v(3, 1, 33, 1, 0, &[1])]);
        data.resize(4096, 0);
        data.extend_from_slice(b"garbage");
        let parts: Vec<_> = walk(&data).collect();
        assert!(matches!(parts.last().unwrap().piece, Piece::Unknown { first_nonzero: 4096 }));

        let data = section(&[v(3, 1, 33, 1, 0, &[1]), v(3, 1, 1 << 40, 1, 0, &[1])]);
        let parts: Vec<_> = walk(&data).collect();
        match &parts.last().unwrap().piece {
            Piece::Unreadable(e) => assert_eq!(e.offset, 4096 + 8),
            other => panic!("{other:?}"),
        }
        let node = found_to_node(parts.last().unwrap(), Span::new(0, 0, data.len() as u64));
        assert_eq!(node.diagnostics[0].span, Some(Span::new(0, 4096 + 8, 1)));

        let data = section(&[v(1, 1, 0, 1, 0, &[1]), v(3, 1, 33, 1, 0, &[1])]);
        let parts: Vec<_> = walk(&data).collect();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].size, data.len() as u64);
    }

    #[test]
    fn walking_hostile_bytes_never_panics_or_loops() {
        let seeds: [&[u8]; 5] = [b"", b"CCOB", b"CCOB\x03\x00\x01\x00", &[0; 9000], b"\0\0\0\0CCOB"];
        for s in seeds {
            let n = walk(s).take(100).count();
            assert!(n < 100);
        }
        let mut x = 0x1234_5678u32;
        for len in 0..300usize {
            let mut data = b"CCOB".to_vec();
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                data.push((x & 0x07) as u8);
            }
            assert!(walk_aligned(&data, 1).take(10_000).count() < 10_000);
            let _ = node(&data, Span::new(0, 0, data.len() as u64), Some(1 << 20));
        }
    }
}
