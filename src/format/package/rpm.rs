//! RPM packages: a lead, a signature header, the header, and the payload (a cpio archive,
//! compressed). Listed as a package of one member, the payload; the explorer decompresses it
//! and lists the cpio archive ([`super::cpio`]) inside.
//!
//! # Byte layout (big-endian)
//!
//! | offset | size | field                                                            |
//! |-------:|-----:|------------------------------------------------------------------|
//! | 0      | 4    | lead magic `ED AB EE DB`                                         |
//! | 4      | 2    | format version, major and minor (3.0 today)                      |
//! | 6      | 2    | type (0 binary, 1 source)                                        |
//! | 8      | 2    | architecture number                                              |
//! | 10     | 66   | name-version-release, NUL-padded                                 |
//! | 76     | 2    | OS number                                                        |
//! | 78     | 2    | signature type (5: a header follows)                             |
//! | 80     | 16   | reserved                                                         |
//! | 96     |      | signature header, padded to a multiple of 8 bytes                |
//! |        |      | header                                                           |
//! |        |      | payload: cpio, compressed as the header's tag 1125 says          |
//!
//! A header (signature or main):
//!
//! | offset | size | field                                                         |
//! |-------:|-----:|---------------------------------------------------------------|
//! | 0      | 3    | magic `8E AD E8`                                              |
//! | 3      | 1    | version (1)                                                   |
//! | 4      | 4    | reserved                                                      |
//! | 8      | 4    | number of index entries `n`                                   |
//! | 12     | 4    | size of the data store `s`                                    |
//! | 16     | 16n  | index entries: u32 tag, u32 type, u32 offset in the store, u32 count |
//! | 16+16n | s    | data store                                                    |
//!
//! Tags read: 1000 name, 1001 version, 1002 release, 1022 arch, 1124 payload format (`cpio`),
//! 1125 payload compressor (`gzip`, `xz`, `zstd`, ...). Type 6 is a NUL-terminated string.

use super::{be, EntryKind, Listing, Member};
use crate::error::{Error, Result};
use crate::tree::Severity;
use crate::util::window::Window;
use alloc::format;
use alloc::string::String;
use object::ReadRef;

/// The lead's magic.
pub const LEAD_MAGIC: [u8; 4] = [0xED, 0xAB, 0xEE, 0xDB];
const HEADER_MAGIC: [u8; 3] = [0x8E, 0xAD, 0xE8];
const LEAD_SIZE: u64 = 96;
/// Most index entries read from one header: real ones have a few hundred.
const MAX_ENTRIES: u64 = 1 << 16;

/// The tags shown, and the names of their fields.
const TAGS: [(u32, &str); 6] = [
    (1000, "name"),
    (1001, "version"),
    (1002, "release"),
    (1022, "arch"),
    (1124, "payload_format"),
    (1125, "payload_compressor"),
];

/// Reads the lead and both headers; the payload is the one member.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Listing> {
    read_window(Window::whole(&input))
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>) -> Result<Listing> {
    let len = input.len().map_err(|()| Error::new(0, "rpm", "an input of known length", "a read error"))?;
    let lead = input
        .read_bytes_at(0, LEAD_SIZE)
        .map_err(|()| Error::new(0, "rpm lead", "a 96-byte lead", format!("{len} bytes")))?;
    if lead[..4] != LEAD_MAGIC {
        return Err(Error::new(0, "rpm lead", "the magic ed ab ee db", format!("{:02x?}", &lead[..4])));
    }
    let mut listing = Listing::new("rpm");
    listing.field("lead_version", format!("{}.{}", lead[4], lead[5]), Some((4, 2)));
    let (_, signature_end) = header(input, LEAD_SIZE, len, "rpm signature header")?;
    let main = signature_end.next_multiple_of(8);
    let (tags, payload) = header(input, main, len, "rpm header")?;
    for (name, value, at) in tags {
        listing.field(name, value, Some(at));
    }
    listing.field("header_offset", main, None);
    let compressor = listing.fields.iter().find(|f| f.name == "payload_compressor");
    let compressor = compressor.map(|f| f.value.clone()).and_then(|v| match v {
        crate::tree::Value::Text(t) => Some(t),
        _ => None,
    });
    let name = format!("payload (cpio, {})", compressor.as_deref().unwrap_or("gzip"));
    let mut m = Member::new(name, EntryKind::File, (payload, 0), payload, len - payload);
    if payload == len {
        m.problem(Severity::Warning, (payload, 0), "the package has no payload after its header");
    }
    listing.members.push(m);
    Ok(listing)
}

/// Reads the header at `at`: the shown tags' values with where they are, and where it ends.
#[allow(clippy::type_complexity)]
fn header<'a, R: ReadRef<'a>>(
    input: R,
    at: u64,
    len: u64,
    context: &'static str,
) -> Result<(alloc::vec::Vec<(&'static str, String, (u64, u64))>, u64)> {
    let intro = input
        .read_bytes_at(at, 16)
        .map_err(|()| Error::new(at, context, "a 16-byte header intro", format!("{} bytes", len.saturating_sub(at))))?;
    if intro[..3] != HEADER_MAGIC {
        return Err(Error::new(at, context, "the magic 8e ad e8", format!("{:02x?}", &intro[..3])));
    }
    let (count, store_size) = (be(intro, 8, 4), be(intro, 12, 4));
    if count > MAX_ENTRIES {
        return Err(Error::new(at + 8, context, format!("at most {MAX_ENTRIES} index entries"), format!("{count}")));
    }
    let index_at = at + 16;
    let store_at = index_at + 16 * count;
    let end = store_at + store_size;
    if end > len {
        return Err(Error::new(
            at + 8,
            context,
            format!("an index and data store within the file ({} bytes after the intro)", len - index_at.min(len)),
            format!("{count} entries and a store of {store_size} bytes"),
        ));
    }
    let read = |o: u64, n: u64| {
        input.read_bytes_at(o, n).map_err(|()| Error::new(o, context, "readable bytes", "a read error"))
    };
    let index = read(index_at, 16 * count)?;
    let store = read(store_at, store_size)?;
    let mut found = alloc::vec::Vec::new();
    for i in 0..count as usize {
        let e = &index[16 * i..16 * i + 16];
        let (tag, kind, offset) = (be(e, 0, 4) as u32, be(e, 4, 4), be(e, 8, 4) as usize);
        let Some(&(_, name)) = TAGS.iter().find(|(t, _)| *t == tag) else { continue };
        if kind != 6 || offset >= store.len() {
            continue;
        }
        let text = &store[offset..];
        let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
        found.push((name, String::from_utf8_lossy(text).into_owned(), (store_at + offset as u64, text.len() as u64)));
    }
    Ok((found, end))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn header_bytes(tags: &[(u32, &str)]) -> Vec<u8> {
        let mut index = Vec::new();
        let mut store = Vec::new();
        for (tag, value) in tags {
            for v in [*tag, 6, store.len() as u32, 1] {
                index.extend_from_slice(&v.to_be_bytes());
            }
            store.extend_from_slice(value.as_bytes());
            store.push(0);
        }
        let mut h = Vec::from(&[0x8E, 0xAD, 0xE8, 1, 0, 0, 0, 0][..]);
        h.extend_from_slice(&(tags.len() as u32).to_be_bytes());
        h.extend_from_slice(&(store.len() as u32).to_be_bytes());
        h.extend(index);
        h.extend(store);
        h
    }

    /// An rpm whose payload is `payload`, compressed as `compressor` says.
    pub(crate) fn rpm(payload: &[u8], compressor: &str) -> Vec<u8> {
        let mut out = Vec::from(&LEAD_MAGIC[..]);
        out.extend_from_slice(&[3, 0, 0, 0, 0, 1]);
        out.resize(96, 0);
        out.extend(header_bytes(&[(1000, "sig")]));
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend(header_bytes(&[(1000, "hello"), (1001, "1.0"), (1124, "cpio"), (1125, compressor)]));
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn the_payload_is_the_member() {
        let r = rpm(b"PAYLOAD", "zstd");
        let l = read(&r[..]).unwrap();
        assert_eq!(l.members.len(), 1);
        let m = &l.members[0];
        assert_eq!(&r[m.data_offset as usize..], b"PAYLOAD");
        assert_eq!(m.name, "payload (cpio, zstd)");
        assert!(l.fields.iter().any(|f| f.name == "name" && f.value == crate::tree::Value::Text("hello".into())));
    }

    #[test]
    fn a_store_past_the_end_is_refused() {
        let mut r = rpm(b"", "gzip");
        r[96 + 12..96 + 16].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes());
        assert_eq!(read(&r[..]).unwrap_err().offset, 96 + 8);
        assert_eq!(read(&r[..50]).unwrap_err().offset, 0);
    }
}
