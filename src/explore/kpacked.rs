//! kpack'd builds in the explorer ([`crate::format::kpack`]): a `.kpack` archive on its own
//! (every entry's code object explored like any device image), and a host binary whose device
//! code was moved into archives: its HIP fatbin wrappers, its `.rocm_kpack_ref` reference, and,
//! when the archives are given with it ([`super::Companion`]), each wrapper's code objects
//! joined under it, so that targets and kernels read as for the build before the transform.
//!
//! A joined code object is copied into a byte space of its own (the companion's bytes are not
//! part of the explored file); a code object stored as a zstd frame is decompressed into one
//! more, within the same limits as any frame.

use super::{error_node, Explorer};
use crate::error::Error;
use crate::format::host::{OffloadSection, SectionRole};
use crate::format::kpack::{self, reference, wrapper, Archive, Entry, Scheme};
use crate::format::sycl;
use crate::ids;
use crate::image;
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One code object a wrapper's key names, taken out of a companion archive.
struct Joined {
    archive: String,
    key: String,
    arch: String,
    entry_id: String,
    ordinal: Option<u64>,
    original_size: Option<u64>,
    zstd: bool,
    /// The blob or frame, or why it could not be read.
    stored: Result<(u64, Vec<u8>), Error>,
}

/// What the reference of a host binary says, and which archives given with it were used.
pub(super) struct KpackHost<'a> {
    reference: Result<reference::Reference<'a>, Error>,
    /// Per wrapper of `.hipFatBinSegment`: the code objects joined.
    joined: Vec<Vec<Joined>>,
}

impl Explorer<'_, '_, '_> {
    /// A `.kpack` archive whose bytes are `data`, lying at `span`.
    pub(super) fn kpack_archive(&mut self, data: &[u8], span: Span, depth: u32) -> Node {
        let archive = match kpack::read(data) {
            Ok(a) => a,
            Err(e) => return error_node(&e, span, "kpack archive"),
        };
        let mut node = archive_node(&archive, span);
        let len = data.len() as u64;
        for entry in &archive.entries {
            let stored = archive.stored(entry, len).map(|s| (s.offset, &data[s.offset as usize..][..s.size as usize]));
            let at = match &stored {
                Ok((offset, bytes)) => span.sub(*offset, bytes.len() as u64),
                Err(_) => span.sub(entry.offset, entry.size),
            };
            let zstd = archive.scheme.value == Scheme::ZstdPerKernel;
            let mut child = entry_node(entry, zstd, span);
            match stored {
                Ok((_, bytes)) => self.entry_code_object(&mut child, bytes, at, zstd, depth + 1),
                Err(e) => {
                    let shown = span.sub(e.offset.min(span.size), 0);
                    child.diag(Severity::Error, format!("code object not read: {e}"), Some(shown));
                }
            }
            node.children.push(child);
        }
        if let Err(e) = &archive.stored {
            node.diag(Severity::Error, e.to_string(), Some(span.sub(e.offset.min(span.size), 0)));
        }
        node
    }

    /// The code object of an entry (its node `node`), stored as `bytes` lying at `at`: explored
    /// like any device image, or decompressed from its zstd frame first.
    fn entry_code_object(&mut self, node: &mut Node, bytes: &[u8], at: Span, zstd: bool, depth: u32) {
        node.span = at;
        if zstd {
            let content_size = sycl::zstd_frame(bytes).ok().and_then(|(_, n)| n);
            node.children.push(self.zstd_frame(bytes, content_size, at, depth));
        } else {
            node.children.extend(self.content(bytes, at, depth));
        }
        let carrier = node.text("target_id").unwrap_or("").to_string();
        let declared = node.get("original_size").cloned();
        if let Some(image) = first_image_mut(node) {
            image::amdgpu::check_carrier(image, &carrier);
            if let Some(crate::tree::Value::Uint(n)) = declared {
                if image.span.size != n {
                    let message = format!("the TOC says the code object has {n} bytes; it has {}", image.span.size);
                    node.diag(Severity::Warning, message, None);
                }
            }
        }
    }

    /// Reads a host binary's kpack reference and, for every HIP fatbin wrapper, takes the code
    /// objects its key names out of the companion archives. `None` when the file is not kpack'd.
    pub(super) fn kpack_host<'a>(&self, sections: &[OffloadSection<'a>], pointer: u64) -> Option<KpackHost<'a>> {
        let reference = sections.iter().find(|s| s.role == SectionRole::KpackReference);
        let wrappers = sections
            .iter()
            .find(|s| s.role == SectionRole::HipFatbinWrapper)
            .and_then(|s| wrapper::parse_all(s.data, pointer).ok())
            .unwrap_or_default();
        if reference.is_none() && !wrappers.iter().any(wrapper::Wrapper::is_kpack) {
            return None;
        }
        let reference = match reference {
            Some(s) => reference::read(s.data).map_err(|e| e.shifted(s.file_offset)),
            None => Err(Error::new(0, "kpack'd binary", "a `.rocm_kpack_ref` section", "HIPK wrappers without one")),
        };
        let keys: Vec<Option<String>> = wrappers
            .iter()
            .map(|w| w.is_kpack().then(|| reference.as_ref().ok().map(|r| r.key(w.code_object_index()))).flatten())
            .collect();
        let joined = self.join(&keys);
        Some(KpackHost { reference, joined })
    }

    /// The code objects of each key in every companion archive that holds it, copied out.
    /// Each archive's TOC is read once.
    fn join(&self, keys: &[Option<String>]) -> Vec<Vec<Joined>> {
        let mut out: Vec<Vec<Joined>> = keys.iter().map(|_| Vec::new()).collect();
        for (name, data) in self.companions() {
            let Ok(archive) = kpack::read(data) else { continue };
            let zstd = archive.scheme.value == Scheme::ZstdPerKernel;
            for (key, joined) in keys.iter().zip(out.iter_mut()) {
                let Some(key) = key else { continue };
                for entry in archive.entries_of(key) {
                    let stored = archive
                        .stored(entry, data.len() as u64)
                        .map(|s| (s.offset, data[s.offset as usize..][..s.size as usize].to_vec()));
                    joined.push(Joined {
                        archive: name.to_string(),
                        key: key.clone(),
                        arch: entry.arch.value.to_string(),
                        entry_id: entry.entry_id(),
                        ordinal: entry.ordinal.as_ref().map(|o| o.value),
                        original_size: entry.original_size.as_ref().map(|o| o.value),
                        zstd,
                        stored,
                    });
                }
            }
        }
        out
    }

    /// The HIP fatbin wrapper section of a kpack'd binary, lying at `span`: one node per
    /// wrapper, with the code objects joined from companion archives under each `HIPK` one.
    pub(super) fn hip_wrappers(
        &mut self,
        data: &[u8],
        span: Span,
        pointer: u64,
        host: &mut KpackHost<'_>,
        depth: u32,
    ) -> Vec<Node> {
        let wrappers = match wrapper::parse_all(data, pointer) {
            Ok(w) => w,
            Err(e) => return alloc::vec![error_node(&e, span, "HIP fatbin wrapper")],
        };
        let record = wrapper::record_size(pointer);
        let mut nodes = Vec::new();
        for (i, w) in wrappers.iter().enumerate() {
            let at = span.sub(i as u64 * record, record);
            let mut node = wrapper_node(w, i, at, pointer);
            if w.is_kpack() {
                let joined = host.joined.get_mut(i).map(core::mem::take).unwrap_or_default();
                match &host.reference {
                    Ok(r) => {
                        let key = r.key(w.code_object_index());
                        node.field("kpack_key", key.as_str(), None);
                        if joined.is_empty() {
                            let message = format!(
                                "device code not shown: it is in a kpack archive ({}), and no archive given with this file holds key `{key}`",
                                r.search_paths.iter().map(|p| p.value).collect::<Vec<_>>().join(", ")
                            );
                            node.diag(Severity::Warning, message, None);
                        }
                    }
                    Err(_) => {
                        node.diag(Severity::Error, "HIPK wrapper, but the kpack reference cannot be read", None);
                    }
                }
                for j in joined {
                    node.children.push(self.joined_entry(j, depth + 1));
                }
            } else if w.magic != wrapper::HIPF {
                node.diag(Severity::Warning, "magic is neither HIPF nor HIPK", Some(at.sub(0, 4)));
            }
            nodes.push(node);
        }
        nodes
    }

    /// A code object taken from a companion archive: its bytes in a byte space of their own.
    fn joined_entry(&mut self, j: Joined, depth: u32) -> Node {
        let mut node =
            Node::new(NodeKind::KpackEntry, format!("{} {} from {}", j.key, j.arch, j.archive), Span::default());
        node.field("archive", j.archive.as_str(), None);
        node.field("key", j.key.as_str(), None);
        node.field("arch", j.arch.as_str(), None);
        node.field("id", j.entry_id.as_str(), None);
        if let Some(n) = j.ordinal {
            node.field("ordinal", n, None);
        }
        if let Some(n) = j.original_size {
            node.field("original_size", n, None);
        }
        node.field("compression", if j.zstd { "zstd" } else { "none" }, None);
        ids::annotate_entry_id(&mut node, &j.entry_id);
        let (offset, bytes) = match j.stored {
            Ok(stored) => stored,
            Err(e) => {
                node.diag(Severity::Error, format!("code object not read from {}: {e}", j.archive), None);
                return node;
            }
        };
        node.field("archive_offset", offset, None);
        node.field("stored_size", bytes.len() as u64, None);
        node.label = format!("{} ({})", node.label, human_size(bytes.len() as u64));
        let at = Span::new(self.spaces.len() as u32, 0, bytes.len() as u64);
        self.spaces.push(ByteSpace {
            label: format!("{} bytes {offset}..{} ({} {})", j.archive, offset + at.size, j.key, j.arch),
            size: at.size,
            origin: None,
            data: None,
        });
        self.entry_code_object(&mut node, &bytes, at, j.zstd, depth);
        self.keep(at.space, bytes);
        node
    }
}

/// The companion archives the kpack'd binaries under `node` took code objects from: the
/// `archive` of each joined entry (an archive's own entries have none).
pub(super) fn joined_archives(node: &Node) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    node.walk(&mut |n, _| {
        let archive = if n.kind == NodeKind::KpackEntry { n.text("archive") } else { None };
        if let Some(a) = archive.filter(|a| !names.iter().any(|known| known == a)) {
            names.push(a.to_string());
        }
    });
    names
}

/// A package's kpack archive whose code objects a kpack'd binary of the same package took: its
/// entries are listed but their code objects are left to that binary, where they are explored,
/// so that the package's targets, kernels and sizes count each code object once.
pub(super) fn list_only(member: &mut Node) {
    fn visit(node: &mut Node) -> bool {
        if node.kind == NodeKind::KpackEntry {
            node.children.clear();
            return true;
        }
        node.children.iter_mut().fold(false, |found, child| visit(child) | found)
    }
    if visit(member) {
        let note = "the code objects of this archive are shown under the package's kpack'd binaries that use it";
        member.diag(Severity::Note, note, None);
    }
}

/// The reference section's node content: the kernel name and search paths, and which of the
/// archives given match them.
pub(super) fn reference_nodes(host: &KpackHost<'_>, span: Span, companions: &[&str]) -> Vec<Node> {
    let r = match &host.reference {
        Ok(r) => r,
        Err(e) => {
            let local = Error { offset: e.offset.saturating_sub(span.offset), ..e.clone() };
            return alloc::vec![error_node(&local, span, "kpack reference")];
        }
    };
    let at = span.sub(0, r.size);
    let mut node = Node::new(NodeKind::KpackReference, format!("kpack reference to {}", r.kernel_name.value), at);
    node.field("kernel_name", r.kernel_name.value, Some(at.sub(r.kernel_name.offset, r.kernel_name.size)));
    for p in &r.search_paths {
        node.field("kpack_search_path", p.value, Some(at.sub(p.offset, p.size)));
    }
    let joined: usize = host.joined.iter().map(Vec::len).sum();
    node.field("joined_code_objects", joined as u64, None);
    for p in &r.search_paths {
        let matched: Vec<String> = companions
            .iter()
            .filter_map(|name| {
                let arch = reference::match_file_name(p.value, name)?;
                Some(if arch.is_empty() { name.to_string() } else { format!("{name} ({arch})") })
            })
            .collect();
        if matched.is_empty() {
            let message = format!("no kpack archive given matches {}: the device code it holds is not shown", p.value);
            node.diag(Severity::Warning, message, Some(at.sub(p.offset, p.size)));
        } else {
            node.diag(Severity::Note, format!("{} matched by {}", p.value, matched.join(", ")), None);
        }
    }
    alloc::vec![node]
}

fn archive_node(a: &Archive<'_>, span: Span) -> Node {
    let family = a.arch_family.as_ref().map_or("", |f| f.value);
    let label = format!(
        "kpack archive {} ({family}), {} code objects, {}",
        a.group_name.as_ref().map_or("", |g| g.value),
        a.entries.len(),
        a.scheme.value.name()
    );
    let mut node = Node::new(NodeKind::KpackArchive, label, span);
    let at = |offset: u64, size: u64| Some(span.sub(offset, size));
    node.field("magic", "KPAK", at(0, 4));
    node.field("version", u64::from(a.version), at(4, 4));
    node.field("toc_offset", a.toc_offset, at(8, 8));
    node.field("toc_size", a.toc_size, at(a.toc_offset, a.toc_size));
    if let Some(v) = &a.format_version {
        node.field("format_version", v.value, at(v.offset, v.size));
    }
    if let Some(v) = &a.group_name {
        node.field("group_name", v.value, at(v.offset, v.size));
    }
    if let Some(v) = &a.arch_family {
        node.field("gfx_arch_family", v.value, at(v.offset, v.size));
    }
    let arches: Vec<&str> = a.arches.iter().map(|v| v.value).collect();
    let arches_span = match (a.arches.first(), a.arches.last()) {
        (Some(first), Some(last)) => at(first.offset, (last.offset + last.size).saturating_sub(first.offset)),
        _ => None,
    };
    node.field("gfx_arches", arches.join(", "), arches_span);
    node.field("compression_scheme", a.scheme.value.name(), at(a.scheme.offset, a.scheme.size));
    if let Some((offset, size)) = a.frame_region {
        node.field("zstd_offset", offset, None);
        node.field("zstd_size", size, at(offset, size));
    }
    node.field("code_objects", a.entries.len() as u64, None);
    if a.format_version.as_ref().is_some_and(|v| v.value != 1) {
        node.diag(Severity::Warning, "format_version is not 1, the only one rocm-kpack writes", None);
    }
    let trailing = span.size.saturating_sub(a.toc_end());
    if trailing > 0 {
        let message = format!("{trailing} bytes after the table of contents, which runs to the end of the file");
        node.diag(Severity::Warning, message, at(a.toc_end(), trailing));
    }
    node
}

/// An entry of the archive lying at `archive`: its key, architecture and TOC fields, with
/// their spans.
fn entry_node(e: &Entry<'_>, zstd: bool, archive: Span) -> Node {
    let at = |offset: u64, size: u64| Some(archive.sub(offset, size));
    let label = format!("{} {}", e.key.value, e.arch.value);
    let mut node = Node::new(NodeKind::KpackEntry, label, archive.sub(e.offset, e.size));
    node.field("key", e.key.value, at(e.key.offset, e.key.size));
    node.field("arch", e.arch.value, at(e.arch.offset, e.arch.size));
    let id = e.entry_id();
    node.field("id", id.as_str(), e.target.as_ref().and_then(|t| at(t.offset, t.size)));
    if let Some(k) = &e.kind {
        node.field("type", k.value, at(k.offset, k.size));
    }
    if let Some(o) = &e.ordinal {
        node.field("ordinal", o.value, at(o.offset, o.size));
    }
    if let Some(o) = &e.original_size {
        node.field("original_size", o.value, at(o.offset, o.size));
    }
    node.field("compression", if zstd { "zstd" } else { "none" }, None);
    ids::annotate_entry_id(&mut node, &id);
    node
}

fn wrapper_node(w: &wrapper::Wrapper, index: usize, at: Span, pointer: u64) -> Node {
    let what = if w.is_kpack() {
        format!("HIPK, kpack'd, code object index {}", w.code_object_index())
    } else {
        w.magic_name()
    };
    let mut node = Node::new(NodeKind::FatbinWrapper, format!("HIP fatbin wrapper {index} ({what})"), at);
    node.field("magic", w.magic_name(), Some(at.sub(0, 4)));
    node.field("version", u64::from(w.version), Some(at.sub(4, 4)));
    node.field("binary", format!("{:#x}", w.binary), Some(at.sub(8, pointer)));
    if w.is_kpack() {
        node.field("code_object_index", w.code_object_index(), Some(at.sub(8 + pointer, 4)));
    } else {
        node.field("reserved", format!("{:#x}", w.reserved), Some(at.sub(8 + pointer, pointer)));
    }
    node
}

/// The first device image at or below `node`, depth first.
fn first_image_mut(node: &mut Node) -> Option<&mut Node> {
    if node.kind == NodeKind::Image {
        return Some(node);
    }
    node.children.iter_mut().find_map(first_image_mut)
}
