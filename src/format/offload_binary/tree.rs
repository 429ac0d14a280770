//! The annotated tree nodes of offload binaries, their entries, strings and gaps.

use super::*;
use crate::util::sort;

/// Where offsets of a binary land in a byte space: `base + (offset - shift)`.
#[derive(Clone, Copy)]
struct Place {
    space: u32,
    base: u64,
    shift: u64,
}

impl Place {
    fn span(&self, offset: u64, size: u64) -> Span {
        Span::new(self.space, self.base.saturating_add(offset.saturating_sub(self.shift)), size)
    }

    fn range(&self, r: &Range<u64>) -> Span {
        self.span(r.start, r.end.saturating_sub(r.start))
    }
}

/// A tree for a whole buffer of binaries (a file written by `llvm-offload-binary`, or a section's
/// contents): a file node whose children are [`walk_nodes`].
pub fn file_tree(data: &[u8], label: &str) -> Tree {
    let size = data.len() as u64;
    let mut spaces = alloc::vec![ByteSpace { label: label.into(), size, origin: None, data: None }];
    let walk = walk(data);
    let count = walk.binaries().count();
    let binaries = plural(count, "offload binary", "offload binaries");
    let root_label = format!("{label}: {binaries}, {}", human_size(size));
    let mut root = Node::new(NodeKind::File, root_label, Span::new(0, 0, size));
    root.children = walk_nodes(&walk, Span::new(0, 0, size), &mut spaces);
    Tree { spaces, root }
}

/// Nodes for every piece of a walked buffer whose bytes are `span`: offload binaries, padding,
/// and unusable bytes with their diagnostics. New byte spaces (decompressed payloads) are pushed
/// to `spaces`, whose index is the space number (so it must already hold the input as 0).
pub fn walk_nodes(walk: &Walk<'_>, span: Span, spaces: &mut Vec<ByteSpace>) -> Vec<Node> {
    let mut nodes = Vec::new();
    for found in &walk.items {
        match &found.binary {
            Ok(binary) => {
                let size = binary.layout().map_or(found.size, |l| l.bytes.len() as u64);
                nodes.push(to_node_with_spaces(binary, span.sub(found.offset, size), spaces));
                let padding = binary.layout().map_or(&[][..], |l| &l.padding[..]);
                nodes.extend(padding_node(padding, span.sub(found.offset + size, 0)));
            }
            Err(error) => {
                let why = found.unused.unwrap_or(Unused::Invalid);
                nodes.push(unused_node(found.bytes, why, error, span.sub(found.offset, found.size)));
            }
        }
    }
    nodes
}

fn padding_node(padding: &[u8], at: Span) -> Option<Node> {
    if padding.is_empty() {
        return None;
    }
    let span = Span { size: padding.len() as u64, ..at };
    let mut node = Node::new(NodeKind::Padding, format!("padding ({})", human_size(span.size)), span);
    if padding.iter().any(|&b| b != 0) {
        node.diag(Severity::Warning, "padding bytes are not zero", Some(span));
    }
    Some(node)
}

/// `error` counts its offset from the start of `span`.
fn unused_node(bytes: &[u8], why: Unused, error: &Error, span: Span) -> Node {
    let size = human_size(bytes.len() as u64);
    match why {
        Unused::Zeros => {
            let mut node = Node::new(NodeKind::Padding, format!("zero bytes ({size})"), span);
            let message = format!(
                "{size} of zeros where LLVM expects another offload binary (its reader stops with an error here)"
            );
            node.diag(Severity::Warning, message, Some(span));
            node
        }
        Unused::Unrecognized => {
            let mut node = Node::new(NodeKind::Unknown, format!("unrecognized bytes ({size})"), span);
            node.diag(Severity::Warning, format!("{size} that are not an offload binary"), Some(span));
            node
        }
        Unused::Invalid => {
            let mut node = Node::new(NodeKind::Unknown, format!("unreadable offload binary ({size})"), span);
            let at = span.sub(error.offset, 0);
            node.diag(Severity::Error, error.to_string(), Some(at));
            node
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn binary_label(bin: &OffloadBinary<'_>) -> String {
    let size = bin.layout().map_or(String::new(), |l| format!(", {}", human_size(l.bytes.len() as u64)));
    let compressed = bin.compression.map_or(String::new(), |c| format!(", {}-compressed", c.method.name()));
    format!("offload binary v{} ({}{size}{compressed})", bin.version, plural(bin.entries.len(), "entry", "entries"))
}

/// `offload entry hip amdgcn-amd-amdhsa gfx90a (object, 12.3 KiB)`
pub fn entry_label(entry: &OffloadEntry<'_>) -> String {
    let mut label = format!("offload entry {}", entry.offload_kind.name());
    for part in [entry.triple(), entry.arch()].into_iter().flatten().filter(|s| !s.is_empty()) {
        label.push(' ');
        label.push_str(part);
    }
    format!("{label} ({}, {})", entry.image_kind.name(), human_size(entry.image.len() as u64))
}

/// The annotated tree node of one binary whose stored bytes are `span`. Children are the entries
/// (each with its image), the string table and gaps. The entries of a compressed v3 binary have
/// no bytes in `span`'s space: here they are listed with the payload's span and without field
/// spans; [`to_node_with_spaces`] opens a byte space for the decompressed bytes instead.
pub fn to_node(bin: &OffloadBinary<'_>, span: Span) -> Node {
    binary_node(bin, span, &mut |_| None)
}

/// [`to_node`], with a compressed v3 binary's decompressed bytes as a new byte space pushed to
/// `spaces` (numbered by its index there, so `spaces` must already hold the input as 0) and a
/// decompressed node whose entries, string table and images have spans in it.
pub fn to_node_with_spaces(bin: &OffloadBinary<'_>, span: Span, spaces: &mut Vec<ByteSpace>) -> Node {
    binary_node(bin, span, &mut |space| {
        spaces.push(space);
        Some(spaces.len() as u32 - 1)
    })
}

/// `open_space` registers the decompressed bytes of a compressed binary and returns their space
/// number, or `None` to describe the entries without them.
fn binary_node(bin: &OffloadBinary<'_>, span: Span, open_space: &mut dyn FnMut(ByteSpace) -> Option<u32>) -> Node {
    let mut node = Node::new(NodeKind::OffloadBinary, binary_label(bin), span);
    let Some(layout) = bin.layout() else {
        node.editable("version", bin.version as u64, None);
        node.children = bin.entries.iter().map(|e| entry_node(e, None, bin.version, None, None, span)).collect();
        return node;
    };
    let outer = Place { space: span.space, base: span.offset, shift: 0 };
    header_fields(&mut node, bin, layout, outer);
    let body_place = match &layout.compressed {
        None => Some(outer),
        Some(c) => {
            let body = c.inflated.get(c.payload.start as usize..).unwrap_or(&[]);
            let space = open_space(ByteSpace {
                label: format!("decompressed offload binary ({})", c.method.name()),
                size: body.len() as u64,
                origin: Some(outer.range(&c.payload)),
                data: Some(body.to_vec()),
            });
            space.map(|space| Place { space, base: 0, shift: c.payload.start })
        }
    };
    match (&layout.compressed, body_place) {
        (None, _) => node.children = body_nodes(bin, layout, outer),
        (Some(c), Some(place)) => {
            node.children.extend(gap_nodes(&layout.bytes, &[0..40, c.payload.clone()], 0..layout.header.size, outer));
            node.children.push(decompressed_node(bin, layout, c, place));
        }
        (Some(c), None) => {
            let payload = outer.range(&c.payload);
            node.children.extend(gap_nodes(&layout.bytes, &[0..40, c.payload.clone()], 0..layout.header.size, outer));
            node.children.extend(bin.entries.iter().map(|e| entry_node(e, None, bin.version, None, None, payload)));
        }
    }
    for note in &layout.notes {
        let span = match (note.decompressed, body_place) {
            (false, _) => note.at.as_ref().map(|r| outer.range(r)),
            (true, Some(place)) => note.at.as_ref().map(|r| place.range(r)),
            (true, None) => layout.compressed.as_ref().map(|c| outer.range(&c.payload)),
        };
        node.diag(note.severity, note.message.clone(), span);
    }
    if bin.is_edited() {
        node.diag(Severity::Note, "edited: written again with LLVM's layout", None);
    }
    node
}

fn decompressed_node(bin: &OffloadBinary<'_>, layout: &Layout<'_>, c: &CompressedLayout, place: Place) -> Node {
    let size = (c.inflated.len() as u64).saturating_sub(c.payload.start);
    let label = format!(
        "decompressed payload ({}, {} -> {})",
        c.method.name(),
        human_size(c.payload.end - c.payload.start),
        human_size(size)
    );
    let mut node = Node::new(NodeKind::Decompressed, label, Span::new(place.space, 0, size));
    node.children = body_nodes(bin, layout, place);
    node
}

fn header_fields(node: &mut Node, bin: &OffloadBinary<'_>, layout: &Layout<'_>, place: Place) {
    let h = &layout.header;
    node.field("magic", hex(&MAGIC), Some(place.span(0, 4)));
    node.editable("version", bin.version as u64, Some(place.span(4, 4)));
    node.field("size", h.size, Some(place.span(8, 8)));
    if h.version == 1 {
        node.field("entry_offset", h.entries_offset, Some(place.span(16, 8)));
        node.field("entry_size", h.entries_field, Some(place.span(24, 8)));
    } else {
        node.field("entries_offset", h.entries_offset, Some(place.span(16, 8)));
        node.field("entries_count", h.entries_field, Some(place.span(24, 8)));
    }
    if let Some(inflated) = h.inflated_size {
        node.field("inflated_size", inflated, Some(place.span(32, 8)));
    }
    if bin.version >= 3 {
        let method = bin.compression.map_or("none", |c| c.method.name());
        let span = layout.compressed.as_ref().map(|c| place.range(&c.payload));
        node.editable("compression", method, span);
    }
}

/// Entries, string table and gaps of the uncompressed binary, in offset order.
fn body_nodes(bin: &OffloadBinary<'_>, layout: &Layout<'_>, place: Place) -> Vec<Node> {
    let body = layout.body();
    let h = &layout.header;
    let mut nodes: Vec<Node> = bin
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry_node(e, layout.entries.get(i), bin.version, Some(body), Some(place), place.span(0, 0)))
        .collect();
    let table = layout.string_table.start..layout.string_table_used_end.max(layout.string_table.start);
    if table.start < table.end {
        let records = layout.entries.iter().map(|e| e.strings.len() as u64).sum::<u64>();
        let label = format!("string table ({})", human_size(table.end - table.start));
        let mut node = Node::new(NodeKind::StringTable, label, place.range(&table));
        node.field("size", table.end - table.start, Some(place.range(&table)));
        node.field("string_entries", records, None);
        nodes.push(node);
    }
    let mut covered = alloc::vec![0..h.header_size(), table];
    let body_start = layout.compressed.as_ref().map_or(0, |c| c.payload.start);
    let entry_size = string_entry_size(h.version);
    covered.push(h.entries_offset..h.entries_offset + h.entry_count() * ENTRY_SIZE);
    for e in &layout.entries {
        covered.push(e.raw.string_offset..e.raw.string_offset + e.raw.num_strings * entry_size);
        covered.push(e.raw.image_offset..e.raw.image_offset + e.raw.image_size);
    }
    nodes.extend(gap_nodes(body, &covered, body_start..body.len() as u64, place));
    sort::sort_by_key(&mut nodes, |n| n.span.offset);
    nodes
}

/// Padding or unknown nodes for the bytes of `within` that no range in `covered` reaches.
fn gap_nodes(buf: &[u8], covered: &[Range<u64>], within: Range<u64>, place: Place) -> Vec<Node> {
    let mut ranges: Vec<Range<u64>> = covered.iter().filter(|r| r.start < r.end).cloned().collect();
    sort::sort_by_key(&mut ranges, |r| r.start);
    let mut gaps = Vec::new();
    let mut pos = within.start;
    for r in ranges.iter().chain(core::iter::once(&(within.end..within.end))) {
        if r.start > pos {
            gaps.push(pos..r.start.min(within.end));
        }
        pos = pos.max(r.end);
    }
    gaps.into_iter()
        .filter(|g| g.start < g.end)
        .map(|g| {
            let bytes = &buf[g.start as usize..g.end as usize];
            let span = place.range(&g);
            if bytes.iter().all(|&b| b == 0) {
                Node::new(NodeKind::Padding, format!("padding ({})", human_size(g.end - g.start)), span)
            } else {
                let mut node =
                    Node::new(NodeKind::Unknown, format!("unused bytes ({})", human_size(g.end - g.start)), span);
                node.diag(Severity::Warning, "bytes no header field points at, and not zero", Some(span));
                node
            }
        })
        .collect()
}

/// The span of the value of the last string entry whose key is `key` (the one LLVM keeps).
fn value_span(body: &[u8], el: &EntryLayout, key: &str, place: Place) -> Option<Span> {
    let s =
        el.strings.iter().rev().find(|s| body.get(s.key.start as usize..s.key.end as usize) == Some(key.as_bytes()))?;
    Some(place.range(&s.value))
}

fn entry_node(
    entry: &OffloadEntry<'_>,
    el: Option<&EntryLayout>,
    version: u32,
    body: Option<&[u8]>,
    place: Option<Place>,
    fallback: Span,
) -> Node {
    let at = |off: u64, size: u64| el.zip(place).map(|(el, p)| p.span(el.offset + off, size));
    let record = at(0, ENTRY_SIZE).unwrap_or(fallback);
    let mut node = Node::new(NodeKind::OffloadEntry, entry_label(entry), record);
    let string_span = |key: &str| match (el, body, place) {
        (Some(el), Some(body), Some(p)) => value_span(body, el, key, p),
        _ => None,
    };
    node.editable("triple", entry.triple().unwrap_or(""), string_span("triple"));
    node.editable("arch", entry.arch().unwrap_or(""), string_span("arch"));
    node.editable("image_kind", entry.image_kind.name(), at(0, 2));
    node.field("image_kind_value", entry.image_kind.0 as u64, at(0, 2));
    node.editable("offload_kind", entry.offload_kind.name(), at(2, 2));
    node.field("offload_kind_value", entry.offload_kind.0 as u64, at(2, 2));
    node.editable("flags", entry.flags as u64, at(4, 4));
    let strings_span =
        el.zip(place).map(|(el, p)| p.span(el.raw.string_offset, el.raw.num_strings * string_entry_size(version)));
    node.editable("strings", Value::Map(entry.strings.clone()), strings_span);
    if let Some(el) = el {
        node.field("string_offset", el.raw.string_offset, at(8, 8));
        node.field("num_strings", el.raw.num_strings, at(16, 8));
        node.field("image_offset", el.raw.image_offset, at(24, 8));
        node.field("image_size", el.raw.image_size, at(32, 8));
    }
    entry_diagnostics(&mut node, entry, version);
    let image_span = el.zip(place).map(|(el, p)| p.span(el.raw.image_offset, el.raw.image_size)).unwrap_or(fallback);
    let label = format!("{} image ({})", entry.image_kind.name(), human_size(entry.image.len() as u64));
    let mut image = Node::new(NodeKind::Image, label, image_span);
    image.field("size", entry.image.len() as u64, Some(image_span));
    node.children.push(image);
    node
}

fn entry_diagnostics(node: &mut Node, entry: &OffloadEntry<'_>, version: u32) {
    let span = node.fields.iter().find(|f| f.name == "offload_kind").and_then(|f| f.span);
    if let Some((severity, message)) = entry.offload_kind.caveat() {
        let hint = match (entry.offload_kind, entry.triple()) {
            (OffloadKind::HIP, Some(t)) if t.starts_with("amdgcn") => "; the amdgcn triple suggests HIP",
            (OffloadKind::HIP, Some(t)) if t.starts_with("spir") => "; the SPIR triple suggests SYCL",
            _ => "",
        };
        node.diag(severity, format!("{message}{hint}"), span);
    }
    let kind_span = node.fields.iter().find(|f| f.name == "image_kind").and_then(|f| f.span);
    if !entry.image_kind.is_known() {
        let message = format!("image kind {} is not one LLVM defines (0 to 6)", entry.image_kind.0);
        node.diag(Severity::Warning, message, kind_span);
    }
    if entry.triple().is_none_or(str::is_empty) {
        node.diag(Severity::Warning, "no triple: LLVM's linker wrapper cannot tell the target", None);
    }
    let known_flags = if version >= 2 { FLAG_METADATA } else { 0 };
    if entry.flags & !known_flags != 0 {
        let message = format!("flags {:#x} include bits LLVM does not define", entry.flags);
        node.diag(Severity::Note, message, node.fields.iter().find(|f| f.name == "flags").and_then(|f| f.span));
    }
}

pub use packager::package_image;
