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
//! | string table: ELF `StringTableBuilder` with tail merging ([`crate::util::strtab`]) | one table shared by all entries |
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

use crate::error::{Error, Result};
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span, Tree, Value};
use crate::util::bytes::{align_up, checked_end, human_size, Reader};
use crate::util::strtab::StringTable;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;

pub mod packager;
mod read;
#[cfg(test)]
mod tests;
mod tree;
mod walk;
mod write;

pub use read::*;
pub use tree::*;
pub use walk::*;
pub use write::*;

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

/// `value` rounded up to [`ALIGNMENT`]; past `u64::MAX` it stays at `u64::MAX`, which no
/// buffer reaches, so a later range check refuses it.
fn align_to_entry(value: u64) -> u64 {
    align_up(value, ALIGNMENT).unwrap_or(u64::MAX)
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

    fn method(self) -> crate::codec::Method {
        match self {
            CompressionMethod::Zlib => crate::codec::Method::Zlib,
            CompressionMethod::Zstd => crate::codec::Method::Zstd,
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
