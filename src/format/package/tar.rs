//! tar archives (POSIX ustar, with GNU and pax extensions): the content of `.tar`, `.tar.gz`,
//! `.tar.zst`, `.tar.xz`, of conda's `pkg-*.tar.zst` and of a `.deb`'s `data.tar.*`. Members
//! are stored as they are, so each is explored in place.
//!
//! # Byte layout
//!
//! The archive is a sequence of 512-byte blocks: a header block per member, then the member's
//! bytes padded with zeros to a whole block; two zero blocks end it.
//!
//! | offset | size | field                                                             |
//! |-------:|-----:|-------------------------------------------------------------------|
//! | 0      | 100  | name, NUL-padded                                                  |
//! | 100    | 8    | mode, octal                                                       |
//! | 108    | 8    | uid, octal                                                        |
//! | 116    | 8    | gid, octal                                                        |
//! | 124    | 12   | size, octal (GNU: base-256 when the first byte has bit 7 set)     |
//! | 136    | 12   | mtime, octal                                                      |
//! | 148    | 8    | checksum: the sum of the header's bytes with this field as spaces |
//! | 156    | 1    | type: `0`/NUL file, `1` hard link, `2` symlink, `3`/`4` device, `5` directory, `6` FIFO, `7` file; `x` pax header of the next member, `g` global pax header, `L`/`K` GNU long name/link of the next member |
//! | 157    | 100  | link target                                                       |
//! | 257    | 6    | magic `ustar\0` (POSIX) or `ustar ` (GNU, version ` \0`)           |
//! | 263    | 2    | version                                                           |
//! | 265    | 32   | user name                                                         |
//! | 297    | 32   | group name                                                        |
//! | 329    | 16   | device major and minor                                            |
//! | 345    | 155  | prefix: the name is `prefix/name` (POSIX)                         |
//!
//! A pax header's data is records `<length> <key>=<value>\n`; `path`, `linkpath` and `size`
//! replace the next member's fields. A GNU `L` or `K` member's data is the next member's name
//! or link target.

use super::{EntryKind, Listing, Member, Problem};
use crate::error::{Error, Result};
use crate::tree::Severity;
use crate::util::window::Window;
use alloc::format;
use alloc::string::{String, ToString};

use object::ReadRef;

const BLOCK: u64 = 512;
/// Longest pax header or GNU long name read: real ones are a few hundred bytes.
const MAX_EXTENDED: u64 = 1 << 20;

/// Whether `head` (at least 263 bytes) is a tar header: `ustar` at byte 257.
pub fn is_tar(head: &[u8]) -> bool {
    head.len() >= 263 && &head[257..262] == b"ustar"
}

/// What the extended headers before a member say about it.
#[derive(Default)]
struct Pending {
    name: Option<String>,
    link: Option<String>,
    size: Option<u64>,
}

/// Lists a tar archive's members. Reading stops at the end marker, at the end of the input,
/// or at the first damaged header (a listing problem); the members before it are kept.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Listing> {
    read_window(Window::whole(&input))
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>) -> Result<Listing> {
    let len = input.len().map_err(|()| Error::new(0, "tar", "an input of known length", "a read error"))?;
    let mut listing = Listing::new("tar");
    let mut pos = 0u64;
    let mut pending = Pending::default();
    loop {
        if pos == len {
            let message = "the archive ends without its end marker (two zero blocks): truncated?";
            listing.problems.push(Problem::new(Severity::Warning, (pos, 0), message));
            break;
        }
        let Some(block) = input.read_bytes_at(pos, BLOCK).ok().filter(|_| pos + BLOCK <= len) else {
            let e = Error::new(pos, "tar header", "a 512-byte header block", format!("{} bytes", len - pos));
            listing.problems.push(Problem::error(&e));
            break;
        };
        if block.iter().all(|&b| b == 0) {
            break;
        }
        match header(block, pos, len, &mut pending) {
            Ok(Step::Member(m, next)) => {
                listing.members.push(*m);
                pos = next;
            }
            Ok(Step::Extended(kind, size, next)) => {
                if let Err(e) = extended(input, kind, pos + BLOCK, size, &mut pending) {
                    listing.problems.push(Problem::error(&e));
                    break;
                }
                pos = next;
            }
            Err(e) => {
                listing.problems.push(Problem::error(&e));
                break;
            }
        }
    }
    super::check_names(&mut listing);
    Ok(listing)
}

enum Step {
    /// A member and where the next header is.
    Member(alloc::boxed::Box<Member>, u64),
    /// An extended header (type, data size) for the next member, and where that member's header is.
    Extended(u8, u64, u64),
}

/// Reads the header block at `pos`; extended headers fill `pending`, which the next member
/// takes.
fn header(block: &[u8], pos: u64, len: u64, pending: &mut Pending) -> Result<Step> {
    check_sum(block, pos)?;
    let kind = block[156];
    let declared = number(&block[124..136], pos + 124, "tar size field")?;
    let size = match kind {
        b'x' | b'g' | b'L' | b'K' => declared,
        _ => pending.size.take().unwrap_or(declared),
    };
    let data = pos + BLOCK;
    let end = data.checked_add(size).filter(|&e| e <= len).ok_or_else(|| {
        Error::new(
            pos + 124,
            "tar size field",
            format!("a member that ends within the archive ({} bytes after its header)", len - data),
            format!("{size} bytes"),
        )
    })?;
    let next = end.div_ceil(BLOCK).saturating_mul(BLOCK).min(len);
    if matches!(kind, b'x' | b'g' | b'L' | b'K') {
        return Ok(Step::Extended(kind, size, next));
    }
    let name = pending.name.take().unwrap_or_else(|| ustar_name(block));
    let link = pending.link.take().unwrap_or_else(|| text(&block[157..257]));
    let entry = match kind {
        b'0' | 0 | b'7' if name.ends_with('/') => EntryKind::Directory,
        b'0' | 0 | b'7' => EntryKind::File,
        b'1' => EntryKind::Hardlink(link),
        b'2' => EntryKind::Symlink(link),
        b'3' | b'4' => EntryKind::Other("device"),
        b'5' => EntryKind::Directory,
        b'6' => EntryKind::Other("FIFO"),
        b'S' => EntryKind::Other("GNU sparse file"),
        _ => EntryKind::Other("unknown tar type"),
    };
    let mut m = Member::new(name, entry, (pos, BLOCK), data, size);
    m.field("type_flag", format!("{}", kind as char), Some((pos + 156, 1)));
    m.field("mode", text(&block[100..108]), Some((pos + 100, 8)));
    m.field("checksum", text(&block[148..156]), Some((pos + 148, 8)));
    if let EntryKind::Other("unknown tar type") = m.kind {
        m.problem(Severity::Warning, (pos + 156, 1), format!("unknown tar type `{}`: listed only", kind as char));
    }
    Ok(Step::Member(alloc::boxed::Box::new(m), next))
}

/// The header checksum: the unsigned sum of its bytes with the checksum field as spaces (some
/// old tars summed signed bytes; both are accepted).
fn check_sum(block: &[u8], pos: u64) -> Result<()> {
    let stored = number(&block[148..156], pos + 148, "tar checksum")?;
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, &b) in block.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    if stored == unsigned || i64::try_from(stored).is_ok_and(|s| s == signed) {
        return Ok(());
    }
    Err(Error::new(
        pos + 148,
        "tar checksum",
        format!("the sum of the header's bytes, {unsigned}"),
        format!("{stored}: a damaged header, or not a tar header"),
    ))
}

/// An octal field (spaces and NULs around it), or a GNU base-256 number (first byte 0x80).
fn number(field: &[u8], at: u64, context: &'static str) -> Result<u64> {
    if field.first().is_some_and(|&b| b & 0x80 != 0) {
        let body = &field[1..];
        if body.len() > 8 && body[..body.len() - 8].iter().any(|&b| b != 0) || field[0] != 0x80 {
            return Err(Error::new(at, context, "a base-256 number below 2^64", format!("{field:02x?}")));
        }
        return Ok(body.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)));
    }
    let digits = field.iter().skip_while(|&&b| b == b' ').take_while(|&&b| b != 0 && b != b' ');
    let mut value = 0u64;
    for &d in digits {
        if !(b'0'..=b'7').contains(&d) {
            return Err(Error::new(at, context, "octal digits", format!("{:?}", String::from_utf8_lossy(field))));
        }
        value = value
            .checked_mul(8)
            .map(|v| v + u64::from(d - b'0'))
            .ok_or_else(|| Error::new(at, context, "a number below 2^64", "more octal digits"))?;
    }
    Ok(value)
}

/// A NUL-padded text field.
fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// `prefix/name` for POSIX headers with a prefix, else the name.
fn ustar_name(block: &[u8]) -> String {
    let name = text(&block[..100]);
    let prefix = if &block[257..263] == b"ustar\0" { text(&block[345..500]) } else { String::new() };
    if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    }
}

/// Reads a pax or GNU extended header's data into `pending`.
fn extended<'a, R: ReadRef<'a>>(input: R, kind: u8, at: u64, size: u64, pending: &mut Pending) -> Result<()> {
    if size > MAX_EXTENDED {
        return Err(Error::new(
            at - BLOCK + 124,
            "tar extended header",
            format!("at most {MAX_EXTENDED} bytes of extended header"),
            format!("{size} bytes"),
        ));
    }
    let data = input
        .read_bytes_at(at, size)
        .map_err(|()| Error::new(at, "tar extended header", format!("{size} readable bytes"), "a read error"))?;
    match kind {
        b'L' => pending.name = Some(text(data)),
        b'K' => pending.link = Some(text(data)),
        b'x' => pax(data, at, pending)?,
        _ => {} // `g`: global settings (times, charset) that change nothing shown here.
    }
    Ok(())
}

/// pax records `<length> <key>=<value>\n`.
fn pax(data: &[u8], at: u64, pending: &mut Pending) -> Result<()> {
    let mut pos = 0usize;
    while pos < data.len() {
        if data[pos..].iter().all(|&b| b == 0) {
            break;
        }
        let bad =
            |what: &str| Error::new(at + pos as u64, "pax record", "`<length> <key>=<value>\\n`", what.to_string());
        let space = data[pos..].iter().position(|&b| b == b' ').ok_or_else(|| bad("no length"))?;
        let length: usize = core::str::from_utf8(&data[pos..pos + space])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("a length that is not a number"))?;
        let record = data.get(pos..pos.saturating_add(length)).filter(|_| length > space + 1);
        let record = record.ok_or_else(|| bad("a length past the header's data"))?;
        let body = &record[space + 1..record.len() - 1];
        if let Some(eq) = body.iter().position(|&b| b == b'=') {
            let value = String::from_utf8_lossy(&body[eq + 1..]).into_owned();
            match &body[..eq] {
                b"path" => pending.name = Some(value),
                b"linkpath" => pending.link = Some(value),
                b"size" => pending.size = Some(value.parse().map_err(|_| bad("a size that is not a number"))?),
                _ => {}
            }
        }
        pos += length;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec;

    /// A ustar header block for a regular file.
    pub(crate) fn header_block(name: &str, size: u64, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        if size < 1 << 33 {
            h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        } else {
            h[124] = 0x80; // GNU base-256, as GNU tar writes sizes of 8 GiB and more
            h[128..136].copy_from_slice(&size.to_be_bytes());
        }
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[148..156].copy_from_slice(b"        ");
        let sum: u64 = h.iter().map(|&b| u64::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    /// A tar of regular files.
    pub(crate) fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, data) in members {
            out.extend(header_block(name, data.len() as u64, b'0'));
            out.extend_from_slice(data);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.extend(vec![0u8; 1024]);
        out
    }

    #[test]
    fn members_are_listed_in_place() {
        let t = tar(&[("a.so", b"\x7fELF"), ("dir/b.txt", b"hello world")]);
        let l = read(&t[..]).unwrap();
        assert_eq!(l.members.len(), 2);
        assert_eq!(l.members[1].name, "dir/b.txt");
        assert_eq!(l.members[1].data_offset, 1024 + 512);
        assert_eq!(l.members[1].size, 11);
        assert!(l.problems.is_empty(), "{:?}", l.problems);
    }

    #[test]
    fn a_damaged_checksum_stops_the_walk_at_its_header() {
        let mut t = tar(&[("a", b"x"), ("b", b"y")]);
        t[1024 + 5] = b'!';
        let l = read(&t[..]).unwrap();
        assert_eq!(l.members.len(), 1);
        assert_eq!(l.problems[0].at.0, 1024 + 148);
    }

    #[test]
    fn a_member_claiming_100_gib_is_refused_at_its_size_field() {
        let mut t = tar(&[("big.so", b"x")]);
        let h = header_block("big.so", 100 << 30, b'0');
        t[..512].copy_from_slice(&h);
        let l = read(&t[..]).unwrap();
        assert!(l.members.is_empty());
        assert_eq!(l.problems[0].at.0, 124);
        assert!(l.problems[0].message.contains("107374182400 bytes"), "{}", l.problems[0].message);
    }

    #[test]
    fn pax_and_gnu_long_names_name_the_next_member() {
        let long = "d/".repeat(80) + "lib.so";
        let record = format!("{} path={long}\n", long.len() + 7 + format!("{}", long.len()).len());
        let mut t = header_block("PaxHeader", record.len() as u64, b'x');
        t.extend_from_slice(record.as_bytes());
        t.resize(1024, 0);
        t.extend(tar(&[("short", b"abc")]));
        let l = read(&t[..]).unwrap();
        assert_eq!(l.members.len(), 1, "{:?}", l.problems);
        assert_eq!(l.members[0].name, long);
    }

    #[test]
    fn truncation_inside_a_header_is_reported_at_it() {
        let t = tar(&[("a", b"x"), ("b", b"y")]);
        let l = read(&t[..1024 + 100]).unwrap();
        assert_eq!(l.members.len(), 1);
        assert_eq!(l.problems[0].at.0, 1024);
    }
}
