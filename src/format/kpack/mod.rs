//! ROCm "kpack" builds (TheRock's rocm-kpack): a build step moves the device code out of HIP host
//! binaries into `.kpack` archives, one per GPU architecture, and leaves in each binary a
//! reference naming the archives and the key of its code objects. `llvm-objdump --offloading`
//! and `clang-offload-bundler` see nothing in such a binary; the HIP runtime (CLR, through
//! rocm-kpack's loader) finds the archive next to the binary and loads the code object from it.
//!
//! Three structures, one module each: the archive (here), the reference section
//! ([`reference`]) and the HIP fatbin wrapper whose magic says which kind of binary it is
//! ([`wrapper`]). The layouts were read from rocm-kpack's writer and its C++ loader
//! (`python/rocm_kpack/kpack.py`, `compression.py`, `elf/kpack_transform.py`,
//! `artifact_splitter.py`, `runtime/src/{archive,toc_parser,compression,loader}.cpp`, commit
//! e3483286e751060b3a70b792792cc122632c66e8) and checked on archives its transform wrote
//! (`tests/fixtures/kpack/`).
//!
//! # Byte layout of a `.kpack` archive
//!
//! All integers little-endian.
//!
//! | offset | size | field | meaning |
//! |-------:|-----:|-------|---------|
//! | 0  | 4 | magic | `KPAK` |
//! | 4  | 4 | version | 1 (the only version the loader accepts) |
//! | 8  | 8 | TOC offset | where the table of contents starts; it runs to the end of the file |
//! | 16 | … | padding | zeros up to 64, where the blob data starts |
//! | 64 | … | blob data | laid out by the compression scheme, below |
//! | TOC offset | … | TOC | one MessagePack map, below |
//!
//! The TOC map's keys:
//!
//! | key | value |
//! |-----|-------|
//! | `format_version` | 1 |
//! | `group_name` | the build slice (`blas`, or the artifact prefix) |
//! | `gfx_arch_family` | the family or architecture the archive is for (`gfx1100`, `gfx110X`) |
//! | `gfx_arches` | the architectures in it (`["gfx1100"]`); the loader picks the archive by these |
//! | `compression_scheme` | `none` or `zstd-per-kernel` (absent: `none`) |
//! | `blobs` | `none`: one `{offset, size}` per ordinal, offsets from the start of the file |
//! | `zstd_offset`, `zstd_size` | `zstd-per-kernel`: where the frame region lies in the file |
//! | `toc` | `{binary key: {architecture: {type, ordinal, original_size, metadata}}}` |
//!
//! A binary key is `<path of the binary in the install tree>#<code object index>`
//! (`stage/lib/libfoo.so#0`); the index is the HIP fatbin wrapper's (one per translation unit
//! of a linked library). `type` is `hsaco`; `ordinal` indexes `blobs` or the frames;
//! `original_size` is the code object's size; `metadata` (optional) holds `target`, the bundle
//! entry ID the code object came from (`hipv4-amdgcn-amd-amdhsa--gfx1100`).
//!
//! The `zstd-per-kernel` frame region at `zstd_offset`:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 4 | number of frames |
//! | 4 | 4 | size of frame 0 |
//! | 8 | that size | frame 0, one zstd frame holding one code object |
//! | … | | size and frame of each following ordinal |

use crate::error::{Error, Result};
use crate::image::msgpack::{self, Mp, MpValue};
use crate::util::bytes::{checked_end, Reader};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub mod reference;
pub mod wrapper;

pub const MAGIC: [u8; 4] = *b"KPAK";
/// The only archive version rocm-kpack writes and its loader accepts.
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: u64 = 16;
/// Where the writer starts the blob data (the header padded to 64 bytes).
pub const BLOB_ALIGNMENT: u64 = 64;

const CONTEXT: &str = "kpack archive";
const TOC: &str = "kpack table of contents";
const FRAMES: &str = "kpack zstd frame region";

/// Whether `data` starts like a kpack archive.
pub fn is_kpack(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// A value read from the archive and the bytes it was read from (file offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<T> {
    pub value: T,
    pub offset: u64,
    pub size: u64,
}

/// How the code objects are stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Each code object as it is, at its `blobs` entry.
    None,
    /// Each code object one zstd frame in the frame region.
    ZstdPerKernel,
    /// A scheme this reader does not know: the entries are listed, their bytes not read.
    Unknown(String),
}

impl Scheme {
    pub fn name(&self) -> &str {
        match self {
            Scheme::None => "none",
            Scheme::ZstdPerKernel => "zstd-per-kernel",
            Scheme::Unknown(s) => s,
        }
    }
}

/// Where one ordinal's bytes lie in the file: a blob (`none`) or a zstd frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    pub offset: u64,
    pub size: u64,
    /// Where the blob's `{offset, size}` or the frame's size field lies.
    pub described_at: u64,
}

/// One code object in the TOC: a binary key and an architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub key: At<&'a str>,
    pub arch: At<&'a str>,
    /// The entry's map.
    pub offset: u64,
    pub size: u64,
    pub kind: Option<At<&'a str>>,
    pub ordinal: Option<At<u64>>,
    pub original_size: Option<At<u64>>,
    /// `metadata.target`: the bundle entry ID the code object was unbundled from.
    pub target: Option<At<&'a str>>,
}

impl Entry<'_> {
    /// The bundle entry ID of the code object: `metadata.target` when the writer kept it, else
    /// the HIP entry ID its architecture gives.
    pub fn entry_id(&self) -> String {
        match &self.target {
            Some(t) => t.value.to_string(),
            None => format!("hipv4-amdgcn-amd-amdhsa--{}", self.arch.value),
        }
    }
}

/// A kpack archive's header and table of contents. Blob bytes are not copied: [`Archive::stored`]
/// says where each ordinal lies.
#[derive(Clone, Debug, PartialEq)]
pub struct Archive<'a> {
    pub version: u32,
    pub toc_offset: u64,
    /// The TOC's msgpack value (the bytes after it, if any, are [`Archive::toc_end`]..).
    pub toc_size: u64,
    pub format_version: Option<At<u64>>,
    pub group_name: Option<At<&'a str>>,
    pub arch_family: Option<At<&'a str>>,
    pub arches: Vec<At<&'a str>>,
    pub scheme: At<Scheme>,
    /// Where each ordinal's bytes lie, or why they cannot be told (a frame region that runs
    /// past the file, a blob list that is not a list): the archive is still listed.
    pub stored: core::result::Result<Vec<Stored>, Error>,
    /// `zstd-per-kernel`: the frame region.
    pub frame_region: Option<(u64, u64)>,
    pub entries: Vec<Entry<'a>>,
}

impl<'a> Archive<'a> {
    pub fn toc_end(&self) -> u64 {
        self.toc_offset.saturating_add(self.toc_size)
    }

    /// The entries of one binary key (`stage/lib/libfoo.so#0`), in TOC order.
    pub fn entries_of<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s Entry<'a>> + 's {
        self.entries.iter().filter(move |e| e.key.value == key)
    }

    /// Where the bytes of `entry` lie in the file, checked against the file's `len` bytes.
    pub fn stored(&self, entry: &Entry<'_>, len: u64) -> Result<Stored> {
        let stored = self.stored.as_ref().map_err(Clone::clone)?;
        let ordinal = entry.ordinal.as_ref().ok_or_else(|| {
            Error::new(entry.offset, TOC, "an `ordinal` in the entry", "an entry without one (or not an integer)")
        })?;
        let found = usize::try_from(ordinal.value).ok().and_then(|i| stored.get(i)).ok_or_else(|| {
            Error::new(
                ordinal.offset,
                TOC,
                format!("an ordinal below the {} stored code objects", stored.len()),
                format!("ordinal {}", ordinal.value),
            )
        })?;
        let end = checked_end(found.offset, found.size, found.described_at, TOC)?;
        if end > len {
            return Err(Error::new(
                found.described_at,
                TOC,
                format!("code object bytes within the {len}-byte archive"),
                format!("bytes {}..{end}", found.offset),
            ));
        }
        Ok(*found)
    }
}

/// Reads a kpack archive's header and table of contents.
pub fn read(data: &[u8]) -> Result<Archive<'_>> {
    let len = data.len() as u64;
    let mut r = Reader::new(data);
    let magic: [u8; 4] = r.array("kpack archive header")?;
    if magic != MAGIC {
        return Err(Error::new(0, CONTEXT, "the magic `KPAK`", format!("{magic:02x?}")));
    }
    let version = r.u32("kpack archive header")?;
    if version != VERSION {
        return Err(Error::new(4, CONTEXT, format!("version {VERSION}"), format!("version {version}")));
    }
    let toc_offset = r.u64("kpack archive header")?;
    if toc_offset < HEADER_SIZE || toc_offset >= len {
        return Err(Error::new(
            8,
            CONTEXT,
            format!("a TOC offset within the archive, from {HEADER_SIZE} to {}", len.saturating_sub(1)),
            format!("{toc_offset}"),
        ));
    }
    let toc_bytes = &data[toc_offset as usize..];
    let toc = msgpack::parse(toc_bytes).map_err(|e| e.shifted(toc_offset))?;
    let at = |v: &Mp<'_>| (toc_offset + v.offset, v.size);
    if !matches!(toc.value, MpValue::Map(_)) {
        return Err(Error::new(toc_offset, TOC, "a msgpack map", toc.type_name()));
    }
    let text = |key: &str| {
        toc.get(key).and_then(|v| {
            let (offset, size) = at(v);
            v.as_str().map(|value| At { value, offset, size })
        })
    };
    let number = |key: &str| {
        toc.get(key).and_then(|v| {
            let (offset, size) = at(v);
            v.as_u64().map(|value| At { value, offset, size })
        })
    };
    let arches = toc
        .get("gfx_arches")
        .and_then(Mp::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|v| {
            let (offset, size) = at(v);
            v.as_str().map(|value| At { value, offset, size })
        })
        .collect();
    let scheme = match toc.get("compression_scheme") {
        None => At { value: Scheme::None, offset: toc_offset, size: 0 },
        Some(v) => {
            let (offset, size) = at(v);
            let value = match v.as_str() {
                Some("none") => Scheme::None,
                Some("zstd-per-kernel") => Scheme::ZstdPerKernel,
                Some(other) => Scheme::Unknown(other.to_string()),
                None => Scheme::Unknown(format!("({})", v.type_name())),
            };
            At { value, offset, size }
        }
    };
    let (stored, frame_region) = match scheme.value {
        Scheme::None => (blobs(&toc, toc_offset), None),
        Scheme::ZstdPerKernel => match frame_region(&toc, toc_offset, len) {
            Ok((offset, size)) => (frames(data, offset, size), Some((offset, size))),
            Err(e) => (Err(e), None),
        },
        Scheme::Unknown(ref name) => (
            Err(Error::new(scheme.offset, TOC, "compression scheme `none` or `zstd-per-kernel`", format!("`{name}`"))),
            None,
        ),
    };
    Ok(Archive {
        version,
        toc_offset,
        toc_size: toc.size,
        format_version: number("format_version"),
        group_name: text("group_name"),
        arch_family: text("gfx_arch_family"),
        arches,
        scheme,
        stored,
        frame_region,
        entries: entries(&toc, toc_offset)?,
    })
}

/// The `toc` map: one entry per binary key and architecture, in the order written.
fn entries<'a>(toc: &Mp<'a>, base: u64) -> Result<Vec<Entry<'a>>> {
    let Some(map) = toc.get("toc") else {
        return Err(Error::new(base + toc.offset, TOC, "a `toc` key", "none"));
    };
    let MpValue::Map(binaries) = &map.value else {
        return Err(Error::new(base + map.offset, TOC, "`toc` as a map of binaries", map.type_name()));
    };
    let mut out = Vec::new();
    for (key, arches) in binaries {
        let key = located_str(key, base, "a binary key")?;
        let MpValue::Map(arches) = &arches.value else {
            return Err(Error::new(base + arches.offset, TOC, "a map of architectures", arches.type_name()));
        };
        for (arch, entry) in arches {
            let arch = located_str(arch, base, "an architecture name")?;
            if !matches!(entry.value, MpValue::Map(_)) {
                return Err(Error::new(base + entry.offset, TOC, "an entry map", entry.type_name()));
            }
            let field = |name: &str| entry.get(name).map(|v| (v, base + v.offset, v.size));
            let num =
                |name: &str| field(name).and_then(|(v, offset, size)| Some(At { value: v.as_u64()?, offset, size }));
            let target = entry
                .get("metadata")
                .and_then(|m| m.get("target"))
                .and_then(|v| Some(At { value: v.as_str()?, offset: base + v.offset, size: v.size }));
            out.push(Entry {
                key: key.clone(),
                arch,
                offset: base + entry.offset,
                size: entry.size,
                kind: field("type").and_then(|(v, offset, size)| Some(At { value: v.as_str()?, offset, size })),
                ordinal: num("ordinal"),
                original_size: num("original_size"),
                target,
            });
        }
    }
    Ok(out)
}

fn located_str<'a>(v: &Mp<'a>, base: u64, what: &str) -> Result<At<&'a str>> {
    match v.as_str() {
        Some(value) => Ok(At { value, offset: base + v.offset, size: v.size }),
        None => Err(Error::new(base + v.offset, TOC, format!("{what} (a UTF-8 string)"), v.type_name())),
    }
}

/// `none`: the `blobs` list of `{offset, size}`, file offsets.
fn blobs(toc: &Mp<'_>, base: u64) -> Result<Vec<Stored>> {
    let Some(list) = toc.get("blobs") else {
        return Err(Error::new(base + toc.offset, TOC, "a `blobs` list (compression scheme `none`)", "none"));
    };
    let items =
        list.as_array().ok_or_else(|| Error::new(base + list.offset, TOC, "`blobs` as a list", list.type_name()))?;
    items
        .iter()
        .map(|blob| {
            let described_at = base + blob.offset;
            let get = |name: &str| blob.get(name).and_then(Mp::as_u64);
            match (get("offset"), get("size")) {
                (Some(offset), Some(size)) => Ok(Stored { offset, size, described_at }),
                _ => Err(Error::new(described_at, TOC, "a blob `{offset, size}` of integers", blob.type_name())),
            }
        })
        .collect()
}

/// `zstd-per-kernel`: the frame region named by `zstd_offset` and `zstd_size`, checked to lie
/// in the file.
fn frame_region(toc: &Mp<'_>, base: u64, len: u64) -> Result<(u64, u64)> {
    let field = |name: &str| {
        let v = toc.get(name).ok_or_else(|| Error::new(base + toc.offset, TOC, format!("a `{name}`"), "none"))?;
        v.as_u64()
            .map(|n| (n, base + v.offset))
            .ok_or_else(|| Error::new(base + v.offset, TOC, format!("`{name}` as an integer"), v.type_name()))
    };
    let (offset, _) = field("zstd_offset")?;
    let (size, size_at) = field("zstd_size")?;
    let end = checked_end(offset, size, size_at, TOC)?;
    if end > len {
        return Err(Error::new(
            size_at,
            TOC,
            format!("a zstd frame region within the {len}-byte archive"),
            format!("bytes {offset}..{end}"),
        ));
    }
    Ok((offset, size))
}

/// The frames of the region at `offset` (`size` bytes, within `data`): a count, then each
/// frame's size and bytes. The count is checked against what the region can hold (4 bytes per
/// frame at least) before anything is reserved.
fn frames(data: &[u8], offset: u64, size: u64) -> Result<Vec<Stored>> {
    let region = &data[offset as usize..(offset + size) as usize];
    let mut r = Reader::new(region);
    let count = r.u32(FRAMES).map_err(|e| e.shifted(offset))?;
    let room = (r.remaining() / 4) as u64;
    if u64::from(count) > room {
        return Err(Error::new(
            offset,
            FRAMES,
            format!("at most {room} frames in its {size} bytes (4 bytes of size each at least)"),
            format!("{count} frames declared"),
        ));
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let described_at = offset + r.position();
        let frame_size = r.u32(FRAMES).map_err(|e| e.shifted(offset))?;
        let start = offset + r.position();
        r.bytes(u64::from(frame_size), FRAMES).map_err(|e| e.shifted(offset))?;
        out.push(Stored { offset: start, size: u64::from(frame_size), described_at });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
