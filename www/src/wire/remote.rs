//! Reading a file on another site by HTTP range requests: the decisions both sides make from a
//! server's answers, and the block arithmetic of the workers' cache. Browser-free, so that
//! `cargo test` checks it natively; the requests themselves are made by the page
//! (`page::remote`, async `fetch`) and the workers (`worker::remote`, synchronous
//! `XMLHttpRequest`).
//!
//! What real hosts do, and what is done about it:
//!
//! | host behaviour | answer |
//! |---|---|
//! | a range answered 206 | read by ranges |
//! | `Content-Range` hidden from pages (CORS without `Access-Control-Expose-Headers`) | the size from a plain GET's `Content-Length` (a CORS-safelisted header), aborted after the headers |
//! | a range answered 200 (no range support), or encoded (`Content-Encoding: gzip`) | the whole file read as one stream, as before |
//! | suffix (`bytes=-N`) and multi-range requests refused | never sent: every request is one `bytes=START-END` |
//! | a signed URL that expires (403 after it worked) | resolved again from the original address |

use serde::{Deserialize, Serialize};

/// A file on another site, as the workers read it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct RemoteFile {
    /// The address the user gave (a redirect's target is resolved again from it when it
    /// expires).
    pub url: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// The header asking for bytes `start..end` (end exclusive) of a file: one closed range, never
/// a suffix range (the package index's file host refuses `bytes=-N` with 501) nor several.
/// `None` for an empty range, which has no such header.
pub fn range_header(start: u64, end: u64) -> Option<String> {
    (end > start).then(|| format!("bytes={start}-{}", end - 1))
}

/// `Content-Range: bytes START-LAST/SIZE` as (start, end exclusive, size when the server says
/// it, not `*`).
pub fn parse_content_range(value: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, size) = rest.split_once('/')?;
    let (first, last) = range.trim().split_once('-')?;
    let (first, last): (u64, u64) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    let size = match size.trim() {
        "*" => None,
        s => Some(s.parse().ok()?),
    };
    if last < first || size.is_some_and(|s| last >= s) {
        return None;
    }
    Some((first, last.checked_add(1)?, size))
}

/// What the answer to the first range request (`bytes=0-N`) says about reading the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Ranges are served; the size, when `Content-Range` could be read.
    Ranges { size: Option<u64> },
    /// The server sent the whole file (no range support) or an encoded body: read it whole, as
    /// one stream, from this very answer.
    Whole { why: WholeWhy },
    /// The server refused: this message says what it answered.
    Refused(String),
}

/// Why a file is read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WholeWhy {
    /// The range was answered with the whole file (200).
    NoRanges,
    /// The answer was encoded (gzip, ...): its bytes are not the file's at those offsets.
    Encoded,
    /// The size the host gave (`HEAD`, or a plain GET's `Content-Length`) is not the file's:
    /// a host that compresses whole answers on the way gives the compressed length.
    SizeUnsure,
}

impl WholeWhy {
    /// What the progress panel says.
    pub fn text(self) -> &'static str {
        match self {
            WholeWhy::NoRanges => "read whole: the host does not serve ranges",
            WholeWhy::Encoded => "read whole: the host does not serve ranges (it sends the file compressed on the way)",
            WholeWhy::SizeUnsure => {
                "read whole: the host serves ranges but the size it gives is not the file's (it compresses whole answers on the way)"
            }
        }
    }
}

/// Decides from the first range answer's status and headers (`None` where absent or hidden
/// from the page) how the file is read.
pub fn probe(status: u16, content_range: Option<&str>, content_encoding: Option<&str>) -> Probe {
    let encoded = content_encoding.is_some_and(|e| !e.trim().is_empty() && !e.trim().eq_ignore_ascii_case("identity"));
    match status {
        206 if encoded => Probe::Whole { why: WholeWhy::Encoded },
        206 => Probe::Ranges { size: content_range.and_then(parse_content_range).and_then(|(_, _, size)| size) },
        200 if encoded => Probe::Whole { why: WholeWhy::Encoded },
        200 => Probe::Whole { why: WholeWhy::NoRanges },
        // An empty file has no byte 0 to ask for.
        416 => match content_range.and_then(|v| v.trim().strip_prefix("bytes */").map(str::trim)) {
            Some("0") => Probe::Ranges { size: Some(0) },
            _ => Probe::Refused(format!("expected the file's first bytes, the server answered HTTP {status}")),
        },
        _ => Probe::Refused(format!("the server answered HTTP {status} instead of the file")),
    }
}

/// The range that confirms a size learnt from a `Content-Length` (which may be that of a
/// compressed answer): the file's last byte and the one after it. A file of exactly `size`
/// bytes answers with one byte (`206`, `Content-Length: 1`); a longer one with two, a shorter
/// one with fewer or `416`. `None` for an empty file.
pub fn size_check_range(size: u64) -> Option<(u64, u64)> {
    (size > 0).then(|| (size - 1, size + 1))
}

/// Whether the answer to [`size_check_range`] confirms the size: `206` with one byte.
pub fn size_confirmed(status: u16, received: u64) -> bool {
    status == 206 && received == 1
}

/// Checks a range answer in a worker: `Ok` when `got` bytes with `status` are the bytes
/// `start..end` asked for (fewer at the file's end are not expected: the reader never asks
/// past it).
pub fn check_range_answer(status: u16, start: u64, end: u64, got: u64) -> Result<(), String> {
    match status {
        206 if got == end - start => Ok(()),
        206 => Err(format!("expected {} bytes at offset {start} from the server, received {got}", end - start)),
        200 => Err(format!(
            "the server stopped serving ranges: asked for bytes {start}..{end}, it sent the whole file ({got} bytes)"
        )),
        _ => Err(format!("the server answered HTTP {status} to a request for bytes {start}..{end}")),
    }
}

/// Whether a failed range request is worth one more try from the original address: a signed
/// URL the original redirected to has expired (403, 401, 410 from a resolved address).
pub fn resolve_again(status: u16, resolved_differs: bool) -> bool {
    resolved_differs && matches!(status, 401 | 403 | 410)
}

/// Bytes in a block of the workers' cache: the unit of every range request.
pub const BLOCK: u64 = 4 << 20;
/// Blocks fetched in one request once reads go forward block after block (read-ahead).
pub const READ_AHEAD_BLOCKS: u64 = 4;
/// Blocks the cache holds: reads within a few blocks of each other do not fetch again.
pub const CACHED_BLOCKS: usize = 8;

/// The blocks holding bytes `offset..offset + len` of a file of `size` bytes, as a range of
/// block numbers (empty when nothing of the file is asked for).
pub fn blocks_for(offset: u64, len: u64, size: u64) -> std::ops::Range<u64> {
    let end = offset.saturating_add(len).min(size);
    if offset >= end {
        return 0..0;
    }
    offset / BLOCK..end.div_ceil(BLOCK)
}

/// The bytes of block `index` in a file of `size` bytes (the last block is shorter).
pub fn block_bytes(index: u64, size: u64) -> std::ops::Range<u64> {
    let start = index.saturating_mul(BLOCK).min(size);
    start..start.saturating_add(BLOCK).min(size)
}

/// The blocks to fetch in one request for a read that needs `first..last` (block numbers, end
/// exclusive) of which `first` is missing: every needed one (cached or not, one request is
/// cheaper than two), and when the reader goes forward (`previous` fetched block was just
/// before `first`) up to [`READ_AHEAD_BLOCKS`] in all, within the file's `blocks`.
pub fn blocks_to_fetch(first: u64, last: u64, previous: Option<u64>, blocks: u64) -> std::ops::Range<u64> {
    let forward = previous.is_some_and(|p| p.checked_add(1) == Some(first));
    let ahead = if forward { first.saturating_add(READ_AHEAD_BLOCKS) } else { first + 1 };
    first..last.max(ahead).min(blocks).max(first.min(blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_closed_and_single() {
        assert_eq!(range_header(0, 1024).as_deref(), Some("bytes=0-1023"));
        assert_eq!(range_header(5, 6).as_deref(), Some("bytes=5-5"));
        assert_eq!(range_header(7, 7), None);
    }

    #[test]
    fn content_ranges_are_read_and_checked() {
        assert_eq!(parse_content_range("bytes 0-99/1234"), Some((0, 100, Some(1234))));
        assert_eq!(parse_content_range("bytes 10-19/*"), Some((10, 20, None)));
        assert_eq!(parse_content_range("bytes 10-9/100"), None);
        assert_eq!(parse_content_range("bytes 0-100/100"), None);
        assert_eq!(parse_content_range("bytes */100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
    }

    #[test]
    fn the_first_answer_decides_how_the_file_is_read() {
        assert_eq!(probe(206, Some("bytes 0-65535/600000000"), None), Probe::Ranges { size: Some(600_000_000) });
        // CORS without exposed headers: ranges, size still to learn.
        assert_eq!(probe(206, None, None), Probe::Ranges { size: None });
        assert_eq!(probe(206, None, Some("identity")), Probe::Ranges { size: None });
        assert_eq!(probe(200, None, None), Probe::Whole { why: WholeWhy::NoRanges });
        assert_eq!(probe(200, None, Some("gzip")), Probe::Whole { why: WholeWhy::Encoded });
        assert_eq!(probe(206, Some("bytes 0-9/10"), Some("gzip")), Probe::Whole { why: WholeWhy::Encoded });
        assert_eq!(probe(416, Some("bytes */0"), None), Probe::Ranges { size: Some(0) });
        assert!(matches!(probe(416, Some("bytes */5"), None), Probe::Refused(_)));
        assert_eq!(probe(404, None, None), Probe::Refused("the server answered HTTP 404 instead of the file".into()));
    }

    #[test]
    fn sizes_from_a_content_length_are_confirmed() {
        assert_eq!(size_check_range(14492), Some((14491, 14493)));
        assert_eq!(range_header(14491, 14493).as_deref(), Some("bytes=14491-14492"));
        assert_eq!(size_check_range(0), None);
        assert!(size_confirmed(206, 1));
        // The gzip length of a 14,492-byte file (14,133): two bytes come back, not one.
        assert!(!size_confirmed(206, 2));
        assert!(!size_confirmed(416, 0));
        assert!(!size_confirmed(200, 14492));
    }

    #[test]
    fn range_answers_are_checked() {
        assert_eq!(check_range_answer(206, 100, 200, 100), Ok(()));
        assert!(check_range_answer(206, 100, 200, 99).unwrap_err().contains("expected 100 bytes at offset 100"));
        assert!(check_range_answer(200, 0, 10, 5000).unwrap_err().contains("stopped serving ranges"));
        assert!(check_range_answer(403, 0, 10, 0).unwrap_err().contains("HTTP 403"));
        assert!(resolve_again(403, true));
        assert!(!resolve_again(403, false));
        assert!(!resolve_again(404, true));
    }

    #[test]
    fn block_arithmetic() {
        let size = 10 * BLOCK + 5;
        assert_eq!(blocks_for(0, 10, size), 0..1);
        assert_eq!(blocks_for(BLOCK - 1, 2, size), 0..2);
        assert_eq!(blocks_for(BLOCK, BLOCK, size), 1..2);
        assert_eq!(blocks_for(size - 1, 100, size), 10..11);
        assert_eq!(blocks_for(size, 1, size), 0..0);
        assert_eq!(blocks_for(3, 0, size), 0..0);
        assert_eq!(block_bytes(10, size), 10 * BLOCK..size);
        assert_eq!(block_bytes(2, size), 2 * BLOCK..3 * BLOCK);
        assert_eq!(block_bytes(11, size), size..size);
    }

    #[test]
    fn read_ahead_only_going_forward() {
        // A first read, or a jump: the blocks needed, no more.
        assert_eq!(blocks_to_fetch(3, 4, None, 11), 3..4);
        assert_eq!(blocks_to_fetch(3, 4, Some(7), 11), 3..4);
        assert_eq!(blocks_to_fetch(3, 6, Some(0), 11), 3..6);
        // Forward: read ahead, never past the file.
        assert_eq!(blocks_to_fetch(3, 4, Some(2), 11), 3..3 + READ_AHEAD_BLOCKS);
        assert_eq!(blocks_to_fetch(9, 10, Some(8), 11), 9..11);
        assert_eq!(blocks_to_fetch(3, 10, Some(2), 11), 3..10);
        assert_eq!(blocks_to_fetch(11, 11, Some(10), 11), 11..11);
    }
}
