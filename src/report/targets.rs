//! The device targets of an explored file, gathered from its tree: what the summary table of
//! the CLI and of the app shows.

use crate::format::nv_fatbin::tree as nv_tree;
use crate::ids::{known_processor, ProcessorVendor, TargetId};
use crate::tree::{Node, NodeKind, Span, Tree, Value};
use alloc::format;
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
    /// The archive member the image is in (the innermost, for archives in archives); in a
    /// package, the package member (the library), with `(object)` for an archive's member.
    pub member: Option<String>,
    /// The separate device images of an entry that holds several, in order: a SYCL entry's
    /// decompressed zstd frames and SPIR-V modules ([`crate::format::sycl`]). Empty when the
    /// entry is one image (at `span`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub parts: Vec<Span>,
    /// The name `cuobjdump -xelf all` / `-xptx all` gives the image (NVIDIA fatbin entries):
    /// `<file>.<n>.sm_80.cubin`, or `<identifier>.sm_80.cubin` when the entry names its source.
    pub file_name: Option<String>,
    /// Child indices from the tree's root to the entry node (a bundle entry, an offload entry,
    /// a fatbin entry): what [`crate::edit::Edit::RemoveEntry`] takes to remove this image.
    #[cfg_attr(feature = "serde", serde(default))]
    pub path: Vec<usize>,
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
    collect_under(&tree.root, tree.spaces.first().map_or("", |s| s.label.as_str()))
}

/// Every device image under `root` (a whole tree's root, or one package member's node), as
/// [`collect`] gives them, paths from `root`; `file` names the file (cuobjdump's names of
/// NVIDIA images start with it).
pub fn collect_under(root: &Node, file: &str) -> Vec<Target> {
    let mut out = Vec::new();
    let mut chain: Vec<&Node> = Vec::new();
    let mut counts = NvCounts { file: cuobjdump_stem(file), elf: 0, ptx: 0 };
    let mut path = Vec::new();
    visit(root, &mut chain, &mut path, &mut out, &mut counts);
    out
}

/// cuobjdump numbers the cubins and the PTX of a file separately, in file order.
struct NvCounts {
    file: String,
    elf: u64,
    ptx: u64,
}

/// A file name without its last extension, as cuobjdump names what it extracts
/// (`libfoo.so.12` gives `libfoo.so`).
fn cuobjdump_stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    match base.rfind('.') {
        Some(dot) if dot > 0 => base[..dot].to_string(),
        _ => base.to_string(),
    }
}

fn visit<'t>(
    node: &'t Node,
    chain: &mut Vec<&'t Node>,
    path: &mut Vec<usize>,
    out: &mut Vec<Target>,
    counts: &mut NvCounts,
) {
    let found = match node.kind {
        NodeKind::FatbinEntry if nv_tree::is_listed_entry(node) => Some(nv_target(node, chain, counts)),
        NodeKind::BundleEntry if text(node, "offload_kind") != "host" && !wraps_container(node) => {
            Some(target_of(node, chain, text(node, "id")))
        }
        // A code object of a kpack archive, alone or joined under a kpack'd binary's wrapper: named
        // by the bundle entry it was unbundled from, as before the transform.
        NodeKind::KpackEntry if !node.children.is_empty() => Some(target_of(node, chain, text(node, "id"))),
        NodeKind::OffloadEntry => {
            let id = alloc::format!("{}-{}", text(node, "triple"), text(node, "arch"));
            Some(target_of(node, chain, id))
        }
        _ => None,
    };
    if let Some(mut target) = found {
        target.path = path.clone();
        out.push(target);
    }
    // cuobjdump names images after the library it reads: inside a package, that is the member
    // (`lib/libfoo.so.12` gives `libfoo.so`), counted from 1 in each.
    let outer = (node.kind == NodeKind::PackageMember)
        .then(|| core::mem::replace(counts, NvCounts { file: cuobjdump_stem(&text(node, "name")), elf: 0, ptx: 0 }));
    chain.push(node);
    for (i, c) in node.children.iter().enumerate() {
        path.push(i);
        visit(c, chain, path, out, counts);
        path.pop();
    }
    chain.pop();
    if let Some(outer) = outer {
        *counts = outer;
    }
}

/// The member an image is in: the innermost archive member, or inside a package the innermost
/// package member (the library), followed by `(object)` when the image is in a member of an
/// archive in the package (`lib/libfoo.a(foo.o)`).
fn member_of(chain: &[&Node]) -> Option<String> {
    let package = chain.iter().rposition(|n| n.kind == NodeKind::PackageMember);
    let archive = chain.iter().rposition(|n| n.kind == NodeKind::ArchiveMember);
    match (package, archive) {
        (Some(p), Some(a)) if a > p => Some(format!("{}({})", text(chain[p], "name"), text(chain[a], "name"))),
        (Some(p), _) => Some(text(chain[p], "name")),
        (None, Some(a)) => Some(text(chain[a], "name")),
        (None, None) => None,
    }
}

/// How the bytes holding an image are compressed by the package around it, if they are: the
/// innermost deflated zip member or compressed stream (`gzip`, `zstd`, `xz`).
fn package_compression(chain: &[&Node]) -> Option<String> {
    chain.iter().rev().find_map(|n| match n.kind {
        NodeKind::PackageMember => Some(text(n, "compression")).filter(|c| c != "stored"),
        NodeKind::CompressedPayload => Some(text(n, "method")),
        _ => None,
    })
}

/// An entry that holds another container (a bundled object's section holding a compressed
/// bundle, say) is not itself a device image: the images are the entries inside it.
fn wraps_container(entry: &Node) -> bool {
    entry.children.iter().any(|c| {
        matches!(c.kind, NodeKind::Bundle | NodeKind::TextBundle | NodeKind::CompressedBundle | NodeKind::OffloadBinary)
    })
}

fn target_of(node: &Node, chain: &[&Node], target_id: String) -> Target {
    let compression = chain
        .iter()
        .rev()
        .find(|n| n.kind == NodeKind::CompressedBundle)
        .map(|n| text(n, "method"))
        .or_else(|| frames_method(node))
        .or_else(|| package_compression(chain));
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
        image_size: frames_size(node).unwrap_or(image.size),
        stored_size: compression.is_none().then_some(image.size),
        compression,
        span: image,
        chain: chain.iter().map(|n| n.label.clone()).collect(),
        member: member_of(chain),
        parts: parts_of(node),
        file_name: None,
        path: Vec::new(),
    }
}

/// The first image node at or below `node`, depth first.
fn first_image(node: &Node) -> Option<&Node> {
    if node.kind == NodeKind::Image {
        return Some(node);
    }
    node.children.iter().filter(|c| c.kind != NodeKind::FatbinEntry).find_map(first_image)
}

/// A cubin (`sm_80 cubin`) or PTX (`compute_80 PTX`) of an NVIDIA fatbin.
fn nv_target(node: &Node, chain: &[&Node], counts: &mut NvCounts) -> Target {
    let arch = text(node, "arch");
    let elf = text(node, "kind") == "elf";
    let target_id = if elf { format!("{arch} cubin") } else { format!("{} PTX", arch.replacen("sm_", "compute_", 1)) };
    let compression = core::iter::once(node).chain(chain.iter().rev().copied()).find_map(|n| match n.kind {
        NodeKind::FatbinEntry => Some(text(n, "compressed")).filter(|c| c != "none"),
        NodeKind::CompressedBundle => Some(text(n, "method")),
        _ => None,
    });
    let compression = compression.or_else(|| package_compression(chain));
    let (span, size) = match first_image(node) {
        Some(image) => (image.span, image.span.size),
        None => {
            let declared = match text(node, "compressed").as_str() {
                "none" => text(node, "payload_size"),
                _ => text(node, "uncompressed_size"),
            };
            (node.span, declared.parse().unwrap_or(0))
        }
    };
    let n = if elf {
        counts.elf += 1;
        counts.elf
    } else {
        counts.ptx += 1;
        counts.ptx
    };
    let file_arch = text(node, "file_arch");
    let ext = if elf { "cubin" } else { "ptx" };
    let file_name = match node.text("identifier").filter(|i| !i.is_empty()) {
        Some(identifier) => format!("{}.{file_arch}.{ext}", cuobjdump_stem(identifier)),
        None => format!("{}.{n}.{file_arch}.{ext}", counts.file),
    };
    Target {
        target_id,
        offload_kind: "cuda".into(),
        triple: "nvptx64-nvidia-cuda".into(),
        processor: arch,
        features: String::new(),
        image_size: size,
        stored_size: compression.is_none().then_some(size),
        compression,
        span,
        chain: chain.iter().map(|n| n.label.clone()).collect(),
        member: member_of(chain),
        file_name: Some(file_name),
        parts: Vec::new(),
        path: Vec::new(),
    }
}

/// The method of the compressed frames an entry holds (SYCL entries: raw zstd frames, see
/// [`crate::format::sycl`]), if it holds any.
fn frames_method(entry: &Node) -> Option<String> {
    entry.children.iter().find(|c| c.kind == NodeKind::CompressedPayload).map(|c| text(c, "method"))
}

/// The size of an entry's images once its frames are decompressed: each frame's declared (or
/// decompressed) size plus the images stored as they are; `None` when it holds no frames.
fn frames_size(entry: &Node) -> Option<u64> {
    frames_method(entry)?;
    let size = |c: &Node| match (c.kind, c.get("uncompressed_size")) {
        (NodeKind::CompressedPayload, Some(Value::Uint(n))) => *n,
        (NodeKind::CompressedPayload, _) => c.children.first().map_or(0, |d| d.span.size),
        (NodeKind::Image, _) => c.span.size,
        _ => 0,
    };
    Some(entry.children.iter().map(size).sum())
}

/// The spans of the separate images of an entry holding a sequence of them: each decompressed
/// frame and each image stored as it is. Empty for an entry that is one image.
fn parts_of(entry: &Node) -> Vec<Span> {
    let images = entry.children.iter().filter(|c| c.kind == NodeKind::Image).count();
    if frames_method(entry).is_none() && images < 2 {
        return Vec::new();
    }
    let part = |c: &Node| match c.kind {
        NodeKind::CompressedPayload => c.children.iter().find(|d| d.kind == NodeKind::Decompressed).map(|d| d.span),
        NodeKind::Image => Some(c.span),
        _ => None,
    };
    entry.children.iter().filter_map(part).collect()
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

/// Who makes the GPUs a line's images run on; lines are grouped in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Vendor {
    Amd,
    Nvidia,
    /// SPIR-V for any vendor, host CPUs (OpenMP offloading to the host), anything else.
    Other,
}

impl Vendor {
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Amd => "AMD",
            Vendor::Nvidia => "NVIDIA",
            Vendor::Other => "other",
        }
    }
}

/// The line name of a device image (see [`crate::report::runs_on`]'s table).
pub fn target_name(t: &Target) -> String {
    if let Some(name) = nvidia_fatbin_name(t) {
        return name;
    }
    if is_amdgcn(t) && !t.processor.is_empty() {
        let written =
            if t.features.is_empty() { t.processor.clone() } else { format!("{}:{}", t.processor, t.features) };
        // Canonical order, so `gfx90a:xnack+:sramecc-` and `gfx90a:sramecc-:xnack+` are one line.
        return TargetId::parse(&written).map_or(written, |id| id.canonical());
    }
    if vendor_of(t) != Vendor::Other && !t.processor.is_empty() {
        return t.processor.clone();
    }
    match t.processor.as_str() {
        "" | "generic" => t.triple.clone(),
        p => format!("{}-{p}", t.triple),
    }
}

/// The vendor of a device image, from its triple or processor.
pub fn vendor_of(t: &Target) -> Vendor {
    let arch = t.triple.split('-').next().unwrap_or("");
    if arch == "amdgcn" || t.triple.starts_with("spirv64-amd-") {
        return Vendor::Amd;
    }
    if arch.starts_with("nvptx") || t.processor.starts_with("sm_") {
        return Vendor::Nvidia;
    }
    match known_processor(&t.processor).map(|p| p.vendor) {
        Some(ProcessorVendor::Amd) => Vendor::Amd,
        Some(ProcessorVendor::Nvidia) => Vendor::Nvidia,
        _ => Vendor::Other,
    }
}

fn is_amdgcn(t: &Target) -> bool {
    t.triple.split('-').next() == Some("amdgcn")
}

/// `sm_80` for a cubin of an NVIDIA fatbin, `compute_80` for its PTX; `None` for other images.
fn nvidia_fatbin_name(t: &Target) -> Option<String> {
    let (arch, what) = t.target_id.split_once(' ')?;
    match what {
        "cubin" if t.file_name.is_some() => Some(arch.to_string()),
        "PTX" if t.file_name.is_some() => Some(arch.to_string()),
        _ => None,
    }
}
