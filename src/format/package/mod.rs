//! Packages that carry libraries: wheels and other zip files, tar (plain, gzip, zstd, xz), conda
//! v2, Debian `.deb` and `.rpm`. Each format module lists its members (name, kind, where the
//! bytes are, how they are stored); the explorer then explores each member that is an object,
//! library, archive or bundle like a dropped file.
//!
//! # Recognised by
//!
//! | format        | magic                                   | where          | module         |
//! |---------------|-----------------------------------------|----------------|----------------|
//! | zip, wheel, conda v2 | `PK\x03\x04` (`PK\x05\x06`: empty) | byte 0         | [`zip`]        |
//! | tar (ustar, GNU, pax) | `ustar`                         | byte 257       | [`tar`]        |
//! | gzip          | `1F 8B 08`                              | byte 0         | [`gzip`]       |
//! | zstd frame    | `28 B5 2F FD`                           | byte 0         | (codec)        |
//! | xz            | `FD 37 7A 58 5A 00`                     | byte 0         | (codec)        |
//! | Debian `.deb` | `!<arch>\n` then a member `debian-binary` | byte 0, 8    | [`deb`]        |
//! | rpm           | `ED AB EE DB`                           | byte 0         | [`rpm`]        |
//! | cpio (newc), the rpm payload | `070701` / `070702`      | byte 0         | [`cpio`]       |
//!
//! A `.tar.gz`, `.tar.zst` or `.tar.xz` is a compressed stream holding a tar; a conda v2 package
//! is a zip whose `pkg-*.tar.zst` member holds the files; a `.deb` is an `ar` archive whose
//! `data.tar.*` member holds them; an `.rpm` ends in a compressed cpio archive.
//!
//! # Names
//!
//! Member names are shown, never used as paths. A name that would leave the directory it is
//! unpacked in (`../`, an absolute path, a drive letter) and a name given twice are diagnostics.

pub mod cpio;
pub mod deb;
pub mod gzip;
pub mod rpm;
pub mod tar;
pub mod zip;

use crate::error::Error;
use crate::tree::{Node, NodeKind, Severity, Span, Value};
use crate::util::bytes::human_size;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Packages inside packages are opened this many levels deep (a conda package is a zip holding
/// a tar: two levels); deeper ones are listed, not opened.
pub const MAX_PACKAGE_DEPTH: u32 = 4;

/// The zstd frame magic.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// The xz stream magic.
pub const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0];

/// What a package (or a compressed stream that may hold one) is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Zip,
    Tar,
    Cpio,
    Deb,
    Rpm,
    /// A compressed stream: its bytes are decompressed, and what comes out is explored.
    Stream(StreamMethod),
}

/// How a compressed stream is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamMethod {
    Gzip,
    Zstd,
    Xz,
}

impl StreamMethod {
    pub fn name(self) -> &'static str {
        match self {
            StreamMethod::Gzip => "gzip",
            StreamMethod::Zstd => "zstd",
            StreamMethod::Xz => "xz",
        }
    }
}

/// The package kind `head` (the first bytes of a file or member, at least 263 to see a tar)
/// starts with, if any.
pub fn detect(head: &[u8]) -> Option<Kind> {
    if head.starts_with(zip::LOCAL_MAGIC) || head.starts_with(zip::END_MAGIC) {
        return Some(Kind::Zip);
    }
    if head.starts_with(&gzip::MAGIC) {
        return Some(Kind::Stream(StreamMethod::Gzip));
    }
    if head.starts_with(&ZSTD_MAGIC) {
        return Some(Kind::Stream(StreamMethod::Zstd));
    }
    if head.starts_with(&XZ_MAGIC) {
        return Some(Kind::Stream(StreamMethod::Xz));
    }
    if head.starts_with(&rpm::LEAD_MAGIC) {
        return Some(Kind::Rpm);
    }
    if deb::is_deb(head) {
        return Some(Kind::Deb);
    }
    if tar::is_tar(head) {
        return Some(Kind::Tar);
    }
    if cpio::is_cpio(head) {
        return Some(Kind::Cpio);
    }
    None
}

/// What a member is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
    Symlink(String),
    Hardlink(String),
    /// Devices, FIFOs, sparse files, ...: listed, never read.
    Other(&'static str),
}

impl EntryKind {
    pub fn name(&self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Directory => "directory",
            EntryKind::Symlink(_) => "symlink",
            EntryKind::Hardlink(_) => "hard link",
            EntryKind::Other(what) => what,
        }
    }
}

/// How a member's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Compression {
    Stored,
    /// Raw deflate (zip method 8).
    Deflate,
    /// A zip method this reader does not decode (its number).
    Unsupported(u16),
}

impl Compression {
    pub fn name(self) -> String {
        match self {
            Compression::Stored => "stored".into(),
            Compression::Deflate => "deflate".into(),
            Compression::Unsupported(m) => format!("zip method {m}"),
        }
    }
}

/// A header field of a member, with where its bytes are (relative to the package's start).
#[derive(Clone, Debug, PartialEq)]
pub struct RawField {
    pub name: &'static str,
    pub value: Value,
    pub at: Option<(u64, u64)>,
}

/// A problem found while reading, at a byte range relative to the package's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub at: (u64, u64),
    pub message: String,
}

impl Problem {
    pub fn error(e: &Error) -> Problem {
        Problem { severity: Severity::Error, at: (e.offset, 0), message: e.to_string() }
    }

    pub fn new(severity: Severity, at: (u64, u64), message: impl Into<String>) -> Problem {
        Problem { severity, at, message: message.into() }
    }
}

/// One member as listed by its package. Offsets are relative to the package's start.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The name as stored (lossy when not UTF-8), shown and never used as a path.
    pub name: String,
    pub kind: EntryKind,
    /// Where its header starts and how long it is.
    pub header: (u64, u64),
    /// Where its stored bytes start and how many there are.
    pub data_offset: u64,
    pub stored_size: u64,
    /// Its size once decompressed, as the package declares it.
    pub size: u64,
    pub compression: Compression,
    /// Whether its bytes can be read at all (an encrypted zip member cannot).
    pub readable: bool,
    pub fields: Vec<RawField>,
    pub problems: Vec<Problem>,
}

impl Member {
    pub fn new(name: String, kind: EntryKind, header: (u64, u64), data_offset: u64, size: u64) -> Member {
        Member {
            name,
            kind,
            header,
            data_offset,
            stored_size: size,
            size,
            compression: Compression::Stored,
            readable: true,
            fields: Vec::new(),
            problems: Vec::new(),
        }
    }

    pub fn field(&mut self, name: &'static str, value: impl Into<Value>, at: Option<(u64, u64)>) {
        self.fields.push(RawField { name, value: value.into(), at });
    }

    pub fn problem(&mut self, severity: Severity, at: (u64, u64), message: impl Into<String>) {
        self.problems.push(Problem::new(severity, at, message));
    }

    /// Whether the explorer should look inside: a regular file whose bytes can be read.
    pub fn is_explorable(&self) -> bool {
        self.kind == EntryKind::File && self.readable && !self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// Whether the explorer looks inside it: explorable, with stored bytes, and (when
    /// `skip_by_name`) not named as a file that cannot hold device code
    /// ([`named_without_device_code`]).
    pub fn is_explored(&self, skip_by_name: bool) -> bool {
        self.is_explorable() && self.stored_size > 0 && !(skip_by_name && named_without_device_code(&self.name))
    }

    /// Where its bytes end, relative to the package's start (saturating: checked by the readers).
    pub fn data_end(&self) -> u64 {
        self.data_offset.saturating_add(self.stored_size)
    }
}

/// A package as listed: its own fields, its members, and problems that are not any one
/// member's (a truncated central directory, a missing end-of-archive marker).
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    /// `zip`, `tar`, `cpio`, `deb`, `rpm`.
    pub format: &'static str,
    pub fields: Vec<RawField>,
    pub members: Vec<Member>,
    pub problems: Vec<Problem>,
}

impl Listing {
    pub fn new(format: &'static str) -> Listing {
        Listing { format, fields: Vec::new(), members: Vec::new(), problems: Vec::new() }
    }

    pub fn field(&mut self, name: &'static str, value: impl Into<Value>, at: Option<(u64, u64)>) {
        self.fields.push(RawField { name, value: value.into(), at });
    }
}

/// Whether a member's name says it cannot hold device code: Python sources and bytecode, C and
/// CUDA/HIP headers and sources, text, documentation, configuration and the wheel's own records.
/// A reader that pays for every byte (a file over a network) lists such members without
/// reading any of their bytes ([`crate::explore::Options::skip_by_name`]); objects, libraries,
/// archives, code objects and members with any other name are still told by their first bytes.
pub fn named_without_device_code(name: &str) -> bool {
    const TEXT_SUFFIXES: &[&str] = &[
        ".py", ".pyi", ".pyc", ".pyx", ".pxd", ".pxi", ".h", ".hh", ".hpp", ".hxx", ".cuh", ".inc", ".inl", ".c",
        ".cc", ".cpp", ".cxx", ".cu", ".hip", ".txt", ".md", ".rst", ".json", ".toml", ".cfg", ".ini", ".yaml", ".yml",
        ".html", ".htm", ".css", ".js", ".csv", ".xml", ".svg", ".png", ".jpg", ".ipynb", ".sh", ".cmake", ".pc",
        ".typed", ".pem", ".license",
    ];
    const WHEEL_RECORDS: &[&str] =
        &["RECORD", "METADATA", "WHEEL", "INSTALLER", "REQUESTED", "LICENSE", "NOTICE", "COPYING"];
    let base = name.rsplit('/').next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    TEXT_SUFFIXES.iter().any(|suffix| lower.ends_with(suffix))
        || (name.contains(".dist-info/") && WHEEL_RECORDS.iter().any(|record| base.starts_with(record)))
}

/// Why a member name must not be used as a path, if it must not: it climbs out of the
/// directory it would be unpacked in, or starts at the root or a drive.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if name.starts_with('/') || name.starts_with('\\') {
        return Some("an absolute path");
    }
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        return Some("a path with a drive letter");
    }
    if name.split(['/', '\\']).any(|part| part == "..") {
        return Some("a path with `..` that climbs out of the directory it is unpacked in");
    }
    if name.contains('\0') {
        return Some("a name with a NUL byte");
    }
    None
}

/// The name a member is known by when names are compared: `./` prefixes dropped (tar and cpio
/// write them), and a directory's trailing `/`.
fn normal_name(name: &str) -> &str {
    let mut n = name;
    while let Some(rest) = n.strip_prefix("./") {
        n = rest;
    }
    n.trim_end_matches('/')
}

/// Adds the name diagnostics: unsafe names, and names given to more than one member.
pub fn check_names(listing: &mut Listing) {
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..listing.members.len() {
        let m = &listing.members[i];
        let (name, header) = (m.name.clone(), m.header);
        if let Some(why) = unsafe_name(&name) {
            let message = format!("the name `{name}` is {why}: it is shown, never used as a path");
            listing.members[i].problem(Severity::Warning, header, message);
        }
        if name.is_empty() {
            listing.members[i].problem(Severity::Warning, header, "a member with an empty name");
            continue;
        }
        match first.get(normal_name(&name)) {
            Some(&earlier) if !normal_name(&name).is_empty() => {
                let at = listing.members[earlier].header.0;
                let message =
                    format!("the name `{name}` is also the name of the member at byte {at}: unpacking keeps only one");
                listing.members[i].problem(Severity::Warning, header, message);
            }
            _ => {
                first.insert(normal_name(&name).into(), i);
            }
        }
    }
}

/// The tree of a package whose bytes lie at `span`: one [`NodeKind::PackageMember`] per member
/// with its fields and diagnostics. Member nodes get no children here; the explorer adds what
/// it finds in each member's bytes.
pub fn to_node(listing: &Listing, span: Span) -> Node {
    let count = listing.members.len();
    let mut node = Node::new(NodeKind::Package, format!("{} package, {count} members", listing.format), span);
    node.field("format", listing.format, None);
    node.field("member_count", count as u64, None);
    for f in &listing.fields {
        node.field(f.name, f.value.clone(), f.at.map(|(o, s)| span.sub(o, s)));
    }
    for p in &listing.problems {
        node.diag(p.severity, p.message.clone(), Some(span.sub(p.at.0, p.at.1)));
    }
    node.children = listing.members.iter().map(|m| member_node(m, span)).collect();
    node
}

/// A member's node as listed, its data lying in the package at `span`.
pub fn member_node(m: &Member, span: Span) -> Node {
    let data = span.sub(m.data_offset, m.stored_size);
    let whole = span.sub(m.header.0, m.data_end().saturating_sub(m.header.0));
    let what = match &m.kind {
        EntryKind::File => human_size(m.size),
        kind => String::from(kind.name()),
    };
    let mut node = Node::new(NodeKind::PackageMember, format!("{} ({what})", m.name), whole);
    node.field("name", m.name.as_str(), Some(span.sub(m.header.0, m.header.1)));
    node.field("type", m.kind.name(), None);
    if let EntryKind::Symlink(target) | EntryKind::Hardlink(target) = &m.kind {
        node.field("link_target", target.as_str(), None);
    }
    node.field("size", m.size, None);
    node.field("stored_size", m.stored_size, None);
    node.field("compression", m.compression.name(), None);
    node.field("data_offset", data.offset, None);
    for f in &m.fields {
        node.field(f.name, f.value.clone(), f.at.map(|(o, s)| span.sub(o, s)));
    }
    for p in &m.problems {
        node.diag(p.severity, p.message.clone(), Some(span.sub(p.at.0, p.at.1)));
    }
    node
}

/// Reads a big-endian or little-endian integer of `N` bytes at `at` of `data`, which the caller
/// has checked holds it.
pub(crate) fn le(data: &[u8], at: usize, n: usize) -> u64 {
    data[at..at + n].iter().rev().fold(0u64, |v, &b| (v << 8) | u64::from(b))
}

pub(crate) fn be(data: &[u8], at: usize, n: usize) -> u64 {
    data[at..at + n].iter().fold(0u64, |v, &b| (v << 8) | u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names_are_told() {
        assert!(unsafe_name("../etc/passwd").is_some());
        assert!(unsafe_name("a/../../b").is_some());
        assert!(unsafe_name("/usr/lib/x.so").is_some());
        assert!(unsafe_name("C:\\x.dll").is_some());
        assert!(unsafe_name("./usr/lib/x.so").is_none());
        assert!(unsafe_name("pkg/lib..so").is_none());
    }

    #[test]
    fn duplicate_names_are_told_once_per_repeat() {
        let mut l = Listing::new("tar");
        for (i, name) in ["./a.so", "a.so", "b.so", "a.so/"].iter().enumerate() {
            l.members.push(Member::new((*name).into(), EntryKind::File, (i as u64 * 512, 512), 0, 0));
        }
        check_names(&mut l);
        let told: Vec<usize> = l.members.iter().map(|m| m.problems.len()).collect();
        assert_eq!(told, [0, 1, 0, 1]);
        assert!(l.members[1].problems[0].message.contains("byte 0"));
    }

    #[test]
    fn kinds_are_detected_by_magic() {
        let mut tar = alloc::vec![0u8; 512];
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(detect(&tar), Some(Kind::Tar));
        assert_eq!(detect(b"PK\x03\x04rest"), Some(Kind::Zip));
        assert_eq!(detect(&[0x1F, 0x8B, 8, 0]), Some(Kind::Stream(StreamMethod::Gzip)));
        assert_eq!(detect(&[0x28, 0xB5, 0x2F, 0xFD, 0]), Some(Kind::Stream(StreamMethod::Zstd)));
        assert_eq!(detect(&XZ_MAGIC), Some(Kind::Stream(StreamMethod::Xz)));
        assert_eq!(detect(&[0xED, 0xAB, 0xEE, 0xDB]), Some(Kind::Rpm));
        assert_eq!(detect(b"!<arch>\ndebian-binary   "), Some(Kind::Deb));
        assert_eq!(detect(b"!<arch>\nfoo.o/          "), None);
        assert_eq!(detect(b"070701"), Some(Kind::Cpio));
        assert_eq!(detect(b"\x7fELF"), None);
    }
}
