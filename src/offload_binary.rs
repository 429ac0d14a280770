//! LLVM offload binaries (magic `10 FF 10 AD`): reading, editing and writing versions 1, 2 and 3,
//! byte-identical to LLVM.
//!
//! Version 1 is what LLVM 22 writes (`llvm-offload-binary`, `clang-offload-packager`, clang's
//! `.llvm.offloading` sections). Versions 2 (several entries in one binary) and 3 (40-byte header,
//! optionally compressed payload) come from LLVM main (`llvm/include/llvm/Object/OffloadBinary.h`,
//! `llvm/lib/Object/OffloadBinary.cpp`, pull requests #169425 and #222774).
//!
//! # Byte layout
//!
//! All integers are little-endian. All offsets are absolute, counted from the binary's first byte.
//!
//! ## Header
//!
//! | offset | size | v1 | v2 | v3 |
//! |---|---|---|---|---|
//! | 0 | 4 | magic `10 FF 10 AD` | magic | magic |
//! | 4 | 4 | version = 1 | version = 2 | version = 3 |
//! | 8 | 8 | size of the binary | size of the binary | size as stored (header + compressed payload when compressed) |
//! | 16 | 8 | entry offset | entries offset | entries offset (40) |
//! | 24 | 8 | entry size (40, otherwise unused) | entry count | entry count |
//! | 32 | 8 | — | — | inflated size: 0 when not compressed, else the size of the binary once decompressed |
//!
//! ## Entry (40 bytes; one in v1, `entry count` in a row in v2 and v3)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 2 | image kind: none 0, object 1, bitcode 2, cubin 3, fatbinary 4, ptx 5, spirv 6 |
//! | 2 | 2 | offload kind: none 0, openmp 1, cuda 2, hip 4, sycl 8 (older LLVM: hip 3, sycl 4) |
//! | 4 | 4 | flags (v2 and later: bit 0 = metadata only, no image) |
//! | 8 | 8 | offset of this entry's string entries |
//! | 16 | 8 | number of string entries |
//! | 24 | 8 | image offset |
//! | 32 | 8 | image size |
//!
//! ## String entry
//!
//! | version | size | fields |
//! |---|---|---|
//! | v1 | 16 | key offset, value offset (both NUL-terminated strings) |
//! | v2, v3 | 24 | key offset (NUL-terminated), value offset, value size (the value is `size` bytes, still followed by a NUL when LLVM writes it) |
//!
//! ## What LLVM writes, in order
//!
//! | v1 | v2, v3 |
//! |---|---|
//! | header (32 bytes) | header (32 bytes in v2, 40 in v3, inflated size 0) |
//! | entry | all entries |
//! | string entries | every entry's string entries, entry after entry |
//! | string table: ELF `StringTableBuilder` with tail merging ([`crate::strtab`]) | one table shared by all entries |
//! | zeros to a multiple of 8 | zeros to a multiple of 8 |
//! | image | the images back to back, not aligned one by one |
//! | zeros to a multiple of 8 | zeros to a multiple of 8 |
//!
//! ## Version 3, compressed
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 40 | header: size = 40 + payload size, entries offset 40, entry count, inflated size = size of the uncompressed v3 binary |
//! | 40 | size − 40 | payload: zlib stream (RFC 1950) or zstd frame (told apart by the zstd magic `28 B5 2F FD`) of the uncompressed binary's bytes after its header |
//! | size | to a multiple of 8 | zeros, not counted in size |
//!
//! Decompressing the payload and putting the header back (with size = inflated size and
//! inflated size = 0) gives the uncompressed v3 binary, whose offsets are absolute as usual.
//!
//! ## Several binaries in one buffer
//!
//! A `.llvm.offloading` section (or a file written by `llvm-offload-binary` with several
//! `--image`s) holds binaries back to back. LLVM's `extractOffloadBinaries` reads one at offset 0,
//! then continues at the next multiple of 8 after its `size`, until the buffer ends; anything that
//! is not a binary there is an error for LLVM. [`walk`] does the same, but reports unusable bytes
//! instead of failing, and resumes at the next 8-byte-aligned magic.
//!
//! # Model
//!
//! [`parse`] gives an [`OffloadBinary`]: a version, entries ([`OffloadEntry`]: kinds, flags, an
//! ordered string map, the image) and v3 compression, plus the [`Layout`] it was read from. An
//! unedited model writes back exactly its input bytes; once edited it is laid out again the way
//! LLVM lays it out. Strings that are not UTF-8 are decoded lossily with a warning (an edited
//! binary writes the replacement characters).

use crate::bytes::{checked_end, human_size, Reader};
use crate::error::{Error, Result};
use crate::strtab::StringTable;
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span, Tree, Value};
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;

/// The first four bytes of every offload binary.
pub const MAGIC: [u8; 4] = [0x10, 0xFF, 0x10, 0xAD];
/// Binaries start and end on this alignment.
pub const ALIGNMENT: u64 = 8;
/// Size of an entry record, in every version.
pub const ENTRY_SIZE: u64 = 40;
/// Flag bit (v2 and later): the entry carries metadata only, no image.
pub const FLAG_METADATA: u32 = 1;
/// The newest version this module reads and writes.
pub const LATEST_VERSION: u32 = 3;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const MAX_NOTES: usize = 64;

const CTX_HEADER: &str = "offload binary header";
const CTX_ENTRY: &str = "offload entry";
const CTX_STRING: &str = "offload string entry";
const CTX_COMPRESSED: &str = "compressed offload binary";
const CTX_WRITE: &str = "offload binary writer";

/// Header size of a version: 32 bytes up to v2, 40 from v3.
pub fn header_size(version: u32) -> u64 {
    if version >= 3 {
        40
    } else {
        32
    }
}

/// String entry size of a version: 16 bytes in v1, 24 (with the value size) later.
pub fn string_entry_size(version: u32) -> u64 {
    if version == 1 {
        16
    } else {
        24
    }
}

/// Whether `data` starts with the offload binary magic.
pub fn has_magic(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// Same as [`has_magic`]: whether `data` looks like an offload binary.
pub fn is_offload_binary(data: &[u8]) -> bool {
    has_magic(data)
}

fn align8(value: u64) -> u64 {
    value.wrapping_add(ALIGNMENT - 1) & !(ALIGNMENT - 1)
}

// ---------------------------------------------------------------------------------------------
// Kinds
// ---------------------------------------------------------------------------------------------

/// What an entry's image is. Unknown values are kept as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImageKind(pub u16);

impl ImageKind {
    pub const NONE: ImageKind = ImageKind(0);
    pub const OBJECT: ImageKind = ImageKind(1);
    pub const BITCODE: ImageKind = ImageKind(2);
    pub const CUBIN: ImageKind = ImageKind(3);
    pub const FATBINARY: ImageKind = ImageKind(4);
    pub const PTX: ImageKind = ImageKind(5);
    /// In LLVM although the specification table stops at 5.
    pub const SPIRV: ImageKind = ImageKind(6);

    const NAMES: [&'static str; 7] = ["none", "object", "bitcode", "cubin", "fatbinary", "ptx", "spirv"];
    /// LLVM's `getImageKindName`, used for file extensions.
    const EXTENSIONS: [&'static str; 7] = ["", "o", "bc", "cubin", "fatbin", "s", "spv"];

    /// Readable name: "none", "object", "bitcode", "cubin", "fatbinary", "ptx", "spirv", or
    /// "unknown".
    pub fn name(self) -> &'static str {
        Self::NAMES.get(self.0 as usize).copied().unwrap_or("unknown")
    }

    pub fn is_known(self) -> bool {
        (self.0 as usize) < Self::NAMES.len()
    }

    /// The kind for a readable name or an LLVM extension name ("o", "bc", "fatbin", "s", "spv").
    pub fn from_name(name: &str) -> Option<ImageKind> {
        let by_name = Self::NAMES.iter().position(|n| *n == name);
        let by_ext = Self::EXTENSIONS.iter().skip(1).position(|e| *e == name).map(|i| i + 1);
        by_name.or(by_ext).map(|i| ImageKind(i as u16))
    }

    /// LLVM's file extension for the kind (`getImageKindName`): "o", "bc", "cubin", "fatbin", "s",
    /// "spv", or "" for none and unknown kinds.
    pub fn extension(self) -> &'static str {
        Self::EXTENSIONS.get(self.0 as usize).copied().unwrap_or("")
    }

    /// LLVM main's `getImageKind`: the kind a file extension (without the dot) stands for
    /// (LLVM 22 does not know `spv` yet; see [`packager::image_kind_for`]).
    pub fn from_extension(ext: &str) -> ImageKind {
        Self::EXTENSIONS.iter().skip(1).position(|e| *e == ext).map_or(ImageKind::NONE, |i| ImageKind(i as u16 + 1))
    }
}

/// Who produced an entry. LLVM 22 writes bit flags; older LLVM numbered HIP 3 (and the
/// specification table has SYCL 4), so some values read two ways: see [`OffloadKind::caveat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffloadKind(pub u16);

impl OffloadKind {
    pub const NONE: OffloadKind = OffloadKind(0);
    pub const OPENMP: OffloadKind = OffloadKind(1);
    pub const CUDA: OffloadKind = OffloadKind(2);
    /// HIP as LLVM 22 writes it.
    pub const HIP: OffloadKind = OffloadKind(4);
    pub const SYCL: OffloadKind = OffloadKind(8);
    /// HIP as older LLVM wrote it.
    pub const LEGACY_HIP: OffloadKind = OffloadKind(3);

    /// Readable name of the most likely meaning: "none", "openmp", "cuda", "hip" (4, and 3 from
    /// older LLVM), "sycl" (8) or "unknown".
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "none",
            1 => "openmp",
            2 => "cuda",
            3 | 4 => "hip",
            8 => "sycl",
            _ => "unknown",
        }
    }

    /// LLVM's `getOffloadKind`, used for `kind=` in `llvm-offload-binary`: "openmp", "cuda",
    /// "hip", "sycl" (exact spelling), anything else is none.
    pub fn from_llvm_name(name: &str) -> OffloadKind {
        match name {
            "openmp" => OffloadKind::OPENMP,
            "cuda" => OffloadKind::CUDA,
            "hip" => OffloadKind::HIP,
            "sycl" => OffloadKind::SYCL,
            _ => OffloadKind::NONE,
        }
    }

    /// Strict version of [`from_llvm_name`](Self::from_llvm_name) for editors: also accepts
    /// "none", and rejects unknown names instead of mapping them to none.
    pub fn from_name(name: &str) -> Option<OffloadKind> {
        match name {
            "none" => Some(OffloadKind::NONE),
            _ => Some(OffloadKind::from_llvm_name(name)).filter(|k| *k != OffloadKind::NONE),
        }
    }

    /// What a reader should know about this value, if anything: values whose meaning changed
    /// between LLVM versions, and values no LLVM defines.
    pub fn caveat(self) -> Option<(Severity, &'static str)> {
        match self.0 {
            0 | 1 | 2 | 8 => None,
            3 => Some((
                Severity::Warning,
                "offload kind 3 is HIP in the older numbering (specification table); LLVM 22 writes \
                 HIP as 4 and reads 3 as none",
            )),
            4 => Some((
                Severity::Note,
                "offload kind 4 is ambiguous: HIP in LLVM 22 (bit flags) but SYCL in the older \
                 specification table",
            )),
            _ => Some((
                Severity::Warning,
                "offload kind is not one LLVM defines (none 0, openmp 1, cuda 2, hip 4, sycl 8; \
                 older LLVM: hip 3, sycl 4)",
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

/// One device image with its metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadEntry<'a> {
    pub image_kind: ImageKind,
    pub offload_kind: OffloadKind,
    pub flags: u32,
    /// The string map in order, keys unique (LLVM keeps a `MapVector`).
    pub strings: Vec<(String, String)>,
    pub image: Cow<'a, [u8]>,
}

impl<'a> OffloadEntry<'a> {
    pub fn new(image_kind: ImageKind, offload_kind: OffloadKind, image: impl Into<Cow<'a, [u8]>>) -> Self {
        OffloadEntry { image_kind, offload_kind, flags: 0, strings: Vec::new(), image: image.into() }
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.strings.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The `triple` string, if present.
    pub fn triple(&self) -> Option<&str> {
        self.get("triple")
    }

    /// The `arch` string (processor or target ID), if present.
    pub fn arch(&self) -> Option<&str> {
        self.get("arch")
    }

    /// Sets `key` to `value`, keeping the key's position when it exists (like LLVM's MapVector)
    /// and appending it otherwise.
    pub fn set(&mut self, key: &str, value: &str) -> &mut Self {
        match self.strings.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.into(),
            None => self.strings.push((key.into(), value.into())),
        }
        self
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let at = self.strings.iter().position(|(k, _)| k == key)?;
        Some(self.strings.remove(at).1)
    }

    pub fn into_owned(self) -> OffloadEntry<'static> {
        OffloadEntry {
            image_kind: self.image_kind,
            offload_kind: self.offload_kind,
            flags: self.flags,
            strings: self.strings,
            image: Cow::Owned(self.image.into_owned()),
        }
    }
}

/// How a v3 payload is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressionMethod {
    Zlib,
    Zstd,
}

impl CompressionMethod {
    pub fn name(self) -> &'static str {
        match self {
            CompressionMethod::Zlib => "zlib",
            CompressionMethod::Zstd => "zstd",
        }
    }

    fn method(self) -> crate::compression::Method {
        match self {
            CompressionMethod::Zlib => crate::compression::Method::Zlib,
            CompressionMethod::Zstd => crate::compression::Method::Zstd,
        }
    }
}

/// Compression of a v3 binary. `level: None` is the library default; a parsed binary has `None`
/// (the level is not recorded in the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compression {
    pub method: CompressionMethod,
    pub level: Option<i32>,
}

/// Bounds on what reading may allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Largest decompressed v3 binary accepted.
    pub max_inflated_size: u64,
    /// Largest total of decoded key and value bytes in one binary.
    pub max_string_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { max_inflated_size: 1 << 30, max_string_bytes: 64 << 20 }
    }
}

/// An offload binary: one entry in v1, any number in v2 and v3.
#[derive(Clone, Debug)]
pub struct OffloadBinary<'a> {
    pub version: u32,
    pub entries: Vec<OffloadEntry<'a>>,
    /// v3 only: compress the payload when writing.
    pub compression: Option<Compression>,
    layout: Option<Box<Layout<'a>>>,
}

/// The header fields as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHeader {
    pub version: u32,
    pub size: u64,
    /// v1 "entry offset", v2 and v3 "entries offset".
    pub entries_offset: u64,
    /// v1 "entry size" (40, otherwise unused), v2 and v3 "entry count".
    pub entries_field: u64,
    /// v3 only.
    pub inflated_size: Option<u64>,
}

impl RawHeader {
    pub fn header_size(&self) -> u64 {
        header_size(self.version)
    }

    pub fn entry_count(&self) -> u64 {
        if self.version == 1 {
            1
        } else {
            self.entries_field
        }
    }

    pub fn is_compressed(&self) -> bool {
        self.inflated_size.unwrap_or(0) != 0
    }
}

/// An entry record's fields as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEntry {
    pub image_kind: u16,
    pub offload_kind: u16,
    pub flags: u32,
    pub string_offset: u64,
    pub num_strings: u64,
    pub image_offset: u64,
    pub image_size: u64,
}

/// Where one string entry and its key and value are (key and value without their NUL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringLayout {
    pub record: u64,
    pub key: Range<u64>,
    pub value: Range<u64>,
}

/// Where one entry is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryLayout {
    /// Offset of the 40-byte entry record.
    pub offset: u64,
    pub raw: RawEntry,
    /// Every string entry, duplicates included, in file order.
    pub strings: Vec<StringLayout>,
}

/// A v3 binary's compressed payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedLayout {
    pub method: CompressionMethod,
    /// Where the payload is in the stored binary.
    pub payload: Range<u64>,
    /// The uncompressed binary: the header put back, then the decompressed payload. Entry,
    /// string and image offsets point into this.
    pub inflated: Vec<u8>,
}

/// Something found while reading that does not stop reading.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub severity: Severity,
    pub message: String,
    /// Bytes concerned, in the binary, or in [`CompressedLayout::inflated`] when `decompressed`.
    pub at: Option<Range<u64>>,
    pub decompressed: bool,
}

/// Everything about how a parsed binary was laid out, kept so that an unedited binary writes
/// back exactly and so that the tree can show where each field is.
#[derive(Clone, Debug)]
pub struct Layout<'a> {
    /// The binary as stored: exactly `size` bytes.
    pub bytes: Cow<'a, [u8]>,
    /// The bytes after it up to the next multiple of 8 (fewer when the input ends first).
    pub padding: Cow<'a, [u8]>,
    pub header: RawHeader,
    pub compressed: Option<CompressedLayout>,
    pub entries: Vec<EntryLayout>,
    /// From the end of the entries and string entries to the first image (or the end).
    pub string_table: Range<u64>,
    /// End of the last string inside `string_table` (the table proper; zeros follow).
    pub string_table_used_end: u64,
    pub notes: Vec<Note>,
    snapshot: Snapshot,
}

/// The model as parsed, to tell whether it was edited.
#[derive(Clone, Debug)]
struct Snapshot {
    version: u32,
    compression: Option<Compression>,
    strings: Vec<Vec<(String, String)>>,
}

impl<'a> Layout<'a> {
    /// The uncompressed binary the entry offsets refer to.
    pub fn body(&self) -> &[u8] {
        match &self.compressed {
            Some(c) => &c.inflated,
            None => &self.bytes,
        }
    }

    fn into_owned(self) -> Layout<'static> {
        Layout {
            bytes: Cow::Owned(self.bytes.into_owned()),
            padding: Cow::Owned(self.padding.into_owned()),
            header: self.header,
            compressed: self.compressed,
            entries: self.entries,
            string_table: self.string_table,
            string_table_used_end: self.string_table_used_end,
            notes: self.notes,
            snapshot: self.snapshot,
        }
    }
}

impl<'a> OffloadBinary<'a> {
    /// A new binary with no layout yet; it is laid out the way LLVM does when written.
    pub fn new(version: u32, entries: Vec<OffloadEntry<'a>>) -> Self {
        OffloadBinary { version, entries, compression: None, layout: None }
    }

    /// A version 1 binary holding `entry`, as LLVM 22 writes.
    pub fn v1(entry: OffloadEntry<'a>) -> Self {
        OffloadBinary::new(1, alloc::vec![entry])
    }

    /// How the binary was read, if it was.
    pub fn layout(&self) -> Option<&Layout<'a>> {
        self.layout.as_deref()
    }

    /// Bytes the binary occupied in its input, padding included (0 when built, not parsed).
    pub fn stored_len(&self) -> u64 {
        self.layout.as_ref().map_or(0, |l| (l.bytes.len() + l.padding.len()) as u64)
    }

    /// True when the model differs from what was read (or was never read).
    pub fn is_edited(&self) -> bool {
        self.pristine_layout().is_none()
    }

    fn pristine_layout(&self) -> Option<&Layout<'a>> {
        let layout = self.layout.as_deref()?;
        let snap = &layout.snapshot;
        let same_shape = self.version == snap.version
            && self.compression == snap.compression
            && self.entries.len() == layout.entries.len();
        if !same_shape {
            return None;
        }
        let body = layout.body();
        let unchanged = self.entries.iter().zip(&layout.entries).zip(&snap.strings).all(|((e, l), strings)| {
            let image = &body[l.raw.image_offset as usize..(l.raw.image_offset + l.raw.image_size) as usize];
            e.image_kind.0 == l.raw.image_kind
                && e.offload_kind.0 == l.raw.offload_kind
                && e.flags == l.raw.flags
                && &e.strings == strings
                && *e.image == *image
        });
        unchanged.then_some(layout)
    }

    /// The binary's bytes followed by zeros to a multiple of 8: the input bytes (and padding)
    /// when unedited, otherwise laid out as LLVM does ([`write_canonical`](Self::write_canonical)).
    pub fn write(&self) -> Result<Vec<u8>> {
        match self.pristine_layout() {
            Some(layout) => {
                let mut out = layout.bytes.to_vec();
                out.extend_from_slice(&layout.padding);
                Ok(out)
            }
            None => self.write_canonical(),
        }
    }

    /// Lays the model out the way LLVM does, ignoring how it was read.
    pub fn write_canonical(&self) -> Result<Vec<u8>> {
        if self.compression.is_some() && self.version != 3 {
            return Err(write_error("compression only with version 3", format!("version {}", self.version)));
        }
        match self.version {
            1 => match self.entries.as_slice() {
                [entry] => write_v1(entry),
                other => Err(write_error("exactly one entry in version 1", format!("{} entries", other.len()))),
            },
            2 => write_v2(&self.entries),
            3 => write_v3(&self.entries, self.compression),
            v => Err(write_error("version 1, 2 or 3", format!("version {v}"))),
        }
    }

    /// The same binary, owning all its bytes.
    pub fn into_owned(self) -> OffloadBinary<'static> {
        OffloadBinary {
            version: self.version,
            entries: self.entries.into_iter().map(OffloadEntry::into_owned).collect(),
            compression: self.compression,
            layout: self.layout.map(|l| Box::new(l.into_owned())),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Reads the offload binary at the start of `data` (bytes after its size are ignored, except the
/// padding up to the next multiple of 8, which is kept for writing back).
pub fn parse(data: &[u8]) -> Result<OffloadBinary<'_>> {
    parse_with(data, &ReadOptions::default())
}

/// [`parse`] with explicit allocation bounds.
pub fn parse_with<'a>(data: &'a [u8], options: &ReadOptions) -> Result<OffloadBinary<'a>> {
    let header = read_header(data)?;
    let size = header.size as usize;
    let bytes = &data[..size];
    let padding = &data[size..(align8(header.size) as usize).min(data.len())];
    let mut notes = Notes::default();
    if header.is_compressed() {
        return parse_compressed(bytes, padding, header, options, notes);
    }
    if header.size % ALIGNMENT != 0 {
        notes.push(Severity::Warning, format!("size {} is not a multiple of 8", header.size), Some(8..16));
    }
    let body = read_body(bytes, &header, options, &mut notes)?;
    let entries = body
        .entries
        .iter()
        .zip(&body.strings)
        .map(|(l, strings)| entry_from(l, strings.clone(), Cow::Borrowed(image_of(bytes, l))))
        .collect();
    Ok(finish(header, entries, None, body, Cow::Borrowed(bytes), Cow::Borrowed(padding), notes))
}

fn image_of<'b>(body: &'b [u8], l: &EntryLayout) -> &'b [u8] {
    // Ranges were checked against the body when read.
    &body[l.raw.image_offset as usize..(l.raw.image_offset + l.raw.image_size) as usize]
}

fn entry_from<'a>(l: &EntryLayout, strings: Vec<(String, String)>, image: Cow<'a, [u8]>) -> OffloadEntry<'a> {
    OffloadEntry {
        image_kind: ImageKind(l.raw.image_kind),
        offload_kind: OffloadKind(l.raw.offload_kind),
        flags: l.raw.flags,
        strings,
        image,
    }
}

fn finish<'a>(
    header: RawHeader,
    entries: Vec<OffloadEntry<'a>>,
    compressed: Option<CompressedLayout>,
    body: Body,
    bytes: Cow<'a, [u8]>,
    padding: Cow<'a, [u8]>,
    mut notes: Notes,
) -> OffloadBinary<'a> {
    if padding.iter().any(|&b| b != 0) {
        let end = header.size + padding.len() as u64;
        notes.push(Severity::Warning, "the padding after the binary is not zero", Some(header.size..end));
    }
    let compression = compressed.as_ref().map(|c| Compression { method: c.method, level: None });
    let snapshot = Snapshot { version: header.version, compression, strings: body.strings };
    let layout = Layout {
        bytes,
        padding,
        header,
        compressed,
        entries: body.entries,
        string_table: body.string_table,
        string_table_used_end: body.string_table_used_end,
        notes: notes.finish(),
        snapshot,
    };
    OffloadBinary { version: header.version, entries, compression, layout: Some(Box::new(layout)) }
}

/// Reads and checks the header: magic, version, and a size that fits the input.
fn read_header(data: &[u8]) -> Result<RawHeader> {
    let mut r = Reader::new(data);
    let magic: [u8; 4] = r.array(CTX_HEADER)?;
    if magic != MAGIC {
        return Err(Error::new(0, CTX_HEADER, "magic 10 FF 10 AD", hex(&magic)));
    }
    let version = r.u32(CTX_HEADER)?;
    if !(1..=LATEST_VERSION).contains(&version) {
        return Err(Error::new(4, CTX_HEADER, "version 1, 2 or 3", format!("version {version}")));
    }
    let size = r.u64(CTX_HEADER)?;
    let entries_offset = r.u64(CTX_HEADER)?;
    let entries_field = r.u64(CTX_HEADER)?;
    let inflated_size = if version >= 3 { Some(r.u64(CTX_HEADER)?) } else { None };
    let header = RawHeader { version, size, entries_offset, entries_field, inflated_size };
    let min = header.header_size();
    if size < min {
        return Err(Error::new(
            8,
            CTX_HEADER,
            format!("a size of at least {min} bytes (the header)"),
            size.to_string(),
        ));
    }
    if size > data.len() as u64 {
        return Err(Error::new(
            8,
            CTX_HEADER,
            format!("a size within the {} bytes available", data.len()),
            format!("size {size}"),
        ));
    }
    Ok(header)
}

fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    parts.join(" ")
}

/// Notes, capped so that a hostile input cannot make thousands of them.
#[derive(Default)]
struct Notes {
    notes: Vec<Note>,
    dropped: usize,
    decompressed: bool,
}

impl Notes {
    fn push(&mut self, severity: Severity, message: impl Into<String>, at: Option<Range<u64>>) {
        if self.notes.len() >= MAX_NOTES {
            self.dropped += 1;
            return;
        }
        self.notes.push(Note { severity, message: message.into(), at, decompressed: self.decompressed });
    }

    fn finish(mut self) -> Vec<Note> {
        if self.dropped > 0 {
            let message = format!("{} more findings not listed", self.dropped);
            self.notes.push(Note { severity: Severity::Warning, message, at: None, decompressed: false });
        }
        self.notes
    }
}

/// What [`read_body`] finds in an uncompressed binary.
struct Body {
    entries: Vec<EntryLayout>,
    strings: Vec<Vec<(String, String)>>,
    string_table: Range<u64>,
    string_table_used_end: u64,
}

/// Reads the entries, string maps and image ranges of an uncompressed binary `buf` (exactly
/// `header.size` bytes), checking every offset against it.
fn read_body(buf: &[u8], header: &RawHeader, options: &ReadOptions, notes: &mut Notes) -> Result<Body> {
    let records = read_entry_records(buf, header, notes)?;
    check_string_capacity(buf, header, &records)?;
    let mut finder = NulFinder::new(buf);
    let mut budget = StringBudget { left: options.max_string_bytes };
    let mut entries = Vec::with_capacity(records.len());
    let mut strings = Vec::with_capacity(records.len());
    for (offset, raw) in records {
        let (layouts, map) = read_strings(buf, header.version, &raw, &mut finder, &mut budget, notes)?;
        entries.push(EntryLayout { offset, raw, strings: layouts });
        strings.push(map);
    }
    let (string_table, string_table_used_end) = find_string_table(buf, header, &entries);
    check_strings_in_table(&entries, &string_table, notes);
    check_overlaps(header, &entries, notes);
    Ok(Body { entries, strings, string_table, string_table_used_end })
}

/// Reads the entry records, checking that they and what they point at lie inside `buf`.
fn read_entry_records(buf: &[u8], header: &RawHeader, notes: &mut Notes) -> Result<Vec<(u64, RawEntry)>> {
    let size = buf.len() as u64;
    let offset = header.entries_offset;
    if offset > size {
        let expected = format!("an entry offset within the {size}-byte binary");
        return Err(Error::new(16, CTX_HEADER, expected, offset.to_string()));
    }
    // Entries inside the header would be read from the header's own fields: nothing LLVM writes
    // looks like that, and what follows from it would only confuse.
    let header_len = header_size(header.version);
    if offset < header_len {
        let expected = format!("an entry offset at or after the {header_len}-byte header");
        return Err(Error::new(16, CTX_HEADER, expected, offset.to_string()));
    }
    let room = (size - offset) / ENTRY_SIZE;
    let count = header.entry_count();
    if count > room {
        let at = if header.version == 1 { 16 } else { 24 };
        let expected = format!("at most {room} entries of 40 bytes after offset {offset}");
        return Err(Error::new(at, CTX_HEADER, expected, format!("{count} entries")));
    }
    if header.version == 1 && header.entries_field != ENTRY_SIZE {
        let message = format!("entry size is {}; LLVM writes 40 and does not use it", header.entries_field);
        notes.push(Severity::Warning, message, Some(24..32));
    }
    if count == 0 {
        notes.push(Severity::Warning, "the binary has no entries", Some(24..32));
    }
    (0..count)
        .map(|i| {
            let at = offset + i * ENTRY_SIZE;
            let raw = read_entry_record(buf, at)?;
            check_entry_ranges(size, header.version, at, &raw)?;
            Ok((at, raw))
        })
        .collect()
}

fn read_entry_record(buf: &[u8], at: u64) -> Result<RawEntry> {
    let mut r = Reader::at(buf, at as usize);
    Ok(RawEntry {
        image_kind: r.u16(CTX_ENTRY)?,
        offload_kind: r.u16(CTX_ENTRY)?,
        flags: r.u32(CTX_ENTRY)?,
        string_offset: r.u64(CTX_ENTRY)?,
        num_strings: r.u64(CTX_ENTRY)?,
        image_offset: r.u64(CTX_ENTRY)?,
        image_size: r.u64(CTX_ENTRY)?,
    })
}

/// The string entries and the image of an entry must lie inside the binary.
fn check_entry_ranges(size: u64, version: u32, at: u64, raw: &RawEntry) -> Result<()> {
    let entry_size = string_entry_size(version);
    if raw.string_offset > size {
        let expected = format!("a string entries offset within the {size}-byte binary");
        return Err(Error::new(at + 8, CTX_ENTRY, expected, raw.string_offset.to_string()));
    }
    let room = (size - raw.string_offset) / entry_size;
    if raw.num_strings > room {
        let expected =
            format!("at most {room} string entries of {entry_size} bytes after offset {}", raw.string_offset);
        return Err(Error::new(at + 16, CTX_ENTRY, expected, format!("{} string entries", raw.num_strings)));
    }
    let end = checked_end(raw.image_offset, raw.image_size, at + 24, CTX_ENTRY)?;
    if end > size {
        let expected = format!("an image within the {size}-byte binary");
        return Err(Error::new(at + 24, CTX_ENTRY, expected, format!("bytes {}..{end}", raw.image_offset)));
    }
    Ok(())
}

/// String entry arrays may only overlap so far: in total they cannot claim more records than the
/// binary can hold, which bounds what reading them allocates.
fn check_string_capacity(buf: &[u8], header: &RawHeader, records: &[(u64, RawEntry)]) -> Result<()> {
    let capacity = buf.len() as u64 / string_entry_size(header.version);
    let total = records.iter().fold(0u64, |sum, (_, raw)| sum.saturating_add(raw.num_strings));
    if total > capacity {
        let expected = format!("at most {capacity} string entries in total in a {}-byte binary", buf.len());
        let at = records.first().map_or(0, |(at, _)| at + 16);
        return Err(Error::new(at, CTX_ENTRY, expected, format!("{total} string entries")));
    }
    Ok(())
}

/// Limits the total of decoded key and value bytes.
struct StringBudget {
    left: u64,
}

impl StringBudget {
    fn take(&mut self, n: u64, at: u64) -> Result<()> {
        if n > self.left {
            return Err(Error::new(
                at,
                CTX_STRING,
                "string maps within the configured limit of decoded bytes",
                "more string bytes than the limit",
            ));
        }
        self.left -= n;
        Ok(())
    }
}

/// Every string record of an entry, and the string map LLVM builds from them.
type EntryStrings = (Vec<StringLayout>, Vec<(String, String)>);

/// Reads one entry's string entries. Returns every record's layout and the map as LLVM builds
/// it: a repeated key keeps its first position and takes the last value.
fn read_strings(
    buf: &[u8],
    version: u32,
    raw: &RawEntry,
    finder: &mut NulFinder<'_>,
    budget: &mut StringBudget,
    notes: &mut Notes,
) -> Result<EntryStrings> {
    let record_size = string_entry_size(version);
    let mut layouts = Vec::with_capacity(raw.num_strings as usize);
    let mut map: Vec<(String, String)> = Vec::new();
    let mut index: BTreeMap<&[u8], usize> = BTreeMap::new();
    for i in 0..raw.num_strings {
        let record = raw.string_offset + i * record_size;
        let layout = read_string_record(buf, version, record, finder)?;
        budget.take((layout.key.end - layout.key.start) + (layout.value.end - layout.value.start), record)?;
        let key_bytes = &buf[layout.key.start as usize..layout.key.end as usize];
        let key = decode(key_bytes, "key", &layout.key, notes);
        let value = decode(&buf[layout.value.start as usize..layout.value.end as usize], "value", &layout.value, notes);
        match index.get(key_bytes) {
            Some(&at) => {
                let message = format!("key \"{key}\" appears again; LLVM keeps the last value at the first position");
                notes.push(Severity::Warning, message, Some(record..record + record_size));
                map[at].1 = value;
            }
            None => {
                index.insert(key_bytes, map.len());
                map.push((key, value));
            }
        }
        layouts.push(layout);
    }
    Ok((layouts, map))
}

fn read_string_record(buf: &[u8], version: u32, record: u64, finder: &mut NulFinder<'_>) -> Result<StringLayout> {
    let mut r = Reader::at(buf, record as usize);
    let key_offset = r.u64(CTX_STRING)?;
    let value_offset = r.u64(CTX_STRING)?;
    let key = c_string(buf, key_offset, record, finder)?;
    let value = if version == 1 {
        c_string(buf, value_offset, record + 8, finder)?
    } else {
        let value_size = r.u64(CTX_STRING)?;
        let end = checked_end(value_offset, value_size, record + 16, CTX_STRING)?;
        if end > buf.len() as u64 {
            let expected = format!("a value within the {}-byte binary", buf.len());
            return Err(Error::new(record + 8, CTX_STRING, expected, format!("bytes {value_offset}..{end}")));
        }
        value_offset..end
    };
    Ok(StringLayout { record, key, value })
}

/// The NUL-terminated string at `offset` (range without its NUL), which must end inside `buf`.
fn c_string(buf: &[u8], offset: u64, at: u64, finder: &mut NulFinder<'_>) -> Result<Range<u64>> {
    if offset >= buf.len() as u64 {
        let expected = format!("a string offset within the {}-byte binary", buf.len());
        return Err(Error::new(at, CTX_STRING, expected, offset.to_string()));
    }
    match finder.find(offset) {
        Some(nul) => Ok(offset..nul),
        None => Err(Error::new(
            at,
            CTX_STRING,
            "a NUL-terminated string",
            format!("no NUL between offset {offset} and the end of the binary"),
        )),
    }
}

/// Lossy UTF-8, with a warning when bytes had to be replaced.
fn decode(bytes: &[u8], what: &str, at: &Range<u64>, notes: &mut Notes) -> String {
    match String::from_utf8_lossy(bytes) {
        Cow::Borrowed(s) => s.into(),
        Cow::Owned(s) => {
            let message = format!(
                "{what} \"{s}\" is not UTF-8; shown with replacement characters, which an edited \
                 binary would write"
            );
            notes.push(Severity::Warning, message, Some(at.clone()));
            s
        }
    }
}

/// Finds the first NUL at or after an offset. Remembers what it scanned, so that many strings
/// pointing into one long run without NUL cost one scan, not one each.
struct NulFinder<'b> {
    data: &'b [u8],
    /// Scan start -> first NUL at or after it (`None`: none until the end).
    known: BTreeMap<u64, Option<u64>>,
}

impl<'b> NulFinder<'b> {
    fn new(data: &'b [u8]) -> Self {
        NulFinder { data, known: BTreeMap::new() }
    }

    fn find(&mut self, from: u64) -> Option<u64> {
        if let Some((_, &nul)) = self.known.range(..=from).next_back() {
            // The answer for an earlier start also holds here unless its NUL lies before us.
            match nul {
                None => return None,
                Some(p) if p >= from => return Some(p),
                Some(_) => {}
            }
        }
        let next = self.known.range(from + 1..).next().map(|(&s, &n)| (s, n));
        let stop = next.map_or(self.data.len() as u64, |(s, _)| s);
        let scanned = &self.data[from as usize..stop as usize];
        let found = match scanned.iter().position(|&b| b == 0) {
            Some(i) => Some(from + i as u64),
            None => next.and_then(|(_, n)| n),
        };
        self.known.insert(from, found);
        found
    }
}

/// The string table region: after the entry records and every string entry array, up to the
/// first image that follows (or the end); and the end of the strings actually in it.
fn find_string_table(buf: &[u8], header: &RawHeader, entries: &[EntryLayout]) -> (Range<u64>, u64) {
    let size = buf.len() as u64;
    let records_end = header.entries_offset + header.entry_count() * ENTRY_SIZE;
    let entry_size = string_entry_size(header.version);
    let start = entries
        .iter()
        .map(|e| e.raw.string_offset + e.raw.num_strings * entry_size)
        .fold(records_end.max(header.header_size()), u64::max)
        .min(size);
    let end = entries
        .iter()
        .filter(|e| e.raw.image_size > 0 && e.raw.image_offset >= start)
        .map(|e| e.raw.image_offset)
        .fold(size, u64::min);
    let with_nul = |r: &Range<u64>| if r.end < size && buf[r.end as usize] == 0 { r.end + 1 } else { r.end };
    let used_end = entries
        .iter()
        .flat_map(|e| e.strings.iter())
        .flat_map(|s| [with_nul(&s.key), with_nul(&s.value)])
        .filter(|&e| e <= end)
        .fold(if start < end { start + 1 } else { start }, u64::max);
    (start..end, used_end)
}

fn check_strings_in_table(entries: &[EntryLayout], table: &Range<u64>, notes: &mut Notes) {
    let strings = entries.iter().flat_map(|e| e.strings.iter());
    for (what, range) in strings.flat_map(|s| [("key", &s.key), ("value", &s.value)]) {
        let inside = range.start >= table.start && range.end <= table.end;
        let empty_at_end = range.start == range.end && range.start == table.end;
        if !inside && !empty_at_end {
            let message = format!(
                "{what} at bytes {}..{} lies outside the string table (bytes {}..{})",
                range.start, range.end, table.start, table.end
            );
            notes.push(Severity::Warning, message, Some(range.clone()));
        }
    }
}

/// Warns when the header, entry records, string entry arrays and images overlap.
fn check_overlaps(header: &RawHeader, entries: &[EntryLayout], notes: &mut Notes) {
    let entry_size = string_entry_size(header.version);
    let mut regions: Vec<(Range<u64>, String)> = Vec::with_capacity(2 + entries.len() * 2);
    regions.push((0..header.header_size(), "the header".into()));
    let records_end = header.entries_offset + header.entry_count() * ENTRY_SIZE;
    regions.push((header.entries_offset..records_end, "the entry records".into()));
    for (i, e) in entries.iter().enumerate() {
        let strings = e.raw.string_offset..e.raw.string_offset + e.raw.num_strings * entry_size;
        regions.push((strings, format!("the string entries of entry {i}")));
        let image = e.raw.image_offset..e.raw.image_offset + e.raw.image_size;
        regions.push((image, format!("the image of entry {i}")));
    }
    regions.retain(|(r, _)| r.start < r.end);
    regions.sort_by_key(|(r, _)| (r.start, r.end));
    let mut widest: Option<(Range<u64>, &str)> = None;
    for (range, what) in &regions {
        if let Some((w, w_what)) = &widest {
            if range.start < w.end {
                let message = format!("{what} overlaps {w_what}");
                notes.push(Severity::Warning, message, Some(range.start..range.end.min(w.end)));
            }
        }
        if widest.as_ref().is_none_or(|(w, _)| range.end > w.end) {
            widest = Some((range.clone(), what));
        }
    }
}

/// Decompresses a v3 payload, puts the header back, and reads the result.
fn parse_compressed<'a>(
    bytes: &'a [u8],
    padding: &'a [u8],
    header: RawHeader,
    options: &ReadOptions,
    mut notes: Notes,
) -> Result<OffloadBinary<'a>> {
    let (method, inflated) = inflate(bytes, &header, options, &mut notes)?;
    let inner = read_header(&inflated).map_err(|e| inside_payload(e, header.entries_offset))?;
    notes.decompressed = true;
    if inner.size % ALIGNMENT != 0 {
        notes.push(Severity::Warning, format!("inflated size {} is not a multiple of 8", inner.size), None);
    }
    let body =
        read_body(&inflated, &inner, options, &mut notes).map_err(|e| inside_payload(e, header.entries_offset))?;
    notes.decompressed = false;
    check_image_total(&inflated, &body, header.entries_offset)?;
    let entries = body
        .entries
        .iter()
        .zip(&body.strings)
        .map(|(l, strings)| entry_from(l, strings.clone(), Cow::Owned(image_of(&inflated, l).to_vec())))
        .collect();
    let payload = header.entries_offset..header.size;
    let compressed = CompressedLayout { method, payload, inflated };
    Ok(finish(header, entries, Some(compressed), body, Cow::Borrowed(bytes), Cow::Borrowed(padding), notes))
}

/// Returns the uncompressed binary: the stored header with size = inflated size and inflated
/// size = 0, then the decompressed payload.
fn inflate(
    bytes: &[u8],
    header: &RawHeader,
    options: &ReadOptions,
    notes: &mut Notes,
) -> Result<(CompressionMethod, Vec<u8>)> {
    let offset = header.entries_offset;
    let inflated_size = header.inflated_size.unwrap_or(0);
    if offset < 40 || offset > header.size {
        let expected = format!("an entries offset between 40 and the size {}", header.size);
        return Err(Error::new(16, CTX_COMPRESSED, expected, offset.to_string()));
    }
    if offset != 40 {
        notes.push(Severity::Warning, format!("entries offset is {offset}; LLVM writes 40"), Some(16..24));
    }
    if inflated_size < offset {
        let expected = format!("an inflated size of at least the entries offset {offset}");
        return Err(Error::new(32, CTX_COMPRESSED, expected, inflated_size.to_string()));
    }
    if inflated_size > options.max_inflated_size {
        let expected = format!("an inflated size within the limit of {}", human_size(options.max_inflated_size));
        return Err(Error::new(32, CTX_COMPRESSED, expected, human_size(inflated_size)));
    }
    let payload = &bytes[offset as usize..];
    let method = if payload.starts_with(&ZSTD_MAGIC) { CompressionMethod::Zstd } else { CompressionMethod::Zlib };
    let body_size = inflated_size - offset;
    let body = crate::compression::decompress(method.method(), payload, body_size, body_size)
        .map_err(|e| e.shifted(offset))?;
    if body.len() as u64 != body_size {
        let expected = format!("{body_size} bytes once decompressed (inflated size minus entries offset)");
        return Err(Error::new(32, CTX_COMPRESSED, expected, format!("{} bytes", body.len())));
    }
    let mut inflated = Vec::with_capacity(inflated_size as usize);
    inflated.extend_from_slice(&bytes[..offset as usize]);
    inflated[8..16].copy_from_slice(&inflated_size.to_le_bytes());
    inflated[32..40].copy_from_slice(&0u64.to_le_bytes());
    inflated.extend_from_slice(&body);
    Ok((method, inflated))
}

/// The images of a compressed binary are copied out of the decompressed bytes, so together they
/// may not exceed them.
fn check_image_total(inflated: &[u8], body: &Body, payload_at: u64) -> Result<()> {
    let total = body.entries.iter().fold(0u64, |sum, e| sum.saturating_add(e.raw.image_size));
    if total > inflated.len() as u64 {
        let expected = format!("images totalling at most the {} decompressed bytes", inflated.len());
        return Err(Error::new(payload_at, CTX_COMPRESSED, expected, format!("{total} bytes of overlapping images")));
    }
    Ok(())
}

/// An error found in decompressed bytes, placed at the payload and saying where inside.
fn inside_payload(e: Error, payload_at: u64) -> Error {
    let found = format!("{} (at byte {} of the decompressed binary)", e.found, e.offset);
    Error { offset: payload_at, context: e.context, expected: e.expected, found }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

fn write_error(expected: impl Into<String>, found: impl Into<String>) -> Error {
    Error::new(0, CTX_WRITE, expected, found)
}

/// Writes a version 1 binary exactly as LLVM 22's `OffloadBinary::write` does.
pub fn write_v1(entry: &OffloadEntry<'_>) -> Result<Vec<u8>> {
    write_uncompressed(1, core::slice::from_ref(entry))
}

/// Writes a version 2 binary (LLVM main's layout with a 32-byte header).
pub fn write_v2(entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    write_uncompressed(2, entries)
}

/// Writes a version 3 binary as LLVM main does, compressed when `compression` is given.
pub fn write_v3(entries: &[OffloadEntry<'_>], compression: Option<Compression>) -> Result<Vec<u8>> {
    let plain = write_uncompressed(3, entries)?;
    match compression {
        None => Ok(plain),
        Some(c) => compress_v3(plain, c),
    }
}

/// Several version 1 binaries back to back, as LLVM 22's `llvm-offload-binary` writes them.
pub fn write_v1_sequence(entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for entry in entries {
        out.extend_from_slice(&write_v1(entry)?);
    }
    Ok(out)
}

/// A string map as LLVM's MapVector holds it: a repeated key keeps its first position and takes
/// the last value.
fn map_vector(strings: &[(String, String)]) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(strings.len());
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, v) in strings {
        match index.get(k.as_str()) {
            Some(&at) => out[at].1 = v,
            None => {
                index.insert(k, out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// Keys are read back up to their NUL (and v1 values too), so they cannot contain one.
fn check_writable(version: u32, entries: &[OffloadEntry<'_>]) -> Result<()> {
    if entries.is_empty() {
        return Err(write_error("at least one entry", "none"));
    }
    for (k, v) in entries.iter().flat_map(|e| e.strings.iter()) {
        if k.contains('\0') || (version == 1 && v.contains('\0')) {
            let what = if k.contains('\0') { "key" } else { "value" };
            return Err(write_error("strings without NUL bytes", format!("a NUL in the {what} of \"{k}\"")));
        }
    }
    Ok(())
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// LLVM's layout: header, entries, string entries, string table, zeros to 8, images back to
/// back, zeros to 8.
fn write_uncompressed(version: u32, entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    check_writable(version, entries)?;
    let maps: Vec<Vec<(&str, &str)>> = entries.iter().map(|e| map_vector(&e.strings)).collect();
    let table = StringTable::build(maps.iter().flatten().flat_map(|(k, v)| [k.as_bytes(), v.as_bytes()]));
    let header_len = header_size(version);
    let record_size = string_entry_size(version);
    let count = entries.len() as u64;
    let string_count: u64 = maps.iter().map(|m| m.len() as u64).sum();
    let strings_at = header_len + ENTRY_SIZE * count;
    let table_at = strings_at + record_size * string_count;
    let data_size = align8(table_at + table.len());
    let images: u64 = entries.iter().map(|e| e.image.len() as u64).sum();
    let size = align8(data_size + images);

    let mut out = Vec::with_capacity(size as usize);
    out.extend_from_slice(&MAGIC);
    put_u32(&mut out, version);
    put_u64(&mut out, size);
    put_u64(&mut out, header_len);
    put_u64(&mut out, if version == 1 { ENTRY_SIZE } else { count });
    if version >= 3 {
        put_u64(&mut out, 0);
    }
    let (mut string_at, mut image_at) = (strings_at, data_size);
    for (entry, map) in entries.iter().zip(&maps) {
        put_u16(&mut out, entry.image_kind.0);
        put_u16(&mut out, entry.offload_kind.0);
        put_u32(&mut out, entry.flags);
        put_u64(&mut out, string_at);
        put_u64(&mut out, map.len() as u64);
        put_u64(&mut out, image_at);
        put_u64(&mut out, entry.image.len() as u64);
        string_at += record_size * map.len() as u64;
        image_at += entry.image.len() as u64;
    }
    let offset_of = |s: &str| table_at + table.offset(s.as_bytes()).unwrap_or(0);
    for (k, v) in maps.iter().flatten() {
        put_u64(&mut out, offset_of(k));
        put_u64(&mut out, offset_of(v));
        if version >= 2 {
            put_u64(&mut out, v.len() as u64);
        }
    }
    out.extend_from_slice(table.bytes());
    out.resize(data_size as usize, 0);
    for entry in entries {
        out.extend_from_slice(&entry.image);
    }
    out.resize(size as usize, 0);
    Ok(out)
}

/// Compresses everything after the 40-byte header, as LLVM main does: size becomes header plus
/// payload, inflated size the uncompressed size, zeros follow to a multiple of 8.
fn compress_v3(plain: Vec<u8>, compression: Compression) -> Result<Vec<u8>> {
    let payload = crate::compression::compress(compression.method.method(), compression.level, &plain[40..])?;
    let size = 40 + payload.len() as u64;
    let mut out = Vec::with_capacity(align8(size) as usize);
    out.extend_from_slice(&plain[..40]);
    out[8..16].copy_from_slice(&size.to_le_bytes());
    out[32..40].copy_from_slice(&(plain.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    out.resize(align8(size) as usize, 0);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Several binaries in one buffer
// ---------------------------------------------------------------------------------------------

/// What bytes of a buffer that hold no binary are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unused {
    /// All zero (alignment padding, most likely).
    Zeros,
    /// Not zero, and no magic.
    Unrecognized,
    /// A magic, but not a readable binary.
    Invalid,
}

/// One piece of a walked buffer: a binary, or bytes that hold none.
#[derive(Clone, Debug)]
pub struct Found<'a> {
    /// Where the piece starts in the walked buffer.
    pub offset: u64,
    /// Bytes the piece covers: a binary's size plus its padding to 8, or the unused run. The
    /// pieces tile the buffer.
    pub size: u64,
    pub bytes: &'a [u8],
    /// The binary, or why there is none here (the error's offset counts from `offset`, as when
    /// [`parse`] is given the bytes from there).
    pub binary: core::result::Result<OffloadBinary<'a>, Error>,
    /// For bytes without a binary: what they are.
    pub unused: Option<Unused>,
}

/// A buffer cut into binaries and unused bytes, covering it entirely and in order.
#[derive(Clone, Debug, Default)]
pub struct Walk<'a> {
    pub items: Vec<Found<'a>>,
}

impl<'a> Walk<'a> {
    /// The binaries with their offsets.
    pub fn binaries(&self) -> impl Iterator<Item = (u64, &OffloadBinary<'a>)> {
        self.items.iter().filter_map(|f| f.binary.as_ref().ok().map(|b| (f.offset, b)))
    }

    /// The binaries, mutable, for editing.
    pub fn binaries_mut(&mut self) -> impl Iterator<Item = &mut OffloadBinary<'a>> {
        self.items.iter_mut().filter_map(|f| f.binary.as_mut().ok())
    }

    /// The byte ranges without a binary: what they are, and the error LLVM would give there
    /// (its offset counting from the range's start).
    pub fn unused(&self) -> impl Iterator<Item = (Range<u64>, Unused, &Error)> {
        self.items.iter().filter_map(|f| match (&f.binary, f.unused) {
            (Err(e), Some(why)) => Some((f.offset..f.offset + f.size, why, e)),
            _ => None,
        })
    }

    /// True when the buffer is nothing but binaries, the way LLVM requires.
    pub fn is_clean(&self) -> bool {
        self.unused().next().is_none()
    }

    /// The buffer again: each binary written (its input bytes when unedited) and unused bytes
    /// kept as they were.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for found in &self.items {
            match &found.binary {
                Ok(binary) => out.extend_from_slice(&binary.write()?),
                Err(_) => out.extend_from_slice(found.bytes),
            }
        }
        Ok(out)
    }
}

impl<'a> IntoIterator for Walk<'a> {
    type Item = Found<'a>;
    type IntoIter = alloc::vec::IntoIter<Found<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'w, 'a> IntoIterator for &'w Walk<'a> {
    type Item = &'w Found<'a>;
    type IntoIter = core::slice::Iter<'w, Found<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// Cuts `data` (a section, or a file of binaries back to back) into binaries at 8-byte-aligned
/// steps, like LLVM's `extractOffloadBinaries`, reporting bytes that hold none.
pub fn walk(data: &[u8]) -> Walk<'_> {
    walk_with(data, &ReadOptions::default())
}

/// [`walk`] with explicit allocation bounds.
pub fn walk_with<'a>(data: &'a [u8], options: &ReadOptions) -> Walk<'a> {
    let mut items = Vec::new();
    let mut pos = 0usize;
    // Unreadable binaries may nest (each magic inside the last one's bytes), and reading one can
    // cost up to its size: bound the total so a hostile buffer cannot take quadratic time.
    let mut failed_budget = (data.len() as u64).saturating_mul(8).max(1 << 20);
    while pos < data.len() {
        let offset = pos as u64;
        let rest = &data[pos..];
        let (end, binary, unused) = if has_magic(rest) {
            match parse_with(rest, options) {
                Ok(binary) => (pos + binary.stored_len() as usize, Ok(binary), None),
                Err(error) => {
                    let cost = read_header(rest).map_or(32, |h| h.size);
                    failed_budget = failed_budget.saturating_sub(cost);
                    let next = if failed_budget == 0 { data.len() } else { next_magic(data, pos + ALIGNMENT as usize) };
                    (next, Err(error), Some(Unused::Invalid))
                }
            }
        } else {
            let next = next_magic(data, align8(offset + 1) as usize);
            let zeros = data[pos..next].iter().all(|&b| b == 0);
            let why = if zeros { Unused::Zeros } else { Unused::Unrecognized };
            (next, Err(no_binary_error(next - pos, why)), Some(why))
        };
        let bytes = &data[pos..end];
        items.push(Found { offset, size: bytes.len() as u64, bytes, binary, unused });
        pos = end;
    }
    Walk { items }
}

/// The error for bytes where a binary should start but none does (LLVM's reader fails there).
fn no_binary_error(len: usize, why: Unused) -> Error {
    let found = match why {
        Unused::Zeros => format!("{} of zeros", human_size(len as u64)),
        _ => format!("{} without the magic", human_size(len as u64)),
    };
    Error::new(0, CTX_HEADER, "an offload binary (magic 10 FF 10 AD) or the end of the buffer", found)
}

/// The first 8-byte-aligned offset at or after `from` where a magic starts, or the end.
fn next_magic(data: &[u8], from: usize) -> usize {
    (from..data.len()).step_by(ALIGNMENT as usize).find(|&p| has_magic(&data[p..])).unwrap_or(data.len())
}

// ---------------------------------------------------------------------------------------------
// Tree
// ---------------------------------------------------------------------------------------------

/// Where offsets of a binary land in a byte space: `base + (offset - shift)`.
#[derive(Clone, Copy)]
struct Place {
    space: u32,
    base: u64,
    shift: u64,
}

impl Place {
    fn span(&self, offset: u64, size: u64) -> Span {
        Span::new(self.space, self.base.saturating_add(offset.saturating_sub(self.shift)), size)
    }

    fn range(&self, r: &Range<u64>) -> Span {
        self.span(r.start, r.end.saturating_sub(r.start))
    }
}

/// A tree for a whole buffer of binaries (a file written by `llvm-offload-binary`, or a section's
/// contents): a file node whose children are [`walk_nodes`].
pub fn file_tree(data: &[u8], label: &str) -> Tree {
    let size = data.len() as u64;
    let mut spaces = alloc::vec![ByteSpace { label: label.into(), size, origin: None, data: None }];
    let walk = walk(data);
    let count = walk.binaries().count();
    let binaries = plural(count, "offload binary", "offload binaries");
    let root_label = format!("{label}: {binaries}, {}", human_size(size));
    let mut root = Node::new(NodeKind::File, root_label, Span::new(0, 0, size));
    root.children = walk_nodes(&walk, Span::new(0, 0, size), &mut spaces);
    Tree { spaces, root }
}

/// Nodes for every piece of a walked buffer whose bytes are `span`: offload binaries, padding,
/// and unusable bytes with their diagnostics. New byte spaces (decompressed payloads) are pushed
/// to `spaces`, whose index is the space number (so it must already hold the input as 0).
pub fn walk_nodes(walk: &Walk<'_>, span: Span, spaces: &mut Vec<ByteSpace>) -> Vec<Node> {
    let mut nodes = Vec::new();
    for found in &walk.items {
        match &found.binary {
            Ok(binary) => {
                let size = binary.layout().map_or(found.size, |l| l.bytes.len() as u64);
                nodes.push(to_node_with_spaces(binary, span.sub(found.offset, size), spaces));
                let padding = binary.layout().map_or(&[][..], |l| &l.padding[..]);
                nodes.extend(padding_node(padding, span.sub(found.offset + size, 0)));
            }
            Err(error) => {
                let why = found.unused.unwrap_or(Unused::Invalid);
                nodes.push(unused_node(found.bytes, why, error, span.sub(found.offset, found.size)));
            }
        }
    }
    nodes
}

fn padding_node(padding: &[u8], at: Span) -> Option<Node> {
    if padding.is_empty() {
        return None;
    }
    let span = Span { size: padding.len() as u64, ..at };
    let mut node = Node::new(NodeKind::Padding, format!("padding ({})", human_size(span.size)), span);
    if padding.iter().any(|&b| b != 0) {
        node.diag(Severity::Warning, "padding bytes are not zero", Some(span));
    }
    Some(node)
}

/// `error` counts its offset from the start of `span`.
fn unused_node(bytes: &[u8], why: Unused, error: &Error, span: Span) -> Node {
    let size = human_size(bytes.len() as u64);
    match why {
        Unused::Zeros => {
            let mut node = Node::new(NodeKind::Padding, format!("zero bytes ({size})"), span);
            let message = format!(
                "{size} of zeros where LLVM expects another offload binary (its reader stops with an error here)"
            );
            node.diag(Severity::Warning, message, Some(span));
            node
        }
        Unused::Unrecognized => {
            let mut node = Node::new(NodeKind::Unknown, format!("unrecognized bytes ({size})"), span);
            node.diag(Severity::Warning, format!("{size} that are not an offload binary"), Some(span));
            node
        }
        Unused::Invalid => {
            let mut node = Node::new(NodeKind::Unknown, format!("unreadable offload binary ({size})"), span);
            let at = span.sub(error.offset, 0);
            node.diag(Severity::Error, error.to_string(), Some(at));
            node
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn binary_label(bin: &OffloadBinary<'_>) -> String {
    let size = bin.layout().map_or(String::new(), |l| format!(", {}", human_size(l.bytes.len() as u64)));
    let compressed = bin.compression.map_or(String::new(), |c| format!(", {}-compressed", c.method.name()));
    format!("offload binary v{} ({}{size}{compressed})", bin.version, plural(bin.entries.len(), "entry", "entries"))
}

/// `offload entry hip amdgcn-amd-amdhsa gfx90a (object, 12.3 KiB)`
pub fn entry_label(entry: &OffloadEntry<'_>) -> String {
    let mut label = format!("offload entry {}", entry.offload_kind.name());
    for part in [entry.triple(), entry.arch()].into_iter().flatten().filter(|s| !s.is_empty()) {
        label.push(' ');
        label.push_str(part);
    }
    format!("{label} ({}, {})", entry.image_kind.name(), human_size(entry.image.len() as u64))
}

/// The annotated tree node of one binary whose stored bytes are `span`. Children are the entries
/// (each with its image), the string table and gaps. The entries of a compressed v3 binary have
/// no bytes in `span`'s space: here they are listed with the payload's span and without field
/// spans; [`to_node_with_spaces`] opens a byte space for the decompressed bytes instead.
pub fn to_node(bin: &OffloadBinary<'_>, span: Span) -> Node {
    binary_node(bin, span, &mut |_| None)
}

/// [`to_node`], with a compressed v3 binary's decompressed bytes as a new byte space pushed to
/// `spaces` (numbered by its index there, so `spaces` must already hold the input as 0) and a
/// decompressed node whose entries, string table and images have spans in it.
pub fn to_node_with_spaces(bin: &OffloadBinary<'_>, span: Span, spaces: &mut Vec<ByteSpace>) -> Node {
    binary_node(bin, span, &mut |space| {
        spaces.push(space);
        Some(spaces.len() as u32 - 1)
    })
}

/// `open_space` registers the decompressed bytes of a compressed binary and returns their space
/// number, or `None` to describe the entries without them.
fn binary_node(bin: &OffloadBinary<'_>, span: Span, open_space: &mut dyn FnMut(ByteSpace) -> Option<u32>) -> Node {
    let mut node = Node::new(NodeKind::OffloadBinary, binary_label(bin), span);
    let Some(layout) = bin.layout() else {
        node.editable("version", bin.version as u64, None);
        node.children = bin.entries.iter().map(|e| entry_node(e, None, bin.version, None, None, span)).collect();
        return node;
    };
    let outer = Place { space: span.space, base: span.offset, shift: 0 };
    header_fields(&mut node, bin, layout, outer);
    let body_place = match &layout.compressed {
        None => Some(outer),
        Some(c) => {
            let body = c.inflated.get(c.payload.start as usize..).unwrap_or(&[]);
            let space = open_space(ByteSpace {
                label: format!("decompressed offload binary ({})", c.method.name()),
                size: body.len() as u64,
                origin: Some(outer.range(&c.payload)),
                data: Some(body.to_vec()),
            });
            space.map(|space| Place { space, base: 0, shift: c.payload.start })
        }
    };
    match (&layout.compressed, body_place) {
        (None, _) => node.children = body_nodes(bin, layout, outer),
        (Some(c), Some(place)) => {
            node.children.extend(gap_nodes(&layout.bytes, &[0..40, c.payload.clone()], 0..layout.header.size, outer));
            node.children.push(decompressed_node(bin, layout, c, place));
        }
        (Some(c), None) => {
            let payload = outer.range(&c.payload);
            node.children.extend(gap_nodes(&layout.bytes, &[0..40, c.payload.clone()], 0..layout.header.size, outer));
            node.children.extend(bin.entries.iter().map(|e| entry_node(e, None, bin.version, None, None, payload)));
        }
    }
    for note in &layout.notes {
        let span = match (note.decompressed, body_place) {
            (false, _) => note.at.as_ref().map(|r| outer.range(r)),
            (true, Some(place)) => note.at.as_ref().map(|r| place.range(r)),
            (true, None) => layout.compressed.as_ref().map(|c| outer.range(&c.payload)),
        };
        node.diag(note.severity, note.message.clone(), span);
    }
    if bin.is_edited() {
        node.diag(Severity::Note, "edited: written again with LLVM's layout", None);
    }
    node
}

fn decompressed_node(bin: &OffloadBinary<'_>, layout: &Layout<'_>, c: &CompressedLayout, place: Place) -> Node {
    let size = (c.inflated.len() as u64).saturating_sub(c.payload.start);
    let label = format!(
        "decompressed payload ({}, {} -> {})",
        c.method.name(),
        human_size(c.payload.end - c.payload.start),
        human_size(size)
    );
    let mut node = Node::new(NodeKind::Decompressed, label, Span::new(place.space, 0, size));
    node.children = body_nodes(bin, layout, place);
    node
}

fn header_fields(node: &mut Node, bin: &OffloadBinary<'_>, layout: &Layout<'_>, place: Place) {
    let h = &layout.header;
    node.field("magic", hex(&MAGIC), Some(place.span(0, 4)));
    node.editable("version", bin.version as u64, Some(place.span(4, 4)));
    node.field("size", h.size, Some(place.span(8, 8)));
    if h.version == 1 {
        node.field("entry_offset", h.entries_offset, Some(place.span(16, 8)));
        node.field("entry_size", h.entries_field, Some(place.span(24, 8)));
    } else {
        node.field("entries_offset", h.entries_offset, Some(place.span(16, 8)));
        node.field("entries_count", h.entries_field, Some(place.span(24, 8)));
    }
    if let Some(inflated) = h.inflated_size {
        node.field("inflated_size", inflated, Some(place.span(32, 8)));
    }
    if bin.version >= 3 {
        let method = bin.compression.map_or("none", |c| c.method.name());
        let span = layout.compressed.as_ref().map(|c| place.range(&c.payload));
        node.editable("compression", method, span);
    }
}

/// Entries, string table and gaps of the uncompressed binary, in offset order.
fn body_nodes(bin: &OffloadBinary<'_>, layout: &Layout<'_>, place: Place) -> Vec<Node> {
    let body = layout.body();
    let h = &layout.header;
    let mut nodes: Vec<Node> = bin
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry_node(e, layout.entries.get(i), bin.version, Some(body), Some(place), place.span(0, 0)))
        .collect();
    let table = layout.string_table.start..layout.string_table_used_end.max(layout.string_table.start);
    if table.start < table.end {
        let records = layout.entries.iter().map(|e| e.strings.len() as u64).sum::<u64>();
        let label = format!("string table ({})", human_size(table.end - table.start));
        let mut node = Node::new(NodeKind::StringTable, label, place.range(&table));
        node.field("size", table.end - table.start, Some(place.range(&table)));
        node.field("string_entries", records, None);
        nodes.push(node);
    }
    let mut covered = alloc::vec![0..h.header_size(), table];
    let body_start = layout.compressed.as_ref().map_or(0, |c| c.payload.start);
    let entry_size = string_entry_size(h.version);
    covered.push(h.entries_offset..h.entries_offset + h.entry_count() * ENTRY_SIZE);
    for e in &layout.entries {
        covered.push(e.raw.string_offset..e.raw.string_offset + e.raw.num_strings * entry_size);
        covered.push(e.raw.image_offset..e.raw.image_offset + e.raw.image_size);
    }
    nodes.extend(gap_nodes(body, &covered, body_start..body.len() as u64, place));
    nodes.sort_by_key(|n| n.span.offset);
    nodes
}

/// Padding or unknown nodes for the bytes of `within` that no range in `covered` reaches.
fn gap_nodes(buf: &[u8], covered: &[Range<u64>], within: Range<u64>, place: Place) -> Vec<Node> {
    let mut ranges: Vec<Range<u64>> = covered.iter().filter(|r| r.start < r.end).cloned().collect();
    ranges.sort_by_key(|r| r.start);
    let mut gaps = Vec::new();
    let mut pos = within.start;
    for r in ranges.iter().chain(core::iter::once(&(within.end..within.end))) {
        if r.start > pos {
            gaps.push(pos..r.start.min(within.end));
        }
        pos = pos.max(r.end);
    }
    gaps.into_iter()
        .filter(|g| g.start < g.end)
        .map(|g| {
            let bytes = &buf[g.start as usize..g.end as usize];
            let span = place.range(&g);
            if bytes.iter().all(|&b| b == 0) {
                Node::new(NodeKind::Padding, format!("padding ({})", human_size(g.end - g.start)), span)
            } else {
                let mut node =
                    Node::new(NodeKind::Unknown, format!("unused bytes ({})", human_size(g.end - g.start)), span);
                node.diag(Severity::Warning, "bytes no header field points at, and not zero", Some(span));
                node
            }
        })
        .collect()
}

/// The span of the value of the last string entry whose key is `key` (the one LLVM keeps).
fn value_span(body: &[u8], el: &EntryLayout, key: &str, place: Place) -> Option<Span> {
    let s =
        el.strings.iter().rev().find(|s| body.get(s.key.start as usize..s.key.end as usize) == Some(key.as_bytes()))?;
    Some(place.range(&s.value))
}

fn entry_node(
    entry: &OffloadEntry<'_>,
    el: Option<&EntryLayout>,
    version: u32,
    body: Option<&[u8]>,
    place: Option<Place>,
    fallback: Span,
) -> Node {
    let at = |off: u64, size: u64| el.zip(place).map(|(el, p)| p.span(el.offset + off, size));
    let record = at(0, ENTRY_SIZE).unwrap_or(fallback);
    let mut node = Node::new(NodeKind::OffloadEntry, entry_label(entry), record);
    let string_span = |key: &str| match (el, body, place) {
        (Some(el), Some(body), Some(p)) => value_span(body, el, key, p),
        _ => None,
    };
    node.editable("triple", entry.triple().unwrap_or(""), string_span("triple"));
    node.editable("arch", entry.arch().unwrap_or(""), string_span("arch"));
    node.editable("image_kind", entry.image_kind.name(), at(0, 2));
    node.field("image_kind_value", entry.image_kind.0 as u64, at(0, 2));
    node.editable("offload_kind", entry.offload_kind.name(), at(2, 2));
    node.field("offload_kind_value", entry.offload_kind.0 as u64, at(2, 2));
    node.editable("flags", entry.flags as u64, at(4, 4));
    let strings_span =
        el.zip(place).map(|(el, p)| p.span(el.raw.string_offset, el.raw.num_strings * string_entry_size(version)));
    node.editable("strings", Value::Map(entry.strings.clone()), strings_span);
    if let Some(el) = el {
        node.field("string_offset", el.raw.string_offset, at(8, 8));
        node.field("num_strings", el.raw.num_strings, at(16, 8));
        node.field("image_offset", el.raw.image_offset, at(24, 8));
        node.field("image_size", el.raw.image_size, at(32, 8));
    }
    entry_diagnostics(&mut node, entry, version);
    let image_span = el.zip(place).map(|(el, p)| p.span(el.raw.image_offset, el.raw.image_size)).unwrap_or(fallback);
    let label = format!("{} image ({})", entry.image_kind.name(), human_size(entry.image.len() as u64));
    let mut image = Node::new(NodeKind::Image, label, image_span);
    image.field("size", entry.image.len() as u64, Some(image_span));
    node.children.push(image);
    node
}

fn entry_diagnostics(node: &mut Node, entry: &OffloadEntry<'_>, version: u32) {
    let span = node.fields.iter().find(|f| f.name == "offload_kind").and_then(|f| f.span);
    if let Some((severity, message)) = entry.offload_kind.caveat() {
        let hint = match (entry.offload_kind, entry.triple()) {
            (OffloadKind::HIP, Some(t)) if t.starts_with("amdgcn") => "; the amdgcn triple suggests HIP",
            (OffloadKind::HIP, Some(t)) if t.starts_with("spir") => "; the SPIR triple suggests SYCL",
            _ => "",
        };
        node.diag(severity, format!("{message}{hint}"), span);
    }
    let kind_span = node.fields.iter().find(|f| f.name == "image_kind").and_then(|f| f.span);
    if !entry.image_kind.is_known() {
        let message = format!("image kind {} is not one LLVM defines (0 to 6)", entry.image_kind.0);
        node.diag(Severity::Warning, message, kind_span);
    }
    if entry.triple().is_none_or(str::is_empty) {
        node.diag(Severity::Warning, "no triple: LLVM's linker wrapper cannot tell the target", None);
    }
    let known_flags = if version >= 2 { FLAG_METADATA } else { 0 };
    if entry.flags & !known_flags != 0 {
        let message = format!("flags {:#x} include bits LLVM does not define", entry.flags);
        node.diag(Severity::Note, message, node.fields.iter().find(|f| f.name == "flags").and_then(|f| f.span));
    }
}

pub use packager::package_image;

// ---------------------------------------------------------------------------------------------
// llvm-offload-binary's command line
// ---------------------------------------------------------------------------------------------

/// What LLVM 22's `llvm-offload-binary -o out --image=key=value,...` writes, reproduced exactly,
/// including the order of the string map.
///
/// The tool collects an `--image` argument's `key=value` pairs in a `DenseMap<StringRef,
/// StringRef>` (a repeated key joins its values with a comma), then copies them into the entry's
/// string map while iterating the DenseMap, so the stored order is the hash table's bucket order:
/// open addressing with quadratic probing over a power-of-two table (64 buckets at first, doubled
/// when an insert would fill three quarters), bucket = low bits of the 32-bit truncation of
/// LLVM's `hash_value(StringRef)` (`hash_combine_range` with its fixed seed in release builds).
/// `file` (which may list several files, one entry each) and `kind` (offload kind by name) are not
/// stored. The image kind comes from the file: bitcode magic, else the extension.
pub mod packager {
    use super::{write_v1, ImageKind, OffloadBinary, OffloadEntry, OffloadKind};
    use crate::error::{Error, Result};
    use alloc::borrow::Cow;
    use alloc::string::String;
    use alloc::vec::Vec;

    /// One `--image` argument, decoded the way the tool decodes it.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ImageSpec {
        /// The `file` values, one entry each.
        pub files: Vec<String>,
        pub offload_kind: OffloadKind,
        /// The other keys, in the order the tool stores them.
        pub strings: Vec<(String, String)>,
    }

    /// Decodes an `--image` value such as `file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip`:
    /// split at every `,`, then each piece at its first `=` (a piece without one is a key with an
    /// empty value).
    pub fn parse_image_spec(spec: &str) -> ImageSpec {
        let pairs: Vec<(&str, &str)> = spec.split(',').map(|arg| arg.split_once('=').unwrap_or((arg, ""))).collect();
        spec_from_pairs(&pairs)
    }

    /// Decodes already split `key=value` pairs the way the tool does: a repeated key joins its
    /// values with `,`; the keys other than `file` and `kind` keep the tool's map order.
    pub fn spec_from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> ImageSpec {
        let mut keys: Vec<&str> = Vec::new();
        let mut values: Vec<String> = Vec::new();
        for (key, value) in pairs {
            let (key, value) = (key.as_ref(), value.as_ref());
            match keys.iter().position(|k| *k == key) {
                Some(i) => {
                    values[i].push(',');
                    values[i].push_str(value);
                }
                None => {
                    keys.push(key);
                    values.push(value.into());
                }
            }
        }
        let mut spec = ImageSpec { files: Vec::new(), offload_kind: OffloadKind::NONE, strings: Vec::new() };
        for i in dense_map_order(&keys) {
            match keys[i] {
                "file" => spec.files = values[i].split(',').map(String::from).collect(),
                "kind" => spec.offload_kind = OffloadKind::from_llvm_name(&values[i]),
                key => spec.strings.push((key.into(), values[i].clone())),
            }
        }
        spec
    }

    /// The v1 binary the tool writes for one `--image` whose `key=value` pairs are `pairs` and
    /// whose file holds `image` (the `file` value only chooses the image kind, by extension).
    pub fn package_image<K: AsRef<str>, V: AsRef<str>>(
        pairs: &[(K, V)],
        image: &[u8],
    ) -> Result<OffloadBinary<'static>> {
        let spec = spec_from_pairs(pairs);
        if spec.files.len() > 1 {
            let found = alloc::format!("{} files", spec.files.len());
            return Err(Error::new(0, "llvm-offload-binary --image", "one 'file' for one image", found));
        }
        let file = spec.files.first().map_or("", String::as_str);
        let entry = OffloadEntry {
            image_kind: image_kind_for(file, image),
            offload_kind: spec.offload_kind,
            flags: 0,
            strings: spec.strings,
            image: Cow::Owned(image.to_vec()),
        };
        Ok(OffloadBinary::v1(entry))
    }

    /// The image kind the tool gives a file: bitcode when it starts with a bitcode magic (clang
    /// uses `.o` for LTO bitcode), otherwise by extension (`o`, `bc`, `cubin`, `fatbin`, `s`),
    /// otherwise none. LLVM 22 does not map `spv` (LLVM main does): such files get none.
    pub fn image_kind_for(path: &str, contents: &[u8]) -> ImageKind {
        let bitcode = contents.starts_with(b"BC\xC0\xDE") || contents.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
        if bitcode {
            return ImageKind::BITCODE;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        match name.rfind('.') {
            Some(dot) if name != "." && name != ".." => match ImageKind::from_extension(&name[dot + 1..]) {
                ImageKind::SPIRV => ImageKind::NONE,
                kind => kind,
            },
            _ => ImageKind::NONE,
        }
    }

    /// The entries for the `--image` arguments, one per file, reading files with `read`.
    pub fn entries<F>(specs: &[&str], mut read: F) -> Result<Vec<OffloadEntry<'static>>>
    where
        F: FnMut(&str) -> Result<Vec<u8>>,
    {
        let mut out = Vec::new();
        for spec in specs.iter().map(|s| parse_image_spec(s)) {
            if spec.files.is_empty() {
                return Err(Error::new(0, "llvm-offload-binary --image", "a 'file' key", "none"));
            }
            for file in &spec.files {
                let image = read(file)?;
                out.push(OffloadEntry {
                    image_kind: image_kind_for(file, &image),
                    offload_kind: spec.offload_kind,
                    flags: 0,
                    strings: spec.strings.clone(),
                    image: Cow::Owned(image),
                });
            }
        }
        Ok(out)
    }

    /// The bytes `llvm-offload-binary -o out --image=... --image=...` (LLVM 22) writes: one v1
    /// binary per file, back to back.
    pub fn package<F>(specs: &[&str], read: F) -> Result<Vec<u8>>
    where
        F: FnMut(&str) -> Result<Vec<u8>>,
    {
        let mut out = Vec::new();
        for entry in entries(specs, read)? {
            out.extend_from_slice(&write_v1(&entry)?);
        }
        Ok(out)
    }

    /// The iteration order of an LLVM `DenseMap<StringRef, _>` after inserting `keys` (distinct)
    /// in order: indices into `keys`, in bucket order.
    pub fn dense_map_order(keys: &[&str]) -> Vec<usize> {
        let mut buckets: Vec<Option<usize>> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let wanted = needed_buckets(i + 1, buckets.len());
            if wanted != buckets.len() {
                buckets = rehash(&buckets, keys, wanted);
            }
            place(&mut buckets, i, key);
        }
        buckets.into_iter().flatten().collect()
    }

    /// Bucket count after the grow check LLVM runs before inserting the `entries`-th key.
    fn needed_buckets(entries: usize, buckets: usize) -> usize {
        if entries * 4 >= buckets * 3 {
            round_up_buckets(buckets * 2)
        } else if buckets - entries <= buckets / 8 {
            round_up_buckets(buckets)
        } else {
            buckets
        }
    }

    /// At least 64, else the next power of two above `min - 1` (as 32-bit arithmetic does it).
    fn round_up_buckets(min: usize) -> usize {
        let below = (min as u32).wrapping_sub(1) as u64;
        let next = (below + 1).next_power_of_two() as u32 as usize;
        next.max(64)
    }

    fn rehash(old: &[Option<usize>], keys: &[&str], size: usize) -> Vec<Option<usize>> {
        let mut buckets = alloc::vec![None; size];
        for &i in old.iter().flatten() {
            place(&mut buckets, i, keys[i]);
        }
        buckets
    }

    /// Puts key `i` in the first free bucket of its probe sequence: hash, then +1, +2, +3...
    fn place(buckets: &mut [Option<usize>], i: usize, key: &str) {
        let mask = buckets.len() - 1;
        let mut bucket = (llvm_hash::hash_bytes(key.as_bytes()) as u32 as usize) & mask;
        let mut step = 1;
        while buckets[bucket].is_some() {
            bucket = (bucket + step) & mask;
            step += 1;
        }
        buckets[bucket] = Some(i);
    }

    /// LLVM's `hash_combine_range` over bytes (`llvm/ADT/Hashing.h`, a CityHash variant), with the
    /// fixed seed of builds without ABI-breaking checks.
    pub mod llvm_hash {
        const SEED: u64 = 0xff51_afd7_ed55_8ccd;
        const K0: u64 = 0xc3a5_c85c_97cb_3127;
        const K1: u64 = 0xb492_b66f_be98_f273;
        const K2: u64 = 0x9ae1_6a3b_2f90_404f;
        const K3: u64 = 0xc949_d7c7_509e_6557;

        fn u64_at(s: &[u8], at: usize) -> u64 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&s[at..at + 8]);
            u64::from_le_bytes(b)
        }

        fn u32_at(s: &[u8], at: usize) -> u64 {
            let mut b = [0u8; 4];
            b.copy_from_slice(&s[at..at + 4]);
            u32::from_le_bytes(b) as u64
        }

        fn shift_mix(v: u64) -> u64 {
            v ^ (v >> 47)
        }

        fn hash_16(low: u64, high: u64) -> u64 {
            const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
            let mut a = (low ^ high).wrapping_mul(MUL);
            a ^= a >> 47;
            let mut b = (high ^ a).wrapping_mul(MUL);
            b ^= b >> 47;
            b.wrapping_mul(MUL)
        }

        fn short_1_to_3(s: &[u8]) -> u64 {
            let len = s.len();
            let y = s[0] as u32 + ((s[len >> 1] as u32) << 8);
            let z = len as u32 + ((s[len - 1] as u32) << 2);
            shift_mix((y as u64).wrapping_mul(K2) ^ (z as u64).wrapping_mul(K3) ^ SEED).wrapping_mul(K2)
        }

        fn short_4_to_8(s: &[u8]) -> u64 {
            let len = s.len();
            hash_16((len as u64).wrapping_add(u32_at(s, 0) << 3), SEED ^ u32_at(s, len - 4))
        }

        fn short_9_to_16(s: &[u8]) -> u64 {
            let len = s.len();
            let a = u64_at(s, 0);
            let b = u64_at(s, len - 8);
            hash_16(SEED ^ a, b.wrapping_add(len as u64).rotate_right(len as u32)) ^ b
        }

        fn short_17_to_32(s: &[u8]) -> u64 {
            let len = s.len() as u64;
            let a = u64_at(s, 0).wrapping_mul(K1);
            let b = u64_at(s, 8);
            let c = u64_at(s, s.len() - 8).wrapping_mul(K2);
            let d = u64_at(s, s.len() - 16).wrapping_mul(K0);
            hash_16(
                a.wrapping_sub(b).rotate_right(43).wrapping_add((c ^ SEED).rotate_right(30)).wrapping_add(d),
                a.wrapping_add((b ^ K3).rotate_right(20)).wrapping_sub(c).wrapping_add(len).wrapping_add(SEED),
            )
        }

        fn short_33_to_64(s: &[u8]) -> u64 {
            let n = s.len();
            let mut z = u64_at(s, 24);
            let mut a = u64_at(s, 0).wrapping_add((n as u64).wrapping_add(u64_at(s, n - 16)).wrapping_mul(K0));
            let mut b = a.wrapping_add(z).rotate_right(52);
            let mut c = a.rotate_right(37);
            a = a.wrapping_add(u64_at(s, 8));
            c = c.wrapping_add(a.rotate_right(7));
            a = a.wrapping_add(u64_at(s, 16));
            let vf = a.wrapping_add(z);
            let vs = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
            a = u64_at(s, 16).wrapping_add(u64_at(s, n - 32));
            z = u64_at(s, n - 8);
            b = a.wrapping_add(z).rotate_right(52);
            c = a.rotate_right(37);
            a = a.wrapping_add(u64_at(s, n - 24));
            c = c.wrapping_add(a.rotate_right(7));
            a = a.wrapping_add(u64_at(s, n - 16));
            let wf = a.wrapping_add(z);
            let ws = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
            let r = shift_mix(vf.wrapping_add(ws).wrapping_mul(K2).wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)));
            shift_mix((SEED ^ r.wrapping_mul(K0)).wrapping_add(vs)).wrapping_mul(K2)
        }

        fn hash_short(s: &[u8]) -> u64 {
            match s.len() {
                0 => K2 ^ SEED,
                1..=3 => short_1_to_3(s),
                4..=8 => short_4_to_8(s),
                9..=16 => short_9_to_16(s),
                17..=32 => short_17_to_32(s),
                _ => short_33_to_64(s),
            }
        }

        /// The 56-byte running state for inputs longer than 64 bytes.
        struct State {
            h: [u64; 7],
        }

        impl State {
            fn new(first: &[u8]) -> State {
                let h4 = SEED.wrapping_mul(K1);
                let h5 = shift_mix(SEED);
                let h = [0, SEED, hash_16(SEED, K1), (SEED ^ K1).rotate_right(49), h4, h5, hash_16(h4, h5)];
                let mut state = State { h };
                state.mix(first);
                state
            }

            fn mix_32(s: &[u8], a: &mut u64, b: &mut u64) {
                *a = a.wrapping_add(u64_at(s, 0));
                let c = u64_at(s, 24);
                *b = b.wrapping_add(*a).wrapping_add(c).rotate_right(21);
                let d = *a;
                *a = a.wrapping_add(u64_at(s, 8)).wrapping_add(u64_at(s, 16));
                *b = b.wrapping_add(a.rotate_right(44)).wrapping_add(d);
                *a = a.wrapping_add(c);
            }

            fn mix(&mut self, s: &[u8]) {
                let h = &mut self.h;
                h[0] = h[0]
                    .wrapping_add(h[1])
                    .wrapping_add(h[3])
                    .wrapping_add(u64_at(s, 8))
                    .rotate_right(37)
                    .wrapping_mul(K1);
                h[1] = h[1].wrapping_add(h[4]).wrapping_add(u64_at(s, 48)).rotate_right(42).wrapping_mul(K1);
                h[0] ^= h[6];
                h[1] = h[1].wrapping_add(h[3]).wrapping_add(u64_at(s, 40));
                h[2] = h[2].wrapping_add(h[5]).rotate_right(33).wrapping_mul(K1);
                h[3] = h[4].wrapping_mul(K1);
                h[4] = h[0].wrapping_add(h[5]);
                let (mut a, mut b) = (h[3], h[4]);
                Self::mix_32(s, &mut a, &mut b);
                h[3] = a;
                h[4] = b;
                h[5] = h[2].wrapping_add(h[6]);
                h[6] = h[1].wrapping_add(u64_at(s, 16));
                let (mut a, mut b) = (h[5], h[6]);
                Self::mix_32(&s[32..], &mut a, &mut b);
                h[5] = a;
                h[6] = b;
                h.swap(0, 2);
            }

            fn finish(&self, len: u64) -> u64 {
                let h = &self.h;
                hash_16(
                    hash_16(h[3], h[5]).wrapping_add(shift_mix(h[1]).wrapping_mul(K1)).wrapping_add(h[2]),
                    hash_16(h[4], h[6]).wrapping_add(shift_mix(len).wrapping_mul(K1)).wrapping_add(h[0]),
                )
            }
        }

        /// `hash_value(StringRef)` of LLVM 22 release builds.
        pub fn hash_bytes(s: &[u8]) -> u64 {
            if s.len() <= 64 {
                return hash_short(s);
            }
            let mut state = State::new(&s[..64]);
            let whole = s.len() & !63;
            for chunk in s[64..whole].chunks_exact(64) {
                state.mix(chunk);
            }
            if s.len() % 64 != 0 {
                state.mix(&s[s.len() - 64..]);
            }
            state.finish(s.len() as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::packager::{dense_map_order, llvm_hash::hash_bytes, parse_image_spec};
    use super::*;
    use alloc::vec;

    /// `llvm-offload-binary -o out --image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip`
    /// (LLVM 22.1.8) with a.o = "hello world image".
    const TOOL_V1: &str = "10ff10ad01000000a8000000000000002000000000000000280000000000000001000400000000004800000000000000020000000000000090000000000000001100000000000000690000000000000087000000000000006e000000000000007500000000000000006172636800747269706c6500616d6467636e2d616d642d616d646873610067667839306100000068656c6c6f20776f726c6420696d61676500000000000000";
    /// The same image with `kind=openmp,arch=gfx90a,triple=amdgcn-amd-amdhsa,zeta=1,alpha=,beta=arch`.
    const TOOL_V1_EMPTY_VALUE: &str = "10ff10ad01000000e80000000000000020000000000000002800000000000000010001000000000048000000000000000500000000000000d00000000000000011000000000000009900000000000000c700000000000000a500000000000000ce000000000000009e00000000000000af00000000000000aa000000000000009900000000000000c1000000000000009800000000000000006172636800747269706c65007a657461006265746100616d6467636e2d616d642d616d6468736100616c7068610067667839306100310068656c6c6f20776f726c6420696d61676500000000000000";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn entry(kind: OffloadKind, triple: &str, arch: &str, image: &'static [u8]) -> OffloadEntry<'static> {
        let mut e = OffloadEntry::new(ImageKind::OBJECT, kind, image);
        e.set("triple", triple).set("arch", arch);
        e
    }

    fn sample_entries() -> Vec<OffloadEntry<'static>> {
        let mut a = entry(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a", b"first image");
        a.set("feature", "+xnack");
        let mut b = entry(OffloadKind::OPENMP, "nvptx64-nvidia-cuda", "sm_70", b"second");
        b.image_kind = ImageKind::PTX;
        b.set("value-with-nul", "a\0b").set("empty", "");
        let mut c = OffloadEntry::new(ImageKind::NONE, OffloadKind::SYCL, &b""[..]);
        c.flags = FLAG_METADATA;
        c.set("triple", "spirv64-intel");
        vec![a, b, c]
    }

    // --- kinds ---

    #[test]
    fn kind_names_and_caveats() {
        assert_eq!(ImageKind(6).name(), "spirv");
        assert_eq!(ImageKind(7).name(), "unknown");
        assert_eq!(ImageKind::from_extension("fatbin"), ImageKind::FATBINARY);
        assert_eq!(ImageKind::from_extension("elf"), ImageKind::NONE);
        assert_eq!(ImageKind::from_name("bc"), Some(ImageKind::BITCODE));
        assert_eq!(ImageKind::from_name("ptx"), Some(ImageKind::PTX));
        assert_eq!(ImageKind::SPIRV.extension(), "spv");
        assert_eq!(OffloadKind(3).name(), "hip");
        assert_eq!(OffloadKind(4).name(), "hip");
        assert_eq!(OffloadKind(8).name(), "sycl");
        assert_eq!(OffloadKind(16).name(), "unknown");
        assert!(OffloadKind(4).caveat().unwrap().1.contains("ambiguous"));
        assert_eq!(OffloadKind(3).caveat().unwrap().0, Severity::Warning);
        assert!(OffloadKind(1).caveat().is_none());
        assert_eq!(OffloadKind::from_llvm_name("HIP"), OffloadKind::NONE);
        assert_eq!(OffloadKind::from_name("hip"), Some(OffloadKind::HIP));
        assert_eq!(OffloadKind::from_name("none"), Some(OffloadKind::NONE));
        assert_eq!(OffloadKind::from_name("bogus"), None);
    }

    // --- v1 against bytes written by LLVM 22 ---

    #[test]
    fn writes_v1_like_llvm_22() {
        let e = entry(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a", b"hello world image");
        let mut e = e;
        // The tool stores arch before triple (its DenseMap order).
        e.strings.reverse();
        assert_eq!(write_v1(&e).unwrap(), unhex(TOOL_V1));
    }

    #[test]
    fn reads_v1_written_by_llvm_22() {
        let data = unhex(TOOL_V1);
        let bin = parse(&data).unwrap();
        assert_eq!(bin.version, 1);
        let e = &bin.entries[0];
        assert_eq!(e.image_kind, ImageKind::OBJECT);
        assert_eq!(e.offload_kind, OffloadKind::HIP);
        assert_eq!(e.triple(), Some("amdgcn-amd-amdhsa"));
        assert_eq!(e.arch(), Some("gfx90a"));
        assert_eq!(&*e.image, b"hello world image");
        assert!(!bin.is_edited());
        assert!(bin.layout().unwrap().notes.is_empty(), "{:?}", bin.layout().unwrap().notes);
        assert_eq!(bin.write().unwrap(), data);
        assert_eq!(bin.write_canonical().unwrap(), data);
    }

    #[test]
    fn packager_order_matches_llvm_22() {
        let spec =
            parse_image_spec("file=a.o,kind=openmp,arch=gfx90a,triple=amdgcn-amd-amdhsa,zeta=1,alpha=,beta=arch");
        assert_eq!(spec.files, vec!["a.o"]);
        assert_eq!(spec.offload_kind, OffloadKind::OPENMP);
        let mut e = OffloadEntry::new(ImageKind::OBJECT, spec.offload_kind, &b"hello world image"[..]);
        e.strings = spec.strings;
        assert_eq!(write_v1(&e).unwrap(), unhex(TOOL_V1_EMPTY_VALUE));
        let data = unhex(TOOL_V1_EMPTY_VALUE);
        let read = parse(&data).unwrap().entries[0].clone();
        assert_eq!(read.get("alpha"), Some(""));
        assert_eq!(read.strings, e.strings);
    }

    #[test]
    fn package_image_from_pairs() {
        let pairs = [("file", "a.o"), ("kind", "openmp"), ("arch", "gfx90a"), ("triple", "amdgcn-amd-amdhsa")];
        let mut pairs: Vec<(&str, &str)> = pairs.to_vec();
        pairs.extend([("zeta", "1"), ("alpha", ""), ("beta", "arch")]);
        let bin = package_image(&pairs, b"hello world image").unwrap();
        assert_eq!(bin.write().unwrap(), unhex(TOOL_V1_EMPTY_VALUE));
        assert!(package_image(&[("file", "a"), ("file", "b")], b"").is_err());
    }

    #[test]
    fn packager_joins_repeated_keys_and_files() {
        let spec = parse_image_spec("file=a.o,triple=t,file=b.bc,x=1,x=2,flag");
        assert_eq!(spec.files, vec!["a.o", "b.bc"]);
        assert!(spec.strings.contains(&("x".into(), "1,2".into())));
        assert!(spec.strings.contains(&("flag".into(), "".into())));
        assert_eq!(packager::image_kind_for("dir.x/a", b""), ImageKind::NONE);
        assert_eq!(packager::image_kind_for("a.cubin", b"\x7fELF"), ImageKind::CUBIN);
        assert_eq!(packager::image_kind_for("a.spv", b""), ImageKind::NONE);
        assert_eq!(ImageKind::from_extension("spv"), ImageKind::SPIRV);
        assert_eq!(packager::image_kind_for("a.o", b"BC\xc0\xde"), ImageKind::BITCODE);
        assert_eq!(packager::image_kind_for("a.o", &[0xDE, 0xC0, 0x17, 0x0B]), ImageKind::BITCODE);
    }

    #[test]
    fn llvm_hash_matches_reference_values() {
        // From a program calling llvm::hash_combine_range (LLVM 22 headers, release seed).
        assert_eq!(hash_bytes(b"triple"), 0x45f9d3270819b0d8);
        assert_eq!(hash_bytes(b"arch"), 0x1499ea7cf386c709);
        assert_eq!(hash_bytes(b"kind"), 0xe421e5cbc8207aa5);
        assert_eq!(hash_bytes(b"a"), 0xaeb6f9d5517c61f8);
        assert_eq!(hash_bytes(b""), 0x65b0c5ecc2c5cc82);
        assert_eq!(hash_bytes(b"amdgcn-amd-amdhsa"), 0x9d6aeebe37d4b48f);
        let big: Vec<u8> = (0..200u32).map(|i| b'a' + ((i * 7) % 26) as u8).collect();
        let expected: [(usize, u64); 14] = [
            (3, 0x06714f3bf5387efb),
            (4, 0x78f26d04dc68025b),
            (8, 0x4550fbbf223b7bd7),
            (9, 0x3080a41390b0e186),
            (16, 0x902e6a0a0db11d1a),
            (17, 0xea78fb97f6f57763),
            (32, 0x1c1e8c048c8beb22),
            (33, 0xf68ef1fe19f2bc68),
            (64, 0x69736c5b2bac5389),
            (65, 0x405d536c0f82f42f),
            (100, 0x3b404860d99c76d5),
            (128, 0x30eb5294e03a6574),
            (129, 0xc5b13cba7b848272),
            (200, 0x0d3f83298d0f1a7f),
        ];
        for (len, hash) in expected {
            assert_eq!(hash_bytes(&big[..len]), hash, "length {len}");
        }
    }

    #[test]
    fn dense_map_grows_past_48_keys() {
        let names: Vec<String> = (0..100).map(|i| format!("key{i}")).collect();
        let keys: Vec<&str> = names.iter().map(String::as_str).collect();
        let order = dense_map_order(&keys);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
    }

    // --- v2 and v3 ---

    #[test]
    fn v2_round_trip_and_layout() {
        let entries = sample_entries();
        let data = write_v2(&entries).unwrap();
        assert_eq!(&data[4..8], &2u32.to_le_bytes());
        assert_eq!(u64::from_le_bytes(data[16..24].try_into().unwrap()), 32);
        assert_eq!(u64::from_le_bytes(data[24..32].try_into().unwrap()), 3);
        assert_eq!(data.len() % 8, 0);
        let bin = parse(&data).unwrap();
        assert_eq!(bin.version, 2);
        assert_eq!(bin.entries, entries);
        assert_eq!(bin.entries[1].get("value-with-nul"), Some("a\0b"));
        assert!(!bin.is_edited());
        assert_eq!(bin.write().unwrap(), data);
        // Images are back to back, not aligned one by one.
        let l = bin.layout().unwrap();
        assert_eq!(l.entries[1].raw.image_offset, l.entries[0].raw.image_offset + 11);
    }

    #[test]
    fn v3_uncompressed_round_trip() {
        let entries = sample_entries();
        let data = write_v3(&entries, None).unwrap();
        assert_eq!(u64::from_le_bytes(data[16..24].try_into().unwrap()), 40);
        assert_eq!(&data[32..40], &[0; 8]);
        let bin = parse(&data).unwrap();
        assert_eq!((bin.version, bin.compression), (3, None));
        assert_eq!(bin.entries, entries);
        assert_eq!(bin.write().unwrap(), data);
    }

    #[cfg(feature = "zlib")]
    #[test]
    fn v3_zlib_round_trip() {
        v3_compressed_round_trip(CompressionMethod::Zlib);
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn v3_zstd_round_trip() {
        v3_compressed_round_trip(CompressionMethod::Zstd);
    }

    fn v3_compressed_round_trip(method: CompressionMethod) {
        let mut entries = sample_entries();
        let big: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        entries[0].image = Cow::Owned(big);
        let compression = Compression { method, level: None };
        let data = write_v3(&entries, Some(compression)).unwrap();
        let plain = write_v3(&entries, None).unwrap();
        assert!(data.len() < plain.len());
        assert_eq!(data.len() % 8, 0);
        assert_eq!(u64::from_le_bytes(data[32..40].try_into().unwrap()), plain.len() as u64);
        let bin = parse(&data).unwrap();
        assert_eq!(bin.compression, Some(compression));
        assert_eq!(bin.entries, entries);
        assert!(!bin.is_edited());
        assert_eq!(bin.write().unwrap(), data);
        assert_eq!(bin.layout().unwrap().compressed.as_ref().unwrap().inflated, plain);
        // Decompressing (an edit) gives LLVM's uncompressed v3 bytes.
        let mut edited = bin.clone();
        edited.compression = None;
        assert_eq!(edited.write().unwrap(), plain);
        let mut spaces = vec![ByteSpace { label: "input".into(), size: data.len() as u64, origin: None, data: None }];
        let node = to_node_with_spaces(&bin, Span::new(0, 0, data.len() as u64), &mut spaces);
        assert_eq!(spaces.len(), 2);
        assert_eq!(spaces[1].data.as_deref(), Some(&plain[40..]));
        let decompressed = &node.children.iter().find(|n| n.kind == NodeKind::Decompressed).unwrap();
        let first = decompressed.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
        assert_eq!(first.span.space, 1);
        assert_eq!(first.text("triple"), Some("amdgcn-amd-amdhsa"));
        // Without byte spaces the entries are listed at the payload.
        let flat = to_node(&bin, Span::new(0, 0, data.len() as u64));
        let entries: Vec<_> = flat.children.iter().filter(|n| n.kind == NodeKind::OffloadEntry).collect();
        assert_eq!(entries.len(), 3);
        let stored_size = u64::from_le_bytes(data[8..16].try_into().unwrap());
        assert_eq!(entries[0].span, Span::new(0, 40, stored_size - 40));
        assert!(flat.children.iter().all(|n| n.kind != NodeKind::Decompressed));
        // Truncating a compressed binary anywhere fails cleanly.
        for len in 0..data.len() {
            let _ = parse(&data[..len]);
        }
    }

    // --- editing ---

    #[test]
    fn edits_relayout_like_llvm() {
        let data = unhex(TOOL_V1);
        let mut bin = parse(&data).unwrap();
        bin.entries[0].set("arch", "gfx942");
        assert!(bin.is_edited());
        let written = bin.write().unwrap();
        let expected = write_v1(&bin.entries[0]).unwrap();
        assert_eq!(written, expected);
        let back = parse(&written).unwrap();
        assert_eq!(back.entries[0].arch(), Some("gfx942"));
        // Reverting the edit gives the input bytes again.
        bin.entries[0].set("arch", "gfx90a");
        assert!(!bin.is_edited());
        // Upgrading to v2 works; v1 with two entries does not.
        bin.version = 2;
        assert_eq!(parse(&bin.write().unwrap()).unwrap().version, 2);
        bin.version = 1;
        bin.entries.push(bin.entries[0].clone());
        assert!(bin.write().is_err());
    }

    #[test]
    fn unusual_but_valid_layout_round_trips() {
        // Strings stored without tail merging and in another order, an image before the strings.
        let mut data = vec![0u8; 128];
        data[..4].copy_from_slice(&MAGIC);
        data[4..8].copy_from_slice(&1u32.to_le_bytes());
        data[8..16].copy_from_slice(&128u64.to_le_bytes());
        data[16..24].copy_from_slice(&32u64.to_le_bytes());
        data[24..32].copy_from_slice(&40u64.to_le_bytes());
        let e = 32;
        data[e..e + 2].copy_from_slice(&2u16.to_le_bytes());
        data[e + 2..e + 4].copy_from_slice(&3u16.to_le_bytes());
        data[e + 8..e + 16].copy_from_slice(&72u64.to_le_bytes());
        data[e + 16..e + 24].copy_from_slice(&1u64.to_le_bytes());
        data[e + 24..e + 32].copy_from_slice(&88u64.to_le_bytes());
        data[e + 32..e + 40].copy_from_slice(&4u64.to_le_bytes());
        data[72..80].copy_from_slice(&100u64.to_le_bytes());
        data[80..88].copy_from_slice(&107u64.to_le_bytes());
        data[88..92].copy_from_slice(b"IMG!");
        data[100..107].copy_from_slice(b"triple\0");
        data[107..117].copy_from_slice(b"x86_64-pc\0");
        let bin = parse(&data).unwrap();
        assert_eq!(bin.entries[0].triple(), Some("x86_64-pc"));
        assert_eq!(bin.entries[0].offload_kind.name(), "hip");
        assert_eq!(bin.write().unwrap(), data);
        let node = to_node(&bin, Span::new(0, 0, 128));
        let entry = &node.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
        assert!(entry.diagnostics.iter().any(|d| d.message.contains("older numbering")));
    }

    #[test]
    fn duplicate_keys_follow_map_vector() {
        let mut e = entry(OffloadKind::CUDA, "nvptx64-nvidia-cuda", "sm_80", b"x");
        e.strings.push(("triple".into(), "later".into()));
        let written = write_v1(&e).unwrap();
        let back = parse(&written).unwrap();
        assert_eq!(back.entries[0].strings[0], ("triple".into(), "later".into()));
        assert_eq!(back.entries[0].strings.len(), 2);
    }

    #[test]
    fn nul_in_key_is_refused() {
        let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
        e.set("bad\0key", "v");
        assert!(write_v1(&e).is_err());
        assert!(write_v2(&[e]).is_err());
        let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
        e.set("k", "v\0w");
        assert!(write_v1(&e).is_err());
        assert!(write_v2(&[e]).is_ok());
        assert!(write_v2(&[]).is_err());
    }

    // --- tree ---

    #[test]
    fn tree_fields_spans_and_labels() {
        let data = unhex(TOOL_V1);
        let bin = parse(&data).unwrap();
        let node = to_node(&bin, Span::new(0, 100, data.len() as u64));
        assert_eq!(node.kind, NodeKind::OffloadBinary);
        let entry = node.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
        assert_eq!(entry.label, "offload entry hip amdgcn-amd-amdhsa gfx90a (object, 17 B)");
        assert_eq!(entry.text("image_kind"), Some("object"));
        assert_eq!(entry.text("offload_kind"), Some("hip"));
        assert_eq!(entry.get("offload_kind_value"), Some(&Value::Uint(4)));
        let triple = entry.fields.iter().find(|f| f.name == "triple").unwrap();
        assert_eq!(triple.span, Some(Span::new(0, 100 + 0x75, 17)));
        assert!(triple.editable);
        let strings = entry.fields.iter().find(|f| f.name == "strings").unwrap();
        assert_eq!(strings.span, Some(Span::new(0, 100 + 72, 32)));
        assert!(matches!(&strings.value, Value::Map(m) if m.len() == 2));
        let image = &entry.children[0];
        assert_eq!((image.kind, image.span), (NodeKind::Image, Span::new(0, 100 + 0x90, 17)));
        assert!(node.children.iter().any(|n| n.kind == NodeKind::StringTable));
        assert!(entry
            .diagnostics
            .iter()
            .any(|d| d.message.contains("ambiguous") && d.message.contains("suggests HIP")));
        assert_eq!(node.worst_severity(), Some(Severity::Note));
    }

    #[test]
    fn file_tree_reports_gaps() {
        let one = unhex(TOOL_V1);
        let mut data = one.clone();
        data.extend_from_slice(&[0u8; 16]);
        data.extend_from_slice(&one);
        data.extend_from_slice(b"junk");
        let tree = file_tree(&data, "input.bin");
        let kinds: Vec<NodeKind> = tree.root.children.iter().map(|n| n.kind).collect();
        assert_eq!(kinds, [NodeKind::OffloadBinary, NodeKind::Padding, NodeKind::OffloadBinary, NodeKind::Unknown]);
        assert!(tree.root.label.contains("2 offload binaries"));
    }

    // --- several binaries ---

    #[test]
    fn walk_finds_binaries_at_aligned_steps() {
        let one = unhex(TOOL_V1);
        let v2 = write_v2(&sample_entries()).unwrap();
        let mut data = one.clone();
        data.extend_from_slice(&v2);
        data.extend_from_slice(&[0u8; 8]);
        data.extend_from_slice(&MAGIC);
        data.extend_from_slice(&[9u8; 12]);
        data.extend_from_slice(&one);
        data.extend_from_slice(b"tail");
        let w = walk(&data);
        let offsets: Vec<u64> = w.binaries().map(|(o, _)| o).collect();
        let third = (one.len() + v2.len() + 24) as u64;
        assert_eq!(offsets, [0, one.len() as u64, third]);
        let unused: Vec<_> = w.unused().collect();
        assert_eq!(unused.len(), 3);
        assert_eq!(unused[0].1, Unused::Zeros);
        assert_eq!((unused[1].0.start, unused[1].1), ((one.len() + v2.len() + 8) as u64, Unused::Invalid));
        assert_eq!(unused[1].2.offset, 4, "the version field of the bad binary");
        assert_eq!(
            (unused[2].0.clone(), unused[2].1),
            (third + one.len() as u64..data.len() as u64, Unused::Unrecognized)
        );
        assert_eq!(unused[2].2.offset, 0);
        let sizes: u64 = w.items.iter().map(|f| f.size).sum();
        assert_eq!(sizes, data.len() as u64);
        assert!(!w.is_clean());
        assert_eq!(w.write().unwrap(), data);
    }

    #[test]
    fn nested_unreadable_binaries_stay_linear() {
        // A magic at every 8 bytes, each claiming the rest of the buffer and failing at its last
        // string: without a bound on failed reads this is quadratic.
        let n = 1usize << 17;
        let mut data = vec![0u8; n];
        for pos in (0..n).step_by(8) {
            data[pos..pos + 4].copy_from_slice(&MAGIC);
            data[pos + 4..pos + 8].copy_from_slice(&7u32.to_le_bytes());
        }
        let w = walk(&data);
        assert_eq!(w.binaries().count(), 0);
        assert_eq!(w.write().unwrap(), data);
    }

    #[test]
    fn walk_of_empty_and_clean_buffers() {
        assert!(walk(&[]).items.is_empty());
        let one = unhex(TOOL_V1);
        let twice = [one.clone(), one].concat();
        let w = walk(&twice);
        assert!(w.is_clean());
        assert_eq!(w.binaries().count(), 2);
    }

    // --- hostile input ---

    fn put(data: &mut [u8], at: usize, v: u64) {
        data[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn truncation_at_every_length_fails_cleanly() {
        let samples =
            [unhex(TOOL_V1), write_v2(&sample_entries()).unwrap(), write_v3(&sample_entries(), None).unwrap()];
        for data in &samples {
            for len in 0..data.len() {
                let r = parse(&data[..len]);
                // Zero padding past `size` is optional; anything shorter than `size` must fail.
                let size = u64::from_le_bytes(data[8..16].try_into().unwrap()) as usize;
                assert_eq!(r.is_ok(), len >= size, "length {len}");
            }
        }
        assert_eq!(parse(&[0x10, 0xFF]).unwrap_err().offset, 0);
        assert_eq!(parse(&unhex(TOOL_V1)[..20]).unwrap_err().offset, 16);
    }

    #[test]
    fn header_errors_say_what_and_where() {
        let mut data = unhex(TOOL_V1);
        data[0] = 0;
        let e = parse(&data).unwrap_err();
        assert_eq!((e.offset, e.expected.as_str(), e.found.as_str()), (0, "magic 10 FF 10 AD", "00 FF 10 AD"));
        let mut data = unhex(TOOL_V1);
        data[4] = 4;
        assert_eq!(parse(&data).unwrap_err().offset, 4);
        let mut data = unhex(TOOL_V1);
        put(&mut data, 8, 16);
        assert_eq!(parse(&data).unwrap_err().offset, 8);
        let mut data = unhex(TOOL_V1);
        put(&mut data, 8, u64::MAX);
        assert!(parse(&data).unwrap_err().expected.contains("within the 168 bytes"));
    }

    #[test]
    fn offsets_past_end_and_wrapping_are_errors() {
        let base = unhex(TOOL_V1);
        let cases: [(usize, u64, u64); 8] = [
            (16, 200, 16),               // entry offset past the end
            (16, u64::MAX - 8, 16),      // entry offset wrapping
            (32 + 8, 1000, 40),          // string entries offset past the end
            (32 + 24, 1000, 56),         // image offset past the end
            (32 + 24, u64::MAX - 3, 56), // image offset wrapping with its size
            (32 + 32, u64::MAX, 56),     // image size huge
            (72, 5000, 72),              // key offset past the end
            (80, u64::MAX, 80),          // value offset past the end
        ];
        for (at, value, error_at) in cases {
            let mut data = base.clone();
            put(&mut data, at, value);
            let e = parse(&data).unwrap_err();
            assert_eq!(e.offset, error_at, "field at {at} = {value}: {e}");
        }
    }

    #[test]
    fn huge_counts_are_rejected_before_allocating() {
        let mut data = unhex(TOOL_V1);
        put(&mut data, 32 + 16, 1 << 60);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 48);
        assert!(e.expected.contains("at most 6 string entries"), "{e}");
        let mut v2 = write_v2(&sample_entries()).unwrap();
        put(&mut v2, 24, 1 << 60);
        let e = parse(&v2).unwrap_err();
        assert_eq!(e.offset, 24);
        assert!(e.found.contains("1152921504606846976 entries"));
    }

    #[test]
    fn overlapping_string_arrays_are_bounded() {
        // Many v2 entries all claiming the same big string array.
        let mut e = entry(OffloadKind::CUDA, "t", "a", b"");
        for i in 0..20 {
            e.set(&format!("k{i}"), "v");
        }
        let mut entries = vec![e];
        entries.extend((0..30).map(|_| OffloadEntry::new(ImageKind::NONE, OffloadKind::NONE, &b""[..])));
        let mut data = write_v2(&entries).unwrap();
        let first = 32 + 8;
        let (offset, count) = (data[first..first + 8].to_vec(), data[first + 8..first + 16].to_vec());
        for i in 1..31 {
            let at = 32 + i * 40 + 8;
            data[at..at + 8].copy_from_slice(&offset);
            data[at + 8..at + 16].copy_from_slice(&count);
        }
        let e = parse(&data).unwrap_err();
        assert!(e.expected.contains("string entries in total"), "{e}");
    }

    #[test]
    fn unterminated_and_shared_strings() {
        let mut data = unhex(TOOL_V1);
        // The value of the second string points at the image, whose bytes reach the end without NUL.
        let size = data.len();
        data[size - 7..].copy_from_slice(b"NO NUL!");
        data[0x90 + 17..size - 7].fill(b'x');
        put(&mut data, 96, 0x90);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 96);
        assert!(e.found.contains("no NUL"), "{e}");
    }

    #[test]
    fn decoded_string_bytes_are_bounded() {
        // 20,000 keys each starting one byte further into a 400 KB run ending in one NUL would
        // decode to 8 GB of keys from a 720 KB binary.
        let n = 20_000u64;
        let run = 400_000u64;
        let strings_at = 72u64;
        let run_at = strings_at + 16 * n;
        let size = align8(run_at + run + 1);
        let mut data = vec![0u8; size as usize];
        data[..4].copy_from_slice(&MAGIC);
        data[4..8].copy_from_slice(&1u32.to_le_bytes());
        put(&mut data, 8, size);
        put(&mut data, 16, 32);
        put(&mut data, 24, 40);
        put(&mut data, 40, strings_at);
        put(&mut data, 48, n);
        put(&mut data, 56, run_at);
        put(&mut data, 64, 0);
        for i in 0..n {
            let at = (strings_at + 16 * i) as usize;
            put(&mut data, at, run_at + i);
            put(&mut data, at + 8, run_at + run);
        }
        data[run_at as usize..(run_at + run) as usize].fill(b'k');
        let e = parse(&data).unwrap_err();
        assert!(e.expected.contains("limit of decoded bytes"), "{e}");
        // With room for them, the keys read (the NUL search stays linear, see below).
        let options = ReadOptions { max_string_bytes: 1 << 33, ..ReadOptions::default() };
        let short = &mut data.clone();
        put(short, 48, 30);
        assert_eq!(parse_with(short, &options).unwrap().entries[0].strings.len(), 30);
    }

    #[test]
    fn nul_finder_scans_each_byte_once() {
        // 200,000 lookups at consecutive offsets of a 1 MB run: a naive scan would read 100 GB.
        let mut data = vec![b'x'; 1 << 20];
        data[(1 << 20) - 1] = 0;
        let mut finder = NulFinder::new(&data);
        for from in (0..200_000u64).rev() {
            assert_eq!(finder.find(from), Some((1 << 20) - 1));
        }
        for from in 200_000..400_000u64 {
            assert_eq!(finder.find(from), Some((1 << 20) - 1));
        }
        let unterminated = vec![b'y'; 1 << 20];
        let mut finder = NulFinder::new(&unterminated);
        for from in (0..200_000u64).step_by(3) {
            assert_eq!(finder.find(from), None);
        }
    }

    #[test]
    fn compressed_header_checks() {
        let mut data = write_v3(&sample_entries(), None).unwrap();
        put(&mut data, 32, 1 << 40);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 32);
        assert!(e.expected.contains("limit"), "{e}");
        put(&mut data, 32, 8);
        assert_eq!(parse(&data).unwrap_err().offset, 32);
        put(&mut data, 32, 100);
        put(&mut data, 16, 8);
        assert_eq!(parse(&data).unwrap_err().offset, 16);
        put(&mut data, 16, 40);
        // Not a valid zlib stream: an error from the decompressor, at the payload.
        let e = parse(&data).unwrap_err();
        assert!(e.offset >= 40, "{e}");
    }

    #[test]
    fn every_single_byte_corruption_is_handled() {
        let samples =
            [unhex(TOOL_V1), write_v2(&sample_entries()).unwrap(), write_v3(&sample_entries(), None).unwrap()];
        for data in &samples {
            for at in 0..data.len() {
                for value in [0u8, 1, 0x7f, 0x80, 0xff] {
                    let mut bad = data.clone();
                    bad[at] = value;
                    if let Ok(bin) = parse(&bad) {
                        let mut spaces = Vec::new();
                        let _ = to_node_with_spaces(&bin, Span::new(0, 0, bad.len() as u64), &mut spaces);
                        let _ = to_node(&bin, Span::new(0, 0, bad.len() as u64));
                        assert_eq!(bin.write().unwrap(), bad[..bin.stored_len() as usize]);
                    }
                    let _ = walk(&bad);
                }
            }
        }
    }

    #[test]
    fn invalid_utf8_is_lossy_with_a_warning() {
        let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
        e.set("k", "ok");
        let mut data = write_v1(&e).unwrap();
        let pos = data.windows(3).position(|w| w == b"ok\0").unwrap();
        data[pos] = 0xff;
        let bin = parse(&data).unwrap();
        assert_eq!(bin.entries[0].get("k"), Some("\u{fffd}k"));
        assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("not UTF-8")));
        assert_eq!(bin.write().unwrap(), data);
    }

    #[test]
    fn warnings_for_odd_layouts() {
        let mut data = unhex(TOOL_V1);
        put(&mut data, 24, 48);
        let bin = parse(&data).unwrap();
        assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("entry size is 48")));
        // Image overlapping the string entries.
        let mut data = unhex(TOOL_V1);
        put(&mut data, 56, 80);
        let bin = parse(&data).unwrap();
        assert!(
            bin.layout().unwrap().notes.iter().any(|n| n.message.contains("overlaps")),
            "{:?}",
            bin.layout().unwrap().notes
        );
        // A key pointing into the image: outside the string table.
        let mut data = unhex(TOOL_V1);
        put(&mut data, 72, 0x90);
        let bin = parse(&data).unwrap();
        assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("outside the string table")));
    }
}
