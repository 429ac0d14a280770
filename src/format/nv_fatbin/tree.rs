//! The annotated tree of fatbin containers: a `fatbin` node per container, a `fatbin-entry` node
//! per entry with every header field and its span, and under each entry its image: in place when
//! stored plainly, or in a new byte space once decompressed.

use super::payload;
use super::{
    file_arch_name, host_name, image_extent, kind_name, options_text, Compression, ConcatImage, Container, Entry,
    Found, Layout, Piece, FLAG_64BIT, FLAG_DEBUG, KIND_CONCAT, KIND_ELF, KIND_PTX, KNOWN_FLAGS,
};
use crate::error::Error;
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// How much decompressing exploring may do.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Largest uncompressed size accepted for one entry.
    pub limit: u64,
    /// Entries up to this size are decompressed while listing ...
    pub full_up_to: u64,
    /// ... as long as this many decompressed bytes remain for the whole file.
    pub remaining: u64,
    /// Decompress every entry within `limit`, however many.
    pub all: bool,
}

/// Total decompressed fatbin bytes one listing keeps (a large library is listed from its
/// headers; `--verify` and extraction decompress everything).
pub const LISTING_BUDGET: u64 = 2 << 20;

/// The nodes of a buffer of containers (a section, a file, an image) lying at `span`.
pub fn nodes(data: &[u8], span: Span, spaces: &mut Vec<ByteSpace>, budget: &mut Budget) -> Vec<Node> {
    nodes_each(super::walk(data), span, spaces, budget, &mut |_, _| {})
}

/// [`nodes`] of the pieces `found` ([`super::walk`]), handing each container's node to `each`
/// as soon as it is made, with the byte spaces so far: a caller can read the images just
/// decompressed, then drop their bytes before the next container is decompressed.
pub fn nodes_each(
    found: Vec<Found>,
    span: Span,
    spaces: &mut Vec<ByteSpace>,
    budget: &mut Budget,
    each: &mut dyn FnMut(&mut Node, &mut [ByteSpace]),
) -> Vec<Node> {
    let mut out = Vec::new();
    for found in found {
        let at = span.sub(found.offset, found.size);
        match &found.piece {
            Piece::Container(c, layout) => {
                let mut node = container_node(c, layout, at, spaces, budget);
                each(&mut node, spaces);
                out.push(node);
            }
            _ => out.push(piece_node(&found, span, at)),
        }
    }
    out
}

/// The node of a piece other than a container (padding, unreadable or unknown bytes), lying at
/// `at` in the buffer at `span`.
pub fn piece_node(found: &Found, span: Span, at: Span) -> Node {
    match &found.piece {
        Piece::Padding => Node::new(NodeKind::Padding, format!("zero padding ({})", human_size(at.size)), at),
        Piece::Unreadable(e) => unreadable(e, span, at),
        Piece::Unknown | Piece::Container(..) => {
            let mut n = Node::new(NodeKind::Unknown, format!("unknown bytes ({})", human_size(at.size)), at);
            n.diag(
                Severity::Warning,
                "bytes after the fatbin containers that are neither a container (magic 50 ED 55 BA) nor zero padding",
                Some(at.sub(0, 16)),
            );
            n
        }
    }
}

fn unreadable(e: &Error, span: Span, at: Span) -> Node {
    let mut n = Node::new(NodeKind::Unknown, "unreadable NVIDIA fatbin", at);
    let local = e.offset.saturating_sub(at.offset.saturating_sub(span.offset));
    n.diag(Severity::Error, e.to_string(), Some(at.sub(local, 1)));
    n
}

/// The node of one container at `span`.
pub fn container_node(
    c: &Container,
    layout: &Layout,
    span: Span,
    spaces: &mut Vec<ByteSpace>,
    budget: &mut Budget,
) -> Node {
    let label =
        format!("NVIDIA fatbin, {} {}", c.entries.len(), if c.entries.len() == 1 { "entry" } else { "entries" });
    let mut node = Node::new(NodeKind::Fatbin, label, span);
    node.field("magic", "0xba55ed50", Some(span.sub(0, 4)));
    node.field("version", u64::from(c.version), Some(span.sub(4, 2)));
    node.field("header_size", u64::from(c.header_size), Some(span.sub(6, 2)));
    node.field("entries_size", c.entries_size, Some(span.sub(8, 8)));
    node.field("entry_count", c.entries.len() as u64, None);
    if c.version != 1 {
        node.diag(
            Severity::Warning,
            format!("version {} (every fatbin seen has version 1)", c.version),
            Some(span.sub(4, 2)),
        );
    }
    if !c.header_extra.is_empty() {
        node.diag(
            Severity::Note,
            format!("{} header bytes after the 16 known ones, kept as they are", c.header_extra.len()),
            Some(span.sub(16, c.header_extra.len() as u64)),
        );
    }
    for (entry, &offset) in c.entries.iter().zip(&layout.entries) {
        node.children.push(entry_node(entry, span.sub(offset, entry.size()), spaces, budget));
    }
    node
}

fn version_text(e: &Entry) -> String {
    format!("{}.{}", e.version_major, e.version_minor)
}

/// The node of one entry at `span`.
pub fn entry_node(e: &Entry, span: Span, spaces: &mut Vec<ByteSpace>, budget: &mut Budget) -> Node {
    let compression = e.compression();
    let arch = e.arch_name();
    let what = match e.kind {
        KIND_ELF => format!("cubin {arch}"),
        KIND_PTX => format!("PTX {arch}"),
        KIND_CONCAT => "concatenated images".to_string(),
        _ => format!("{} {arch}", kind_name(e.kind)),
    };
    let size = if compression == Compression::None { e.payload_size } else { e.uncompressed_size };
    let how = match compression {
        Compression::None => String::new(),
        c => format!(", {} {} → {}", c.name(), human_size(u64::from(e.compressed_size)), human_size(size)),
    };
    let mut n = Node::new(NodeKind::FatbinEntry, format!("{what} ({}{how})", human_size(size)), span);
    n.field("kind", kind_name(e.kind), Some(span.sub(0, 2)));
    n.field("kind_value", u64::from(e.kind), Some(span.sub(0, 2)));
    n.field("unknown_2", u64::from(e.unknown_2), Some(span.sub(2, 2)));
    n.field("header_size", u64::from(e.header_size), Some(span.sub(4, 4)));
    n.field("payload_size", e.payload_size, Some(span.sub(8, 8)));
    n.field("compressed_size", u64::from(e.compressed_size), Some(span.sub(16, 4)));
    n.field("options_offset", u64::from(e.options_offset), Some(span.sub(20, 4)));
    let version_name = if e.kind == KIND_PTX { "ptx_version" } else { "code_version" };
    n.field(version_name, version_text(e), Some(span.sub(24, 4)));
    n.field("arch", arch.as_str(), Some(span.sub(28, 4)));
    n.field("arch_value", u64::from(e.arch), Some(span.sub(28, 4)));
    n.field("file_arch", file_arch_name(e.arch, e.flags), None);
    n.field("identifier_offset", u64::from(e.identifier_offset), Some(span.sub(32, 4)));
    n.field("identifier_size", u64::from(e.identifier_size), Some(span.sub(36, 4)));
    n.field("flags", e.flags, Some(span.sub(40, 8)));
    n.field("compressed", compression.name(), Some(span.sub(40, 8)));
    n.field("host", host_name(e.flags), Some(span.sub(40, 8)));
    n.field("compile_size", if e.flags & FLAG_64BIT != 0 { "64bit" } else { "32bit" }, Some(span.sub(40, 8)));
    n.field("debug", e.flags & FLAG_DEBUG != 0, Some(span.sub(40, 8)));
    n.field("unknown_48", e.unknown_48, Some(span.sub(48, 8)));
    n.field("uncompressed_size", e.uncompressed_size, Some(span.sub(56, 8)));
    if let Some(at) = e.identifier_at() {
        let text = e.identifier().unwrap_or_default();
        n.field("identifier", text, Some(span.sub(at.offset, at.size)));
        if e.identifier().is_none() {
            n.diag(Severity::Warning, "the identifier lies outside the entry header", Some(span.sub(32, 8)));
        }
    }
    if let Some((pair, at)) = e.options_at() {
        n.field("options_location", format!("offset {}, {} bytes", at.offset, at.size), Some(span.sub(pair.offset, 8)));
        match e.options() {
            Some(bytes) => {
                n.field("options", options_text(bytes), Some(span.sub(at.offset, at.size)));
            }
            None => {
                n.diag(Severity::Warning, "the options lie outside the entry header", Some(span.sub(pair.offset, 8)));
            }
        }
    }
    let unknown = e.flags & !KNOWN_FLAGS;
    if unknown != 0 {
        n.field("unknown_flags", unknown, Some(span.sub(40, 8)));
        n.diag(
            Severity::Note,
            format!("flag bits {unknown:#x} have no known meaning; kept as they are"),
            Some(span.sub(40, 8)),
        );
    }
    if !matches!(e.kind, KIND_PTX | KIND_ELF | KIND_CONCAT) {
        n.diag(
            Severity::Warning,
            format!(
                "entry kind {:#x} is not PTX (1), ELF (2) or concatenated (0x100): shown raw, kept as it is",
                e.kind
            ),
            Some(span.sub(0, 2)),
        );
    }
    let ext = e.extension.len() as u64;
    if ext > 0 {
        n.field("header_extension", format!("{ext} bytes"), Some(span.sub(64, ext)));
    }
    let payload = span.sub(u64::from(e.header_size), e.payload_size);
    payload_children(e, &mut n, payload, spaces, budget);
    n
}

/// What an entry's payload holds: the image in place, or the compressed data and, decompressed,
/// a new byte space holding the image (or a concat entry's images).
fn payload_children(e: &Entry, n: &mut Node, payload: Span, spaces: &mut Vec<ByteSpace>, budget: &mut Budget) {
    let compression = e.compression();
    if compression == Compression::None {
        let extent = image_extent(e.kind, &e.payload) as u64;
        if e.kind == KIND_CONCAT {
            match e.concat_table() {
                Ok(images) => {
                    let nodes: Vec<Node> =
                        images.iter().map(|i| concat_image_node(i, n.span, payload, &e.payload)).collect();
                    n.children.extend(nodes);
                }
                Err(err) => {
                    n.diag(Severity::Error, err.to_string(), Some(n.span.sub(err.offset, 4)));
                }
            }
        } else {
            n.children.push(image_node(e.kind, &e.arch_name(), &e.payload, payload.sub(0, extent)));
            n.field("image_size", extent, None);
        }
        push_padding(n, payload, extent);
        return;
    }
    let stored = payload.sub(0, e.stored().len() as u64);
    let mut p = Node::new(
        NodeKind::CompressedPayload,
        format!("{} payload ({})", compression.name(), human_size(stored.size)),
        stored,
    );
    let wanted = e.uncompressed_size;
    if wanted > budget.limit {
        p.diag(
            Severity::Error,
            format!(
                "the declared uncompressed size, {wanted} bytes, is over the limit of {} bytes (--max-decompressed)",
                budget.limit
            ),
            Some(n.span.sub(56, 8)),
        );
    } else if !budget.all && (wanted > budget.full_up_to || wanted > budget.remaining) {
        p.diag(
            Severity::Note,
            format!(
                "{} while listing ({}); list with --verify, or extract, to decompress it",
                crate::tree::NOT_DECOMPRESSED,
                human_size(wanted)
            ),
            None,
        );
    } else {
        match payload::entry_data(e, budget.limit) {
            Ok(plain) => {
                budget.remaining = budget.remaining.saturating_sub(plain.len() as u64);
                let images = decompressed_children(e, n, &mut p, plain, spaces);
                n.children.push(p);
                n.children.extend(images);
                push_padding(n, payload, stored.size);
                return;
            }
            Err(err) => {
                p.diag(Severity::Error, format!("decompression failed: {err}"), Some(stored));
            }
        }
    }
    n.children.push(p);
    push_padding(n, payload, stored.size);
}

/// Opens the decompressed space under `p`; returns the nodes of a concat entry's images, which
/// go after the payload among the entry's children.
fn decompressed_children(
    e: &Entry,
    n: &mut Node,
    p: &mut Node,
    plain: Vec<u8>,
    spaces: &mut Vec<ByteSpace>,
) -> Vec<Node> {
    let mut images_out = Vec::new();
    let space = spaces.len() as u32;
    let inner = Span::new(space, 0, plain.len() as u64);
    let what = match e.kind {
        KIND_ELF => "cubin",
        KIND_PTX => "PTX",
        _ => "data",
    };
    let mut dec = Node::new(NodeKind::Decompressed, format!("decompressed {what} ({})", human_size(inner.size)), inner);
    if e.kind == KIND_CONCAT {
        match e.concat_table() {
            Ok(images) => {
                for image in &images {
                    images_out.push(concat_image_node(image, n.span, inner, &plain));
                }
            }
            Err(err) => {
                n.diag(Severity::Error, err.to_string(), Some(n.span.sub(err.offset, 4)));
            }
        }
    } else {
        let extent = image_extent(e.kind, &plain) as u64;
        dec.children.push(image_node(e.kind, &e.arch_name(), &plain, inner.sub(0, extent)));
        n.field("image_size", extent, None);
    }
    p.children.push(dec);
    spaces.push(ByteSpace {
        label: format!("decompressed {}", n.label),
        size: inner.size,
        origin: Some(p.span),
        data: Some(plain),
    });
    images_out
}

/// One image of a concatenated entry: its 64-byte header in the entry's header, its bytes in the
/// decompressed payload.
fn concat_image_node(image: &ConcatImage, entry: Span, inner: Span, plain: &[u8]) -> Node {
    let at = entry.sub(image.header_offset, 64);
    let arch = super::arch_name(image.arch, image.flags);
    let mut n = Node::new(
        NodeKind::FatbinEntry,
        format!("{} {arch} ({}, in the concatenated data)", kind_name(image.kind), human_size(image.size)),
        at,
    );
    n.field("kind", kind_name(image.kind), Some(at.sub(0, 2)));
    n.field("kind_value", u64::from(image.kind), Some(at.sub(0, 2)));
    n.field("unknown_2", u64::from(image.unknown_2), Some(at.sub(2, 2)));
    n.field("data_offset", u64::from(image.offset), Some(at.sub(4, 4)));
    n.field("data_size", image.size, Some(at.sub(8, 8)));
    let version_name = if image.kind == KIND_PTX { "ptx_version" } else { "code_version" };
    n.field(version_name, format!("{}.{}", image.version_major, image.version_minor), Some(at.sub(24, 4)));
    n.field("arch", arch.as_str(), Some(at.sub(28, 4)));
    n.field("arch_value", u64::from(image.arch), Some(at.sub(28, 4)));
    n.field("file_arch", file_arch_name(image.arch, image.flags), None);
    n.field("flags", image.flags, Some(at.sub(40, 8)));
    n.field("compressed", "none", None);
    n.field("host", host_name(image.flags), Some(at.sub(40, 8)));
    n.field("in_concat", true, None);
    let start = u64::from(image.offset);
    match start.checked_add(image.size).filter(|&end| end <= plain.len() as u64) {
        Some(end) => {
            let bytes = &plain[start as usize..end as usize];
            let extent = image_extent(image.kind, bytes) as u64;
            n.children.push(image_node(image.kind, &arch, bytes, inner.sub(start, extent)));
            n.field("image_size", extent, None);
        }
        None => {
            n.diag(
                Severity::Error,
                format!("image at {start}, {} bytes, lies past the {} decompressed bytes", image.size, plain.len()),
                Some(at.sub(4, 12)),
            );
        }
    }
    n
}

/// The image node of an entry's data: a cubin, PTX or other bytes.
fn image_node(kind: u16, arch: &str, data: &[u8], span: Span) -> Node {
    let (format, label) = match kind {
        KIND_ELF if data.starts_with(b"\x7fELF") => ("CUDA cubin", format!("CUDA cubin {arch}")),
        KIND_PTX => ("PTX", format!("PTX for {arch}")),
        _ => ("data", format!("data ({})", human_size(span.size))),
    };
    let mut n = Node::new(NodeKind::Image, label, span);
    n.field("format", format, None);
    if kind == KIND_ELF && !data.starts_with(b"\x7fELF") {
        n.diag(Severity::Warning, "an ELF entry whose data does not start with an ELF header", Some(span.sub(0, 4)));
    }
    n
}

fn push_padding(n: &mut Node, payload: Span, used: u64) {
    if used < payload.size {
        let pad = payload.sub(used, payload.size - used);
        n.children.push(Node::new(NodeKind::Padding, format!("padding ({})", human_size(pad.size)), pad));
    }
}

/// Whether a tree node is an entry whose image the target table lists (a cubin or PTX, not a
/// concatenated entry, whose images are its children).
pub fn is_listed_entry(node: &Node) -> bool {
    node.kind == NodeKind::FatbinEntry && matches!(node.text("kind"), Some("elf" | "ptx"))
}

/// For tests and tools: the found pieces of `data` that are containers.
pub fn containers<'a>(found: &'a [Found<'a>]) -> impl Iterator<Item = &'a Container<'a>> {
    found.iter().filter_map(|f| match &f.piece {
        Piece::Container(c, _) => Some(c),
        _ => None,
    })
}
