//! Reading a file on another site by HTTP range requests: the decisions both sides make from a
//! server's answers, and the workers' cache of extents and what they fetch ahead. Browser-free, so that
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

use offload::explore::fetch_plan::{read_ahead_end, MemberSpan, WINDOW};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

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

/// Bytes of one range request a worker makes when it makes several at once.
pub const PIECE: u64 = 4 << 20;
/// Bytes of one blocking range request a worker makes while reading ahead: larger than a
/// [`PIECE`], since each costs a round trip during which the worker does nothing (a 123 MB
/// library at 100 Mbit/s and 50 ms: 30 requests of 4 MiB, 8 of 16 MiB), small enough that the
/// bytes fetched are told every second or so at that rate.
pub const BLOCKING_PIECE: u64 = 16 << 20;
/// Extents of at most this many bytes are dropped from a worker's cache last ([`Extents::evict`]).
pub const SMALL_EXTENT: u64 = 64 << 10;
/// Most bytes a worker's cache keeps (a [`WINDOW`] read ahead and what was read before it).
pub const CACHE_BUDGET: u64 = 48 << 20;

/// What a worker fetches ahead of the explorer in a zip, as the core plans it
/// (`offload::explore::fetch_plan`, which the CLI follows too): the bytes it will read of each
/// member, and the members' spans for reads beyond that.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadPlan {
    /// The bytes planned, `(start, end)` by start.
    planned: Vec<(u64, u64)>,
    /// The members' stored bytes, by start.
    members: Vec<MemberSpan>,
}

impl ReadPlan {
    /// A plan from the `(start, size)` of the bytes the explorer reads of each member and the
    /// members' spans.
    pub fn new(reads: &[(u64, u64)], mut members: Vec<MemberSpan>) -> ReadPlan {
        let mut planned: Vec<(u64, u64)> =
            reads.iter().filter(|r| r.1 > 0).map(|&(start, size)| (start, start.saturating_add(size))).collect();
        planned.sort_unstable();
        members.sort_unstable();
        ReadPlan { planned, members }
    }

    /// Where a fetch that must start at `first` to serve a read ending at `stop` runs to:
    /// through the planned bytes holding `first` (a [`WINDOW`] at most: the explorer reads
    /// them in order, the rest is fetched as it comes), else by the core's rule for reads
    /// beyond the plan.
    pub fn fetch_end(&self, first: u64, stop: u64, sequential: bool) -> u64 {
        let i = self.planned.partition_point(|&(start, _)| start <= first);
        match i.checked_sub(1).map(|i| self.planned[i]) {
            Some((_, end)) if first < end => end.min(first.saturating_add(WINDOW)).max(stop),
            _ => read_ahead_end(&self.members, first, stop, sequential),
        }
    }
}

/// The bytes a worker has fetched of a remote file, by where they start, never overlapping
/// (only what is missing is fetched); the oldest dropped first beyond a budget.
#[derive(Default)]
pub struct Extents {
    by_start: BTreeMap<u64, Vec<u8>>,
    order: VecDeque<u64>,
    /// Bytes held.
    pub bytes: u64,
}

impl Extents {
    /// Keeps `bytes` fetched at `start`.
    pub fn insert(&mut self, start: u64, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        self.bytes += bytes.len() as u64;
        match self.by_start.insert(start, bytes) {
            Some(old) => self.bytes -= old.len() as u64,
            None => self.order.push_back(start),
        }
    }

    /// The end of the extent holding the byte at `at`, if one does.
    fn covering(&self, at: u64) -> Option<u64> {
        let (start, bytes) = self.by_start.range(..=at).next_back()?;
        Some(start + bytes.len() as u64).filter(|&end| end > at)
    }

    /// The parts of `start..end` no extent holds.
    pub fn gaps(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = start;
        while at < end {
            match self.covering(at) {
                Some(stop) => at = stop,
                None => {
                    let next = self.by_start.range(at..end).next().map_or(end, |(&s, _)| s);
                    gaps.push((at, next));
                    at = next;
                }
            }
        }
        gaps
    }

    /// Bytes `start..end`, as far as the extents hold them from `start` on.
    pub fn copy(&self, start: u64, end: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(end.saturating_sub(start) as usize);
        let mut at = start;
        while at < end {
            let Some((&s, bytes)) = self.by_start.range(..=at).next_back() else { break };
            let stop = (s + bytes.len() as u64).min(end);
            if stop <= at {
                break;
            }
            out.extend_from_slice(&bytes[(at - s) as usize..(stop - s) as usize]);
            at = stop;
        }
        out
    }

    /// The parts of `start..end` the extents hold, `(start, bytes)` in order.
    pub fn held_within(&self, start: u64, end: u64) -> Vec<(u64, Vec<u8>)> {
        let mut held = Vec::new();
        let mut at = start;
        for (gap_start, gap_end) in self.gaps(start, end).into_iter().chain([(end, end)]) {
            if at < gap_start {
                held.push((at, self.copy(at, gap_start)));
            }
            at = gap_end;
        }
        held
    }

    /// Drops the oldest extents until at most `budget` bytes are kept: first those over
    /// [`SMALL_EXTENT`] bytes, then, if that is not enough, the small ones (a zip's local headers,
    /// whose fields the tree reads again after its members' bytes went through the cache: each
    /// dropped one would be fetched again, a round trip for a few dozen bytes).
    pub fn evict(&mut self, budget: u64) {
        // Called after every read: nothing to walk while within the budget.
        if self.bytes <= budget {
            return;
        }
        for small in [false, true] {
            let mut kept = VecDeque::with_capacity(self.order.len());
            while let Some(start) = self.order.pop_front() {
                let size = self.by_start.get(&start).map_or(0, |b| b.len() as u64);
                if self.bytes > budget && (small || size > SMALL_EXTENT) {
                    if let Some(old) = self.by_start.remove(&start) {
                        self.bytes -= old.len() as u64;
                    }
                } else {
                    kept.push_back(start);
                }
            }
            self.order = kept;
        }
    }
}

/// The first of `reads` (`(start, size)`, in the order they are read) as long as they add up to
/// at most `budget` bytes: the first that would pass it, and those after it, are left out
/// (fetched ahead of them, reads further on could be dropped from a cache of that budget
/// before they are read, and fetched again).
pub fn reads_within(reads: &[(u64, u64)], budget: u64) -> Vec<(u64, u64)> {
    let mut total = 0u64;
    reads
        .iter()
        .take_while(|&&(_, size)| {
            total = total.saturating_add(size);
            total <= budget
        })
        .copied()
        .collect()
}

/// `start..stop` cut into [`PIECE`]s: one request each.
pub fn pieces(start: u64, stop: u64) -> Vec<(u64, u64)> {
    pieces_of(start, stop, PIECE)
}

/// `start..stop` cut into pieces of `piece` bytes (the last one shorter).
pub fn pieces_of(start: u64, stop: u64, piece: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = start;
    while at < stop {
        let end = stop.min(at.saturating_add(piece.max(1)));
        out.push((at, end));
        at = end;
    }
    out
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
    fn extents_find_gaps_copy_across_pieces_and_drop_the_oldest() {
        let mut e = Extents::default();
        e.insert(10, vec![1; 10]);
        e.insert(30, vec![2; 10]);
        assert_eq!(e.gaps(0, 50), vec![(0, 10), (20, 30), (40, 50)]);
        assert_eq!(e.gaps(12, 18), vec![]);
        e.insert(20, vec![3; 10]);
        assert_eq!(e.copy(15, 35), [vec![1; 5], vec![3; 10], vec![2; 5]].concat());
        e.evict(15);
        assert_eq!(e.bytes, 10);
        assert_eq!(e.gaps(10, 40), vec![(10, 20), (30, 40)]);
        // What is not held is not made up.
        assert_eq!(e.copy(25, 35), vec![3; 5]);
        assert_eq!(e.held_within(5, 45), vec![(20, vec![3; 10])]);
        assert_eq!(e.held_within(22, 24), vec![(22, vec![3; 2])]);
        assert!(e.held_within(30, 40).is_empty());
        // A large extent goes before older small ones.
        let large = SMALL_EXTENT as usize + 1;
        e.insert(1_000, vec![4; large]);
        e.insert(0, vec![5; 5]);
        e.evict(20);
        assert_eq!((e.bytes, e.gaps(0, 30)), (15, vec![(5, 20)]));
    }

    #[test]
    fn reads_are_taken_in_order_within_a_budget() {
        let reads = [(0, 10), (100, 20), (50, 5), (200, 1)];
        assert_eq!(reads_within(&reads, 30), vec![(0, 10), (100, 20)]);
        // The one that passes the budget stops the rest, smaller ones after it too.
        assert_eq!(reads_within(&reads, 34), vec![(0, 10), (100, 20)]);
        assert_eq!(reads_within(&reads, 36), reads.to_vec());
        assert!(reads_within(&reads, 9).is_empty());
    }

    #[test]
    fn planned_bytes_are_fetched_through_and_the_rest_by_the_cores_rule() {
        let library = MemberSpan { start: 1_000, size: 3 * WINDOW, library: true };
        let data = MemberSpan { start: 200, size: 600, library: false };
        let plan = ReadPlan::new(&[(1_000, 3 * WINDOW), (200, 512), (900, 0)], vec![library, data]);
        // Inside a planned span: through it, a window at most.
        assert_eq!(plan.fetch_end(1_010, 1_020, false), 1_010 + WINDOW);
        assert_eq!(plan.fetch_end(300, 310, false), 712);
        // Past the plan in a member not named as a library: exactly what is read, unless the
        // inflater reads in order.
        assert_eq!(plan.fetch_end(750, 760, false), 760);
        assert_eq!(plan.fetch_end(750, 760, true), 800);
        // Outside every member: exact.
        assert_eq!(plan.fetch_end(0, 30, true), 30);
        assert_eq!(pieces(0, PIECE + 1), vec![(0, PIECE), (PIECE, PIECE + 1)]);
        assert_eq!(pieces_of(10, 30, 16), vec![(10, 26), (26, 30)]);
    }
}
