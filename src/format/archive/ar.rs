//! Unix `ar` archives: static libraries, and the heterogeneous device archives that HIP and
//! OpenMP builds make of bundled objects (read by `clang-offload-bundler --type=a`).
//!
//! # Byte layout
//!
//! | offset        | size | field                                                        |
//! |---------------|------|--------------------------------------------------------------|
//! | 0             | 8    | global magic `!<arch>\n` (`!<thin>\n`: thin archive)         |
//! | 8             | 60   | first member header (below)                                  |
//! | 68            | size | first member's data, then one `\n` when size is odd          |
//! | ...           |      | more members, each header at an even offset                  |
//!
//! Member header: 60 ASCII bytes, each field padded with spaces.
//!
//! | offset | size | field      | contents                                                  |
//! |-------:|-----:|------------|-----------------------------------------------------------|
//! | 0      | 16   | name       | see the name forms below                                  |
//! | 16     | 12   | date       | decimal seconds since 1970 (0 in deterministic archives)  |
//! | 28     | 6    | uid        | decimal                                                   |
//! | 34     | 6    | gid        | decimal                                                   |
//! | 40     | 8    | mode       | octal, e.g. `644`                                         |
//! | 48     | 10   | size       | decimal byte count of the data (BSD `#1/N`: name included) |
//! | 58     | 2    | terminator | `` ` `` `\n`                                              |
//!
//! Name forms:
//!
//! | name field     | format | meaning                                                           |
//! |----------------|--------|-------------------------------------------------------------------|
//! | `foo.o/`       | GNU    | a name of at most 15 bytes, ended by `/` (names may hold spaces)  |
//! | `/123`         | GNU    | the name starting at byte 123 of the `//` member, ended by `/\n`  |
//! | `foo.o`        | BSD    | a name of at most 16 bytes, ended by a space                      |
//! | `#1/20`        | BSD    | the name is the first 20 bytes of the data (NUL padded); the size field counts them |
//!
//! Special members come before all others:
//!
//! | name                                  | format  | holds                                                           |
//! |---------------------------------------|---------|-----------------------------------------------------------------|
//! | `/`                                   | GNU     | symbol table: u32 BE count, count u32 BE header offsets, NUL-ended names |
//! | `/SYM64/`                             | GNU     | the same with u64 counts and offsets                            |
//! | `//`                                  | GNU     | long names, each `name/\n`; its header has blank date, ids and mode |
//! | `__.SYMDEF`, `__.SYMDEF SORTED`       | BSD     | ranlib table (u32 LE), usually named through `#1/12`            |
//! | `__.SYMDEF_64`, `__.SYMDEF_64 SORTED` | Darwin  | the same with u64                                               |
//!
//! Thin archives (`llvm-ar rcT`) have the same headers, but only the special members have data:
//! every other member's bytes live in the file its name (a path) points to. Those files are
//! never read here (the bytes may not exist where the archive is opened, and reading files the
//! input names is not something a file viewer should do); a thin archive is reported with the
//! names of its members.
//!
//! # Reading
//!
//! The `object` crate's archive reader resolves member names (the `//` table, `#1/N`), tells
//! the archive kind and decodes symbol tables. It does not say where each member header lies
//! or at which byte a malformed one fails, so the walk over headers is done here: every field
//! gets a byte span and every error an offset.
//!
//! # Writing
//!
//! [`write_gnu`] writes the GNU format, as `llvm-ar` writes by default in deterministic mode:
//! date, uid and gid 0, mode `644`, names of 16 bytes or more in the `//` table. It writes no
//! symbol table; see its documentation for why.

use crate::error::{Error, Result};
use crate::tree::{Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use crate::util::window::Window;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;
use object::read::archive::{ArchiveFile, ArchiveKind, ArchiveOffset};
use object::ReadRef;

/// The global header of an archive whose members hold their data.
pub const MAGIC: &[u8; 8] = b"!<arch>\n";
/// The global header of a thin archive.
pub const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
/// Bytes of one member header.
pub const HEADER_SIZE: u64 = 60;
/// The last two bytes of every member header.
pub const TERMINATOR: &[u8; 2] = b"`\n";

/// The header fields: name, offset in the header, width.
pub const HEADER_FIELDS: [(&str, u64, u64); 7] = [
    ("name", 0, 16),
    ("date", 16, 12),
    ("uid", 28, 6),
    ("gid", 34, 6),
    ("mode", 40, 8),
    ("size", 48, 10),
    ("terminator", 58, 2),
];

/// The largest value the 10-digit size field holds.
const MAX_MEMBER_SIZE: u64 = 9_999_999_999;

/// Whether `head` starts like an archive (regular or thin).
pub fn is_archive(head: &[u8]) -> bool {
    head.starts_with(MAGIC) || head.starts_with(THIN_MAGIC)
}

/// The archive flavours this module tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// GNU / System V: `/` symbol table, `//` long names, `name/`.
    Gnu,
    /// GNU with a 64-bit symbol table (`/SYM64/`).
    Gnu64,
    /// BSD: `__.SYMDEF`, `#1/N` names.
    Bsd,
    /// Darwin's BSD variant with a 64-bit symbol table (`__.SYMDEF_64`).
    Bsd64,
    /// Windows import/static libraries: two `/` linker members.
    Coff,
    /// No special member tells the flavour (no symbol table, only short names).
    Plain,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Gnu => "GNU",
            Format::Gnu64 => "GNU (64-bit symbol table)",
            Format::Bsd => "BSD",
            Format::Bsd64 => "BSD (64-bit symbol table)",
            Format::Coff => "COFF",
            Format::Plain => "ar (no special members)",
        }
    }
}

/// One 60-byte member header, its fields decoded. Blank numeric fields are `None` (the `//`
/// member has blank date, ids and mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Where the header starts in the archive.
    pub offset: u64,
    /// The name field as written, trailing spaces removed.
    pub name_field: String,
    pub date: Option<u64>,
    pub uid: Option<u64>,
    pub gid: Option<u64>,
    pub mode: Option<u64>,
    /// The size field: bytes of data after the header (a BSD long name included).
    pub size: u64,
}

impl Header {
    /// Where the data starts (a BSD long name first).
    pub fn data_offset(&self) -> u64 {
        self.offset + HEADER_SIZE
    }

    /// The byte range of a header field named in [`HEADER_FIELDS`].
    pub fn field_range(&self, field: &str) -> Range<u64> {
        let (_, at, width) = HEADER_FIELDS.iter().copied().find(|(n, _, _)| *n == field).unwrap_or(("", 0, 0));
        self.offset + at..self.offset + at + width
    }
}

/// What a special member holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecialKind {
    /// A symbol table, with the number of symbols it lists (`None` when unreadable).
    SymbolTable { name: String, symbols: Option<u64> },
    /// The GNU long-name table (`//`).
    LongNames,
}

/// A special member: a symbol table or the long-name table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Special {
    pub header: Header,
    pub kind: SpecialKind,
    /// Where its data (after a BSD long name) starts, and how many bytes it has.
    pub data_offset: u64,
    pub size: u64,
}

/// An ordinary member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub header: Header,
    /// The member's name, long names resolved (lossy when not UTF-8).
    pub name: String,
    /// Where the bytes of the name are stored: in the header, in the `//` table, or at the
    /// start of the data (BSD `#1/N`).
    pub name_range: Range<u64>,
    /// Where the member's bytes start (after a BSD long name) and how many there are. For a
    /// member of a thin archive the bytes are in another file: `data_offset` is where they
    /// would be and nothing is stored there.
    pub data_offset: u64,
    pub size: u64,
    /// True for a member of a thin archive.
    pub thin: bool,
}

impl Member {
    pub fn data_range(&self) -> Range<u64> {
        self.data_offset..self.data_offset + if self.thin { 0 } else { self.size }
    }

    /// The member's bytes, read from the archive `input` (empty for a thin member).
    pub fn data<'a, R: ReadRef<'a>>(&self, input: R) -> Result<&'a [u8]> {
        if self.thin {
            return Ok(&[]);
        }
        input.read_bytes_at(self.data_offset, self.size).map_err(|()| {
            Error::new(
                self.header.offset,
                "archive member data",
                format!("{} readable bytes at {}", self.size, self.data_offset),
                "a read error",
            )
        })
    }
}

/// An archive as read: special members, ordinary members, and, if reading stopped early,
/// why. Offsets are in the byte space of the `input` given to [`read`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archive {
    pub format: Format,
    pub thin: bool,
    pub special: Vec<Special>,
    pub members: Vec<Member>,
    /// Size of the input.
    pub size: u64,
    /// Where and why reading stopped before the end; the members before it are kept.
    pub error: Option<Error>,
}

impl Archive {
    /// The archive, or its first error (for callers that need every member).
    pub fn complete(self) -> Result<Archive> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self),
        }
    }

    /// The names of the members, in order.
    pub fn member_names(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.name.as_str()).collect()
    }
}

/// Reads an archive's headers, names and symbol-table sizes; member data stays in `input`.
/// Fails only when `input` is not an archive at all; a malformed member ends the walk with
/// [`Archive::error`] set, and the members before it are kept.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Archive> {
    read_window(Window::whole(&input))
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>) -> Result<Archive> {
    let size = input.len().map_err(|()| Error::new(0, "archive", "an input of known length", "a read error"))?;
    let magic = input.read_bytes_at(0, size.min(8)).unwrap_or(&[]);
    let thin = magic == THIN_MAGIC;
    if magic != MAGIC && !thin {
        return Err(Error::new(0, "archive magic", "`!<arch>\\n` or `!<thin>\\n`", format!("{:02x?}", magic)));
    }
    let mut ar = Archive { format: Format::Plain, thin, special: Vec::new(), members: Vec::new(), size, error: None };
    // `object` reads the special members up front; when it cannot, the header walk below
    // finds the exact byte, and this message is only the fallback.
    let file = ArchiveFile::parse(input);
    let mut pos = MAGIC.len() as u64;
    let mut leading = true;
    while pos < size {
        let header = match read_header(input, pos, size) {
            Ok(h) => h,
            Err(e) => {
                ar.error = Some(e);
                break;
            }
        };
        let bsd_name = match bsd_long_name(input, &header) {
            Ok(n) => n,
            Err(e) => {
                ar.error = Some(e);
                break;
            }
        };
        let special = if leading { special_kind(&header, bsd_name.as_ref()) } else { None };
        let has_data = !thin || special.is_some();
        let end = match data_end(&header, has_data, size) {
            Ok(end) => end,
            Err(e) => {
                ar.error = Some(e);
                break;
            }
        };
        let name_len = bsd_name.as_ref().map_or(0, |n| n.len as u64);
        match special {
            Some(kind) => ar.special.push(Special {
                data_offset: header.data_offset() + name_len,
                size: header.size - name_len,
                header,
                kind,
            }),
            None => {
                leading = false;
                let file = match &file {
                    Ok(f) => f,
                    Err(e) => {
                        // The walk read every header up to here, so what `object` trips over
                        // is this first ordinary member, in practice its name (a `/N` with no
                        // `//` table to point into).
                        ar.error = Some(Error::new(
                            header.offset,
                            "archive member name",
                            "a member name `object` can resolve",
                            format!("`{}`: {e}", header.name_field),
                        ));
                        break;
                    }
                };
                match member(file, header, bsd_name.as_ref(), &ar.special, thin) {
                    Ok(m) => ar.members.push(m),
                    Err(e) => {
                        ar.error = Some(e);
                        break;
                    }
                }
            }
        }
        // Members start at even offsets: odd-sized data is followed by one padding byte.
        pos = if has_data { end + (end & 1) } else { end };
    }
    if let Ok(file) = &file {
        ar.format = format_of(file.kind(), &ar.members);
        count_symbols(file, &mut ar.special);
    }
    Ok(ar)
}

fn format_of(kind: ArchiveKind, members: &[Member]) -> Format {
    match kind {
        ArchiveKind::Gnu => Format::Gnu,
        ArchiveKind::Gnu64 => Format::Gnu64,
        ArchiveKind::Bsd => Format::Bsd,
        ArchiveKind::Bsd64 => Format::Bsd64,
        ArchiveKind::Coff => Format::Coff,
        // Without special members only the name forms tell BSD (`#1/N`) from the rest.
        _ if members.iter().any(|m| m.header.name_field.starts_with("#1/")) => Format::Bsd,
        _ => Format::Plain,
    }
}

/// Fills in the symbol count of the symbol table, as `object` decodes it.
fn count_symbols<'a, R: ReadRef<'a>>(file: &ArchiveFile<'a, R>, special: &mut [Special]) {
    let count = match file.symbols() {
        Ok(Some(symbols)) => {
            let mut n = 0u64;
            for s in symbols {
                if s.is_err() {
                    break;
                }
                n += 1;
            }
            Some(n)
        }
        _ => None,
    };
    // A COFF archive has two linker members; `object` decodes the second one.
    if let Some(SpecialKind::SymbolTable { symbols, .. }) =
        special.iter_mut().rev().map(|s| &mut s.kind).find(|k| matches!(k, SpecialKind::SymbolTable { .. }))
    {
        *symbols = count;
    }
}

/// Reads and checks the 60-byte header at `pos`.
fn read_header<'a, R: ReadRef<'a>>(input: R, pos: u64, size: u64) -> Result<Header> {
    let left = size - pos;
    if left < HEADER_SIZE {
        return Err(Error::new(
            pos,
            "archive member header",
            "a 60-byte member header",
            format!("{left} bytes before the end of the archive"),
        ));
    }
    let raw = input
        .read_bytes_at(pos, HEADER_SIZE)
        .map_err(|()| Error::new(pos, "archive member header", "60 readable bytes", "a read error"))?;
    if &raw[58..60] != TERMINATOR {
        return Err(Error::new(
            pos + 58,
            "archive member header",
            "the header terminator \"`\\n\"",
            format!("{:02x?}", &raw[58..60]),
        ));
    }
    let number = |field: &'static str, radix: u32| -> Result<Option<u64>> {
        let (_, at, width) = HEADER_FIELDS.iter().copied().find(|(n, _, _)| *n == field).unwrap_or(("", 0, 0));
        let bytes = &raw[at as usize..(at + width) as usize];
        parse_number(bytes, radix).ok_or_else(|| {
            let what = if radix == 8 { "octal digits" } else { "decimal digits" };
            Error::new(
                pos + at,
                "archive member header",
                format!("{field}: {what} padded with spaces"),
                format!("{:?}", String::from_utf8_lossy(bytes)),
            )
        })
    };
    let size_field = number("size", 10)?
        .ok_or_else(|| Error::new(pos + 48, "archive member header", "size: a decimal byte count", "a blank field"))?;
    Ok(Header {
        offset: pos,
        name_field: String::from_utf8_lossy(&raw[..16]).trim_end_matches(' ').to_string(),
        date: number("date", 10)?,
        uid: number("uid", 10)?,
        gid: number("gid", 10)?,
        mode: number("mode", 8)?,
        size: size_field,
    })
}

/// A header number: digits, then only spaces. `Some(None)` for a blank field, `None` when
/// malformed or too large.
fn parse_number(bytes: &[u8], radix: u32) -> Option<Option<u64>> {
    let digits = bytes.iter().take_while(|&&b| b != b' ').count();
    if bytes[digits..].iter().any(|&b| b != b' ') {
        return None;
    }
    if digits == 0 {
        return Some(None);
    }
    let mut value: u64 = 0;
    for &b in &bytes[..digits] {
        let d = (b as char).to_digit(radix)?;
        value = value.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(Some(value))
}

/// Where a member's data ends, checked against the archive's size.
fn data_end(header: &Header, has_data: bool, size: u64) -> Result<u64> {
    let start = header.data_offset();
    if !has_data {
        return Ok(start);
    }
    let left = size.saturating_sub(start);
    if header.size > left {
        return Err(Error::new(
            header.offset + 48,
            "archive member size",
            format!("at most the {left} bytes left in the archive"),
            format!("{} bytes", header.size),
        ));
    }
    Ok(start + header.size)
}

/// A BSD `#1/N` name: N bytes at the start of the data, NUL padded.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BsdName {
    text: String,
    len: usize,
}

fn bsd_long_name<'a, R: ReadRef<'a>>(input: R, header: &Header) -> Result<Option<BsdName>> {
    let Some(digits) = header.name_field.strip_prefix("#1/") else { return Ok(None) };
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let len = match parse_number(digits.as_bytes(), 10) {
        Some(Some(n)) if n <= header.size => n,
        _ => {
            return Err(Error::new(
                header.offset,
                "archive member name",
                format!("`#1/<length>` with a length of at most the member size {}", header.size),
                format!("`{}`", header.name_field),
            ))
        }
    };
    let bytes = input.read_bytes_at(header.data_offset(), len).map_err(|()| {
        Error::new(
            header.data_offset(),
            "archive member name",
            format!("{len} name bytes"),
            "fewer before the end of the archive",
        )
    })?;
    let text = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
    Ok(Some(BsdName { text: String::from_utf8_lossy(text).into_owned(), len: len as usize }))
}

/// Whether a leading member is a symbol table or the long-name table.
/// Names that readers take for special members (symbol tables, the long-name table) when they
/// come first.
const SPECIAL_NAMES: &[&str] =
    &["/", "//", "/SYM64/", "/<ECSYMBOLS>/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED"];

fn special_kind(header: &Header, bsd_name: Option<&BsdName>) -> Option<SpecialKind> {
    let name = bsd_name.map_or(header.name_field.as_str(), |n| n.text.as_str());
    let table = |name: &str| Some(SpecialKind::SymbolTable { name: name.to_string(), symbols: None });
    match name {
        "//" => Some(SpecialKind::LongNames),
        name if SPECIAL_NAMES.contains(&name) => table(name),
        _ => None,
    }
}

/// An ordinary member: its name resolved by `object`, its name bytes located.
fn member<'a, R: ReadRef<'a>>(
    file: &ArchiveFile<'a, R>,
    header: Header,
    bsd_name: Option<&BsdName>,
    special: &[Special],
    thin: bool,
) -> Result<Member> {
    let long_names = special.iter().find(|s| s.kind == SpecialKind::LongNames);
    let parsed = file.member(ArchiveOffset(header.offset)).map_err(|e| name_error(&header, long_names, e))?;
    let name = String::from_utf8_lossy(parsed.name()).into_owned();
    let name_len = parsed.name().len() as u64;
    let (data_offset, size) = match bsd_name {
        Some(n) => (header.data_offset() + n.len as u64, header.size - n.len as u64),
        None => (header.data_offset(), header.size),
    };
    let name_range = if let Some(n) = bsd_name {
        header.data_offset()..header.data_offset() + n.len as u64
    } else if let (Some(table), Some(at)) = (long_names, gnu_name_offset(&header)) {
        table.data_offset + at..table.data_offset + at + name_len
    } else {
        header.offset..header.offset + name_len.min(16)
    };
    // `object` and the walk must agree on where the data is; a disagreement is a bug here,
    // reported rather than trusted.
    if !thin && parsed.file_range() != (data_offset, size) {
        return Err(Error::new(
            header.offset,
            "archive member",
            format!("data at {data_offset} ({size} bytes)"),
            format!("{:?} as read by object", parsed.file_range()),
        ));
    }
    Ok(Member { header, name, name_range, data_offset, size, thin })
}

/// The `N` of a GNU `/N` name field.
fn gnu_name_offset(header: &Header) -> Option<u64> {
    let digits = header.name_field.strip_prefix('/')?;
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    parse_number(digits.as_bytes(), 10).flatten()
}

/// Why `object` could not resolve a member's name, with the expected and found values.
fn name_error(header: &Header, long_names: Option<&Special>, e: object::read::Error) -> Error {
    match (gnu_name_offset(header), long_names) {
        (Some(at), None) => Error::new(
            header.offset,
            "archive member name",
            "a `//` long-name table for the name reference",
            format!("`/{at}` and no table"),
        ),
        (Some(at), Some(table)) => Error::new(
            header.offset,
            "archive member name",
            format!(
                "an offset of a `name/\\n` entry within the {}-byte long-name table at byte {}",
                table.size, table.data_offset
            ),
            format!("`/{at}`"),
        ),
        _ => Error::new(header.offset, "archive member", "a member header object can read", e.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// One member to write: its name and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMember<'a> {
    pub name: String,
    pub data: &'a [u8],
}

/// Writes a GNU archive holding `members` in order, as `llvm-ar` (deterministic mode, no symbol
/// table) lays it out: short names as `name/`, names of 16 bytes or more, or with a `/`, in a
/// `//` table referred to as `/offset`; date, uid and gid 0; mode 644; data padded to an even
/// size with `\n`. No members gives the 8-byte `!<arch>\n`, which every `ar` reads as empty.
///
/// No symbol table is written. The members of a device-specific archive are LLVM bitcode (or
/// GPU code objects), and listing the symbols of bitcode needs LLVM's bitcode reader, which
/// this crate does not have. An empty or partial table would be wrong in a harmful way: a
/// linker that trusts the index would not pull the members it needs and would fail with an
/// undefined symbol far from the cause. With no index at all, the consumers of device archives
/// (clang's device link through `llvm-link`, and `lld`, which since LLVM 15 reads archive
/// members without the index) work, a linker that insists on an index says so plainly, and
/// `llvm-ranlib` adds the real one. clang's documentation of archive unbundling also says the
/// device archives carry no symbol index (clang-offload-bundler 22 does write one).
pub fn write_gnu(members: &[NewMember]) -> Result<Vec<u8>> {
    let mut long_names: Vec<u8> = Vec::new();
    let mut name_fields = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        check_name(i, &m.name)?;
        if m.name.len() >= 16 || m.name.contains('/') {
            name_fields.push(format!("/{}", long_names.len()));
            long_names.extend_from_slice(m.name.as_bytes());
            long_names.extend_from_slice(b"/\n");
        } else {
            name_fields.push(format!("{}/", m.name));
        }
        if m.data.len() as u64 > MAX_MEMBER_SIZE {
            return Err(Error::new(
                0,
                "archive member",
                format!("at most {MAX_MEMBER_SIZE} bytes (10 decimal digits)"),
                format!("{} bytes in `{}`", m.data.len(), m.name),
            ));
        }
    }
    if long_names.len() % 2 == 1 {
        long_names.push(b'\n');
    }
    let capacity = members.iter().try_fold(8 + 60 + long_names.len(), |n, m| n.checked_add(61 + m.data.len()));
    let mut out = Vec::with_capacity(capacity.unwrap_or(0));
    out.extend_from_slice(MAGIC);
    if !long_names.is_empty() {
        push_header(&mut out, "//", None, long_names.len() as u64);
        out.extend_from_slice(&long_names);
    }
    for (m, name) in members.iter().zip(&name_fields) {
        push_header(&mut out, name, Some(0o644), m.data.len() as u64);
        out.extend_from_slice(m.data);
        if m.data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    Ok(out)
}

/// Names go into fixed fields or a `/\n`-separated table: no newline, no NUL, not empty.
fn check_name(index: usize, name: &str) -> Result<()> {
    if name.is_empty() || name.contains(['\n', '\0']) {
        return Err(Error::new(
            index as u64,
            "archive member name",
            "a non-empty name without newline or NUL",
            format!("{name:?} (member {index})"),
        ));
    }
    // A member with a symbol table's name, placed first, would be read back as that table.
    if SPECIAL_NAMES.contains(&name) {
        return Err(Error::new(
            index as u64,
            "archive member name",
            "a name that is not a special member's",
            format!("{name:?} (member {index})"),
        ));
    }
    Ok(())
}

/// A 60-byte header. `mode` `None` leaves date, uid, gid and mode blank (the `//` member).
fn push_header(out: &mut Vec<u8>, name: &str, mode: Option<u32>, size: u64) {
    let field = |out: &mut Vec<u8>, text: &str, width: usize| {
        out.extend_from_slice(text.as_bytes());
        out.extend(core::iter::repeat_n(b' ', width.saturating_sub(text.len())));
    };
    field(out, name, 16);
    match mode {
        Some(mode) => {
            field(out, "0", 12);
            field(out, "0", 6);
            field(out, "0", 6);
            field(out, &format!("{mode:o}"), 8);
        }
        None => field(out, "", 32),
    }
    field(out, &format!("{size}"), 10);
    out.extend_from_slice(TERMINATOR);
}

// ---------------------------------------------------------------------------------------------
// Tree
// ---------------------------------------------------------------------------------------------

/// The tree of an archive whose bytes lie at `span`: its special members, then one
/// [`NodeKind::ArchiveMember`] per member (in order) with its header fields. Member nodes get
/// no children here; the explorer adds what it finds in each member's data.
pub fn to_node(ar: &Archive, span: Span) -> Node {
    let kind = if ar.thin { "thin archive" } else { "archive" };
    let mut node =
        Node::new(NodeKind::Archive, format!("{} {kind}, {} members", ar.format.as_str(), ar.members.len()), span);
    node.field("format", ar.format.as_str(), None);
    node.field("thin", ar.thin, None);
    node.field("magic", if ar.thin { "!<thin>\\n" } else { "!<arch>\\n" }, Some(span.sub(0, 8)));
    node.field("member_count", ar.members.len() as u64, None);
    for s in &ar.special {
        node.children.push(special_node(s, span));
    }
    for m in &ar.members {
        node.children.push(member_node(m, span));
    }
    if ar.thin {
        node.diag(
            Severity::Warning,
            format!("thin archive: {}; a regular archive (`llvm-ar rc`) can be inspected", thin_message(ar)),
            None,
        );
    }
    if let Some(e) = &ar.error {
        node.diag(Severity::Error, e.to_string(), Some(span.sub(e.offset.min(span.size), 0)));
    }
    node
}

/// What to tell a user about a thin archive: its members' data is elsewhere, and which they are.
pub fn thin_message(ar: &Archive) -> String {
    const SHOWN: usize = 20;
    let names = ar.member_names();
    let mut list = names.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        list += &format!(" and {} more", names.len() - SHOWN);
    }
    format!("the data of its {} members lives in other files, which are not read: {list}", names.len())
}

fn span_of(base: Span, range: &Range<u64>) -> Span {
    base.sub(range.start, range.end - range.start)
}

fn header_fields(node: &mut Node, h: &Header, base: Span) {
    let opt = |v: Option<u64>| v.map_or(crate::tree::Value::Null, crate::tree::Value::Uint);
    node.field("date", opt(h.date), Some(span_of(base, &h.field_range("date"))));
    node.field("uid", opt(h.uid), Some(span_of(base, &h.field_range("uid"))));
    node.field("gid", opt(h.gid), Some(span_of(base, &h.field_range("gid"))));
    let mode = h.mode.map_or(crate::tree::Value::Null, |m| crate::tree::Value::Text(format!("{m:o}")));
    node.field("mode", mode, Some(span_of(base, &h.field_range("mode"))));
    node.field("size", h.size, Some(span_of(base, &h.field_range("size"))));
}

fn special_node(s: &Special, base: Span) -> Node {
    let end = s.data_offset + s.size;
    let span = base.sub(s.header.offset, end - s.header.offset);
    let mut node = match &s.kind {
        SpecialKind::SymbolTable { name, symbols } => {
            let count = symbols.map_or("unreadable".to_string(), |n| format!("{n} symbols"));
            let mut n = Node::new(
                NodeKind::SymbolTable,
                format!("symbol table `{name}` ({count}, {})", human_size(s.size)),
                span,
            );
            n.field("symbols", symbols.map_or(crate::tree::Value::Null, crate::tree::Value::Uint), None);
            n
        }
        SpecialKind::LongNames => {
            Node::new(NodeKind::StringTable, format!("long-name table `//` ({})", human_size(s.size)), span)
        }
    };
    node.field("name", s.header.name_field.as_str(), Some(span_of(base, &s.header.field_range("name"))));
    header_fields(&mut node, &s.header, base);
    node
}

fn member_node(m: &Member, base: Span) -> Node {
    let end = m.data_offset + if m.thin { 0 } else { m.size };
    let span = base.sub(m.header.offset, end - m.header.offset);
    let label = if m.thin {
        format!("member {} (thin: {} in another file)", m.name, human_size(m.size))
    } else {
        format!("member {} ({})", m.name, human_size(m.size))
    };
    let mut node = Node::new(NodeKind::ArchiveMember, label, span);
    node.field("name", m.name.as_str(), Some(span_of(base, &m.name_range)));
    if m.name_range.start != m.header.offset {
        // The header holds a reference (`/45`, `#1/20`) rather than the name itself.
        node.field("name_field", m.header.name_field.as_str(), Some(span_of(base, &m.header.field_range("name"))));
    }
    header_fields(&mut node, &m.header, base);
    // The offset of the member's bytes, with their span (empty for a thin member).
    node.field("data_offset", m.data_offset, Some(span_of(base, &m.data_range())));
    node
}
