//! Clang offload bundle, binary layout (`clang-offload-bundler --type=bc|o|a|gch|ast` with
//! inputs that are not object files).
//!
//! All integers are little-endian.
//!
//! | offset            | size | field                                             |
//! |-------------------|------|---------------------------------------------------|
//! | 0                 | 24   | magic `__CLANG_OFFLOAD_BUNDLE__`                  |
//! | 24                | 8    | number of entries N                               |
//! | 32                | 8    | entry 1: offset of its bytes from the file start  |
//! | 40                | 8    | entry 1: size of its bytes                        |
//! | 48                | 8    | entry 1: length L of its ID                       |
//! | 56                | L    | entry 1: ID, `<kind>-<triple>[-<target id>]`      |
//! | ...               |      | entries 2..N, same shape                          |
//! | header end        |      | entry bytes, each at its offset                   |
//!
//! The bundler places entries in the order given on its command line, each starting at the
//! next multiple of `--bundle-align` (default 1) after the header and the previous entry, and
//! fills the gaps with zero bytes. Readers look entries up by ID; an offset of 0 or a range
//! past the end makes the bundler stop reading the header silently, which we report instead.

use crate::error::{Error, Result};
use crate::tree::{Node, NodeKind, Severity, Span};
use crate::util::bytes::{align_up, checked_end, human_size, Reader};
use crate::util::sort;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Bytes of the fixed part of the header: magic and entry count.
const FIXED_HEADER: u64 = 32;
/// Bytes of one entry's header before its ID: offset, size, ID length.
const ENTRY_HEADER: u64 = 24;

/// Whether `data` starts like a binary bundle.
pub fn is_bundle(data: &[u8]) -> bool {
    data.starts_with(MAGIC)
}

/// One entry as described by the header, with where each of its header fields lies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryHeader {
    pub id: String,
    /// True when the ID bytes were not UTF-8 (the ID shown is a lossy decoding).
    pub id_lossy: bool,
    /// Length of the ID in bytes as stored (a lossy decoding may be longer).
    pub id_len: u64,
    pub offset: u64,
    pub size: u64,
    /// Where this entry's 24-byte header plus ID starts in the bundle.
    pub header_at: u64,
}

impl EntryHeader {
    /// Where this entry's bytes lie in a bundle of `bundle_size` bytes, checked as
    /// [`Bundle::parse`] checks them (same errors): for a reader that sees the bundle go past as
    /// a stream and knows only its size when it reads the header.
    pub fn range_in(&self, bundle_size: u64) -> Result<core::ops::Range<u64>> {
        if self.offset == 0 {
            return Err(Error::new(self.header_at, "bundle entry offset", "a non-zero offset", "0"));
        }
        let end = checked_end(self.offset, self.size, self.header_at, "bundle entry range")?;
        if end > bundle_size {
            return Err(Error::new(
                self.header_at,
                "bundle entry range",
                format!("a range within the {bundle_size} bytes of input"),
                format!("bytes {}..{end}", self.offset),
            ));
        }
        Ok(self.offset..end)
    }
}

/// The header of a binary bundle: what `--list` needs, readable from a prefix of the bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub entries: Vec<EntryHeader>,
    /// Bytes taken by the header.
    pub size: u64,
}

/// Reads the header. `data` may be only a prefix of the bundle (entry ranges are not checked
/// here), which is what makes listing a compressed bundle cheap.
pub fn read_header(data: &[u8]) -> Result<Header> {
    let mut r = Reader::new(data);
    let magic = r.bytes(MAGIC.len() as u64, "bundle magic")?;
    if magic != MAGIC {
        return Err(Error::new(0, "bundle magic", "__CLANG_OFFLOAD_BUNDLE__", format!("{:02x?}", magic)));
    }
    let count = r.u64("bundle entry count")?;
    // Each entry needs at least 24 header bytes: bound the count (and the allocation) by what the
    // input can hold before trusting it.
    let room = r.remaining() as u64 / ENTRY_HEADER;
    if count > room {
        return Err(Error::new(
            24,
            "bundle entry count",
            format!("at most {room} entries (24 header bytes each fit in the {} bytes left)", r.remaining()),
            format!("{count}"),
        ));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        entries.push(read_entry_header(&mut r)?);
    }
    Ok(Header { entries, size: r.position() })
}

fn read_entry_header(r: &mut Reader<'_>) -> Result<EntryHeader> {
    let header_at = r.position();
    let offset = r.u64("bundle entry offset")?;
    let size = r.u64("bundle entry size")?;
    let id_len = r.u64("bundle entry ID length")?;
    let id_bytes = r.bytes(id_len, "bundle entry ID")?;
    let (id, id_lossy) = match core::str::from_utf8(id_bytes) {
        Ok(s) => (String::from(s), false),
        Err(_) => (String::from_utf8_lossy(id_bytes).into_owned(), true),
    };
    Ok(EntryHeader { id, id_lossy, id_len, offset, size, header_at })
}

/// One device (or host) entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry<'a> {
    /// The entry ID exactly as written, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`.
    pub id: String,
    /// Where the entry's bytes start in the bundle.
    pub offset: u64,
    pub data: Cow<'a, [u8]>,
    /// The ID's bytes as read, when they are not UTF-8 (`id` is then a lossy decoding): written
    /// back as they were while `id` is left as read.
    pub raw_id: Option<Cow<'a, [u8]>>,
}

impl BundleEntry<'_> {
    /// The bytes the writer puts in the header for this entry's ID.
    pub fn id_bytes(&self) -> &[u8] {
        match &self.raw_id {
            Some(raw) if String::from_utf8_lossy(raw) == self.id => raw,
            _ => self.id.as_bytes(),
        }
    }
}

/// A binary bundle: its entries in header order, and any non-zero bytes the header does not
/// account for (kept so that an unedited bundle writes back byte-identical).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle<'a> {
    pub entries: Vec<BundleEntry<'a>>,
    /// Size of the bundle as read; the writer pads to it. Zero for a bundle built from scratch.
    pub size: u64,
    /// Unused ranges that held non-zero bytes, as (offset, bytes).
    pub unused: Vec<(u64, Cow<'a, [u8]>)>,
}

impl<'a> Bundle<'a> {
    /// A new bundle laid out as clang-offload-bundler lays it out with `--bundle-align=align`.
    pub fn new(entries: Vec<(String, Cow<'a, [u8]>)>, align: u64) -> Result<Self> {
        let mut bundle = Bundle {
            entries: entries.into_iter().map(|(id, data)| BundleEntry { id, offset: 0, data, raw_id: None }).collect(),
            size: 0,
            unused: Vec::new(),
        };
        bundle.relayout(align)?;
        Ok(bundle)
    }

    /// Reads a whole bundle. Entries borrow from `data`.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = read_header(data)?;
        let mut entries = Vec::with_capacity(header.entries.len());
        for e in &header.entries {
            let range = e.range_in(data.len() as u64)?;
            let bytes = &data[range.start as usize..range.end as usize];
            let raw_id =
                e.id_lossy.then(|| Cow::Borrowed(&data[(e.header_at + ENTRY_HEADER) as usize..][..e.id_len as usize]));
            entries.push(BundleEntry { id: e.id.clone(), offset: e.offset, data: Cow::Borrowed(bytes), raw_id });
        }
        let unused = nonzero_unused_ranges(data, &header)
            .into_iter()
            .map(|(start, end)| (start, Cow::Borrowed(&data[start as usize..end as usize])))
            .collect();
        Ok(Bundle { entries, size: data.len() as u64, unused })
    }

    /// Recomputes every entry's offset as the bundler does (header, then each entry at the next
    /// multiple of `align`), forgetting the layout that was read.
    pub fn relayout(&mut self, align: u64) -> Result<()> {
        let offsets = entry_offsets(self.header_size(), self.entries.iter().map(|e| e.data.len() as u64), align)?;
        for (e, offset) in self.entries.iter_mut().zip(offsets) {
            e.offset = offset;
        }
        self.size = 0;
        self.unused.clear();
        Ok(())
    }

    pub fn header_size(&self) -> u64 {
        self.entries.iter().fold(FIXED_HEADER, |n, e| n + ENTRY_HEADER + e.id_bytes().len() as u64)
    }

    /// Bytes the written bundle takes.
    pub fn written_size(&self) -> u64 {
        let data_end = self.entries.iter().map(|e| e.offset + e.data.len() as u64).max().unwrap_or(0);
        data_end.max(self.header_size()).max(self.size)
    }

    /// Writes the bundle. Entries are placed at their offsets, unused bytes are zero (or what
    /// was read there).
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check_layout()?;
        let total = usize::try_from(self.written_size()).map_err(|_| overflow("bundle size"))?;
        let mut out = Vec::with_capacity(total);
        header_bytes(&mut out, self.entries.iter().map(|e| (e.offset, e.data.len() as u64, e.id_bytes())));
        out.resize(total, 0);
        for (at, bytes) in &self.unused {
            let at = *at as usize;
            out[at..at + bytes.len()].copy_from_slice(bytes);
        }
        for e in &self.entries {
            let at = e.offset as usize;
            out[at..at + e.data.len()].copy_from_slice(&e.data);
        }
        Ok(out)
    }

    /// Entries must not overlap the header; the writer refuses a layout it cannot honour.
    fn check_layout(&self) -> Result<()> {
        let header = self.header_size();
        for e in &self.entries {
            checked_end(e.offset, e.data.len() as u64, 0, "bundle layout")?;
            if e.offset < header && !e.data.is_empty() {
                return Err(Error::new(
                    e.offset,
                    "bundle layout",
                    format!("entry `{}` at or after the end of the header ({header})", e.id),
                    format!("offset {}", e.offset),
                ));
            }
        }
        for (at, bytes) in &self.unused {
            checked_end(*at, bytes.len() as u64, 0, "bundle layout")?;
        }
        Ok(())
    }

    /// The first entry whose ID is exactly `id`.
    pub fn entry(&self, id: &str) -> Option<&BundleEntry<'a>> {
        self.entries.iter().find(|e| e.id == id)
    }

    pub fn into_owned(self) -> Bundle<'static> {
        Bundle {
            entries: self
                .entries
                .into_iter()
                .map(|e| BundleEntry {
                    id: e.id,
                    offset: e.offset,
                    data: Cow::Owned(e.data.into_owned()),
                    raw_id: e.raw_id.map(|r| Cow::Owned(r.into_owned())),
                })
                .collect(),
            size: self.size,
            unused: self.unused.into_iter().map(|(at, b)| (at, Cow::Owned(b.into_owned()))).collect(),
        }
    }
}

/// Each entry's offset, as the bundler places them: after the header of `header_size` bytes,
/// each at the next multiple of `align` after the previous one.
fn entry_offsets(header_size: u64, sizes: impl Iterator<Item = u64>, align: u64) -> Result<Vec<u64>> {
    let align = align.max(1);
    let mut pos = header_size;
    let mut offsets = Vec::with_capacity(sizes.size_hint().0);
    for size in sizes {
        pos = align_up(pos, align).ok_or_else(|| overflow("bundle layout"))?;
        offsets.push(pos);
        pos = checked_end(pos, size, 0, "bundle layout")?;
    }
    Ok(offsets)
}

/// Appends the header: magic, entry count, then each entry's offset, size, ID length and ID.
fn header_bytes<'e>(out: &mut Vec<u8>, entries: impl ExactSizeIterator<Item = (u64, u64, &'e [u8])>) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (offset, size, id) in entries {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id);
    }
}

/// A bundle's layout known from its entries' IDs and sizes alone: for a writer that copies the
/// entries' bytes from elsewhere (files) rather than holding them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The header's bytes.
    pub header: Vec<u8>,
    /// Each entry's offset, in the order given.
    pub offsets: Vec<u64>,
    /// The whole bundle's size.
    pub size: u64,
}

/// The layout [`Bundle::new`] gives entries with these IDs and sizes: the same header bytes and
/// offsets, so that writing the header, then each entry's bytes at its offset with zero bytes
/// between, gives exactly what [`Bundle::write`] gives.
pub fn layout(entries: &[(&str, u64)], align: u64) -> Result<Layout> {
    let header_size =
        entries.iter().try_fold(FIXED_HEADER, |n, (id, _)| n.checked_add(ENTRY_HEADER)?.checked_add(id.len() as u64));
    let header_size = header_size.ok_or_else(|| overflow("bundle layout"))?;
    let offsets = entry_offsets(header_size, entries.iter().map(|&(_, size)| size), align)?;
    let mut header = Vec::new();
    header_bytes(&mut header, entries.iter().zip(&offsets).map(|(&(id, size), &offset)| (offset, size, id.as_bytes())));
    let data_end = entries.iter().zip(&offsets).map(|(&(_, size), &offset)| offset + size).max().unwrap_or(0);
    Ok(Layout { header, offsets, size: data_end.max(header_size) })
}

fn overflow(context: &'static str) -> Error {
    Error::new(0, context, "sizes that fit in memory", "a size that overflows")
}

/// Ranges of `data` covered by neither the header nor any entry and holding non-zero bytes.
fn nonzero_unused_ranges(data: &[u8], header: &Header) -> Vec<(u64, u64)> {
    unused_ranges(data.len() as u64, header)
        .into_iter()
        .filter(|&(s, e)| data[s as usize..e as usize].iter().any(|&b| b != 0))
        .collect()
}

/// Ranges of a bundle of `len` bytes covered by neither the header nor any entry.
pub fn unused_ranges(len: u64, header: &Header) -> Vec<(u64, u64)> {
    let mut used: Vec<(u64, u64)> = header
        .entries
        .iter()
        .filter(|e| e.offset < len)
        .map(|e| (e.offset, e.offset.saturating_add(e.size).min(len)))
        .collect();
    used.push((0, header.size.min(len)));
    sort::sort(&mut used);
    let mut gaps = Vec::new();
    let mut pos = 0;
    for (start, end) in used {
        if start > pos {
            gaps.push((pos, start));
        }
        pos = pos.max(end);
    }
    if pos < len {
        gaps.push((pos, len));
    }
    gaps
}

/// The tree of a bundle's header, whose bytes lie at `span` (which may cover only a prefix of
/// a decompressed bundle: `span.size` is the bundle's full size). Entry nodes get no children
/// here; the explorer adds what it finds inside each entry.
pub fn header_node(header: &Header, span: Span) -> Node {
    let mut node = Node::new(NodeKind::Bundle, format!("clang offload bundle, {} entries", header.entries.len()), span);
    node.field("magic", "__CLANG_OFFLOAD_BUNDLE__", Some(span.sub(0, 24)));
    node.field("entry_count", header.entries.len() as u64, Some(span.sub(24, 8)));
    node.field("header_size", header.size, Some(span.sub(0, header.size)));
    for e in &header.entries {
        node.children.push(entry_node(e, span));
    }
    diagnose_layout(&mut node, header, span);
    node
}

fn entry_node(e: &EntryHeader, bundle: Span) -> Node {
    let mut node =
        Node::new(NodeKind::BundleEntry, format!("{} ({})", e.id, human_size(e.size)), bundle.sub(e.offset, e.size));
    let at = e.header_at;
    node.editable("id", e.id.as_str(), Some(bundle.sub(at + 24, e.id_len)));
    node.field("offset", e.offset, Some(bundle.sub(at, 8)));
    node.field("size", e.size, Some(bundle.sub(at + 8, 8)));
    node.field("id_size", e.id_len, Some(bundle.sub(at + 16, 8)));
    if e.id_lossy {
        node.diag(
            Severity::Warning,
            "entry ID is not valid UTF-8; shown with replacement characters",
            Some(bundle.sub(at + 24, e.id_len)),
        );
    }
    node
}

/// Layout diagnostics: zero offsets, ranges past the end, overlaps, duplicate IDs, unused bytes.
fn diagnose_layout(node: &mut Node, header: &Header, span: Span) {
    let len = span.size;
    let mut ranges: Vec<(u64, u64, &str)> = Vec::new();
    for e in &header.entries {
        let end = e.offset.checked_add(e.size);
        if e.offset == 0 {
            node.diag(
                Severity::Error,
                format!("entry `{}` has offset 0, which the bundler treats as the end of the header", e.id),
                Some(span.sub(e.header_at, 8)),
            );
        } else if end.is_none_or(|end| end > len) {
            node.diag(
                Severity::Error,
                format!(
                    "entry `{}` claims bytes {}..{} but the bundle has {} bytes",
                    e.id,
                    e.offset,
                    e.offset.wrapping_add(e.size),
                    len
                ),
                Some(span.sub(e.header_at, 16)),
            );
        } else if e.offset < header.size && e.size > 0 {
            node.diag(
                Severity::Error,
                format!("entry `{}` overlaps the bundle header", e.id),
                Some(span.sub(e.offset, e.size)),
            );
        } else {
            ranges.push((e.offset, e.offset + e.size, &e.id));
        }
    }
    sort::sort(&mut ranges);
    for pair in ranges.windows(2) {
        if pair[1].0 < pair[0].1 {
            node.diag(
                Severity::Warning,
                format!("entries `{}` and `{}` overlap", pair[0].2, pair[1].2),
                Some(span.sub(pair[1].0, pair[0].1 - pair[1].0)),
            );
        }
    }
    for (i, e) in header.entries.iter().enumerate() {
        if header.entries[..i].iter().any(|p| p.id == e.id) {
            node.diag(
                Severity::Warning,
                format!("entry ID `{}` appears more than once; the bundler keeps only the last", e.id),
                Some(span.sub(e.header_at, 24 + e.id.len() as u64)),
            );
        }
    }
}

/// Diagnostics for unused bytes; needs the bundle's bytes, so only for fully available bundles.
pub fn diagnose_unused(node: &mut Node, data: &[u8], header: &Header, span: Span) {
    for (start, end) in unused_ranges(data.len() as u64, header) {
        let nonzero = data[start as usize..end as usize].iter().any(|&b| b != 0);
        let trailing = header.entries.iter().all(|e| e.offset.saturating_add(e.size) <= start);
        if nonzero {
            let what = if trailing { "trailing" } else { "unused" };
            node.diag(
                Severity::Warning,
                format!("{} {what} bytes at {start} are not zero and belong to no entry", end - start),
                Some(span.sub(start, end - start)),
            );
        } else if trailing {
            node.diag(
                Severity::Note,
                format!("{} zero bytes of trailing padding", end - start),
                Some(span.sub(start, end - start)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn layout_from_sizes_is_what_the_writer_writes() {
        for align in [1u64, 3, 8, 4096] {
            let entries = [
                ("host-x86_64-unknown-linux-gnu-", &b""[..]),
                ("hipv4-amdgcn-amd-amdhsa--gfx90a", b"dev1data!!"),
                ("hip-amdgcn-amd-amdhsa--gfx1030", b"x"),
            ];
            let bundle =
                Bundle::new(entries.iter().map(|(id, d)| (String::from(*id), Cow::Borrowed(*d))).collect(), align)
                    .unwrap();
            let written = bundle.write().unwrap();
            let sized: Vec<(&str, u64)> = entries.iter().map(|(id, d)| (*id, d.len() as u64)).collect();
            let l = layout(&sized, align).unwrap();
            assert_eq!(l.size, written.len() as u64, "align {align}");
            assert_eq!(written[..l.header.len()], l.header[..], "align {align}");
            assert_eq!(l.offsets, bundle.entries.iter().map(|e| e.offset).collect::<Vec<_>>(), "align {align}");
        }
        // The header takes 57 bytes for one entry (82 for two); entry ends must fit in 64 bits.
        assert_eq!(layout(&[("a", u64::MAX - 57)], 1).unwrap().size, u64::MAX);
        assert!(layout(&[("a", u64::MAX - 56)], 1).is_err());
        assert!(layout(&[("a", u64::MAX - 82), ("b", 0)], 1).is_ok());
        assert!(layout(&[("a", u64::MAX - 82), ("b", 0)], 2).is_err());
    }

    fn sample(align: u64) -> Bundle<'static> {
        Bundle::new(
            vec![
                ("host-x86_64-unknown-linux-gnu-".into(), Cow::Owned(b"HOSTDATA".to_vec())),
                ("hipv4-amdgcn-amd-amdhsa--gfx90a".into(), Cow::Owned(b"dev1data!!".to_vec())),
            ],
            align,
        )
        .unwrap()
    }

    #[test]
    fn layout_matches_the_bundler() {
        let b = sample(16);
        // 32 + (24 + 30) + (24 + 31) = 141 -> 144; 144 + 8 = 152 -> 160.
        assert_eq!(b.header_size(), 141);
        assert_eq!(b.entries[0].offset, 144);
        assert_eq!(b.entries[1].offset, 160);
        let bytes = b.write().unwrap();
        assert_eq!(bytes.len(), 170);
        assert_eq!(&bytes[141..144], &[0, 0, 0]);
        assert_eq!(Bundle::parse(&bytes).unwrap().write().unwrap(), bytes);
    }

    #[test]
    fn round_trip_keeps_nonzero_unused_bytes() {
        let mut bytes = sample(16).write().unwrap();
        bytes[142] = 0xAA;
        bytes.extend_from_slice(&[0, 7, 0]);
        let parsed = Bundle::parse(&bytes).unwrap();
        assert_eq!(parsed.unused.len(), 2);
        assert_eq!(parsed.write().unwrap(), bytes);
    }

    #[test]
    fn truncation_at_every_byte_is_an_error_not_a_panic() {
        let bytes = sample(1).write().unwrap();
        for cut in 0..bytes.len() {
            assert!(Bundle::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn huge_count_is_refused_before_allocating() {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        let e = read_header(&bytes).unwrap_err();
        assert_eq!(e.offset, 24);
        assert!(e.expected.starts_with("at most 0 entries"), "{e}");
    }

    #[test]
    fn wrapping_entry_range_is_an_error() {
        let mut bytes = sample(1).write().unwrap();
        bytes[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = Bundle::parse(&bytes).unwrap_err();
        assert_eq!(e.offset, 32);
    }

    #[test]
    fn header_node_reports_overlap_and_zero_offset() {
        let mut bytes = sample(1).write().unwrap();
        // Second entry starts inside the first.
        let second = 32 + 24 + 30;
        bytes[second..second + 8].copy_from_slice(&142u64.to_le_bytes());
        let header = read_header(&bytes).unwrap();
        let node = header_node(&header, Span::new(0, 0, bytes.len() as u64));
        assert!(node.diagnostics.iter().any(|d| d.message.contains("overlap")), "{:?}", node.diagnostics);
        bytes[32..40].copy_from_slice(&0u64.to_le_bytes());
        let header = read_header(&bytes).unwrap();
        let node = header_node(&header, Span::new(0, 0, bytes.len() as u64));
        assert!(node.diagnostics.iter().any(|d| d.message.contains("offset 0")));
    }
}
