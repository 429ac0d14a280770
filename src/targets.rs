//! The device targets of an explored file, gathered from its tree: what the summary table of
//! the CLI and of the app shows.

use crate::tree::{Node, NodeKind, Span, Tree, Value};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One device image and what it is for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Target {
    /// The bundle entry ID, or `<triple>-<arch>` for an offload binary entry.
    pub target_id: String,
    pub offload_kind: String,
    pub triple: String,
    pub processor: String,
    /// Target features such as `xnack+`, colon separated; empty when none are given.
    pub features: String,
    pub image_size: u64,
    /// Bytes the image takes in the file, when it is stored uncompressed.
    pub stored_size: Option<u64>,
    /// The compression method of the enclosing compressed bundle, if any.
    pub compression: Option<String>,
    pub span: Span,
    /// Labels of the containers from the file down to this image.
    pub chain: Vec<String>,
    /// The archive member the image is in (the innermost, for archives in archives).
    pub member: Option<String>,
}

fn text(node: &Node, name: &str) -> String {
    match node.get(name) {
        Some(Value::Text(t)) => t.clone(),
        Some(Value::Uint(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Every device image in the tree, host entries left out, in tree order.
pub fn collect(tree: &Tree) -> Vec<Target> {
    let mut out = Vec::new();
    let mut chain: Vec<&Node> = Vec::new();
    visit(&tree.root, &mut chain, &mut out);
    out
}

fn visit<'t>(node: &'t Node, chain: &mut Vec<&'t Node>, out: &mut Vec<Target>) {
    match node.kind {
        NodeKind::BundleEntry if text(node, "offload_kind") != "host" && !wraps_container(node) => {
            out.push(target_of(node, chain, text(node, "id")))
        }
        NodeKind::OffloadEntry => {
            let id = alloc::format!("{}-{}", text(node, "triple"), text(node, "arch"));
            out.push(target_of(node, chain, id));
        }
        _ => {}
    }
    chain.push(node);
    for c in &node.children {
        visit(c, chain, out);
    }
    chain.pop();
}

/// An entry that holds another container (a bundled object's section holding a compressed
/// bundle, say) is not itself a device image: the images are the entries inside it.
fn wraps_container(entry: &Node) -> bool {
    entry.children.iter().any(|c| {
        matches!(c.kind, NodeKind::Bundle | NodeKind::TextBundle | NodeKind::CompressedBundle | NodeKind::OffloadBinary)
    })
}

fn target_of(node: &Node, chain: &[&Node], target_id: String) -> Target {
    let compression = chain.iter().rev().find(|n| n.kind == NodeKind::CompressedBundle).map(|n| text(n, "method"));
    let (processor, features) = processor_and_features(node);
    // An offload entry's node spans its 40-byte header; its image is a child.
    let image = match node.kind {
        NodeKind::OffloadEntry => {
            node.children.iter().find(|c| c.kind == NodeKind::Image).map_or(node.span, |c| c.span)
        }
        _ => node.span,
    };
    Target {
        target_id,
        offload_kind: text(node, "offload_kind"),
        triple: text(node, "triple"),
        processor,
        features,
        image_size: image.size,
        stored_size: compression.is_none().then_some(image.size),
        compression,
        span: image,
        chain: chain.iter().map(|n| n.label.clone()).collect(),
        member: chain.iter().rev().find(|n| n.kind == NodeKind::ArchiveMember).map(|n| text(n, "name")),
    }
}

/// Processor and features from the `processor`/`features` fields of a bundle entry, or from
/// the `arch` of an offload entry (`gfx90a:xnack+`).
fn processor_and_features(node: &Node) -> (String, String) {
    let processor = text(node, "processor");
    if !processor.is_empty() {
        return (processor, text(node, "features"));
    }
    let arch = text(node, "arch");
    match arch.split_once(':') {
        Some((p, f)) => (p.to_string(), f.to_string()),
        None => (arch, String::new()),
    }
}
