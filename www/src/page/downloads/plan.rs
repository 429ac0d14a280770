//! Downloads, the part that needs no browser: what each node of an explored file offers for
//! download and under which name ([`Plan`]), the tar of every device image ([`tar`]), the
//! device-specific archive of one target of an archive ([`device_archive`]), and the check that
//! whatever is offered reads back ([`new_errors`]). The page and the worker (`download/save.rs`,
//! `worker.rs`) do the rest: slicing the file, asking the worker, saving the result.
//!
//! Names follow `offload extract` where it has a rule (`offload::file_names`): a device image
//! is `<file>.<target>.<ext>` (`<file>.<member>.<target>.<ext>` inside an archive member), `:`
//! made `_`, numbered when the same target appears again, in target order. Other nodes:
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

pub mod tar;

#[cfg(target_arch = "wasm32")]
pub mod prepare;
#[cfg(target_arch = "wasm32")]
pub mod save;

use crate::model::{Doc, NodeId, NodeInfo, Severity, Span};
use offload::file_names::{extension_for_format, image_stem, sanitize, UniqueNames};
use offload::ids::EntryId;
use offload::tree::Tree;

/// What the user asks to download, always from the active tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadRequest {
    /// The selected node's bytes (the `d` key).
    Selected,
    Node(NodeId),
    /// The whole current file.
    File,
    /// One tar of every device image.
    AllImages,
    /// The device-specific archive of this target (an entry ID) of an archive.
    DeviceArchive(String),
}

/// What the page says about the latest download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownloadNotice {
    /// Increases with every download, so that a late report of an earlier one is ignored.
    pub id: u32,
    pub name: String,
    pub stage: DownloadStage,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadStage {
    /// Being read and checked: `done` of `total` parts.
    Preparing {
        done: u64,
        total: u64,
    },
    Saved {
        size: u64,
    },
    /// Not offered: why, and the errors its bytes read back with.
    Refused {
        reason: String,
        errors: Vec<String>,
    },
}

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
    "its bytes were not decompressed (the bundle is larger than the settings let the explorer decompress)";

impl Plan {
    pub fn of(doc: &Doc) -> Plan {
        let file = file_part(&doc.name);
        let mut names = UniqueNames::new();
        let mut plan = Plan { offers: Vec::new(), by_node: vec![Err(EMPTY); doc.nodes.len()], images: Vec::new() };
        // Images first, in target order, so that their numbering is `offload extract`'s.
        for t in &doc.targets {
            let owner = t.node.filter(|&n| n < doc.nodes.len());
            let member = owner.and_then(|n| member_of(doc, n));
            let format = owner.and_then(|n| image_format(doc, n, t.span));
            let name = names
                .take(&image_stem(&file, &t.target_id, member.as_deref()), format.map_or("bin", extension_for_format));
            let what = format!("{} for {}", format.unwrap_or("device image"), t.target_id);
            let index = plan.push(Offer {
                name,
                what,
                span: t.span,
                source_errors: owner.map_or(0, |n| errors_within(doc, n)),
            });
            plan.images.push(index);
            if let Some(n) = owner {
                plan.by_node[n] = Ok(index);
                // The image nodes below an offload entry span the image, not the entry.
                for id in n..doc.nodes[n].subtree_end.min(doc.nodes.len()) {
                    if doc.nodes[id].span == t.span {
                        plan.by_node[id] = Ok(index);
                    }
                }
            }
        }
        let counts = kind_counts(doc);
        let mut ordinals = std::collections::HashMap::<&str, usize>::new();
        for (id, node) in doc.nodes.iter().enumerate() {
            let ordinal = ordinals.entry(node.kind.as_str()).or_default();
            *ordinal += 1;
            if plan.by_node[id].is_ok() {
                continue;
            }
            if let Some(parent) = node.parent.filter(|&p| doc.nodes[p].span == node.span && plan.by_node[p].is_ok()) {
                plan.by_node[id] = plan.by_node[parent];
                continue;
            }
            if node.span.size == 0 {
                continue;
            }
            let numbered = counts.get(node.kind.as_str()).is_some_and(|&c| c > 1).then_some(*ordinal);
            let (stem, ext) = node_name(doc, id, &file, numbered);
            let offer = Offer {
                name: names.take(&stem, ext),
                what: node.label.clone(),
                span: node.span,
                source_errors: errors_within(doc, id),
            };
            plan.by_node[id] = Ok(plan.push(offer));
        }
        plan
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

/// The name of the innermost archive member holding `node`, as `Target::member` gives it.
fn member_of(doc: &Doc, node: NodeId) -> Option<String> {
    doc.ancestors(node)
        .into_iter()
        .find(|&a| doc.nodes[a].kind == "archive-member")
        .and_then(|a| text(&doc.nodes[a], "name").map(str::to_string))
}

/// The format of the image at `span` below `node`: the `format` field the explorer gives an
/// image it recognises (the same `describe_image` the CLI names extracted files by).
fn image_format(doc: &Doc, node: NodeId, span: Span) -> Option<&'static str> {
    (node..doc.nodes[node].subtree_end.min(doc.nodes.len()))
        .filter(|&id| doc.nodes[id].span == span)
        .find_map(|id| text(&doc.nodes[id], "format"))
        .map(known_format)
}

/// A format name as a static string (only known formats get a real extension anyway).
fn known_format(format: &str) -> &'static str {
    const KNOWN: &[&str] =
        &["AMDGPU code object", "CUDA cubin", "LLVM bitcode", "SPIR-V module", "NVIDIA fatbin", "PTX", "ELF object"];
    KNOWN.iter().copied().find(|k| *k == format).unwrap_or("device image")
}

fn text<'n>(node: &'n NodeInfo, name: &str) -> Option<&'n str> {
    match node.fields.iter().find(|f| f.name == name).map(|f| &f.value) {
        Some(crate::model::FieldValue::Text(t)) => Some(t.as_str()),
        _ => None,
    }
}

/// Error diagnostics on `node` and below it.
pub fn errors_within(doc: &Doc, node: NodeId) -> u32 {
    let Some(end) = doc.nodes.get(node).map(|n| n.subtree_end.min(doc.nodes.len())) else { return 0 };
    doc.nodes[node..end].iter().flat_map(|n| &n.diagnostics).filter(|d| d.severity == Severity::Error).count() as u32
}

fn kind_counts(doc: &Doc) -> std::collections::HashMap<&str, usize> {
    let mut counts = std::collections::HashMap::new();
    for n in &doc.nodes {
        *counts.entry(n.kind.as_str()).or_insert(0) += 1;
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
    match node.kind.as_str() {
        "file" => (file.to_string(), ""),
        "archive-member" => (sanitize(text(node, "name").unwrap_or("member")), ""),
        "section" => (format!("{prefix}.{}", sanitize(text(node, "name").unwrap_or("section"))), "bin"),
        "bundle-entry" => {
            (format!("{prefix}.{}", sanitize(text(node, "id").unwrap_or("entry"))), content_extension(doc, id))
        }
        "offload-binary" => match single_entry_target(doc, id) {
            Some(target) => (format!("{prefix}.{}", sanitize(&target)), "offbin"),
            None => (generic("offload-binary"), "offbin"),
        },
        kind => (generic(kind), kind_extension(doc, id)),
    }
}

/// `<triple>-<arch>` of an offload binary with exactly one entry.
fn single_entry_target(doc: &Doc, id: NodeId) -> Option<String> {
    let mut entries = doc.nodes[id].children.iter().filter(|&&c| doc.nodes[c].kind == "offload-entry");
    let only = *entries.next()?;
    if entries.next().is_some() {
        return None;
    }
    let entry = &doc.nodes[only];
    Some(format!("{}-{}", text(entry, "triple")?, text(entry, "arch")?))
}

/// The extension of what a bundle entry holds: its image's format, or its container's kind.
fn content_extension(doc: &Doc, id: NodeId) -> &'static str {
    match doc.nodes[id].children.first() {
        Some(&child) => match text(&doc.nodes[child], "format") {
            Some(format) => extension_for_format(format),
            None => kind_extension(doc, child),
        },
        None => "bin",
    }
}

fn kind_extension(doc: &Doc, id: NodeId) -> &'static str {
    let node = &doc.nodes[id];
    match node.kind.as_str() {
        "offload-binary" => "offbin",
        "bundle" | "compressed-bundle" | "decompressed" => "hipfb",
        "text-bundle" => "txt",
        "archive" => "a",
        "image" => text(node, "format").map_or("bin", extension_for_format),
        "compressed-payload" => match node.parent.and_then(|p| text(&doc.nodes[p], "method")) {
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
    doc.nodes.first().and_then(|root| root.children.first()).is_some_and(|&c| doc.nodes[c].kind == "archive")
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
        if !out.contains(&t.target_id) {
            out.push(t.target_id.clone());
        }
    }
    out
}

/// `<stem>-<target id>.a`, every `:` made `_`: the rule the device archive's own members are
/// named by (`offload::format::archive::device::device_member_name`), with the archive's extension. An
/// entry without a target ID is named by its whole entry ID.
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

/// The device-specific archive of `target` out of the heterogeneous archive `input`: the
/// bytes `offload unbundle --type=a --targets=<target>` writes, read back before they are
/// offered.
pub fn device_archive(input: &[u8], target: &str, max_decompressed: u64) -> Result<Vec<u8>, String> {
    use offload::format::archive::device::{read_members, summary, unbundle, write_device_archive};
    let id = EntryId::parse(target).map_err(|e| format!("invalid target '{target}': {e}"))?;
    if id.is_host() {
        return Err(format!("'{target}' is a host target; a device archive is made for a device target"));
    }
    let members = read_members(input, max_decompressed).map_err(|e| e.to_string())?;
    let per_target = unbundle(&members, std::slice::from_ref(&id), false).map_err(|e| e.to_string())?;
    let found = per_target.first().map(Vec::as_slice).unwrap_or(&[]);
    if found.is_empty() {
        return Err(format!(
            "no compatible code object for {target} in the archive (it has: {})",
            summary(&members, 8)
        ));
    }
    let bytes = write_device_archive(found).map_err(|e| format!("cannot write the device archive: {e}"))?;
    let back = offload::format::archive::ar::read(&bytes[..])
        .and_then(offload::format::archive::ar::Archive::complete)
        .map_err(|e| format!("the device archive does not read back: {e}"))?;
    let same = back.members.len() == found.len()
        && back
            .members
            .iter()
            .zip(found)
            .all(|(m, e)| m.name == e.name && m.data(&bytes[..]).is_ok_and(|d| d == e.data));
    if !same {
        return Err("the device archive does not read back as written".to_string());
    }
    Ok(bytes)
}

/// The check every download passes: `tree` is what the explorer makes of the bytes about to
/// be saved; if it has more error diagnostics than their source had, the download is refused
/// with those errors.
pub fn new_errors(tree: &Tree, source_errors: u32) -> Result<(), Vec<String>> {
    let errors: Vec<String> = tree
        .errors()
        .into_iter()
        .map(|(node, d)| {
            let at = d.span.map(|s| format!(" (at byte {} of space {})", s.offset, s.space)).unwrap_or_default();
            format!("{}: {}{at}", node.label, d.message)
        })
        .collect();
    if errors.len() as u64 > u64::from(source_errors) {
        return Err(errors);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
