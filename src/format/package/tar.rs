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
use alloc::vec::Vec;

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

// ---- Writing ---------------------------------------------------------------------------------
//
// The writer makes the page's "Download all images" tar: POSIX ustar, deterministic (mode 0644,
// owner 0, time 0, no user names), plain file names only (the prefix field stays empty). A name
// longer than 100 bytes, or a size past the octal field, goes in a pax extended header (`x`)
// before the file: records `<length> path=<name>\n`, `<length> size=<decimal>\n`, the length
// counting the whole record, its own digits included.

const NAME_LEN: usize = 100;
/// The largest size the 11 octal digits of the size field hold.
const MAX_OCTAL_SIZE: u64 = 0o77777777777;

/// A tar being written, file by file.
#[derive(Default)]
pub struct TarWriter {
    out: Vec<u8>,
}

impl TarWriter {
    pub fn new() -> TarWriter {
        TarWriter::default()
    }

    /// Adds a regular file. Names are plain file names: empty names, `/`, `\`, NUL and the
    /// names `.` and `..` are refused, so that extracting never writes outside its directory.
    pub fn add(&mut self, name: &str, data: &[u8]) -> Result<()> {
        check_name(name)?;
        let size = data.len() as u64;
        let long_name = name.len() > NAME_LEN;
        if long_name || size > MAX_OCTAL_SIZE {
            let mut records = Vec::new();
            if long_name {
                records.extend(pax_record("path", name));
            }
            if size > MAX_OCTAL_SIZE {
                records.extend(pax_record("size", &size.to_string()));
            }
            let pax_name = format!("PaxHeaders/{}", truncate_utf8(name, NAME_LEN - "PaxHeaders/".len()));
            self.out.extend(new_header(&pax_name, records.len() as u64, b'x'));
            self.append_padded(&records);
        }
        self.out.extend(new_header(truncate_utf8(name, NAME_LEN), size.min(MAX_OCTAL_SIZE), b'0'));
        self.append_padded(data);
        Ok(())
    }

    fn append_padded(&mut self, data: &[u8]) {
        self.out.extend_from_slice(data);
        let rest = data.len() % BLOCK as usize;
        if rest != 0 {
            self.out.resize(self.out.len() + BLOCK as usize - rest, 0);
        }
    }

    /// The finished tar: what was added, then two zero blocks.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.resize(self.out.len() + 2 * BLOCK as usize, 0);
        self.out
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(Error::new(
            0,
            "tar member name",
            "a plain file name (no path, not `.` or `..`)",
            format!("{name:?}"),
        ));
    }
    Ok(())
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn truncate_utf8(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `<length> <key>=<value>\n`, the length counting the whole record including its digits.
fn pax_record(key: &str, value: &str) -> Vec<u8> {
    let rest = key.len() + value.len() + 3; // space, '=', newline
    let mut length = rest + 1;
    while length != rest + length.to_string().len() {
        length = rest + length.to_string().len();
    }
    format!("{length} {key}={value}\n").into_bytes()
}

fn new_header(name: &str, size: u64, kind: u8) -> [u8; BLOCK as usize] {
    let mut h = [0u8; BLOCK as usize];
    h[..name.len()].copy_from_slice(name.as_bytes());
    octal(&mut h[100..108], 0o644);
    octal(&mut h[108..116], 0);
    octal(&mut h[116..124], 0);
    octal(&mut h[124..136], size);
    octal(&mut h[136..148], 0);
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].fill(b' ');
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let digits = format!("{sum:06o}");
    h[148..154].copy_from_slice(&digits.as_bytes()[digits.len() - 6..]);
    h[154] = 0;
    h[155] = b' ';
    h
}

/// Writes `value` as zero-padded octal digits followed by a NUL, filling `field`.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let digits = format!("{value:0width$o}");
    field[..width].copy_from_slice(&digits.as_bytes()[digits.len() - width..]);
    field[width] = 0;
}

/// The regular files of a tar this module wrote, each `(name, bytes)`, in order: what the page
/// checks a tar against before offering it. Anything but a clean listing of regular files
/// with their bytes in the input (a problem, a directory, a link) is an error.
pub fn read_files(tar: &[u8]) -> Result<alloc::vec::Vec<(String, &[u8])>> {
    let listing = read(tar)?;
    if let Some(p) = listing.problems.first() {
        return Err(Error::new(p.at.0, "tar", "a tar that reads back whole", p.message.clone()));
    }
    listing
        .members
        .into_iter()
        .map(|m| {
            let start = usize::try_from(m.data_offset).ok();
            let bytes = start.and_then(|s| tar.get(s..s.checked_add(usize::try_from(m.stored_size).ok()?)?));
            match (m.kind, bytes) {
                (EntryKind::File, Some(bytes)) => Ok((m.name, bytes)),
                (kind, _) => Err(Error::new(
                    m.header.0,
                    "tar member",
                    "a regular file with its bytes",
                    format!("{} `{}`", kind.name(), m.name),
                )),
            }
        })
        .collect()
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

    // ---- Writing ----

    fn written(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = TarWriter::new();
        for (name, data) in files {
            w.add(name, data).unwrap();
        }
        w.finish()
    }

    #[test]
    fn files_read_back_with_their_names_and_bytes() {
        let long = format!("{}.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.co", "x".repeat(150));
        let big: Vec<u8> = (0..1500u32).map(|i| (i % 251) as u8).collect();
        let files: Vec<(&str, &[u8])> =
            vec![("a.co", b"hello"), ("empty.bin", b""), (&long, &big), ("exact.bin", &[7u8; 512])];
        let tar = written(&files);
        assert_eq!(tar.len() % BLOCK as usize, 0);
        let back = read_files(&tar).unwrap();
        assert_eq!(back.len(), files.len());
        for ((name, data), (want_name, want_data)) in back.iter().zip(&files) {
            assert_eq!((name.as_str(), *data), (*want_name, *want_data));
        }
    }

    #[test]
    fn pax_record_lengths_count_themselves() {
        for n in [1, 5, 90, 95, 96, 97, 990, 995, 996, 997] {
            let r = pax_record("path", &"p".repeat(n));
            let text = String::from_utf8(r.clone()).unwrap();
            let len: usize = text.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(len, r.len(), "{text}");
        }
    }

    #[test]
    fn names_that_would_leave_the_directory_are_refused() {
        let mut w = TarWriter::new();
        for bad in ["", ".", "..", "a/b", "../x", "a\\b", "nul\0"] {
            assert!(w.add(bad, b"x").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn damaged_tars_are_errors_not_panics() {
        let tar = written(&[("a.co", b"hello world"), ("b.co", &[1u8; 700])]);
        // Cut anywhere before the end marker's first block, it is an error; that block alone
        // ends a tar for us as for GNU tar.
        for cut in 0..tar.len() - BLOCK as usize {
            assert!(read_files(&tar[..cut]).is_err(), "cut at {cut}");
        }
        assert!(read_files(&tar[..tar.len() - BLOCK as usize]).is_ok());
        let mut bad = tar.clone();
        bad[0] ^= 1;
        assert!(read_files(&bad).unwrap_err().to_string().contains("checksum"));
        let mut huge = tar.clone();
        huge[124..135].copy_from_slice(b"77777777777");
        let sum: u32 =
            huge[..512].iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u32::from(b) }).sum();
        huge[148..154].copy_from_slice(format!("{sum:06o}").as_bytes());
        assert!(read_files(&huge).is_err());
    }

    #[cfg(feature = "std")]
    /// The system's `tar` lists and extracts what we write, long names included.
    #[test]
    fn system_tar_reads_what_we_write() {
        let Ok(out) = std::process::Command::new("tar").arg("--version").output() else {
            eprintln!("no tar here; skipped");
            return;
        };
        assert!(out.status.success());
        let long = format!("{}.gfx90a.co", "n".repeat(180));
        let dir = std::env::temp_dir().join(format!("offload-core-tar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.tar");
        let files: Vec<(&str, &[u8])> = vec![("short.bc", b"BC\xC0\xDE"), (&long, &[9u8; 1000]), ("empty", b"")];
        std::fs::write(&path, written(&files)).unwrap();
        let listed = std::process::Command::new("tar").arg("-tf").arg(&path).output().unwrap();
        assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
        let names: Vec<String> = String::from_utf8(listed.stdout).unwrap().lines().map(str::to_string).collect();
        assert_eq!(names, files.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>());
        let x = std::process::Command::new("tar").arg("-xf").arg(&path).arg("-C").arg(&dir).output().unwrap();
        assert!(x.status.success(), "{}", String::from_utf8_lossy(&x.stderr));
        for (name, data) in &files {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), *data, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
