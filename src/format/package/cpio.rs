//! cpio archives in the "new ASCII" format (`newc`, and `crc` which adds a checksum): the
//! payload of an `.rpm` once decompressed. Members are stored as they are.
//!
//! # Byte layout
//!
//! Each member: a 110-byte header of ASCII hexadecimal fields, the name, padding to a multiple
//! of 4 bytes (counted from the header's start), the data, padding to a multiple of 4. The member
//! named `TRAILER!!!` ends the archive.
//!
//! | offset | size | field                                            |
//! |-------:|-----:|--------------------------------------------------|
//! | 0      | 6    | magic `070701` (newc) or `070702` (crc)          |
//! | 6      | 8    | inode                                            |
//! | 14     | 8    | mode (file type in `0o170000`)                   |
//! | 22     | 8    | uid                                              |
//! | 30     | 8    | gid                                              |
//! | 38     | 8    | number of links                                  |
//! | 46     | 8    | mtime                                            |
//! | 54     | 8    | file size                                        |
//! | 62     | 32   | device and rdevice major and minor               |
//! | 94     | 8    | name size, including its NUL                     |
//! | 102    | 8    | checksum (`070702` only)                         |

use super::{EntryKind, Listing, Member, Problem};
use crate::error::{Error, Result};
use crate::tree::Severity;
use crate::util::window::Window;
use alloc::format;
use alloc::string::String;
use object::ReadRef;

const HEADER: u64 = 110;
/// Longest name read: paths are at most 4096 bytes on Linux.
const MAX_NAME: u64 = 64 << 10;
const TRAILER: &str = "TRAILER!!!";

/// Whether `head` starts with a newc or crc cpio header.
pub fn is_cpio(head: &[u8]) -> bool {
    head.starts_with(b"070701") || head.starts_with(b"070702")
}

/// Lists a cpio archive's members; a damaged header ends the walk with a listing problem.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Listing> {
    read_window(Window::whole(&input))
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>) -> Result<Listing> {
    let len = input.len().map_err(|()| Error::new(0, "cpio", "an input of known length", "a read error"))?;
    let mut listing = Listing::new("cpio");
    let mut pos = 0u64;
    loop {
        match member(input, pos, len) {
            Ok(None) => break,
            Ok(Some((m, next))) => {
                listing.members.push(m);
                pos = next;
            }
            Err(e) => {
                listing.problems.push(Problem::error(&e));
                break;
            }
        }
        if pos >= len {
            let message = "the archive ends without its `TRAILER!!!` member: truncated?";
            listing.problems.push(Problem::new(Severity::Warning, (len, 0), message));
            break;
        }
    }
    super::check_names(&mut listing);
    Ok(listing)
}

/// The member at `pos` and where the next starts; `None` at the trailer.
fn member<'a, R: ReadRef<'a>>(input: R, pos: u64, len: u64) -> Result<Option<(Member, u64)>> {
    const CONTEXT: &str = "cpio header";
    let head = input
        .read_bytes_at(pos, HEADER)
        .ok()
        .filter(|_| pos + HEADER <= len)
        .ok_or_else(|| Error::new(pos, CONTEXT, "a 110-byte header", format!("{} bytes", len - pos)))?;
    if !is_cpio(head) {
        return Err(Error::new(
            pos,
            CONTEXT,
            "the magic 070701 or 070702",
            format!("{:?}", String::from_utf8_lossy(&head[..6])),
        ));
    }
    let field = |i: u64| hex(&head[6 + 8 * i as usize..14 + 8 * i as usize], pos + 6 + 8 * i);
    let (mode, size, name_size) = (field(1)?, field(6)?, field(11)?);
    if name_size == 0 || name_size > MAX_NAME {
        return Err(Error::new(
            pos + 94,
            CONTEXT,
            format!("a name size of 1 to {MAX_NAME} bytes"),
            format!("{name_size}"),
        ));
    }
    let name_bytes = input.read_bytes_at(pos + HEADER, name_size).map_err(|()| {
        Error::new(pos + HEADER, CONTEXT, format!("a name of {name_size} bytes"), "the end of the data")
    })?;
    let name = String::from_utf8_lossy(&name_bytes[..name_bytes.len() - 1]).into_owned();
    if name == TRAILER {
        return Ok(None);
    }
    let data = (pos + HEADER + name_size).next_multiple_of(4);
    let end = data.checked_add(size).filter(|&e| e <= len).ok_or_else(|| {
        Error::new(
            pos + 54,
            "cpio file size",
            format!("a member that ends within the archive ({} bytes after its name)", len.saturating_sub(data)),
            format!("{size} bytes"),
        )
    })?;
    let kind = match mode & 0o170000 {
        0o100000 => EntryKind::File,
        0o040000 => EntryKind::Directory,
        0o120000 => EntryKind::Symlink(link_target(input, data, size)),
        _ => EntryKind::Other("special file"),
    };
    let mut m = Member::new(name, kind, (pos, data - pos), data, size);
    m.field("mode", format!("{mode:o}"), Some((pos + 14, 8)));
    Ok(Some((m, end.next_multiple_of(4))))
}

/// A symlink's data is its target.
fn link_target<'a, R: ReadRef<'a>>(input: R, at: u64, size: u64) -> String {
    input.read_bytes_at(at, size.min(4096)).map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default()
}

fn hex(field: &[u8], at: u64) -> Result<u64> {
    let text = core::str::from_utf8(field).ok();
    text.and_then(|t| u64::from_str_radix(t, 16).ok()).ok_or_else(|| {
        Error::new(at, "cpio header", "8 hexadecimal digits", format!("{:?}", String::from_utf8_lossy(field)))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A newc archive of regular files, as `cpio -o -H newc` writes it.
    pub(crate) fn cpio(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let entries = members.iter().map(|(n, d)| (*n, *d, 0o100644u32)).chain([(TRAILER, &b""[..], 0)]);
        for (name, data, mode) in entries {
            out.extend_from_slice(b"070701");
            for value in [0, mode, 0, 0, 1, 0, data.len() as u32, 0, 0, 0, 0, name.len() as u32 + 1, 0] {
                out.extend_from_slice(format!("{value:08X}").as_bytes());
            }
            out.extend_from_slice(name.as_bytes());
            out.push(0);
            out.resize(out.len().next_multiple_of(4), 0);
            out.extend_from_slice(data);
            out.resize(out.len().next_multiple_of(4), 0);
        }
        out
    }

    #[test]
    fn members_are_listed_until_the_trailer() {
        let c = cpio(&[("./usr/lib/a.so", b"\x7fELF..."), ("./b", b"xy")]);
        let l = read(&c[..]).unwrap();
        assert_eq!(l.members.len(), 2);
        let a = &l.members[0];
        assert_eq!(&c[a.data_offset as usize..a.data_end() as usize], b"\x7fELF...");
        assert!(l.problems.is_empty());
    }

    #[test]
    fn a_size_past_the_end_is_refused_at_its_field() {
        let mut c = cpio(&[("a", b"x")]);
        c[54..62].copy_from_slice(b"FFFFFFFF");
        let l = read(&c[..]).unwrap();
        assert!(l.members.is_empty());
        assert_eq!(l.problems[0].at.0, 54);
    }

    #[test]
    fn truncation_is_told() {
        let c = cpio(&[("a", b"x"), ("b", b"y")]);
        let l = read(&c[..120]).unwrap();
        assert_eq!(l.members.len(), 1);
        assert!(!l.problems.is_empty());
    }
}
