//! gzip streams (RFC 1952): `.tar.gz`, `.tgz`, a `.deb`'s `data.tar.gz`, gzip rpm payloads.
//! Decompressed in full within a limit; members written back to back (as `cat a.gz b.gz`
//! makes) are decompressed one after another.
//!
//! # Byte layout
//!
//! | offset | size | field                                                          |
//! |-------:|-----:|----------------------------------------------------------------|
//! | 0      | 2    | magic `1F 8B`                                                  |
//! | 2      | 1    | method: 8 (deflate)                                            |
//! | 3      | 1    | flags: 1 text, 2 header CRC, 4 extra, 8 name, 16 comment       |
//! | 4      | 4    | modification time                                              |
//! | 8      | 1    | extra flags                                                    |
//! | 9      | 1    | operating system                                               |
//! | 10     |      | with flag 4: u16 length, then that many bytes of extra field    |
//! |        |      | with flag 8: the original file name, NUL-terminated            |
//! |        |      | with flag 16: a comment, NUL-terminated                        |
//! |        |      | with flag 2: u16 CRC of the header                             |
//! |        |      | raw deflate data                                               |
//! | end-8  | 4    | CRC-32 of the uncompressed data                                |
//! | end-4  | 4    | uncompressed size modulo 2^32                                  |

use super::le;
use crate::codec;
use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The first three bytes of a gzip member (magic and the deflate method).
pub const MAGIC: [u8; 3] = [0x1F, 0x8B, 8];

/// What a gzip member's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The original file name, if stored.
    pub name: Option<String>,
    /// Where the deflate data starts.
    pub size: usize,
}

/// Reads the header of the gzip member at the start of `data`.
pub fn header(data: &[u8]) -> Result<Header> {
    const CONTEXT: &str = "gzip header";
    if data.len() < 10 {
        return Err(Error::new(0, CONTEXT, "a 10-byte header", format!("{} bytes", data.len())));
    }
    if data[..3] != MAGIC {
        return Err(Error::new(0, CONTEXT, "1f 8b 08 (gzip, deflate)", format!("{:02x?}", &data[..3])));
    }
    let flags = data[3];
    if flags & 0xE0 != 0 {
        return Err(Error::new(3, CONTEXT, "flags below 0x20", format!("{flags:#04x}")));
    }
    let mut pos = 10usize;
    let past = |pos: usize, what: &str| Error::new(pos as u64, CONTEXT, format!("{what} within the data"), "the end");
    if flags & 4 != 0 {
        let n = data.get(pos..pos + 2).map(|b| le(b, 0, 2) as usize).ok_or_else(|| past(pos, "an extra length"))?;
        pos = pos.checked_add(2 + n).filter(|&p| p <= data.len()).ok_or_else(|| past(pos, "the extra field"))?;
    }
    let mut name = None;
    if flags & 8 != 0 {
        let end = data[pos..].iter().position(|&b| b == 0).ok_or_else(|| past(pos, "a NUL-terminated name"))?;
        name = Some(String::from_utf8_lossy(&data[pos..pos + end]).into_owned());
        pos += end + 1;
    }
    if flags & 16 != 0 {
        let end = data[pos..].iter().position(|&b| b == 0).ok_or_else(|| past(pos, "a NUL-terminated comment"))?;
        pos += end + 1;
    }
    if flags & 2 != 0 {
        pos = pos.checked_add(2).filter(|&p| p <= data.len()).ok_or_else(|| past(pos, "a header CRC"))?;
    }
    Ok(Header { name, size: pos })
}

/// Decompresses every gzip member of `data`, handing the output to `sink`; an error as soon as
/// more than `limit` bytes come out in all. The size in each trailer must match what its member
/// gave (modulo 2^32); bytes after the last member must be zero padding (as tape tools leave).
/// Returns how many bytes came out.
pub fn decode(data: &[u8], limit: u64, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    let mut total = 0u64;
    let mut pos = 0usize;
    while pos < data.len() {
        if pos > 0 && data[pos..].iter().all(|&b| b == 0) {
            break;
        }
        let rest = &data[pos..];
        let h = header(rest).map_err(|e| e.shifted(pos as u64))?;
        let (used, produced) = codec::inflate_raw_chunks(&rest[h.size..], limit - total, sink)
            .map_err(|e| e.shifted((pos + h.size) as u64))?;
        let trailer_at = pos + h.size + used;
        let trailer = data.get(trailer_at..trailer_at + 8).ok_or_else(|| {
            Error::new(trailer_at as u64, "gzip trailer", "8 bytes (CRC-32, size)", "the end of the data")
        })?;
        let isize = le(trailer, 4, 4);
        if isize != produced & 0xFFFF_FFFF {
            return Err(Error::new(
                trailer_at as u64 + 4,
                "gzip trailer",
                format!("the size of the member's data modulo 2^32, {}", produced & 0xFFFF_FFFF),
                format!("{isize}"),
            ));
        }
        total += produced;
        pos = trailer_at + 8;
    }
    Ok(total)
}

/// Decompresses every gzip member of `data` into at most `limit` bytes (see [`decode`]). The
/// last trailer's size is taken as the size to expect, so that the output is allocated once;
/// when the data expands past it (several members, 4 GiB or more, or a trailer that lies), the
/// data is decoded once to count, then again, so a bomb fails before any of it is held.
pub fn decompress(data: &[u8], limit: u64) -> Result<Vec<u8>> {
    let hint = data.len().checked_sub(4).map_or(0, |at| le(data, at, 4));
    if hint <= limit {
        let mut out = Vec::new();
        let mut sink = |chunk: &[u8]| {
            if out.len() + chunk.len() <= hint as usize {
                out.extend_from_slice(chunk);
            }
        };
        if decode(data, hint, &mut sink).is_ok_and(|n| n == out.len() as u64) {
            return Ok(out);
        }
    }
    let size = decode(data, limit, &mut |_| {})?;
    let mut out = Vec::with_capacity(size as usize);
    decode(data, size, &mut |chunk| out.extend_from_slice(chunk))?;
    Ok(out)
}

#[cfg(all(test, feature = "zlib"))]
pub(crate) mod tests {
    use super::*;

    /// `data` as one gzip member (no name), compressed with miniz_oxide.
    pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::from(&[0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3][..]);
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        out.extend_from_slice(&0u32.to_le_bytes()); // CRC-32: not checked here
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn members_back_to_back_are_joined() {
        let mut two = gzip(b"hello ");
        two.extend(gzip(b"world"));
        assert_eq!(decompress(&two, 1 << 20).unwrap(), b"hello world");
    }

    #[test]
    fn a_name_is_read_and_skipped() {
        let mut g = gzip(b"abc");
        g[3] = 8;
        g.splice(10..10, *b"x.tar\0");
        assert_eq!(header(&g).unwrap().name.as_deref(), Some("x.tar"));
        assert_eq!(decompress(&g, 100).unwrap(), b"abc");
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let g = gzip(&alloc::vec![0u8; 1 << 20]);
        let e = decompress(&g, 4096).unwrap_err();
        assert!(e.to_string().contains("at most 4096"), "{e}");
    }

    #[test]
    fn a_wrong_size_in_the_trailer_is_refused() {
        let mut g = gzip(b"abc");
        let n = g.len();
        g[n - 4] = 9;
        assert_eq!(decompress(&g, 100).unwrap_err().offset, n as u64 - 4);
    }

    #[test]
    fn truncation_is_reported() {
        let g = gzip(b"some text that compresses");
        assert!(decompress(&g[..g.len() - 3], 100).is_err());
        assert!(decompress(&g[..6], 100).is_err());
    }
}
