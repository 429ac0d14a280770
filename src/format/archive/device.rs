//! Heterogeneous device archives: `ar` archives of bundled objects (a host object with one
//! `__CLANG_OFFLOAD_BUNDLE__<entry id>` section per device entry, as `clang -fgpu-rdc -c`
//! writes), binary bundles or compressed bundles; and the device-specific archives
//! `clang-offload-bundler --type=a --unbundle` makes of them, one per requested target.
//!
//! What clang-offload-bundler 22 does, and what we do (see `OffloadBundler.cpp`,
//! `UnbundleArchive`):
//!
//! - Each member is read on its own: a compressed bundle is decompressed first; an object file
//!   gives one entry per bundle section, in section order; a binary bundle gives its entries
//!   (the bundler: in a hash order; we: in file order); anything else has no device code and is
//!   skipped, as are object files without bundle sections.
//! - An entry goes to every requested target it is compatible with
//!   ([`ids::compatible_with`]: same kind or `hip`/`hipv4`, compatible triples, and every
//!   feature the entry sets is set the same way by the target).
//! - Extracted entries are named `<member stem>-<target id>` with `:` replaced by `_`, as
//!   clang's documentation says (the bundler 22 writes `<stem>-<entry id><stem>` instead), and
//!   the extension the bundler picks: `.bc` for AMD GPUs, `.cubin` for `sm_*`, else the
//!   member's own. See [`device_member_name`].
//! - One GNU archive per target, members in the order found, written by
//!   [`crate::format::archive::ar::write_gnu`] (no symbol table; see there).

use crate::error::{Error, Result};
use crate::format::archive::ar::{self, Archive, NewMember};
use crate::format::bundle::binary::Bundle;
use crate::format::bundle::compressed;
use crate::format::host::{self, SectionRole};
use crate::ids::{self, EntryId, Violation};
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// How a member carries device code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    /// An object file with `__CLANG_OFFLOAD_BUNDLE__` sections.
    BundledObject,
    /// A binary offload bundle.
    Bundle,
    /// A compressed bundle, decompressed here.
    CompressedBundle,
    /// No bundle entries: a plain object, bitcode, anything else. Skipped when unbundling.
    NotBundled,
}

impl MemberKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemberKind::BundledObject => "bundled object",
            MemberKind::Bundle => "bundle",
            MemberKind::CompressedBundle => "compressed bundle",
            MemberKind::NotBundled => "not bundled",
        }
    }
}

/// One bundle entry of a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub id: String,
    pub data: Cow<'a, [u8]>,
}

/// A member of a heterogeneous archive and its bundle entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberEntries<'a> {
    pub name: String,
    pub kind: MemberKind,
    pub entries: Vec<Entry<'a>>,
}

impl MemberEntries<'_> {
    pub fn ids(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.id.as_str()).collect()
    }
}

/// An error in a heterogeneous archive, with the member it is in (offsets are in the archive
/// file; inside a compressed member, in its decompressed bundle).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveError {
    pub member: Option<String>,
    pub error: Error,
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.member {
            Some(m) => write!(f, "member `{m}`: {}", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ArchiveError {}

fn whole(error: Error) -> ArchiveError {
    ArchiveError { member: None, error }
}

/// Reads an archive and the bundle entries of every member. Thin archives are refused (their
/// members' bytes are in other files), as is any malformed member: unbundling needs them all.
/// `max_decompressed` bounds each compressed member.
pub fn read_members(input: &[u8], max_decompressed: u64) -> core::result::Result<Vec<MemberEntries<'_>>, ArchiveError> {
    let ar = ar::read(input).and_then(Archive::complete).map_err(whole)?;
    if ar.thin {
        return Err(whole(thin_error(&ar)));
    }
    ar.members
        .iter()
        .map(|m| {
            let in_member = |error: Error| ArchiveError { member: Some(m.name.clone()), error };
            let data = m.data(input).map_err(in_member)?;
            let (kind, entries) =
                member_entries(data, max_decompressed).map_err(|e| in_member(e.shifted(m.data_offset)))?;
            Ok(MemberEntries { name: m.name.clone(), kind, entries })
        })
        .collect()
}

/// The error for a thin archive: what it is, and which members live elsewhere.
pub fn thin_error(ar: &Archive) -> Error {
    Error::new(
        0,
        "archive",
        "an archive that holds its members (`!<arch>\\n`)",
        format!("a thin archive (`!<thin>\\n`): {}", ar::thin_message(ar)),
    )
}

/// The bundle entries of one member's bytes, and how the member carries them. Offsets in errors
/// are from the member's first byte.
pub fn member_entries(data: &[u8], max_decompressed: u64) -> Result<(MemberKind, Vec<Entry<'_>>)> {
    if compressed::is_compressed(data) {
        let plain = decompress_member(data, max_decompressed)?;
        // The decompressed bytes are held here; the entries own copies of their parts.
        let (kind, entries) = uncompressed_entries(&plain)?;
        let owned = entries.into_iter().map(|e| Entry { id: e.id, data: Cow::Owned(e.data.into_owned()) }).collect();
        let kind = if kind == MemberKind::NotBundled { kind } else { MemberKind::CompressedBundle };
        return Ok((kind, owned));
    }
    uncompressed_entries(data)
}

fn uncompressed_entries(data: &[u8]) -> Result<(MemberKind, Vec<Entry<'_>>)> {
    if host::is_host_file(&data[..data.len().min(64)]) {
        let file = host::read_host(data)?;
        let entries: Vec<Entry> = file
            .sections
            .iter()
            .filter_map(|s| match &s.role {
                SectionRole::BundleEntry(id) => Some(Entry { id: id.clone(), data: Cow::Borrowed(s.data) }),
                _ => None,
            })
            .collect();
        let kind = if entries.is_empty() { MemberKind::NotBundled } else { MemberKind::BundledObject };
        return Ok((kind, entries));
    }
    if crate::format::bundle::binary::is_bundle(data) {
        let bundle = Bundle::parse(data)?;
        let entries = bundle.entries.into_iter().map(|e| Entry { id: e.id, data: e.data }).collect();
        return Ok((MemberKind::Bundle, entries));
    }
    Ok((MemberKind::NotBundled, Vec::new()))
}

/// The bundle inside a compressed member, its hash checked. Bytes after the compressed bundle
/// other than zero padding are an error, never silently dropped.
fn decompress_member(data: &[u8], limit: u64) -> Result<Vec<u8>> {
    let cb = compressed::CompressedBundle::parse(data)?;
    let end = cb.size();
    if let Some(at) = data.get(end as usize..).and_then(|rest| rest.iter().position(|&b| b != 0)) {
        let at = end + at as u64;
        return Err(Error::new(
            at,
            "compressed bundle",
            "nothing but zero padding after the compressed bundle",
            format!("byte {:#04x}", data[at as usize]),
        ));
    }
    let plain = cb.decompress(limit)?;
    let computed = compressed::truncated_md5(&plain);
    if computed != cb.header.hash {
        return Err(compressed::hash_mismatch(&cb.header, computed));
    }
    Ok(plain)
}

/// The name of an extracted entry in a device-specific archive: `<stem>-<target id>` plus the
/// device extension, every `:` replaced by `_` (`rdc_a.o` and `hip-amdgcn-amd-amdhsa--gfx90a:xnack+`
/// give `rdc_a-gfx90a_xnack+.bc`).
///
/// - stem: the member's file name without its last extension (a name that is only an
///   extension, `.o`, is kept whole);
/// - target id: the entry's target ID as the bundler keeps it (processor and features); an
///   entry with none (`openmp-x86_64-pc-linux-gnu`) uses its whole entry ID instead, so that
///   the name still says what it is for;
/// - extension: `.bc` when the target ID names a `gfx` processor, `.cubin` for `sm_`, else the
///   member's own extension: the rule of clang-offload-bundler 22's `getDeviceFileExtension`,
///   kept because drivers and scripts look at it.
pub fn device_member_name(parent: &str, entry: &EntryId, entry_text: &str) -> String {
    let file = parent.rsplit('/').next().unwrap_or(parent);
    let (stem, own_ext) = match file.rfind('.') {
        Some(dot) if dot > 0 => (&file[..dot], &file[dot..]),
        _ => (file, ""),
    };
    let target_id = entry.target_id().filter(|t| !t.is_empty());
    let device = target_id.unwrap_or_else(|| entry_text.trim_end_matches('-'));
    let ext = match target_id {
        Some(t) if t.contains("gfx") => ".bc",
        Some(t) if t.contains("sm_") => ".cubin",
        _ => own_ext,
    };
    format!("{stem}-{device}{ext}").replace(':', "_")
}

/// One member of a device-specific archive: its name, where it came from, its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted<'m> {
    pub name: String,
    pub parent: &'m str,
    pub entry_id: &'m str,
    pub data: &'m [u8],
}

/// For each requested target (in order), the entries of `members` that serve it, in member
/// order then entry order. An entry serving several targets goes to each of them. An entry ID
/// that cannot be split into kind and triple is an error, as in the bundler.
pub fn unbundle<'m>(
    members: &'m [MemberEntries<'_>],
    targets: &[EntryId],
    hip_openmp_compatible: bool,
) -> core::result::Result<Vec<Vec<Extracted<'m>>>, ArchiveError> {
    let mut out: Vec<Vec<Extracted>> = targets.iter().map(|_| Vec::new()).collect();
    for member in members {
        for entry in &member.entries {
            let id =
                EntryId::parse(&entry.id).map_err(|error| ArchiveError { member: Some(member.name.clone()), error })?;
            for (target, list) in targets.iter().zip(out.iter_mut()) {
                if ids::compatible_with(&id, target, hip_openmp_compatible) {
                    list.push(Extracted {
                        name: device_member_name(&member.name, &id, &entry.id),
                        parent: &member.name,
                        entry_id: &entry.id,
                        data: &entry.data,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The device-specific archive holding `extracted`, in order, read back and compared member by
/// member before it is returned: an archive that would not read back as written is an error
/// (our bug), never handed out.
pub fn write_device_archive(extracted: &[Extracted]) -> Result<Vec<u8>> {
    let members: Vec<NewMember> = extracted.iter().map(|e| NewMember { name: e.name.clone(), data: e.data }).collect();
    let bytes = ar::write_gnu(&members)?;
    let back = ar::read(&bytes[..]).and_then(Archive::complete)?;
    let same = back.members.len() == extracted.len()
        && back
            .members
            .iter()
            .zip(extracted)
            .all(|(m, e)| m.name == e.name && m.data(&bytes[..]).is_ok_and(|d| d == e.data));
    if !same {
        return Err(Error::new(
            0,
            "device archive",
            "the members as written",
            "an archive that reads back differently (an internal error)",
        ));
    }
    Ok(bytes)
}

/// Every composition rule each member's entries break ([`ids::check_composition`]),
/// with the member's name, in archive order. Members without entries are not checked.
pub fn composition_violations<'m>(members: &'m [MemberEntries<'_>]) -> Vec<(&'m str, Violation)> {
    members
        .iter()
        .filter(|m| !m.entries.is_empty())
        .flat_map(|m| ids::check_composition(&m.ids()).into_iter().map(move |v| (m.name.as_str(), v)))
        .collect()
}

/// A short account of what an archive holds, for error messages: each member with its entry
/// IDs, or how it carries none; at most `limit` members, then how many more.
pub fn summary(members: &[MemberEntries<'_>], limit: usize) -> String {
    let mut parts: Vec<String> = members
        .iter()
        .take(limit)
        .map(|m| match m.kind {
            MemberKind::NotBundled => format!("{}: not bundled", m.name),
            _ => format!("{}: {}", m.name, m.ids().join(", ")),
        })
        .collect();
    if members.len() > limit {
        parts.push(format!("and {} more members", members.len() - limit));
    }
    if parts.is_empty() {
        return "no members".to_string();
    }
    parts.join("; ")
}
