//! What each node of an explored file offers for download and under which name ([`Plan`]),
//! and which device archives an archive offers. Browser-free, so tested natively; the page
//! saves what the plan names (`save`), and the worker reads, builds and checks the bytes.
//!
//! Names follow `offload extract` where it has a rule (`offload::report::file_names`): a device image
//! is `<file>.<target>.<ext>` (`<file>.<member>.<target>.<ext>` inside an archive member), `:`
//! made `_`, numbered when the same target appears again, in target order; an NVIDIA fatbin
//! entry's image is named as cuobjdump names it (`<file>.<n>.sm_80.cubin`). Other nodes:
//!
//! | node | name |
//! |---|---|
//! | the file | `<file>` |
//! | archive member | `<member name>` |
//! | section | `<file>.<section name>.bin` |
//! | bundle entry that is no device image (host entry, one holding a container) | `<file>.<entry id>.<ext of what it holds>` |
//! | offload binary | `<file>.<triple>-<arch>.offbin` (one entry), else `<file>.offload-binary[-<n>].offbin` |
//! | bundle, compressed bundle, decompressed bundle | `<file>.<kind>[-<n>].hipfb` |
//! | compressed payload | `<file>.compressed-payload[-<n>].zst` (or `.zlib`) |
//! | text bundle, archive | `.txt`, `.a`; anything else `.bin` |
//!
//! `<n>` counts nodes of that kind in tree order, and is left out when there is only one. A
//! node spanning exactly its parent's bytes downloads what its parent does (an entry and its
//! code object, a decompressed bundle and its bundle), so one set of bytes has one name.

use crate::wire::doc::{Doc, NodeId, TargetInfo};
use offload::ids::EntryId;
use offload::report::file_names::{extension_for_format, image_stem, sanitize, UniqueNames};
use offload::tree::{NodeKind, Span};
use std::collections::HashMap;

/// One thing that can be downloaded: a byte range of a space, its name, and how many error
/// diagnostics its source had (the check refuses a download that reads back with more).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub name: String,
    /// What it is, for the button's accessible name ("Download <what>").
    pub what: String,
    pub span: Span,
    pub source_errors: u32,
}

/// What every node of a document offers, decided once per document.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    offers: Vec<Offer>,
    /// Per node: its offer, or why it has none.
    by_node: Vec<Result<usize, &'static str>>,
    /// The offers of the device images, in target order (the tar's members).
    images: Vec<usize>,
}

/// Why a node offers nothing.
pub const EMPTY: &str = "it has no bytes";
pub const UNAVAILABLE: &str =
    "its bundle was listed from its header only, and is not decompressed yet (Decompress, above)";

impl Plan {
    pub fn of(doc: &Doc) -> Plan {
        let file = file_part(&doc.name);
        let mut names = UniqueNames::new();
        let mut plan = Plan { offers: Vec::new(), by_node: vec![Err(EMPTY); doc.nodes.len()], images: Vec::new() };
        // Images first, in target order, so that their numbering is `offload extract`'s.
        for t in &doc.targets {
            plan.add_image(doc, t, &file, &mut names);
        }
        plan.add_other_nodes(doc, &file, &mut names);
        plan
    }

    /// A device image's offer, for its entry node and the image nodes below it.
    fn add_image(&mut self, doc: &Doc, t: &TargetInfo, file: &str, names: &mut UniqueNames) {
        let owner = t.node.filter(|&n| n < doc.nodes.len());
        let member = owner.and_then(|n| member_of(doc, n));
        let format = owner.and_then(|n| image_format(doc, n, t.target.span));
        let target_id = &t.target.target_id;
        let extension = format.map_or("bin", extension_for_format);
        // NVIDIA fatbin entries are named as cuobjdump (and `offload extract`) name them.
        let name = match t.target.file_name.as_deref().and_then(|f| f.rsplit_once('.')) {
            Some((stem, ext)) => names.take(stem, ext),
            None => names.take(&image_stem(file, target_id, member.as_deref()), extension),
        };
        // NVIDIA target IDs say what they are already (`sm_80 cubin`, `compute_80 PTX`).
        let what = match t.target.file_name {
            Some(_) => target_id.clone(),
            None => format!("{} for {target_id}", format.unwrap_or("device image")),
        };
        let source_errors = owner.map_or(0, |n| doc.errors_within(n));
        let index = self.push(Offer { name, what, span: t.target.span, source_errors });
        self.images.push(index);
        if let Some(n) = owner {
            self.by_node[n] = Ok(index);
            // The image nodes below an offload entry span the image, not the entry.
            for id in n..doc.nodes[n].subtree_end.min(doc.nodes.len()) {
                if doc.nodes[id].span == t.target.span {
                    self.by_node[id] = Ok(index);
                }
            }
        }
    }

    /// The offers of the nodes that are no device image, numbered by kind in tree order.
    fn add_other_nodes(&mut self, doc: &Doc, file: &str, names: &mut UniqueNames) {
        let counts = kind_counts(doc);
        let mut ordinals = HashMap::<NodeKind, usize>::new();
        for (id, node) in doc.nodes.iter().enumerate() {
            let ordinal = ordinals.entry(node.kind).or_default();
            *ordinal += 1;
            if self.by_node[id].is_ok() {
                continue;
            }
            if let Some(parent) = node.parent.filter(|&p| doc.nodes[p].span == node.span && self.by_node[p].is_ok()) {
                self.by_node[id] = self.by_node[parent];
                continue;
            }
            if node.span.size == 0 {
                continue;
            }
            let numbered = counts.get(&node.kind).is_some_and(|&c| c > 1).then_some(*ordinal);
            let (stem, ext) = node_name(doc, id, file, numbered);
            let offer = Offer {
                name: names.take(&stem, ext),
                what: node.label.clone(),
                span: node.span,
                source_errors: doc.errors_within(id),
            };
            self.by_node[id] = Ok(self.push(offer));
        }
    }

    /// Adds an offer and returns its index. Offers whose bytes are not available are kept too:
    /// `for_node` says why they cannot be had, and the tar names the image it lacks.
    fn push(&mut self, offer: Offer) -> usize {
        self.offers.push(offer);
        self.offers.len() - 1
    }

    /// What `node` offers, or why it offers nothing.
    pub fn for_node(&self, doc: &Doc, node: NodeId) -> Result<&Offer, &'static str> {
        let index = self.by_node.get(node).copied().unwrap_or(Err(EMPTY))?;
        let offer = &self.offers[index];
        if !bytes_available(doc, offer.span) {
            return Err(UNAVAILABLE);
        }
        Ok(offer)
    }

    /// Every device image, in target order, with the name it has in the tar.
    pub fn images(&self) -> impl Iterator<Item = &Offer> {
        self.images.iter().map(|&i| &self.offers[i])
    }

    /// Every distinct offer (for tests: each must read back).
    pub fn offers(&self) -> &[Offer] {
        &self.offers
    }
}

/// Whether every byte of `span` can be read: space 0 always; a decompressed space only as far
/// as it was decompressed.
pub fn bytes_available(doc: &Doc, span: Span) -> bool {
    doc.spaces.get(span.space as usize).is_some_and(|s| span.end() <= s.available)
}

/// The file name as a name part: a path separator in it (a sample's path, say) must not make
/// the download land in another directory.
fn file_part(name: &str) -> String {
    let name = name.replace(['/', '\\'], "_");
    if name.is_empty() || name == "." || name == ".." {
        return "file".to_string();
    }
    name
}

/// The member holding `node`, as `Target::member` gives it: the innermost archive member, or
/// in a package the innermost package member, with `(object)` for an archive member in it.
fn member_of(doc: &Doc, node: NodeId) -> Option<String> {
    let ancestors = doc.ancestors(node);
    let nearest = |kind: NodeKind| ancestors.iter().position(|&a| doc.nodes[a].kind == kind);
    let name = |at: usize| doc.nodes[ancestors[at]].text("name").unwrap_or("").to_string();
    match (nearest(NodeKind::PackageMember), nearest(NodeKind::ArchiveMember)) {
        (Some(p), Some(a)) if a < p => Some(format!("{}({})", name(p), name(a))),
        (Some(p), _) => Some(name(p)),
        (None, Some(a)) => Some(name(a)),
        (None, None) => None,
    }
}

/// The format of the image at `span` below `node`: the `format` field the explorer gives an
/// image it recognises (the same `image::identify` the CLI names extracted files by).
fn image_format(doc: &Doc, node: NodeId, span: Span) -> Option<&'static str> {
    (node..doc.nodes[node].subtree_end.min(doc.nodes.len()))
        .filter(|&id| doc.nodes[id].span == span)
        .find_map(|id| doc.nodes[id].text("format"))
        .map(known_format)
}

/// A format name as a static string (only known formats get a real extension anyway).
fn known_format(format: &str) -> &'static str {
    const KNOWN: &[&str] =
        &["AMDGPU code object", "CUDA cubin", "LLVM bitcode", "SPIR-V module", "NVIDIA fatbin", "PTX", "ELF object"];
    KNOWN.iter().copied().find(|k| *k == format).unwrap_or("device image")
}

fn kind_counts(doc: &Doc) -> HashMap<NodeKind, usize> {
    let mut counts = HashMap::new();
    for n in &doc.nodes {
        *counts.entry(n.kind).or_insert(0) += 1;
    }
    counts
}

/// Stem and extension of a node that is no device image (see the table in the module doc).
fn node_name(doc: &Doc, id: NodeId, file: &str, numbered: Option<usize>) -> (String, &'static str) {
    let node = &doc.nodes[id];
    let prefix = match member_of(doc, id) {
        Some(member) => format!("{file}.{}", sanitize(&member)),
        None => file.to_string(),
    };
    let generic = |kind: &str| match numbered {
        Some(n) => format!("{prefix}.{kind}-{n}"),
        None => format!("{prefix}.{kind}"),
    };
    match node.kind {
        NodeKind::File => (file.to_string(), ""),
        NodeKind::ArchiveMember | NodeKind::PackageMember => (sanitize(node.text("name").unwrap_or("member")), ""),
        NodeKind::Section => (format!("{prefix}.{}", sanitize(node.text("name").unwrap_or("section"))), "bin"),
        NodeKind::BundleEntry => {
            (format!("{prefix}.{}", sanitize(node.text("id").unwrap_or("entry"))), content_extension(doc, id))
        }
        NodeKind::OffloadBinary => match single_entry_target(doc, id) {
            Some(target) => (format!("{prefix}.{}", sanitize(&target)), "offbin"),
            None => (generic(NodeKind::OffloadBinary.as_str()), "offbin"),
        },
        kind => (generic(kind.as_str()), kind_extension(doc, id)),
    }
}

/// `<triple>-<arch>` of an offload binary with exactly one entry.
fn single_entry_target(doc: &Doc, id: NodeId) -> Option<String> {
    let mut entries = doc.nodes[id].children.iter().filter(|&&c| doc.nodes[c].kind == NodeKind::OffloadEntry);
    let only = *entries.next()?;
    if entries.next().is_some() {
        return None;
    }
    let entry = &doc.nodes[only];
    Some(format!("{}-{}", entry.text("triple")?, entry.text("arch")?))
}

/// The extension of what a bundle entry holds: its image's format, or its container's kind.
fn content_extension(doc: &Doc, id: NodeId) -> &'static str {
    match doc.nodes[id].children.first() {
        Some(&child) => match doc.nodes[child].text("format") {
            Some(format) => extension_for_format(format),
            None => kind_extension(doc, child),
        },
        None => "bin",
    }
}

fn kind_extension(doc: &Doc, id: NodeId) -> &'static str {
    let node = &doc.nodes[id];
    match node.kind {
        NodeKind::OffloadBinary => "offbin",
        NodeKind::Bundle | NodeKind::CompressedBundle | NodeKind::Decompressed => "hipfb",
        NodeKind::TextBundle => "txt",
        NodeKind::Archive => "a",
        NodeKind::Image => node.text("format").map_or("bin", extension_for_format),
        NodeKind::CompressedPayload => match node.parent.and_then(|p| doc.nodes[p].text("method")) {
            Some("zstd") => "zst",
            Some("zlib") => "zlib",
            _ => "bin",
        },
        _ => "bin",
    }
}

/// The name of the whole file's download: the tab's name.
pub fn file_download_name(tab_name: &str) -> String {
    file_part(tab_name)
}

/// The name of the tar of every device image: `<file>.images.tar`.
pub fn images_tar_name(file: &str) -> String {
    format!("{}.images.tar", file_part(file))
}

/// Whether the file is an archive whose members carry device code: the file's first child is
/// an archive and some target lies in a member.
pub fn is_device_archive(doc: &Doc) -> bool {
    doc.nodes.first().and_then(|root| root.children.first()).is_some_and(|&c| doc.nodes[c].kind == NodeKind::Archive)
        && doc.targets.iter().any(|t| t.node.is_some_and(|n| member_of(doc, n).is_some()))
}

/// The targets a device-specific archive can be made for: the distinct entry IDs of the
/// archive's device images, in the order first found.
pub fn device_archive_targets(doc: &Doc) -> Vec<String> {
    if !is_device_archive(doc) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for t in &doc.targets {
        if !out.contains(&t.target.target_id) {
            out.push(t.target.target_id.clone());
        }
    }
    out
}

/// `<stem>-<target id>.a`, every `:` made `_`: the rule the device archive's own members are
/// named by (`offload::format::archive::device::device_member_name`), with the archive's
/// extension. An entry without a target ID is named by its whole entry ID.
pub fn device_archive_name(file: &str, target: &str) -> String {
    let file = file_part(file);
    let stem = match file.rfind('.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file.as_str(),
    };
    let parsed = EntryId::parse(target).ok();
    let device = parsed
        .as_ref()
        .and_then(|e| e.target_id())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| target.trim_end_matches('-'));
    sanitize(&format!("{stem}-{device}.a"))
}

#[cfg(test)]
mod tests;
