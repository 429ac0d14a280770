//! Zip archives: Python wheels, conda v2 packages, any `.zip`. Read from the end: the end of
//! central directory record says where the central directory is, and the central directory
//! lists every member with where its local header is. Only those structures and the local
//! headers are read; member data stays where it is (stored members are explored in place,
//! deflated ones are inflated by the explorer within its limits).
//!
//! # Byte layout (little-endian)
//!
//! End of central directory record, the last structure of the file (a comment may follow):
//!
//! | offset | size | field                                        |
//! |-------:|-----:|----------------------------------------------|
//! | 0      | 4    | magic `PK\x05\x06`                           |
//! | 4      | 2    | number of this disk (0)                      |
//! | 6      | 2    | disk where the central directory starts (0)  |
//! | 8      | 2    | entries on this disk                         |
//! | 10     | 2    | entries in total                             |
//! | 12     | 4    | size of the central directory                |
//! | 16     | 4    | offset of the central directory              |
//! | 20     | 2    | comment length, then the comment             |
//!
//! A field that does not fit holds all ones (`0xFFFF`, `0xFFFFFFFF`) and the ZIP64 records
//! give the value: the ZIP64 locator (20 bytes, right before the end record: magic
//! `PK\x06\x07`, u32 disk, u64 offset of the ZIP64 end record, u32 disks) and the ZIP64 end
//! record (magic `PK\x06\x06`, u64 record size, u16 version made by, u16 version needed, u32
//! disk, u32 central directory disk, u64 entries on this disk at 24, u64 entries at 32, u64
//! central directory size at 40, u64 central directory offset at 48).
//!
//! Central directory entry, one per member, back to back:
//!
//! | offset | size | field                                                  |
//! |-------:|-----:|--------------------------------------------------------|
//! | 0      | 4    | magic `PK\x01\x02`                                     |
//! | 4      | 2    | version made by (high byte 3: Unix attributes)         |
//! | 6      | 2    | version needed                                         |
//! | 8      | 2    | flags (bit 0 encrypted, bit 3 data descriptor, bit 11 UTF-8 name) |
//! | 10     | 2    | method (0 stored, 8 deflate)                           |
//! | 12     | 4    | DOS time and date                                      |
//! | 16     | 4    | CRC-32 of the uncompressed data                        |
//! | 20     | 4    | compressed size                                        |
//! | 24     | 4    | uncompressed size                                      |
//! | 28     | 2    | name length `n`                                        |
//! | 30     | 2    | extra field length `e`                                 |
//! | 32     | 2    | comment length `c`                                     |
//! | 34     | 2    | disk number start                                      |
//! | 36     | 2    | internal attributes                                    |
//! | 38     | 4    | external attributes (Unix mode in the high 16 bits)    |
//! | 42     | 4    | offset of the local header                             |
//! | 46     | n+e+c | name, extra fields (id u16, size u16, data), comment  |
//!
//! The ZIP64 extra field (id 1) holds, in this order, the u64 uncompressed size, compressed
//! size and local header offset, each only when its 32-bit field is `0xFFFFFFFF`.
//!
//! Local header, before each member's data:
//!
//! | offset | size | field                                   |
//! |-------:|-----:|-----------------------------------------|
//! | 0      | 4    | magic `PK\x03\x04`                      |
//! | 4      | 2    | version needed                          |
//! | 6      | 2    | flags                                   |
//! | 8      | 2    | method                                  |
//! | 10     | 4    | DOS time and date                       |
//! | 14     | 4    | CRC-32                                  |
//! | 18     | 4    | compressed size (0 with a data descriptor) |
//! | 22     | 4    | uncompressed size                       |
//! | 26     | 2    | name length `n`                         |
//! | 28     | 2    | extra field length `e`                  |
//! | 30     | n+e  | name, extra fields; the data follows    |
//!
//! # Checks
//!
//! Every count and offset is checked against the file: the central directory must lie before
//! the end record, hold as many entries as announced, and each member's local header and data
//! must lie before the central directory. Members whose bytes overlap (the trick of
//! "non-recursive" zip bombs) are errors and are not explored.

use super::{le, Compression, EntryKind, Listing, Member, Problem};
use crate::error::{Error, Result};
use crate::tree::Severity;
use crate::util::sort;
use crate::util::window::Window;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use object::ReadRef;

/// A local header's magic: the first bytes of nearly every zip file.
pub const LOCAL_MAGIC: &[u8; 4] = b"PK\x03\x04";
/// The end of central directory record's magic.
pub const END_MAGIC: &[u8; 4] = b"PK\x05\x06";
const CENTRAL_MAGIC: &[u8; 4] = b"PK\x01\x02";
const ZIP64_LOCATOR_MAGIC: &[u8; 4] = b"PK\x06\x07";
const ZIP64_END_MAGIC: &[u8; 4] = b"PK\x06\x06";
const END_SIZE: u64 = 22;
const CENTRAL_SIZE: usize = 46;
const LOCAL_SIZE: u64 = 30;
/// The end record's comment is at most this long, so the record is within the last 64 KiB.
const MAX_COMMENT: u64 = 0xFFFF;

/// Where the central directory is and how many entries it announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Directory {
    /// Where the end record (or the ZIP64 end record) starts: the directory ends there.
    end: u64,
    entries: u64,
    size: u64,
    offset: u64,
}

/// Lists a zip file's members from its central directory and local headers.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Listing> {
    read_window(Window::whole(&input), false)
}

/// Lists a zip file's members like [`read`], reading the local headers only of members whose
/// names may hold device code when `skip_by_name` is set
/// ([`super::named_without_device_code`]): the data of the others is placed where the central
/// directory puts it (right after a local header with the central entry's name and extra
/// field, as zip writers make them). For a file read over a network, where each local header
/// is a round trip.
pub fn read_skipping<'a, R: ReadRef<'a>>(input: R, skip_by_name: bool) -> Result<Listing> {
    read_window(Window::whole(&input), skip_by_name)
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>, skip_by_name: bool) -> Result<Listing> {
    let len = input.len().map_err(|()| Error::new(0, "zip", "an input of known length", "a read error"))?;
    let end = find_end(input, len)?;
    let dir = directory(input, end)?;
    let mut listing = Listing::new("zip");
    listing.field("entries", dir.entries, Some((end + 10, 2)));
    listing.field("central_directory_offset", dir.offset, Some((end + 16, 4)));
    listing.field("central_directory_size", dir.size, Some((end + 12, 4)));
    let start = checked_start(&dir, &mut listing)?;
    let cd = input.read_bytes_at(start, dir.size).map_err(|()| {
        Error::new(start, "zip central directory", format!("{} readable bytes", dir.size), "a read error")
    })?;
    let base = start - dir.offset;
    read_entries(cd, start, base, &dir, &mut listing);
    for m in &mut listing.members {
        if skip_by_name && super::named_without_device_code(&m.name) {
            // `data_offset` stays the central directory's estimate (see `entry`).
            continue;
        }
        local_header(input, m, start);
    }
    mark_overlaps(&mut listing.members);
    super::check_names(&mut listing);
    Ok(listing)
}

/// Where the local headers of a zip's members lie (`(offset, size)` of each fixed header and
/// name, what [`read_skipping`] reads of them), from its end record and central directory
/// alone: a reader over a network fetches them together, before the listing asks for them one
/// at a time.
pub fn local_header_spans<'a, R: ReadRef<'a>>(input: R, skip_by_name: bool) -> Result<Vec<(u64, u64)>> {
    let (members, start) = central_members(input)?;
    Ok(members
        .iter()
        .filter(|m| !(skip_by_name && super::named_without_device_code(&m.name)))
        .map(|m| m.header)
        .filter(|&(at, size)| at.checked_add(size).is_some_and(|e| e <= start))
        .collect())
}

/// A zip's members as its central directory alone lists them (their data placed right after
/// a local header repeating the central entry's name and extra field, unchecked), and where
/// the directory starts: what a reader over a network plans its reads with before fetching
/// any local header.
pub fn central_members<'a, R: ReadRef<'a>>(input: R) -> Result<(Vec<Member>, u64)> {
    let input = Window::whole(&input);
    let len = input.len().map_err(|()| Error::new(0, "zip", "an input of known length", "a read error"))?;
    let end = find_end(input, len)?;
    let dir = directory(input, end)?;
    let mut listing = Listing::new("zip");
    let start = checked_start(&dir, &mut listing)?;
    let cd = input.read_bytes_at(start, dir.size).map_err(|()| {
        Error::new(start, "zip central directory", format!("{} readable bytes", dir.size), "a read error")
    })?;
    read_entries(cd, start, start - dir.offset, &dir, &mut listing);
    Ok((listing.members, start))
}

/// A member of [`central_members`] placed by its own local header, as [`read`] places it (a
/// problem with the header is said on the member): for a reader that wants one member before
/// the whole listing is read.
pub fn place_by_local_header<'a, R: ReadRef<'a>>(input: R, m: &mut Member, cd_start: u64) {
    local_header(Window::whole(&input), m, cd_start);
}

/// What a local header says of its member, read as the zip arrives front to back, before the
/// central directory (which comes last) is there: what a reader of a download explores early
/// with, until the central directory confirms it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalEntry {
    /// Where the header starts and how long it is, name and extra field included.
    pub header: (u64, u64),
    pub name: String,
    pub flags: u16,
    pub compression: Compression,
    /// `(stored, uncompressed)` sizes, or `None` when the header leaves them to a data
    /// descriptor after the data (flag bit 3, sizes written as zero).
    pub sizes: Option<(u64, u64)>,
}

/// What the bytes at a position of an arriving zip are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalRead {
    /// A local header of this many bytes, not all given yet.
    NeedBytes(u64),
    /// A whole local header.
    Entry(LocalEntry),
    /// Not a local header: the central directory (or anything else) starts here.
    End,
}

impl LocalEntry {
    /// Where the member's stored bytes start.
    pub fn data_offset(&self) -> u64 {
        self.header.0.saturating_add(self.header.1)
    }

    /// Where the member's stored bytes end (a data descriptor, when [`Self::has_descriptor`],
    /// follows: [`descriptor_sizes`]); `None` when the sizes are left to the descriptor.
    pub fn data_end(&self) -> Option<u64> {
        let (stored, _) = self.sizes?;
        self.data_offset().checked_add(stored)
    }

    /// Whether a data descriptor follows the data (flag bit 3).
    pub fn has_descriptor(&self) -> bool {
        self.flags & 8 != 0
    }

    /// The member as exploring it reads it: a file (or a directory, by its name) at the place
    /// this header gives; `None` when the sizes are not in the header.
    pub fn member(&self) -> Option<Member> {
        let (stored, size) = self.sizes?;
        let kind = if self.name.ends_with('/') { EntryKind::Directory } else { EntryKind::File };
        let mut m = Member::new(self.name.clone(), kind, self.header, self.data_offset(), size);
        m.stored_size = stored;
        m.compression = self.compression;
        m.readable = self.flags & 1 == 0 && !matches!(self.compression, Compression::Unsupported(_));
        Some(m)
    }
}

/// Reads the local header at `at` from `bytes` (the file's bytes from `at` on, as many as have
/// arrived): [`LocalRead::NeedBytes`] until the whole header is there. Sizes come from the
/// fixed fields, or from the ZIP64 extra field (uncompressed, then compressed size) where
/// those hold all ones.
pub fn local_entry(bytes: &[u8], at: u64) -> Result<LocalRead> {
    const CONTEXT: &str = "zip local header";
    if bytes.len() < 4 {
        return Ok(LocalRead::NeedBytes(LOCAL_SIZE));
    }
    if &bytes[..4] != LOCAL_MAGIC {
        return Ok(LocalRead::End);
    }
    let Some(fixed) = bytes.get(..LOCAL_SIZE as usize) else { return Ok(LocalRead::NeedBytes(LOCAL_SIZE)) };
    let (n, e) = (le(fixed, 26, 2), le(fixed, 28, 2));
    let whole = LOCAL_SIZE + n + e;
    let Some(header) = bytes.get(..whole as usize) else { return Ok(LocalRead::NeedBytes(whole)) };
    let name = String::from_utf8_lossy(&header[LOCAL_SIZE as usize..(LOCAL_SIZE + n) as usize]).into_owned();
    let extra = &header[(LOCAL_SIZE + n) as usize..];
    let flags = le(fixed, 6, 2) as u16;
    let method = le(fixed, 8, 2) as u16;
    let (mut stored, mut size) = (le(fixed, 18, 4), le(fixed, 22, 4));
    if stored == 0xFFFF_FFFF || size == 0xFFFF_FFFF {
        let (found_size, found_stored) = zip64_local_sizes(extra).ok_or_else(|| {
            Error::new(
                at + LOCAL_SIZE + n,
                CONTEXT,
                "a ZIP64 extra field with both sizes (its 32-bit sizes are 0xFFFFFFFF)",
                format!("{e} bytes of extra fields without one"),
            )
        })?;
        (stored, size) = (found_stored, found_size);
    }
    let sizes = (flags & 8 == 0 || stored != 0 || size != 0).then_some((stored, size));
    let compression = match method {
        0 => Compression::Stored,
        8 => Compression::Deflate,
        other => Compression::Unsupported(other),
    };
    Ok(LocalRead::Entry(LocalEntry { header: (at, whole), name, flags, compression, sizes }))
}

/// The uncompressed and compressed sizes of a local header's ZIP64 extra field (id 1).
fn zip64_local_sizes(extra: &[u8]) -> Option<(u64, u64)> {
    let mut pos = 0usize;
    while pos + 4 <= extra.len() {
        let (id, size) = (le(extra, pos, 2), le(extra, pos + 2, 2) as usize);
        let data = extra.get(pos + 4..pos + 4 + size)?;
        if id == 1 && data.len() >= 16 {
            return Some((le(data, 0, 8), le(data, 8, 8)));
        }
        pos += 4 + size;
    }
    None
}

/// The data descriptor at the start of `bytes` (the bytes after a member's data: at least 24
/// of them, or all there are), for a member of `stored` stored bytes: its uncompressed size
/// and the descriptor's length. A descriptor is a CRC-32 and the two sizes (32-bit, or 64-bit
/// for ZIP64), after an optional magic `PK\x07\x08`; the form read is the one whose
/// compressed size is `stored`. `None` when none is.
pub fn read_descriptor(bytes: &[u8], stored: u64) -> Option<(u64, u64)> {
    const FORMS: [(usize, usize); 4] = [(4, 4), (4, 8), (0, 4), (0, 8)];
    FORMS.iter().find_map(|&(magic, width)| {
        if magic == 4 && !bytes.starts_with(b"PK\x07\x08") {
            return None;
        }
        let length = magic + 4 + 2 * width;
        let fields = bytes.get(magic + 4..length)?;
        (le(fields, 0, width) == stored).then(|| (le(fields, width, width), length as u64))
    })
}

/// Finds the end record in the last `22 + 65535` bytes: the last magic whose comment runs
/// exactly to the end of the file, else the last one whose comment fits.
fn find_end<'a, R: ReadRef<'a>>(input: R, len: u64) -> Result<u64> {
    if len < END_SIZE {
        return Err(Error::new(
            0,
            "zip end of central directory",
            format!("a record of {END_SIZE} bytes at the end of the file"),
            format!("a file of {len} bytes"),
        ));
    }
    // Most zips have no comment: their end record is the last 22 bytes, read alone first (a
    // reader over a network then fetches no member's bytes to find it).
    if let Ok(last) = input.read_bytes_at(len - END_SIZE, END_SIZE) {
        if &last[..4] == END_MAGIC && le(last, 20, 2) == 0 {
            return Ok(len - END_SIZE);
        }
    }
    let tail_len = len.min(END_SIZE + MAX_COMMENT);
    let from = len - tail_len;
    let tail = input
        .read_bytes_at(from, tail_len)
        .map_err(|()| Error::new(from, "zip end of central directory", "readable bytes", "a read error"))?;
    let mut fallback = None;
    for i in (0..=tail.len() - END_SIZE as usize).rev() {
        if &tail[i..i + 4] != END_MAGIC {
            continue;
        }
        let comment = le(tail, i + 20, 2) as usize;
        if i + END_SIZE as usize + comment == tail.len() {
            return Ok(from + i as u64);
        }
        if fallback.is_none() && i + END_SIZE as usize + comment <= tail.len() {
            fallback = Some(from + i as u64);
        }
    }
    fallback.ok_or_else(|| {
        Error::new(
            from,
            "zip end of central directory",
            format!("the magic PK\\x05\\x06 within the last {tail_len} bytes"),
            "no end record (a truncated or damaged zip file)",
        )
    })
}

/// Reads the end record at `end`, and the ZIP64 records when there are any.
fn directory<'a, R: ReadRef<'a>>(input: R, end: u64) -> Result<Directory> {
    let rec = input.read_bytes_at(end, END_SIZE).map_err(|()| {
        Error::new(end, "zip end of central directory", format!("{END_SIZE} readable bytes"), "a read error")
    })?;
    let (disk, cd_disk) = (le(rec, 4, 2), le(rec, 6, 2));
    if disk != 0 || cd_disk != 0 {
        return Err(Error::new(
            end + 4,
            "zip end of central directory",
            "a single-disk archive (disk numbers 0)",
            format!("disk {disk}, central directory on disk {cd_disk}: a split archive"),
        ));
    }
    let mut dir = Directory { end, entries: le(rec, 10, 2), size: le(rec, 12, 4), offset: le(rec, 16, 4) };
    if end >= 20 {
        if let Ok(loc) = input.read_bytes_at(end - 20, 20) {
            if loc.starts_with(ZIP64_LOCATOR_MAGIC) {
                dir = zip64_directory(input, le(loc, 8, 8), end - 20)?;
            }
        }
    }
    Ok(dir)
}

fn zip64_directory<'a, R: ReadRef<'a>>(input: R, at: u64, locator: u64) -> Result<Directory> {
    const CONTEXT: &str = "zip64 end of central directory";
    if at.checked_add(56).is_none_or(|e| e > locator) {
        return Err(Error::new(
            locator + 8,
            CONTEXT,
            format!("a 56-byte record before the ZIP64 locator at byte {locator}"),
            format!("an offset of {at}"),
        ));
    }
    let rec = input.read_bytes_at(at, 56).map_err(|()| Error::new(at, CONTEXT, "56 readable bytes", "a read error"))?;
    if !rec.starts_with(ZIP64_END_MAGIC) {
        return Err(Error::new(at, CONTEXT, "the magic PK\\x06\\x06", format!("{:02x?}", &rec[..4])));
    }
    Ok(Directory { end: at, entries: le(rec, 32, 8), size: le(rec, 40, 8), offset: le(rec, 48, 8) })
}

/// Where the central directory really starts: right before the end record. A file with bytes
/// in front (a self-extracting archive) has all offsets shifted by their length.
fn checked_start(dir: &Directory, listing: &mut Listing) -> Result<u64> {
    let Some(start) = dir.end.checked_sub(dir.size) else {
        return Err(Error::new(
            dir.end + 12,
            "zip end of central directory",
            format!("a central directory size of at most {} bytes (it lies before the end record)", dir.end),
            format!("{} bytes", dir.size),
        ));
    };
    if dir.offset > start {
        return Err(Error::new(
            dir.end + 16,
            "zip end of central directory",
            format!("a central directory offset of at most {start} (the directory ends at the end record)"),
            format!("{}", dir.offset),
        ));
    }
    if dir.offset < start {
        let message = format!(
            "the central directory is at byte {start}, not at {} as recorded: {} bytes precede the archive (a self-extracting archive?); offsets are read as shifted",
            dir.offset,
            start - dir.offset
        );
        listing.problems.push(Problem::new(Severity::Warning, (dir.end + 16, 4), message));
    }
    let most = dir.size / CENTRAL_SIZE as u64;
    if dir.entries > most {
        return Err(Error::new(
            dir.end + 10,
            "zip end of central directory",
            format!("at most {most} entries in a central directory of {} bytes", dir.size),
            format!("{} entries", dir.entries),
        ));
    }
    Ok(start)
}

/// Reads the central directory entries (`cd`, lying at `start`); offsets in entries are read
/// shifted by `base`. A damaged entry ends the walk with a listing problem.
fn read_entries(cd: &[u8], start: u64, base: u64, dir: &Directory, listing: &mut Listing) {
    let mut pos = 0usize;
    for n in 0..dir.entries {
        match entry(cd, pos, start, base) {
            Ok((member, next)) => {
                listing.members.push(member);
                pos = next;
            }
            Err(e) => {
                let message = format!("central directory entry {n} of {}: {e}", dir.entries);
                listing.problems.push(Problem::new(Severity::Error, (e.offset, 0), message));
                return;
            }
        }
    }
    if pos != cd.len() {
        let message = format!(
            "{} bytes of the central directory follow its {} entries, where the end record was expected",
            cd.len() - pos,
            dir.entries
        );
        listing.problems.push(Problem::new(Severity::Warning, (start + pos as u64, (cd.len() - pos) as u64), message));
    }
}

/// One central directory entry at `pos` of `cd`: the member (its data offset still to be read
/// from its local header) and where the next entry starts.
fn entry(cd: &[u8], pos: usize, start: u64, base: u64) -> Result<(Member, usize)> {
    let at = start + pos as u64;
    const CONTEXT: &str = "zip central directory entry";
    let fixed = cd.get(pos..pos + CENTRAL_SIZE).ok_or_else(|| {
        Error::new(at, CONTEXT, format!("{CENTRAL_SIZE} bytes"), format!("{} bytes", cd.len().saturating_sub(pos)))
    })?;
    if &fixed[..4] != CENTRAL_MAGIC {
        return Err(Error::new(at, CONTEXT, "the magic PK\\x01\\x02", format!("{:02x?}", &fixed[..4])));
    }
    let (n, e, c) = (le(fixed, 28, 2) as usize, le(fixed, 30, 2) as usize, le(fixed, 32, 2) as usize);
    let next = pos + CENTRAL_SIZE + n + e + c;
    if next > cd.len() {
        return Err(Error::new(
            at + 28,
            CONTEXT,
            format!("a name, extra field and comment within the central directory ({} bytes left)", cd.len() - pos),
            format!("{} bytes", CENTRAL_SIZE + n + e + c),
        ));
    }
    let name = String::from_utf8_lossy(&cd[pos + CENTRAL_SIZE..pos + CENTRAL_SIZE + n]).into_owned();
    let extra = &cd[pos + CENTRAL_SIZE + n..pos + CENTRAL_SIZE + n + e];
    let mut sizes = [le(fixed, 24, 4), le(fixed, 20, 4), le(fixed, 42, 4)];
    zip64_sizes(extra, &mut sizes, at + (CENTRAL_SIZE + n) as u64)?;
    let [size, stored, local] = sizes;
    let (flags, method, mode) = (le(fixed, 8, 2), le(fixed, 10, 2) as u16, (le(fixed, 38, 4) >> 16) as u32);
    let unix = fixed[5] == 3;
    let kind = entry_kind(&name, unix.then_some(mode));
    let local = local.checked_add(base).ok_or_else(|| Error::new(at + 42, CONTEXT, "an offset", "an overflow"))?;
    let mut m = Member::new(name, kind, (local, LOCAL_SIZE + n as u64), 0, size);
    // Where the data starts if the local header repeats the central entry's name and extra
    // field; the local header, when read, says where it really does.
    m.data_offset = local.saturating_add(LOCAL_SIZE + n as u64 + e as u64);
    m.stored_size = stored;
    m.compression = match method {
        0 => Compression::Stored,
        8 => Compression::Deflate,
        other => Compression::Unsupported(other),
    };
    m.field("central_entry_offset", at, Some((at, CENTRAL_SIZE as u64)));
    m.field("method", u64::from(method), Some((at + 10, 2)));
    m.field("flags", flags, Some((at + 8, 2)));
    m.field("crc32", le(fixed, 16, 4), Some((at + 16, 4)));
    if unix {
        m.field("mode", format!("{mode:o}"), Some((at + 38, 4)));
    }
    describe_storage(&mut m, flags, at);
    Ok((m, next))
}

/// Notes what keeps a member from being read: encryption, a method not decoded, sizes that
/// disagree for a stored member.
fn describe_storage(m: &mut Member, flags: u64, at: u64) {
    if flags & 1 != 0 {
        m.readable = false;
        m.problem(Severity::Note, (at + 8, 2), "encrypted: its bytes are not read");
    }
    if let Compression::Unsupported(method) = m.compression {
        m.readable = false;
        m.problem(
            Severity::Note,
            (at + 10, 2),
            format!("compression method {method} is not decoded (stored and deflate are): listed only"),
        );
    }
    if m.compression == Compression::Stored && m.stored_size != m.size && m.kind == EntryKind::File {
        let message = format!(
            "a stored member has a compressed size ({}) that is not its uncompressed size ({})",
            m.stored_size, m.size
        );
        m.problem(Severity::Error, (at + 20, 8), message);
    }
}

/// A directory ends in `/`; a Unix mode says symlink (`0o120000`) or other special files.
fn entry_kind(name: &str, mode: Option<u32>) -> EntryKind {
    match mode.map(|m| m & 0o170000) {
        Some(0o120000) => EntryKind::Symlink(String::new()),
        Some(0o040000) => EntryKind::Directory,
        _ if name.ends_with('/') => EntryKind::Directory,
        Some(0) | Some(0o100000) | None => EntryKind::File,
        Some(_) => EntryKind::Other("special file"),
    }
}

/// Replaces the all-ones 32-bit sizes and offset with the values of the ZIP64 extra field.
fn zip64_sizes(extra: &[u8], sizes: &mut [u64; 3], at: u64) -> Result<()> {
    let mut pos = 0usize;
    while pos + 4 <= extra.len() {
        let (id, size) = (le(extra, pos, 2), le(extra, pos + 2, 2) as usize);
        let Some(data) = extra.get(pos + 4..pos + 4 + size) else {
            return Err(Error::new(
                at + pos as u64 + 2,
                "zip extra field",
                format!("{size} bytes of field data within the extra fields"),
                format!("{} bytes", extra.len() - pos - 4),
            ));
        };
        if id == 1 {
            let mut read = 0usize;
            for value in sizes.iter_mut().filter(|v| **v == 0xFFFF_FFFF) {
                if read + 8 > data.len() {
                    return Err(Error::new(
                        at + pos as u64 + 4,
                        "zip64 extra field",
                        "a 64-bit value for each 32-bit field set to 0xFFFFFFFF",
                        format!("{size} bytes"),
                    ));
                }
                *value = le(data, read, 8);
                read += 8;
            }
        }
        pos += 4 + size;
    }
    Ok(())
}

/// Reads a member's local header: where its data starts, and whether its name agrees with the
/// central directory's. Members must lie before the central directory (`cd_start`).
fn local_header<'a, R: ReadRef<'a>>(input: R, m: &mut Member, cd_start: u64) {
    const CONTEXT: &str = "zip local header";
    // The central directory's estimate is replaced by what the local header says (or by
    // nothing, when it cannot be read).
    m.data_offset = 0;
    let at = m.header.0;
    let Some(fixed) =
        at.checked_add(LOCAL_SIZE).filter(|&e| e <= cd_start).and_then(|_| input.read_bytes_at(at, LOCAL_SIZE).ok())
    else {
        let e = Error::new(
            at,
            CONTEXT,
            format!("a {LOCAL_SIZE}-byte header before the central directory at byte {cd_start}"),
            format!("an offset of {at}"),
        );
        fail(m, &e);
        return;
    };
    if &fixed[..4] != LOCAL_MAGIC {
        fail(m, &Error::new(at, CONTEXT, "the magic PK\\x03\\x04", format!("{:02x?}", &fixed[..4])));
        return;
    }
    let (n, e) = (le(fixed, 26, 2), le(fixed, 28, 2));
    let data = at + LOCAL_SIZE + n + e;
    m.header = (at, LOCAL_SIZE + n + e);
    m.data_offset = data;
    if data.checked_add(m.stored_size).is_none_or(|end| end > cd_start) {
        let e = Error::new(
            at + 18,
            CONTEXT,
            format!("member data that ends before the central directory at byte {cd_start}"),
            format!("{} bytes from byte {data}", m.stored_size),
        );
        fail(m, &e);
        return;
    }
    if let Ok(local_name) = input.read_bytes_at(at + LOCAL_SIZE, n) {
        if local_name != m.name.as_bytes() && String::from_utf8_lossy(local_name) != m.name {
            let message = format!(
                "the local header names this member `{}`, the central directory `{}`: unzip tools may disagree on which it is",
                String::from_utf8_lossy(local_name),
                m.name
            );
            m.problem(Severity::Warning, (at + LOCAL_SIZE, n), message);
        }
    }
}

fn fail(m: &mut Member, e: &Error) {
    m.readable = false;
    m.problems.push(Problem::error(e));
}

/// Members whose header and data overlap another's are errors: a zip bomb makes many members
/// share one stream. Neither of two overlapping members is explored.
fn mark_overlaps(members: &mut [Member]) {
    let mut order: Vec<usize> = (0..members.len()).filter(|&i| members[i].readable).collect();
    sort::sort_by_key(&mut order, |&i| members[i].header.0);
    let mut furthest: Option<usize> = None;
    for &i in &order {
        if let Some(prev) = furthest {
            let (p_start, p_end) = (members[prev].header.0, members[prev].data_end());
            if members[i].header.0 < p_end {
                let message = format!(
                    "its bytes overlap those of `{}` (bytes {p_start}..{p_end}): members sharing bytes are a zip bomb's trick; neither is explored",
                    members[prev].name
                );
                let at = (members[i].header.0, members[i].header.1);
                members[i].problem(Severity::Error, at, message);
                let message = format!("its bytes overlap those of `{}`", members[i].name);
                let at = (p_start, members[prev].header.1);
                members[prev].problem(Severity::Error, at, message);
            }
        }
        if furthest.is_none_or(|p| members[i].data_end() > members[p].data_end()) {
            furthest = Some(i);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec;

    /// A zip with stored members, as `zip -0` writes it (no extra fields).
    pub(crate) fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in members {
            let offset = out.len() as u32;
            let header = |magic: &[u8], central: bool| {
                let mut h = Vec::from(magic);
                if central {
                    h.extend_from_slice(&20u16.to_le_bytes());
                }
                h.extend_from_slice(&20u16.to_le_bytes()); // version needed
                h.extend_from_slice(&0u16.to_le_bytes()); // flags
                h.extend_from_slice(&0u16.to_le_bytes()); // method
                h.extend_from_slice(&0u32.to_le_bytes()); // time and date
                h.extend_from_slice(&0u32.to_le_bytes()); // crc (not checked)
                h.extend_from_slice(&(data.len() as u32).to_le_bytes());
                h.extend_from_slice(&(data.len() as u32).to_le_bytes());
                h.extend_from_slice(&(name.len() as u16).to_le_bytes());
                h.extend_from_slice(&0u16.to_le_bytes());
                if central {
                    h.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
                    h.extend_from_slice(&0u32.to_le_bytes());
                    h.extend_from_slice(&offset.to_le_bytes());
                }
                h.extend_from_slice(name.as_bytes());
                h
            };
            out.extend(header(LOCAL_MAGIC, false));
            out.extend_from_slice(data);
            central.extend(header(CENTRAL_MAGIC, true));
        }
        let cd_offset = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(END_MAGIC);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    #[test]
    fn stored_members_are_listed_in_place() {
        let zip = stored_zip(&[("a.txt", b"hello"), ("lib/b.so", b"\x7fELF....")]);
        let l = read(&zip[..]).unwrap();
        assert_eq!(l.members.len(), 2);
        assert_eq!(l.members[0].name, "a.txt");
        assert_eq!(&zip[l.members[0].data_offset as usize..l.members[0].data_end() as usize], b"hello");
        assert_eq!(l.members[1].size, 8);
        assert!(l.members.iter().all(|m| m.problems.is_empty() && m.is_explorable()));
        assert!(l.problems.is_empty());
    }

    #[test]
    fn the_central_directory_alone_places_members_as_their_local_headers_do() {
        let zip = stored_zip(&[("a.txt", b"hello"), ("lib/b.so", b"\x7fELF....")]);
        let (members, directory_start) = central_members(&zip[..]).unwrap();
        let listed = read(&zip[..]).unwrap().members;
        let placed = |ms: &[Member]| ms.iter().map(|m| (m.name.clone(), m.header, m.data_offset)).collect::<Vec<_>>();
        assert_eq!(placed(&members), placed(&listed));
        assert_eq!(directory_start, listed[1].data_end());
        assert_eq!(local_header_spans(&zip[..], true).unwrap(), vec![listed[1].header]);
    }

    #[test]
    fn a_truncated_zip_has_no_end_record() {
        let zip = stored_zip(&[("a", b"x")]);
        let e = read(&zip[..zip.len() - 5]).unwrap_err();
        assert!(e.to_string().contains("no end record"), "{e}");
    }

    #[test]
    fn a_member_past_the_directory_is_an_error_on_it() {
        let mut zip = stored_zip(&[("a", b"xyz")]);
        let cd = le(&zip, zip.len() - 6, 4) as usize;
        zip[cd + 20..cd + 28].copy_from_slice(&[0, 0, 0, 0x40, 0, 0, 0, 0x40]); // 1 GiB
        let l = read(&zip[..]).unwrap();
        assert!(!l.members[0].is_explorable());
        assert!(l.members[0].problems[0].message.contains("before the central directory"));
    }

    #[test]
    fn overlapping_members_are_errors() {
        let mut zip = stored_zip(&[("a", b"xyz"), ("b", b"uvw")]);
        let cd = le(&zip, zip.len() - 6, 4) as usize;
        let second = cd + CENTRAL_SIZE + 1;
        zip[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes()); // b's header is a's
        let l = read(&zip[..]).unwrap();
        assert!(l.members.iter().all(|m| !m.is_explorable()));
        assert!(l.members[1].problems.iter().any(|p| p.message.contains("overlap")));
    }

    #[test]
    fn an_entry_count_past_the_directory_is_refused() {
        let mut zip = stored_zip(&[("a", b"x")]);
        let end = zip.len() - 22;
        zip[end + 10..end + 12].copy_from_slice(&60000u16.to_le_bytes());
        let e = read(&zip[..]).unwrap_err();
        assert_eq!(e.offset, end as u64 + 10);
    }

    #[test]
    fn names_that_climb_out_are_warned() {
        let zip = stored_zip(&[("../../evil.so", b"x"), ("ok", b"y"), ("ok", b"z")]);
        let l = read(&zip[..]).unwrap();
        assert!(l.members[0].problems[0].message.contains("never used as a path"));
        assert!(l.members[2].problems[0].message.contains("also the name"));
        assert_eq!(vec![l.members[0].problems.len(), l.members[1].problems.len()], vec![1, 0]);
    }
}
