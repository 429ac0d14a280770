//! What a reader of a remote file fetches for the explorer, decided here once for every host
//! (the CLI's reader over threads, the page's workers over synchronous requests), so that both
//! fetch the same bytes of the same file. Only the decisions live here, no networking: which
//! spans, from the explorer's own read sizes ([`HEAD`], [`STORED_HEAD`]).
//!
//! Of a zip (a wheel), in this order:
//!
//! | step | what is fetched | decided by |
//! |---|---|---|
//! | 1 | the end records and the central directory, exactly as the zip reader reads them | `zip::central_members` |
//! | 2 | the local headers of the members explored, with the small members read whole that lie between two of them | [`FirstFetch::headers`] |
//! | 3 | what the explorer reads of each member explored, in the order it reads them: all of a deflated library, the first bytes of anything else | [`planned_read`] |
//! | 4 | reads beyond that plan inside a member: from the read to the member's end or [`WINDOW`] further, whichever is nearer, when the inflater reads in order or the member is named as a library; else exactly what is read | [`read_ahead_end`] |
//!
//! Anything else (a raw ELF's headers and offload sections) is fetched exactly as read.
//! Steps 3 may start from the central directory alone ([`FirstFetch::guessed`]) for members
//! whose data certainly lies where it says, while the local headers are fetched.

use crate::format::package::{Compression, Member};
use alloc::vec::Vec;

/// Bytes asked for by a reader's first request, which tells whether the host serves ranges and
/// the file's size (every host asks the same, so that the first request fetches the same bytes).
pub const PROBE: u64 = 4096;
/// Bytes of a member the explorer looks at to tell what it is: a tar's magic is at 257.
pub const HEAD: u64 = 512;
/// Stored bytes of a deflated member the explorer reads to inflate its first [`HEAD`] bytes: a
/// deflate block's header and tables take far less.
pub const STORED_HEAD: u64 = 64 << 10;
/// Bytes fetched ahead of a read inside a member that is read in order (step 4).
pub const WINDOW: u64 = 32 << 20;
/// A read of at least this many bytes of a member is the inflater's, which reads a member's
/// stored bytes in order.
pub const SEQUENTIAL_READ: u64 = 256 << 10;

/// Where a member's stored bytes lie, and whether its name says it is a library (its bytes are
/// read ahead from its first read on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MemberSpan {
    pub start: u64,
    pub size: u64,
    pub library: bool,
}

impl MemberSpan {
    /// The span of a member's stored bytes.
    pub fn new(name: &str, data_offset: u64, stored_size: u64) -> MemberSpan {
        MemberSpan { start: data_offset, size: stored_size, library: named_as_library(name) }
    }

    fn end(&self) -> u64 {
        self.start.saturating_add(self.size)
    }
}

/// What is fetched of a zip once its central directory is read (steps 2 and 3 above), as
/// `(start, size)` spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FirstFetch {
    /// The bytes the explorer will read of each member explored, in its order, where the
    /// directory alone says where they lie; `(0, 0)` for the others (their place is kept, so
    /// that members are numbered as in the listing's plan).
    pub guessed: Vec<(u64, u64)>,
    /// The local headers of the members explored, and the small members read whole that lie
    /// right after their header.
    pub headers: Vec<(u64, u64)>,
}

/// What to fetch of a zip whose central directory (starting at `directory_start`) lists
/// `directory`, before its local headers are read.
pub fn first_fetch(directory: &[Member], directory_start: u64) -> FirstFetch {
    let starts = header_starts(directory, directory_start);
    let mut first = FirstFetch::default();
    for m in directory.iter().filter(|m| m.is_explored(true)) {
        let read = planned_read(&m.name, m.stored_size, m.compression);
        let certain = runs_to_next_header(m, &starts);
        first.guessed.push(if certain { (m.data_offset, read) } else { (0, 0) });
        first.headers.push(m.header);
        if certain && m.stored_size <= STORED_HEAD && read == m.stored_size {
            first.headers.push((m.data_offset, m.stored_size));
        }
    }
    first
}

/// The bytes the explorer reads of the members `listed` explores (with names skipped as text),
/// in its order, as `(start, size)`; and the members' spans, by start, for [`read_ahead_end`].
pub fn planned(listed: &[Member]) -> (Vec<(u64, u64)>, Vec<MemberSpan>) {
    let explored = listed.iter().filter(|m| m.is_explored(true));
    let reads = explored.clone().map(|m| (m.data_offset, planned_read(&m.name, m.stored_size, m.compression)));
    let mut spans: Vec<MemberSpan> = explored.map(|m| MemberSpan::new(&m.name, m.data_offset, m.stored_size)).collect();
    spans.sort_unstable();
    (reads.collect(), spans)
}

/// What the explorer reads of a member's stored bytes: all of a deflated library's (it is
/// inflated whole: its section headers sit at its end), the first bytes of anything else (a
/// stored library's headers and offload sections are read where they lie, as asked).
pub fn planned_read(name: &str, stored_size: u64, compression: Compression) -> u64 {
    match compression {
        Compression::Deflate if named_as_library(name) => stored_size,
        Compression::Deflate => stored_size.min(STORED_HEAD),
        _ => stored_size.min(HEAD),
    }
}

/// Where a fetch that must start at `start` (to serve a read ending at `stop`) runs to: within
/// a member of `members` (sorted by start), to the member's end or [`WINDOW`] further,
/// whichever is nearer (never less than `stop`), when the read is the inflater's
/// (`sequential`) or the member is named as a library; else `stop`.
pub fn read_ahead_end(members: &[MemberSpan], start: u64, stop: u64, sequential: bool) -> u64 {
    let index = members.partition_point(|m| m.start <= start);
    let Some(member) = index.checked_sub(1).and_then(|i| members.get(i)) else { return stop };
    if start >= member.end() || !(sequential || member.library) {
        return stop;
    }
    member.end().min(start.saturating_add(WINDOW)).max(stop)
}

/// `(start, size)` spans as sorted `(start, end)` ranges within a file of `size` bytes, those
/// touching or overlapping merged: what is asked for in one request each.
pub fn merged(mut spans: Vec<(u64, u64)>, size: u64) -> Vec<(u64, u64)> {
    spans.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (at, length) in spans {
        let end = at.saturating_add(length).min(size);
        if at >= end {
            continue;
        }
        match out.last_mut() {
            Some(last) if at <= last.1 => last.1 = last.1.max(end),
            _ => out.push((at, end)),
        }
    }
    out
}

/// Whether a member's name is a library's, an object's or device code's: its stored bytes are
/// read ahead from its first read on, not only once the inflater reads in order.
pub fn named_as_library(name: &str) -> bool {
    const ENDINGS: &[&str] =
        &[".so", ".o", ".a", ".dylib", ".dll", ".pyd", ".co", ".hsaco", ".cubin", ".fatbin", ".hipfb", ".kpack", ".bc"];
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    ENDINGS.iter().any(|e| base.ends_with(e)) || base.contains(".so.")
}

/// Where every local header starts, and the central directory, in order.
fn header_starts(directory: &[Member], directory_start: u64) -> Vec<u64> {
    let mut starts: Vec<u64> = directory.iter().map(|m| m.header.0).collect();
    starts.push(directory_start);
    starts.sort_unstable();
    starts
}

/// Whether a member's data, placed by the central directory, runs exactly to the next local
/// header (or the directory): then its local header has no extra field of its own and no data
/// descriptor follows, and its data is where the directory says.
fn runs_to_next_header(m: &Member, starts: &[u64]) -> bool {
    let next = starts.partition_point(|&s| s <= m.header.0);
    starts.get(next) == Some(&m.data_offset.saturating_add(m.stored_size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::package::zip;

    /// A zip of `(name, stored bytes, deflated)` members, written by hand: local header (30
    /// bytes and the name), data, then the central directory and its end record.
    fn zip_of(members: &[(&str, usize, bool)]) -> Vec<u8> {
        let (mut out, mut central) = (Vec::new(), Vec::new());
        for &(name, size, deflated) in members {
            let offset = out.len() as u32;
            let method: u16 = if deflated { 8 } else { 0 };
            let mut local = Vec::new();
            local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            local.extend_from_slice(&[20, 0, 0, 0]);
            local.extend_from_slice(&method.to_le_bytes());
            local.extend_from_slice(&[0; 8]);
            local.extend_from_slice(&(size as u32).to_le_bytes());
            local.extend_from_slice(&(size as u32).to_le_bytes());
            local.extend_from_slice(&(name.len() as u16).to_le_bytes());
            local.extend_from_slice(&[0, 0]);
            out.extend_from_slice(&local);
            out.extend_from_slice(name.as_bytes());
            out.extend(core::iter::repeat_n(0x7f, size));
            central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            central.extend_from_slice(&[20, 0]);
            central.extend_from_slice(&local[4..30]);
            central.extend_from_slice(&[0; 10]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let (start, count) = (out.len() as u32, members.len() as u16);
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    #[test]
    fn a_wheel_plans_its_libraries_whole_and_the_heads_of_the_rest() {
        let bytes = zip_of(&[
            ("pkg/__init__.py", 100, true),
            ("pkg/_C.so", 200_000, true),
            ("pkg/data.bin", 100_000, false),
            ("pkg/kernels.bin", 90_000, true),
            ("pkg/small.o", 1_000, true),
        ]);
        let (directory, directory_start) = zip::central_members(&bytes[..]).expect("the zip reads");
        let first = first_fetch(&directory, directory_start);
        let at = |name: &str| directory.iter().find(|m| m.name == name).expect("listed").clone();
        let (so, data, kernels, small) =
            (at("pkg/_C.so"), at("pkg/data.bin"), at("pkg/kernels.bin"), at("pkg/small.o"));
        // The `.py` is skipped by name; the library whole; the stored member's HEAD; the
        // deflated one's STORED_HEAD; the small library whole, with its header, in one span.
        assert_eq!(
            first.guessed,
            vec![
                (so.data_offset, 200_000),
                (data.data_offset, HEAD),
                (kernels.data_offset, STORED_HEAD),
                (small.data_offset, 1_000)
            ]
        );
        assert_eq!(
            first.headers,
            vec![so.header, data.header, kernels.header, small.header, (small.data_offset, 1_000)]
        );
        let listing = zip::read_skipping(&bytes[..], true).expect("the zip lists");
        let (reads, spans) = planned(&listing.members);
        assert_eq!(reads, first.guessed);
        assert_eq!(spans.len(), 4);
        assert!(spans.iter().all(|s| s.library == (s.start == so.data_offset || s.start == small.data_offset)));
    }

    #[test]
    fn reads_run_ahead_inside_libraries_and_in_order_reads_only() {
        let members = [
            MemberSpan { start: 100, size: 1_000, library: false },
            MemberSpan { start: 2_000, size: 2 * WINDOW, library: true },
        ];
        // Outside any member, and a random read inside a member not named as a library: exact.
        assert_eq!(read_ahead_end(&members, 10, 20, true), 20);
        assert_eq!(read_ahead_end(&members, 150, 160, false), 160);
        // The inflater's read runs to the member's end; a library's to a window further.
        assert_eq!(read_ahead_end(&members, 150, 160, true), 1_100);
        assert_eq!(read_ahead_end(&members, 2_100, 2_200, false), 2_100 + WINDOW);
        // Past a member's end: exact.
        assert_eq!(read_ahead_end(&members, 1_500, 1_600, true), 1_600);
    }

    #[test]
    fn spans_touching_are_merged_and_clipped_to_the_file() {
        assert_eq!(merged(vec![(10, 5), (0, 10), (30, 10), (38, 100)], 50), vec![(0, 15), (30, 50)]);
        assert!(merged(vec![(60, 5), (5, 0)], 50).is_empty());
    }
}
