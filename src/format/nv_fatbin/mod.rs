//! NVIDIA fat binaries ("fatbins"), as `nvcc -fatbin` and `fatbinary` write them and as the CUDA
//! runtime reads them from `.nv_fatbin` / `__nv_relfatbin` (ELF), `.nv_fatb` (COFF),
//! `__NV_CUDA,__nv_fatbin` (Mach-O), and from offload binaries of image kind "fatbinary".
//!
//! NVIDIA does not document the layout. Everything below was read from files that nvcc 13.5
//! writes and checked against what `cuobjdump` 13.5 lists and extracts (tests/nv_fatbin.rs);
//! public reverse-engineered notes agree on the common fields. Fields we do not understand are
//! shown raw and written back as they were, never dropped.
//!
//! # Byte layout
//!
//! All integers are little-endian. A section holds one or more **containers** back to back
//! (a linked library has one per translation unit plus the device link's), each:
//!
//! | offset | size | field | meaning |
//! |-------:|-----:|-------|---------|
//! | 0  | 4 | magic | `50 ED 55 BA` (`0xBA55ED50`) |
//! | 4  | 2 | version | 1 |
//! | 6  | 2 | header size | 16: the entries start here |
//! | 8  | 8 | entries size | bytes of entries after the header; the container ends at header size + this |
//! | 16 | … | entries | one after another, each at the end of the one before |
//!
//! Each **entry**, offsets from its start:
//!
//! | offset | size | field | meaning |
//! |-------:|-----:|-------|---------|
//! | 0  | 2 | kind | 1 PTX, 2 ELF (cubin), 0x100 concatenated images (`nvcc --concat`); others shown raw |
//! | 2  | 2 | (unknown) | 0x0101 in every file seen; kept raw |
//! | 4  | 4 | header size | 64, or more when the header has an extension (identifier, options, concat table) |
//! | 8  | 8 | payload size | bytes of payload after the header, a multiple of 8 when nvcc writes it |
//! | 16 | 4 | compressed size | bytes of compressed data at the payload's start; 0 when not compressed |
//! | 20 | 4 | options offset | from the entry's start, of an (offset u32, size u32) pair locating the options string; 0 when none |
//! | 24 | 2 | version minor | PTX ISA version for PTX (`9.5`), code version for ELF (`1.8`) |
//! | 26 | 2 | version major | |
//! | 28 | 4 | arch | SM number: 80 for `sm_80` (the `a`/`f` suffix is in the flags) |
//! | 32 | 4 | identifier offset | from the entry's start, of the identifier (the source file name, with `-G` or `fatbinary --ident`); 0 when none |
//! | 36 | 4 | identifier size | bytes, without a terminating NUL |
//! | 40 | 8 | flags | see below |
//! | 48 | 8 | (unknown) | 0 in every file seen; kept raw |
//! | 56 | 8 | uncompressed size | size of the data once decompressed (PTX includes its NUL); 0 when not compressed |
//! | 64 | header size − 64 | extension | identifier and options bytes (text for PTX; tagged binary for sm_100+ cubins), or the concat table; raw |
//! | header size | payload size | payload | the image, or its compressed form followed by zero padding to a multiple of 8 |
//!
//! Flags (bits of the u64 at offset 40):
//!
//! | bit | value | meaning (as cuobjdump shows it) |
//! |----:|------:|---------|
//! | 0  | 0x1       | 64-bit (`compile_size = 64bit`) |
//! | 1  | 0x2       | debug (`-G`) |
//! | 2  | 0x4       | producer CUDA (from public notes; not seen set by nvcc 13.5) |
//! | 3  | 0x8       | producer OpenCL (from public notes) |
//! | 4  | 0x10      | host Linux |
//! | 5  | 0x20      | host Mac |
//! | 6  | 0x40      | host Windows |
//! | 13 | 0x2000    | payload compressed with LZ4 (one raw LZ4 block) |
//! | 15 | 0x8000    | payload compressed with zstd (one frame) |
//! | 20 | 0x100000  | arch-specific target (`sm_90a`) |
//! | 21 | 0x200000  | family-specific target (`sm_100f`) |
//! | 24 | 0x1000000 | seen on sm_100+ cubins and others whose options are binary; meaning unknown |
//! | others | | unknown: shown raw with a note, written back as they were |
//!
//! The **concat table** (kind 0x100) fills the extension: u32 count, u32 table size
//! (8 + 64 × count), then per image a 64-byte header laid out as an entry header whose bytes 4..8
//! hold the image's offset in the decompressed payload and 8..16 its size. The payload
//! decompresses to the images back to back.
//!
//! **Images** as cuobjdump extracts them (`-xelf`, `-xptx`): a cubin is its ELF file, which may be
//! shorter than the payload (padding; see [`elf_size`]); PTX is the text up to its first NUL.
//!
//! The wrapper `__fatBinC_Wrapper_t` of NVIDIA's `fatbinary_section.h` is in [`wrapper`].

use crate::error::{Error, Result};
use crate::util::bytes::{checked_end, Reader};
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub mod payload;
pub mod tree;
pub mod wrapper;

/// The four bytes every container starts with (`0xBA55ED50`, little-endian).
pub const MAGIC: [u8; 4] = [0x50, 0xED, 0x55, 0xBA];
/// The container header's size, and the header size field's only value seen.
pub const HEADER_SIZE: u64 = 16;
/// The fixed part of an entry header.
pub const ENTRY_HEADER_SIZE: u64 = 64;

pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;
pub const KIND_CONCAT: u16 = 0x100;

pub const FLAG_64BIT: u64 = 0x1;
pub const FLAG_DEBUG: u64 = 0x2;
pub const FLAG_PRODUCER_CUDA: u64 = 0x4;
pub const FLAG_PRODUCER_OPENCL: u64 = 0x8;
pub const FLAG_HOST_LINUX: u64 = 0x10;
pub const FLAG_HOST_MAC: u64 = 0x20;
pub const FLAG_HOST_WINDOWS: u64 = 0x40;
pub const FLAG_LZ4: u64 = 0x2000;
pub const FLAG_ZSTD: u64 = 0x8000;
pub const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
pub const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;
pub const FLAG_UNKNOWN_24: u64 = 0x100_0000;
/// Every flag bit with a meaning in the table above.
pub const KNOWN_FLAGS: u64 = FLAG_64BIT
    | FLAG_DEBUG
    | FLAG_PRODUCER_CUDA
    | FLAG_PRODUCER_OPENCL
    | FLAG_HOST_LINUX
    | FLAG_HOST_MAC
    | FLAG_HOST_WINDOWS
    | FLAG_LZ4
    | FLAG_ZSTD
    | FLAG_ARCH_SPECIFIC
    | FLAG_FAMILY_SPECIFIC
    | FLAG_UNKNOWN_24;

const CONTAINER: &str = "NVIDIA fatbin header";
const ENTRY: &str = "NVIDIA fatbin entry header";

/// Whether `data` starts like a fatbin container.
pub fn is_fatbin(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// How an entry's payload is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

impl Compression {
    pub fn from_flags(flags: u64) -> Compression {
        if flags & FLAG_ZSTD != 0 {
            Compression::Zstd
        } else if flags & FLAG_LZ4 != 0 {
            Compression::Lz4
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }

    pub fn flag(self) -> u64 {
        match self {
            Compression::None => 0,
            Compression::Lz4 => FLAG_LZ4,
            Compression::Zstd => FLAG_ZSTD,
        }
    }
}

/// One entry: its header fields as read, its raw header extension and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub kind: u16,
    pub unknown_2: u16,
    pub header_size: u32,
    pub payload_size: u64,
    pub compressed_size: u32,
    pub options_offset: u32,
    pub version_minor: u16,
    pub version_major: u16,
    pub arch: u32,
    pub identifier_offset: u32,
    pub identifier_size: u32,
    pub flags: u64,
    pub unknown_48: u64,
    pub uncompressed_size: u64,
    /// Header bytes 64..header size.
    pub extension: Cow<'a, [u8]>,
    /// `payload_size` bytes.
    pub payload: Cow<'a, [u8]>,
}

/// Where an entry's identifier or options string lies, from the entry's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub offset: u64,
    pub size: u64,
}

impl<'a> Entry<'a> {
    /// Reads the entry at the start of `data` (which may run on past it). Offsets in errors are
    /// from the entry's start.
    pub fn parse(data: &'a [u8]) -> Result<Entry<'a>> {
        let mut r = Reader::new(data);
        let kind = r.u16("fatbin entry kind")?;
        let unknown_2 = r.u16("fatbin entry header, bytes 2..4")?;
        let header_size = r.u32("fatbin entry header size")?;
        let payload_size = r.u64("fatbin entry payload size")?;
        let compressed_size = r.u32("fatbin entry compressed size")?;
        let options_offset = r.u32("fatbin entry options offset")?;
        let version_minor = r.u16("fatbin entry version minor")?;
        let version_major = r.u16("fatbin entry version major")?;
        let arch = r.u32("fatbin entry arch")?;
        let identifier_offset = r.u32("fatbin entry identifier offset")?;
        let identifier_size = r.u32("fatbin entry identifier size")?;
        let flags = r.u64("fatbin entry flags")?;
        let unknown_48 = r.u64("fatbin entry header, bytes 48..56")?;
        let uncompressed_size = r.u64("fatbin entry uncompressed size")?;
        if u64::from(header_size) < ENTRY_HEADER_SIZE {
            return Err(Error::new(
                4,
                ENTRY,
                format!("a header size of at least {ENTRY_HEADER_SIZE} bytes"),
                format!("{header_size}"),
            ));
        }
        let extension = r.bytes(u64::from(header_size) - ENTRY_HEADER_SIZE, "fatbin entry header extension")?;
        if payload_size > r.remaining() as u64 {
            return Err(Error::new(
                8,
                ENTRY,
                format!("a payload size within the {} bytes after the entry header", r.remaining()),
                format!("{payload_size} bytes"),
            ));
        }
        let payload = r.bytes(payload_size, "fatbin entry payload")?;
        let entry = Entry {
            kind,
            unknown_2,
            header_size,
            payload_size,
            compressed_size,
            options_offset,
            version_minor,
            version_major,
            arch,
            identifier_offset,
            identifier_size,
            flags,
            unknown_48,
            uncompressed_size,
            extension: Cow::Borrowed(extension),
            payload: Cow::Borrowed(payload),
        };
        if entry.compression() != Compression::None && u64::from(compressed_size) > payload_size {
            return Err(Error::new(
                16,
                ENTRY,
                format!("a compressed size of at most the payload size, {payload_size}"),
                format!("{compressed_size}"),
            ));
        }
        Ok(entry)
    }

    /// Bytes the entry takes: header and payload.
    pub fn size(&self) -> u64 {
        u64::from(self.header_size).saturating_add(self.payload_size)
    }

    pub fn compression(&self) -> Compression {
        Compression::from_flags(self.flags)
    }

    /// The bytes of the stored data: the compressed data when compressed, else the payload.
    pub fn stored(&self) -> &[u8] {
        match self.compression() {
            Compression::None => &self.payload,
            _ => self.payload.get(..self.compressed_size as usize).unwrap_or(&self.payload),
        }
    }

    /// Header bytes `offset..offset + size` (from the entry's start), when they lie in the
    /// header extension.
    fn header_bytes(&self, at: Located) -> Option<&[u8]> {
        let start = at.offset.checked_sub(ENTRY_HEADER_SIZE)?;
        let end = start.checked_add(at.size)?;
        self.extension.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// Where the identifier lies, when the entry has one.
    pub fn identifier_at(&self) -> Option<Located> {
        (self.identifier_offset != 0)
            .then_some(Located { offset: u64::from(self.identifier_offset), size: u64::from(self.identifier_size) })
    }

    /// The identifier (the source file name), when the entry has one inside its header.
    pub fn identifier(&self) -> Option<String> {
        self.header_bytes(self.identifier_at()?).map(text_of)
    }

    /// Where the options pair and the options string lie, when the entry has them.
    pub fn options_at(&self) -> Option<(Located, Located)> {
        if self.options_offset == 0 || self.kind == KIND_CONCAT {
            return None;
        }
        let pair = Located { offset: u64::from(self.options_offset), size: 8 };
        let raw = self.header_bytes(pair)?;
        let offset = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        let size = u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]);
        Some((pair, Located { offset: u64::from(offset), size: u64::from(size) }))
    }

    /// The options bytes (ptxas options for PTX; binary attributes for sm_100+ cubins).
    pub fn options(&self) -> Option<&[u8]> {
        let (_, at) = self.options_at()?;
        if at.size == 0 {
            return Some(&[]);
        }
        self.header_bytes(at)
    }

    /// The arch as cuobjdump spells it in its `arch =` line: `sm_80`, `sm_90a`, `sm_100f`.
    pub fn arch_name(&self) -> String {
        arch_name(self.arch, self.flags)
    }

    /// The images of a concatenated entry (kind 0x100): their 64-byte headers, parsed.
    pub fn concat_table(&self) -> Result<Vec<ConcatImage>> {
        concat_table(&self.extension)
    }

    /// Writes the entry as it is: unedited, the bytes it was read from.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        if u64::from(self.header_size) != ENTRY_HEADER_SIZE + self.extension.len() as u64 {
            return Err(Error::new(
                4,
                ENTRY,
                format!("a header size of 64 + {} extension bytes", self.extension.len()),
                format!("{}", self.header_size),
            ));
        }
        if self.payload_size != self.payload.len() as u64 {
            return Err(Error::new(
                8,
                ENTRY,
                format!("the payload's {} bytes", self.payload.len()),
                format!("{}", self.payload_size),
            ));
        }
        out.extend_from_slice(&self.kind.to_le_bytes());
        out.extend_from_slice(&self.unknown_2.to_le_bytes());
        out.extend_from_slice(&self.header_size.to_le_bytes());
        out.extend_from_slice(&self.payload_size.to_le_bytes());
        out.extend_from_slice(&self.compressed_size.to_le_bytes());
        out.extend_from_slice(&self.options_offset.to_le_bytes());
        out.extend_from_slice(&self.version_minor.to_le_bytes());
        out.extend_from_slice(&self.version_major.to_le_bytes());
        out.extend_from_slice(&self.arch.to_le_bytes());
        out.extend_from_slice(&self.identifier_offset.to_le_bytes());
        out.extend_from_slice(&self.identifier_size.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.unknown_48.to_le_bytes());
        out.extend_from_slice(&self.uncompressed_size.to_le_bytes());
        out.extend_from_slice(&self.extension);
        out.extend_from_slice(&self.payload);
        Ok(())
    }

    /// The entry with `data` as its payload, stored with `compression` (the data compressed
    /// here), sizes and flags updated, padded with zeros to a multiple of 8 as nvcc does. The
    /// header extension (identifier, options) is kept.
    pub fn with_data(&self, data: &[u8], compression: Compression) -> Result<Entry<'static>> {
        let stored = payload::compress(compression, data)?;
        let padded = stored.len().next_multiple_of(8);
        let mut payload = stored.clone();
        payload.resize(padded, 0);
        let compressed = compression != Compression::None;
        let compressed_size = if compressed {
            u32::try_from(stored.len()).map_err(|_| {
                Error::new(16, ENTRY, "a compressed size that fits in 32 bits", format!("{} bytes", stored.len()))
            })?
        } else {
            0
        };
        Ok(Entry {
            compressed_size,
            uncompressed_size: if compressed { data.len() as u64 } else { 0 },
            flags: (self.flags & !(FLAG_LZ4 | FLAG_ZSTD)) | compression.flag(),
            payload_size: payload.len() as u64,
            payload: Cow::Owned(payload),
            extension: Cow::Owned(self.extension.to_vec()),
            ..*self.header_only()
        })
    }

    fn header_only(&self) -> alloc::boxed::Box<Entry<'static>> {
        alloc::boxed::Box::new(Entry {
            kind: self.kind,
            unknown_2: self.unknown_2,
            header_size: self.header_size,
            payload_size: 0,
            compressed_size: self.compressed_size,
            options_offset: self.options_offset,
            version_minor: self.version_minor,
            version_major: self.version_major,
            arch: self.arch,
            identifier_offset: self.identifier_offset,
            identifier_size: self.identifier_size,
            flags: self.flags,
            unknown_48: self.unknown_48,
            uncompressed_size: self.uncompressed_size,
            extension: Cow::Borrowed(&[]),
            payload: Cow::Borrowed(&[]),
        })
    }
}

/// One image of a concatenated entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConcatImage {
    /// Where its 64-byte header starts, from the entry's start.
    pub header_offset: u64,
    pub kind: u16,
    pub unknown_2: u16,
    /// Offset of the image in the decompressed payload.
    pub offset: u32,
    pub size: u64,
    pub version_minor: u16,
    pub version_major: u16,
    pub arch: u32,
    pub flags: u64,
    /// The header's 64 bytes.
    pub raw: [u8; 64],
}

fn concat_table(extension: &[u8]) -> Result<Vec<ConcatImage>> {
    let mut r = Reader::new(extension);
    let count = r.u32("concat table count").map_err(|e| e.shifted(ENTRY_HEADER_SIZE))?;
    let table_size = r.u32("concat table size").map_err(|e| e.shifted(ENTRY_HEADER_SIZE))?;
    let expected = 8 + 64 * u64::from(count);
    if u64::from(table_size) != expected || expected > extension.len() as u64 {
        return Err(Error::new(
            ENTRY_HEADER_SIZE + 4,
            "NVIDIA fatbin concat table",
            format!(
                "a table of 8 + 64 × {count} = {expected} bytes within the {}-byte header extension",
                extension.len()
            ),
            format!("{table_size} bytes"),
        ));
    }
    let mut images = Vec::new();
    for i in 0..count as usize {
        let at = 8 + 64 * i;
        let raw: [u8; 64] = extension[at..at + 64].try_into().unwrap_or([0; 64]);
        let mut h = Reader::new(&raw);
        let kind = h.u16("")?;
        let unknown_2 = h.u16("")?;
        let offset = h.u32("")?;
        let size = h.u64("")?;
        let _ = h.u64("")?;
        let version_minor = h.u16("")?;
        let version_major = h.u16("")?;
        let arch = h.u32("")?;
        let _ = h.u64("")?;
        let flags = h.u64("")?;
        images.push(ConcatImage {
            header_offset: ENTRY_HEADER_SIZE + at as u64,
            kind,
            unknown_2,
            offset,
            size,
            version_minor,
            version_major,
            arch,
            flags,
            raw,
        });
    }
    Ok(images)
}

/// One container: its header fields and entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    pub version: u16,
    pub header_size: u16,
    pub entries_size: u64,
    /// Header bytes 16..header size, when the header is larger (never seen); raw.
    pub header_extra: Cow<'a, [u8]>,
    pub entries: Vec<Entry<'a>>,
}

/// Where each entry of a container lies, from the container's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub entries: Vec<u64>,
}

impl<'a> Container<'a> {
    /// Reads the container at the start of `data` (which may run on past it).
    pub fn parse(data: &'a [u8]) -> Result<(Container<'a>, Layout)> {
        let mut r = Reader::new(data);
        let magic = r.array::<4>(CONTAINER)?;
        if magic != MAGIC {
            return Err(Error::new(0, CONTAINER, "magic 50 ED 55 BA", format!("{magic:02X?}")));
        }
        let version = r.u16("fatbin version")?;
        let header_size = r.u16("fatbin header size")?;
        let entries_size = r.u64("fatbin entries size")?;
        if u64::from(header_size) < HEADER_SIZE {
            return Err(Error::new(
                6,
                CONTAINER,
                format!("a header size of at least {HEADER_SIZE}"),
                format!("{header_size}"),
            ));
        }
        let header_extra = r.bytes(u64::from(header_size) - HEADER_SIZE, "fatbin header")?;
        let end = checked_end(u64::from(header_size), entries_size, 8, CONTAINER)?;
        if end > data.len() as u64 {
            return Err(Error::new(
                8,
                CONTAINER,
                format!(
                    "an entries size within the {} bytes after the header",
                    data.len() as u64 - u64::from(header_size)
                ),
                format!("{entries_size} bytes"),
            ));
        }
        let body = &data[..end as usize];
        let mut pos = u64::from(header_size);
        let mut entries = Vec::new();
        let mut offsets = Vec::new();
        while pos < end {
            let entry = Entry::parse(&body[pos as usize..]).map_err(|e| e.shifted(pos))?;
            offsets.push(pos);
            pos += entry.size();
            entries.push(entry);
        }
        Ok((
            Container { version, header_size, entries_size, header_extra: Cow::Borrowed(header_extra), entries },
            Layout { entries: offsets },
        ))
    }

    /// Bytes the container takes.
    pub fn size(&self) -> u64 {
        u64::from(self.header_size).saturating_add(self.entries_size)
    }

    /// Writes the container as it is: unedited, the bytes it was read from.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.header_size.to_le_bytes());
        out.extend_from_slice(&self.entries_size.to_le_bytes());
        out.extend_from_slice(&self.header_extra);
        for e in &self.entries {
            e.write(&mut out)?;
        }
        let written = out.len() as u64;
        if written != self.size() {
            return Err(Error::new(
                8,
                CONTAINER,
                format!("entries of {} bytes, as the header says", self.entries_size),
                format!("{} bytes", written.saturating_sub(u64::from(self.header_size))),
            ));
        }
        Ok(out)
    }

    /// Writes the container with its entries size set from its entries (after edits).
    pub fn write_new(&mut self) -> Result<Vec<u8>> {
        self.entries_size = self.entries.iter().map(Entry::size).sum();
        self.write()
    }
}

/// A piece of a buffer of containers back to back.
#[derive(Debug)]
pub enum Piece<'a> {
    Container(Container<'a>, Layout),
    /// Zero bytes between or after containers.
    Padding,
    /// A container that cannot be read; nothing after it is read.
    Unreadable(Error),
    /// Bytes that are neither a container nor zeros; nothing after them is read.
    Unknown,
}

/// One piece found by [`walk`], with where it lies in the buffer.
#[derive(Debug)]
pub struct Found<'a> {
    pub offset: u64,
    pub size: u64,
    pub bytes: &'a [u8],
    pub piece: Piece<'a>,
}

/// The containers of `data`, walked by their sizes; zero bytes between them (alignment
/// padding in linked files) become [`Piece::Padding`].
pub fn walk(data: &[u8]) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = &data[pos..];
        if is_fatbin(rest) {
            match Container::parse(rest) {
                Ok((c, layout)) => {
                    let size = c.size() as usize;
                    out.push(Found {
                        offset: pos as u64,
                        size: size as u64,
                        bytes: &rest[..size],
                        piece: Piece::Container(c, layout),
                    });
                    pos += size;
                }
                Err(e) => {
                    out.push(Found {
                        offset: pos as u64,
                        size: rest.len() as u64,
                        bytes: rest,
                        piece: Piece::Unreadable(e.shifted(pos as u64)),
                    });
                    break;
                }
            }
            continue;
        }
        let zeros = rest.iter().take_while(|&&b| b == 0).count();
        if zeros == 0 {
            out.push(Found { offset: pos as u64, size: rest.len() as u64, bytes: rest, piece: Piece::Unknown });
            break;
        }
        out.push(Found { offset: pos as u64, size: zeros as u64, bytes: &rest[..zeros], piece: Piece::Padding });
        pos += zeros;
    }
    out
}

/// `data` (containers back to back, as in a section or a `.fatbin` file) with every entry's
/// payload decompressed (within `limit` per entry), as `nvcc --compress-mode=none` would have
/// stored it: what cuobjdump and the CUDA runtime read like the original. Padding between
/// containers is kept; anything that is not a readable container is an error.
pub fn decompress_all(data: &[u8], limit: u64) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len());
    for found in walk(data) {
        match found.piece {
            Piece::Container(mut c, _) => {
                for e in &mut c.entries {
                    if e.compression() != Compression::None {
                        let plain = payload::entry_data(e, limit)?;
                        *e = e.with_data(&plain, Compression::None)?;
                    }
                }
                out.extend_from_slice(&c.write_new()?);
            }
            Piece::Padding => out.extend_from_slice(found.bytes),
            Piece::Unreadable(e) => return Err(e),
            Piece::Unknown => {
                return Err(Error::new(
                    found.offset,
                    CONTAINER,
                    "a fatbin container (magic 50 ED 55 BA) or zero padding",
                    "other bytes",
                ))
            }
        }
    }
    Ok(out)
}

/// The arch as cuobjdump spells it: `sm_<n>` with `a` (arch-specific) or `f` (family) appended.
pub fn arch_name(arch: u32, flags: u64) -> String {
    let suffix = if flags & FLAG_ARCH_SPECIFIC != 0 {
        "a"
    } else if flags & FLAG_FAMILY_SPECIFIC != 0 {
        "f"
    } else {
        ""
    };
    format!("sm_{arch}{suffix}")
}

/// The arch as cuobjdump writes it in extracted file names, where the family suffix `f` is
/// left out (`sm_100f` gives `….sm_100.cubin`).
pub fn file_arch_name(arch: u32, flags: u64) -> String {
    let name = arch_name(arch, flags);
    match name.strip_suffix('f') {
        Some(base) => base.to_string(),
        None => name,
    }
}

/// The name of an entry kind: `ptx`, `elf`, `concat`, or `unknown (n)`.
pub fn kind_name(kind: u16) -> String {
    match kind {
        KIND_PTX => "ptx".into(),
        KIND_ELF => "elf".into(),
        KIND_CONCAT => "concat".into(),
        other => format!("unknown ({other:#x})"),
    }
}

/// The host OS flags as cuobjdump names them.
pub fn host_name(flags: u64) -> &'static str {
    if flags & FLAG_HOST_LINUX != 0 {
        "linux"
    } else if flags & FLAG_HOST_WINDOWS != 0 {
        "windows"
    } else if flags & FLAG_HOST_MAC != 0 {
        "mac"
    } else {
        "unknown"
    }
}

/// Text bytes as a string; bytes that are not UTF-8 are replaced, a trailing NUL dropped.
fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes.strip_suffix(&[0]).unwrap_or(bytes)).into_owned()
}

/// Options bytes for display: the text when they are printable text, else hex.
pub fn options_text(bytes: &[u8]) -> String {
    let trimmed = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    match core::str::from_utf8(trimmed) {
        Ok(s) if s.chars().all(|c| !c.is_control() || c == '\t' || c == '\n') => s.to_string(),
        _ => {
            let mut hex = String::from("binary: ");
            for b in bytes {
                hex.push_str(&format!("{b:02x}"));
            }
            hex
        }
    }
}

/// The size of the ELF file at the start of `data`, from its headers: the end of the last of
/// its section header table, program header table and section contents; `None` when `data`
/// does not start with a readable 64- or 32-bit little-endian ELF header. cuobjdump extracts a
/// cubin at this size, leaving out the payload's padding.
pub fn elf_size(data: &[u8]) -> Option<u64> {
    if !data.starts_with(b"\x7fELF") || data.get(5) != Some(&1) {
        return None;
    }
    let wide = match data.get(4) {
        Some(2) => true,
        Some(1) => false,
        _ => return None,
    };
    let u16_at = |o: usize| data.get(o..o + 2).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])));
    let u32_at = |o: usize| data.get(o..o + 4).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    let u64_at = |o: usize| data.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    let word = |o: usize| if wide { u64_at(o) } else { u32_at(o) };
    let (phoff, shoff, rest) = if wide { (word(0x20)?, word(0x28)?, 0x36) } else { (word(0x1c)?, word(0x20)?, 0x2a) };
    let (phentsize, phnum, shentsize, shnum) = (u16_at(rest)?, u16_at(rest + 2)?, u16_at(rest + 4)?, u16_at(rest + 6)?);
    let mut end = if wide { 64 } else { 52 };
    if phnum > 0 {
        end = end.max(phoff.checked_add(phentsize.checked_mul(phnum)?)?);
    }
    if shnum > 0 {
        end = end.max(shoff.checked_add(shentsize.checked_mul(shnum)?)?);
        for i in 0..shnum {
            let at = usize::try_from(shoff.checked_add(i.checked_mul(shentsize)?)?).ok()?;
            let kind = u32_at(at + 4)?;
            let (offset, size) =
                if wide { (u64_at(at + 0x18)?, u64_at(at + 0x20)?) } else { (u32_at(at + 0x10)?, u32_at(at + 0x14)?) };
            if kind != 8 {
                end = end.max(offset.checked_add(size)?);
            }
        }
    }
    for i in 0..phnum {
        let at = usize::try_from(phoff.checked_add(i.checked_mul(phentsize)?)?).ok()?;
        let (offset, size) =
            if wide { (u64_at(at + 8)?, u64_at(at + 0x20)?) } else { (u32_at(at + 4)?, u32_at(at + 0x10)?) };
        end = end.max(offset.checked_add(size)?);
    }
    Some(end)
}

/// The bytes of the image an entry's (decompressed) data holds, as cuobjdump extracts it: the
/// ELF file for a cubin, the text before the first NUL for PTX, else all of it.
pub fn image_extent(kind: u16, data: &[u8]) -> usize {
    match kind {
        KIND_ELF => elf_size(data).map_or(data.len(), |n| (n.min(data.len() as u64)) as usize),
        KIND_PTX => data.iter().position(|&b| b == 0).unwrap_or(data.len()),
        _ => data.len(),
    }
}

#[cfg(test)]
mod tests;
