//! Reading: the header, entry records, strings and compressed payloads, every length checked.

use super::*;
use crate::util::sort;

/// Reads the offload binary at the start of `data` (bytes after its size are ignored, except the
/// padding up to the next multiple of 8, which is kept for writing back).
pub fn parse(data: &[u8]) -> Result<OffloadBinary<'_>> {
    parse_with(data, &ReadOptions::default())
}

/// [`parse`] with explicit allocation bounds.
pub fn parse_with<'a>(data: &'a [u8], options: &ReadOptions) -> Result<OffloadBinary<'a>> {
    let header = read_header(data)?;
    let size = header.size as usize;
    let bytes = &data[..size];
    let padding = &data[size..(align_to_entry(header.size) as usize).min(data.len())];
    let mut notes = Notes::default();
    if header.is_compressed() {
        return parse_compressed(bytes, padding, header, options, notes);
    }
    if header.size % ALIGNMENT != 0 {
        notes.push(Severity::Warning, format!("size {} is not a multiple of 8", header.size), Some(8..16));
    }
    let body = read_body(bytes, &header, options, &mut notes)?;
    let entries = body
        .entries
        .iter()
        .zip(&body.strings)
        .map(|(l, strings)| entry_from(l, strings.clone(), Cow::Borrowed(image_of(bytes, l))))
        .collect();
    Ok(finish(header, entries, None, body, Cow::Borrowed(bytes), Cow::Borrowed(padding), notes))
}

fn image_of<'b>(body: &'b [u8], l: &EntryLayout) -> &'b [u8] {
    // Ranges were checked against the body when read.
    &body[l.raw.image_offset as usize..(l.raw.image_offset + l.raw.image_size) as usize]
}

fn entry_from<'a>(l: &EntryLayout, strings: Vec<(String, String)>, image: Cow<'a, [u8]>) -> OffloadEntry<'a> {
    OffloadEntry {
        image_kind: ImageKind(l.raw.image_kind),
        offload_kind: OffloadKind(l.raw.offload_kind),
        flags: l.raw.flags,
        strings,
        image,
    }
}

fn finish<'a>(
    header: RawHeader,
    entries: Vec<OffloadEntry<'a>>,
    compressed: Option<CompressedLayout>,
    body: Body,
    bytes: Cow<'a, [u8]>,
    padding: Cow<'a, [u8]>,
    mut notes: Notes,
) -> OffloadBinary<'a> {
    if padding.iter().any(|&b| b != 0) {
        let end = header.size + padding.len() as u64;
        notes.push(Severity::Warning, "the padding after the binary is not zero", Some(header.size..end));
    }
    let compression = compressed.as_ref().map(|c| Compression { method: c.method, level: None });
    let snapshot = Snapshot { version: header.version, compression, strings: body.strings };
    let layout = Layout {
        bytes,
        padding,
        header,
        compressed,
        entries: body.entries,
        string_table: body.string_table,
        string_table_used_end: body.string_table_used_end,
        notes: notes.finish(),
        snapshot,
    };
    OffloadBinary { version: header.version, entries, compression, layout: Some(Box::new(layout)) }
}

/// Reads and checks the header: magic, version, and a size that fits the input.
pub(super) fn read_header(data: &[u8]) -> Result<RawHeader> {
    let mut r = Reader::new(data);
    let magic: [u8; 4] = r.array(CTX_HEADER)?;
    if magic != MAGIC {
        return Err(Error::new(0, CTX_HEADER, "magic 10 FF 10 AD", hex(&magic)));
    }
    let version = r.u32(CTX_HEADER)?;
    if !(1..=LATEST_VERSION).contains(&version) {
        return Err(Error::new(4, CTX_HEADER, "version 1, 2 or 3", format!("version {version}")));
    }
    let size = r.u64(CTX_HEADER)?;
    let entries_offset = r.u64(CTX_HEADER)?;
    let entries_field = r.u64(CTX_HEADER)?;
    let inflated_size = if version >= 3 { Some(r.u64(CTX_HEADER)?) } else { None };
    let header = RawHeader { version, size, entries_offset, entries_field, inflated_size };
    let min = header.header_size();
    if size < min {
        return Err(Error::new(
            8,
            CTX_HEADER,
            format!("a size of at least {min} bytes (the header)"),
            size.to_string(),
        ));
    }
    if size > data.len() as u64 {
        return Err(Error::new(
            8,
            CTX_HEADER,
            format!("a size within the {} bytes available", data.len()),
            format!("size {size}"),
        ));
    }
    Ok(header)
}

pub(super) fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    parts.join(" ")
}

/// Notes, capped so that a hostile input cannot make thousands of them.
#[derive(Default)]
struct Notes {
    notes: Vec<Note>,
    dropped: usize,
    decompressed: bool,
}

impl Notes {
    fn push(&mut self, severity: Severity, message: impl Into<String>, at: Option<Range<u64>>) {
        if self.notes.len() >= MAX_NOTES {
            self.dropped += 1;
            return;
        }
        self.notes.push(Note { severity, message: message.into(), at, decompressed: self.decompressed });
    }

    fn finish(mut self) -> Vec<Note> {
        if self.dropped > 0 {
            let message = format!("{} more findings not listed", self.dropped);
            self.notes.push(Note { severity: Severity::Warning, message, at: None, decompressed: false });
        }
        self.notes
    }
}

/// What [`read_body`] finds in an uncompressed binary.
struct Body {
    entries: Vec<EntryLayout>,
    strings: Vec<Vec<(String, String)>>,
    string_table: Range<u64>,
    string_table_used_end: u64,
}

/// Reads the entries, string maps and image ranges of an uncompressed binary `buf` (exactly
/// `header.size` bytes), checking every offset against it.
fn read_body(buf: &[u8], header: &RawHeader, options: &ReadOptions, notes: &mut Notes) -> Result<Body> {
    let records = read_entry_records(buf, header, notes)?;
    check_string_capacity(buf, header, &records)?;
    let mut finder = NulFinder::new(buf);
    let mut budget = StringBudget { left: options.max_string_bytes };
    let mut entries = Vec::with_capacity(records.len());
    let mut strings = Vec::with_capacity(records.len());
    for (offset, raw) in records {
        let (layouts, map) = read_strings(buf, header.version, &raw, &mut finder, &mut budget, notes)?;
        entries.push(EntryLayout { offset, raw, strings: layouts });
        strings.push(map);
    }
    let (string_table, string_table_used_end) = find_string_table(buf, header, &entries);
    check_strings_in_table(&entries, &string_table, notes);
    check_overlaps(header, &entries, notes);
    Ok(Body { entries, strings, string_table, string_table_used_end })
}

/// Reads the entry records, checking that they and what they point at lie inside `buf`.
fn read_entry_records(buf: &[u8], header: &RawHeader, notes: &mut Notes) -> Result<Vec<(u64, RawEntry)>> {
    let size = buf.len() as u64;
    let offset = header.entries_offset;
    if offset > size {
        let expected = format!("an entry offset within the {size}-byte binary");
        return Err(Error::new(16, CTX_HEADER, expected, offset.to_string()));
    }
    // Entries inside the header would be read from the header's own fields: nothing LLVM writes
    // looks like that, and what follows from it would only confuse.
    let header_len = header_size(header.version);
    if offset < header_len {
        let expected = format!("an entry offset at or after the {header_len}-byte header");
        return Err(Error::new(16, CTX_HEADER, expected, offset.to_string()));
    }
    let room = (size - offset) / ENTRY_SIZE;
    let count = header.entry_count();
    if count > room {
        let at = if header.version == 1 { 16 } else { 24 };
        let expected = format!("at most {room} entries of 40 bytes after offset {offset}");
        return Err(Error::new(at, CTX_HEADER, expected, format!("{count} entries")));
    }
    if header.version == 1 && header.entries_field != ENTRY_SIZE {
        let message = format!("entry size is {}; LLVM writes 40 and does not use it", header.entries_field);
        notes.push(Severity::Warning, message, Some(24..32));
    }
    if count == 0 {
        notes.push(Severity::Warning, "the binary has no entries", Some(24..32));
    }
    (0..count)
        .map(|i| {
            let at = offset + i * ENTRY_SIZE;
            let raw = read_entry_record(buf, at)?;
            check_entry_ranges(size, header.version, at, &raw)?;
            Ok((at, raw))
        })
        .collect()
}

fn read_entry_record(buf: &[u8], at: u64) -> Result<RawEntry> {
    let mut r = Reader::at(buf, at as usize);
    Ok(RawEntry {
        image_kind: r.u16(CTX_ENTRY)?,
        offload_kind: r.u16(CTX_ENTRY)?,
        flags: r.u32(CTX_ENTRY)?,
        string_offset: r.u64(CTX_ENTRY)?,
        num_strings: r.u64(CTX_ENTRY)?,
        image_offset: r.u64(CTX_ENTRY)?,
        image_size: r.u64(CTX_ENTRY)?,
    })
}

/// The string entries and the image of an entry must lie inside the binary.
fn check_entry_ranges(size: u64, version: u32, at: u64, raw: &RawEntry) -> Result<()> {
    let entry_size = string_entry_size(version);
    if raw.string_offset > size {
        let expected = format!("a string entries offset within the {size}-byte binary");
        return Err(Error::new(at + 8, CTX_ENTRY, expected, raw.string_offset.to_string()));
    }
    let room = (size - raw.string_offset) / entry_size;
    if raw.num_strings > room {
        let expected =
            format!("at most {room} string entries of {entry_size} bytes after offset {}", raw.string_offset);
        return Err(Error::new(at + 16, CTX_ENTRY, expected, format!("{} string entries", raw.num_strings)));
    }
    let end = checked_end(raw.image_offset, raw.image_size, at + 24, CTX_ENTRY)?;
    if end > size {
        let expected = format!("an image within the {size}-byte binary");
        return Err(Error::new(at + 24, CTX_ENTRY, expected, format!("bytes {}..{end}", raw.image_offset)));
    }
    Ok(())
}

/// String entry arrays may only overlap so far: in total they cannot claim more records than the
/// binary can hold, which bounds what reading them allocates.
fn check_string_capacity(buf: &[u8], header: &RawHeader, records: &[(u64, RawEntry)]) -> Result<()> {
    let capacity = buf.len() as u64 / string_entry_size(header.version);
    let total = records.iter().fold(0u64, |sum, (_, raw)| sum.saturating_add(raw.num_strings));
    if total > capacity {
        let expected = format!("at most {capacity} string entries in total in a {}-byte binary", buf.len());
        let at = records.first().map_or(0, |(at, _)| at + 16);
        return Err(Error::new(at, CTX_ENTRY, expected, format!("{total} string entries")));
    }
    Ok(())
}

/// Limits the total of decoded key and value bytes.
struct StringBudget {
    left: u64,
}

impl StringBudget {
    fn take(&mut self, n: u64, at: u64) -> Result<()> {
        if n > self.left {
            return Err(Error::new(
                at,
                CTX_STRING,
                "string maps within the configured limit of decoded bytes",
                "more string bytes than the limit",
            ));
        }
        self.left -= n;
        Ok(())
    }
}

/// Every string record of an entry, and the string map LLVM builds from them.
type EntryStrings = (Vec<StringLayout>, Vec<(String, String)>);

/// Reads one entry's string entries. Returns every record's layout and the map as LLVM builds
/// it: a repeated key keeps its first position and takes the last value.
fn read_strings(
    buf: &[u8],
    version: u32,
    raw: &RawEntry,
    finder: &mut NulFinder<'_>,
    budget: &mut StringBudget,
    notes: &mut Notes,
) -> Result<EntryStrings> {
    let record_size = string_entry_size(version);
    let mut layouts = Vec::with_capacity(raw.num_strings as usize);
    let mut map: Vec<(String, String)> = Vec::new();
    let mut index: BTreeMap<&[u8], usize> = BTreeMap::new();
    for i in 0..raw.num_strings {
        let record = raw.string_offset + i * record_size;
        let layout = read_string_record(buf, version, record, finder)?;
        budget.take((layout.key.end - layout.key.start) + (layout.value.end - layout.value.start), record)?;
        let key_bytes = &buf[layout.key.start as usize..layout.key.end as usize];
        let key = decode(key_bytes, "key", &layout.key, notes);
        let value = decode(&buf[layout.value.start as usize..layout.value.end as usize], "value", &layout.value, notes);
        match index.get(key_bytes) {
            Some(&at) => {
                let message = format!("key \"{key}\" appears again; LLVM keeps the last value at the first position");
                notes.push(Severity::Warning, message, Some(record..record + record_size));
                map[at].1 = value;
            }
            None => {
                index.insert(key_bytes, map.len());
                map.push((key, value));
            }
        }
        layouts.push(layout);
    }
    Ok((layouts, map))
}

fn read_string_record(buf: &[u8], version: u32, record: u64, finder: &mut NulFinder<'_>) -> Result<StringLayout> {
    let mut r = Reader::at(buf, record as usize);
    let key_offset = r.u64(CTX_STRING)?;
    let value_offset = r.u64(CTX_STRING)?;
    let key = c_string(buf, key_offset, record, finder)?;
    let value = if version == 1 {
        c_string(buf, value_offset, record + 8, finder)?
    } else {
        let value_size = r.u64(CTX_STRING)?;
        let end = checked_end(value_offset, value_size, record + 16, CTX_STRING)?;
        if end > buf.len() as u64 {
            let expected = format!("a value within the {}-byte binary", buf.len());
            return Err(Error::new(record + 8, CTX_STRING, expected, format!("bytes {value_offset}..{end}")));
        }
        value_offset..end
    };
    Ok(StringLayout { record, key, value })
}

/// The NUL-terminated string at `offset` (range without its NUL), which must end inside `buf`.
fn c_string(buf: &[u8], offset: u64, at: u64, finder: &mut NulFinder<'_>) -> Result<Range<u64>> {
    if offset >= buf.len() as u64 {
        let expected = format!("a string offset within the {}-byte binary", buf.len());
        return Err(Error::new(at, CTX_STRING, expected, offset.to_string()));
    }
    match finder.find(offset) {
        Some(nul) => Ok(offset..nul),
        None => Err(Error::new(
            at,
            CTX_STRING,
            "a NUL-terminated string",
            format!("no NUL between offset {offset} and the end of the binary"),
        )),
    }
}

/// Lossy UTF-8, with a warning when bytes had to be replaced.
fn decode(bytes: &[u8], what: &str, at: &Range<u64>, notes: &mut Notes) -> String {
    match String::from_utf8_lossy(bytes) {
        Cow::Borrowed(s) => s.into(),
        Cow::Owned(s) => {
            let message = format!(
                "{what} \"{s}\" is not UTF-8; shown with replacement characters, which an edited \
                 binary would write"
            );
            notes.push(Severity::Warning, message, Some(at.clone()));
            s
        }
    }
}

/// Finds the first NUL at or after an offset. Remembers what it scanned, so that many strings
/// pointing into one long run without NUL cost one scan, not one each.
pub(super) struct NulFinder<'b> {
    data: &'b [u8],
    /// Scan start -> first NUL at or after it (`None`: none until the end).
    known: BTreeMap<u64, Option<u64>>,
}

impl<'b> NulFinder<'b> {
    pub(super) fn new(data: &'b [u8]) -> Self {
        NulFinder { data, known: BTreeMap::new() }
    }

    pub(super) fn find(&mut self, from: u64) -> Option<u64> {
        if let Some((_, &nul)) = self.known.range(..=from).next_back() {
            // The answer for an earlier start also holds here unless its NUL lies before us.
            match nul {
                None => return None,
                Some(p) if p >= from => return Some(p),
                Some(_) => {}
            }
        }
        let next = self.known.range(from + 1..).next().map(|(&s, &n)| (s, n));
        let stop = next.map_or(self.data.len() as u64, |(s, _)| s);
        let scanned = &self.data[from as usize..stop as usize];
        let found = match scanned.iter().position(|&b| b == 0) {
            Some(i) => Some(from + i as u64),
            None => next.and_then(|(_, n)| n),
        };
        self.known.insert(from, found);
        found
    }
}

/// The string table region: after the entry records and every string entry array, up to the
/// first image that follows (or the end); and the end of the strings actually in it.
fn find_string_table(buf: &[u8], header: &RawHeader, entries: &[EntryLayout]) -> (Range<u64>, u64) {
    let size = buf.len() as u64;
    let records_end = header.entries_offset + header.entry_count() * ENTRY_SIZE;
    let entry_size = string_entry_size(header.version);
    let start = entries
        .iter()
        .map(|e| e.raw.string_offset + e.raw.num_strings * entry_size)
        .fold(records_end.max(header.header_size()), u64::max)
        .min(size);
    let end = entries
        .iter()
        .filter(|e| e.raw.image_size > 0 && e.raw.image_offset >= start)
        .map(|e| e.raw.image_offset)
        .fold(size, u64::min);
    let with_nul = |r: &Range<u64>| if r.end < size && buf[r.end as usize] == 0 { r.end + 1 } else { r.end };
    let used_end = entries
        .iter()
        .flat_map(|e| e.strings.iter())
        .flat_map(|s| [with_nul(&s.key), with_nul(&s.value)])
        .filter(|&e| e <= end)
        .fold(if start < end { start + 1 } else { start }, u64::max);
    (start..end, used_end)
}

fn check_strings_in_table(entries: &[EntryLayout], table: &Range<u64>, notes: &mut Notes) {
    let strings = entries.iter().flat_map(|e| e.strings.iter());
    for (what, range) in strings.flat_map(|s| [("key", &s.key), ("value", &s.value)]) {
        let inside = range.start >= table.start && range.end <= table.end;
        let empty_at_end = range.start == range.end && range.start == table.end;
        if !inside && !empty_at_end {
            let message = format!(
                "{what} at bytes {}..{} lies outside the string table (bytes {}..{})",
                range.start, range.end, table.start, table.end
            );
            notes.push(Severity::Warning, message, Some(range.clone()));
        }
    }
}

/// Warns when the header, entry records, string entry arrays and images overlap.
fn check_overlaps(header: &RawHeader, entries: &[EntryLayout], notes: &mut Notes) {
    let entry_size = string_entry_size(header.version);
    let mut regions: Vec<(Range<u64>, String)> = Vec::with_capacity(2 + entries.len() * 2);
    regions.push((0..header.header_size(), "the header".into()));
    let records_end = header.entries_offset + header.entry_count() * ENTRY_SIZE;
    regions.push((header.entries_offset..records_end, "the entry records".into()));
    for (i, e) in entries.iter().enumerate() {
        let strings = e.raw.string_offset..e.raw.string_offset + e.raw.num_strings * entry_size;
        regions.push((strings, format!("the string entries of entry {i}")));
        let image = e.raw.image_offset..e.raw.image_offset + e.raw.image_size;
        regions.push((image, format!("the image of entry {i}")));
    }
    regions.retain(|(r, _)| r.start < r.end);
    sort::sort_by_key(&mut regions, |(r, _)| (r.start, r.end));
    let mut widest: Option<(Range<u64>, &str)> = None;
    for (range, what) in &regions {
        if let Some((w, w_what)) = &widest {
            if range.start < w.end {
                let message = format!("{what} overlaps {w_what}");
                notes.push(Severity::Warning, message, Some(range.start..range.end.min(w.end)));
            }
        }
        if widest.as_ref().is_none_or(|(w, _)| range.end > w.end) {
            widest = Some((range.clone(), what));
        }
    }
}

/// Decompresses a v3 payload, puts the header back, and reads the result.
fn parse_compressed<'a>(
    bytes: &'a [u8],
    padding: &'a [u8],
    header: RawHeader,
    options: &ReadOptions,
    mut notes: Notes,
) -> Result<OffloadBinary<'a>> {
    let (method, inflated) = inflate(bytes, &header, options, &mut notes)?;
    let inner = read_header(&inflated).map_err(|e| inside_payload(e, header.entries_offset))?;
    notes.decompressed = true;
    if inner.size % ALIGNMENT != 0 {
        notes.push(Severity::Warning, format!("inflated size {} is not a multiple of 8", inner.size), None);
    }
    let body =
        read_body(&inflated, &inner, options, &mut notes).map_err(|e| inside_payload(e, header.entries_offset))?;
    notes.decompressed = false;
    check_image_total(&inflated, &body, header.entries_offset)?;
    let entries = body
        .entries
        .iter()
        .zip(&body.strings)
        .map(|(l, strings)| entry_from(l, strings.clone(), Cow::Owned(image_of(&inflated, l).to_vec())))
        .collect();
    let payload = header.entries_offset..header.size;
    let compressed = CompressedLayout { method, payload, inflated };
    Ok(finish(header, entries, Some(compressed), body, Cow::Borrowed(bytes), Cow::Borrowed(padding), notes))
}

/// Returns the uncompressed binary: the stored header with size = inflated size and inflated
/// size = 0, then the decompressed payload.
fn inflate(
    bytes: &[u8],
    header: &RawHeader,
    options: &ReadOptions,
    notes: &mut Notes,
) -> Result<(CompressionMethod, Vec<u8>)> {
    let offset = header.entries_offset;
    let inflated_size = header.inflated_size.unwrap_or(0);
    if offset < 40 || offset > header.size {
        let expected = format!("an entries offset between 40 and the size {}", header.size);
        return Err(Error::new(16, CTX_COMPRESSED, expected, offset.to_string()));
    }
    if offset != 40 {
        notes.push(Severity::Warning, format!("entries offset is {offset}; LLVM writes 40"), Some(16..24));
    }
    if inflated_size < offset {
        let expected = format!("an inflated size of at least the entries offset {offset}");
        return Err(Error::new(32, CTX_COMPRESSED, expected, inflated_size.to_string()));
    }
    if inflated_size > options.max_inflated_size {
        let expected = format!("an inflated size within the limit of {}", human_size(options.max_inflated_size));
        return Err(Error::new(32, CTX_COMPRESSED, expected, human_size(inflated_size)));
    }
    let payload = &bytes[offset as usize..];
    let method = if payload.starts_with(&ZSTD_MAGIC) { CompressionMethod::Zstd } else { CompressionMethod::Zlib };
    let body_size = inflated_size - offset;
    let body =
        crate::codec::decompress(method.method(), payload, body_size, body_size).map_err(|e| e.shifted(offset))?;
    if body.len() as u64 != body_size {
        let expected = format!("{body_size} bytes once decompressed (inflated size minus entries offset)");
        return Err(Error::new(32, CTX_COMPRESSED, expected, format!("{} bytes", body.len())));
    }
    let mut inflated = Vec::with_capacity(inflated_size as usize);
    inflated.extend_from_slice(&bytes[..offset as usize]);
    inflated[8..16].copy_from_slice(&inflated_size.to_le_bytes());
    inflated[32..40].copy_from_slice(&0u64.to_le_bytes());
    inflated.extend_from_slice(&body);
    Ok((method, inflated))
}

/// The images of a compressed binary are copied out of the decompressed bytes, so together they
/// may not exceed them.
fn check_image_total(inflated: &[u8], body: &Body, payload_at: u64) -> Result<()> {
    let total = body.entries.iter().fold(0u64, |sum, e| sum.saturating_add(e.raw.image_size));
    if total > inflated.len() as u64 {
        let expected = format!("images totalling at most the {} decompressed bytes", inflated.len());
        return Err(Error::new(payload_at, CTX_COMPRESSED, expected, format!("{total} bytes of overlapping images")));
    }
    Ok(())
}

/// An error found in decompressed bytes, placed at the payload and saying where inside.
fn inside_payload(e: Error, payload_at: u64) -> Error {
    let found = format!("{} (at byte {} of the decompressed binary)", e.found, e.offset);
    Error { offset: payload_at, context: e.context, expected: e.expected, found }
}
