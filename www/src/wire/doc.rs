//! What the page knows about one explored file: the core's annotated tree flattened into an
//! arena of nodes (pre-order, node 0 is the file), the byte spaces, the device targets and, for
//! each small field, its raw bytes. The worker builds it from `offload::tree::Tree` and sends it
//! to the page; the views only ever read it.
//!
//! Flat and index-based because every view needs the same few questions answered quickly: the
//! parent of a node, its subtree, the innermost node at a byte, the next visible row of the tree.
//! Everything in a node is the core's own type ([`Span`], [`NodeKind`], [`Field`],
//! [`Diagnostic`], [`Target`]): only the arena's links are the page's.

use offload::edit::NodePath;
use offload::report::check::advisor::Identical;
use offload::report::check::holes::{self, LibraryHoles};
use offload::report::kernels::KernelTable;
use offload::report::runs_on::RunsOn;
use offload::report::sizes::Sizes;
use offload::report::targets::Target;
use offload::tree::{Diagnostic, Field, Node, NodeKind, Severity, Span, Tree, Value};
use serde::{Deserialize, Serialize};

/// Index of a node in [`Doc::nodes`].
pub type NodeId = usize;

/// Fields whose span is at most this many bytes carry their raw bytes to the inspector.
pub const RAW_FIELD_LIMIT: u64 = 64;

/// Whether `span` covers byte `offset` of byte space `space`: the hex view asks it of every
/// byte it draws, and clicks on bytes find their node with it.
pub fn span_contains(span: &Span, space: u32, offset: u64) -> bool {
    span.space == space && offset >= span.offset && offset < span.end()
}

/// One-line rendering of a field's value for tables; numbers also in hex when that helps
/// reading offsets.
pub fn display_value(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::Bool(b) => b.to_string(),
        Value::Uint(n) if *n >= 10 => format!("{n} ({n:#x})"),
        Value::Uint(n) => n.to_string(),
        Value::Text(t) => t.clone(),
        Value::Map(m) => m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "),
    }
}

/// A field of a node, with the bytes it was read from when they are few.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub field: Field,
    /// The bytes of the field's span when it is small and readable (see [`RAW_FIELD_LIMIT`]).
    #[serde(with = "serde_bytes")]
    pub raw: Option<Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// Drives colours and the legend, by its stable name (`NodeKind::as_str`).
    pub kind: NodeKind,
    pub label: String,
    pub span: Span,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub depth: u32,
    /// One past the last node of this node's subtree (pre-order keeps subtrees contiguous).
    pub subtree_end: NodeId,
    pub fields: Vec<FieldInfo>,
    pub diagnostics: Vec<Diagnostic>,
    /// Worst severity among this node's and its descendants' diagnostics.
    pub worst: Option<Severity>,
    /// Only some of the node's fields are here (see [`LEAN_KERNELS_OVER`]): the explorer has
    /// the others, and the inspector asks it for them ([`node_fields`]).
    pub fields_elided: bool,
}

impl NodeInfo {
    /// A field's value by name.
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.field.name == name).map(|f| &f.field.value)
    }

    /// A text field's value by name.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.field(name)? {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceInfo {
    pub label: String,
    pub size: u64,
    /// Where in its parent space the bytes came from (the compressed payload).
    pub origin: Option<Span>,
    /// How many of its bytes can be shown: all of them, except for a space of which only the
    /// bundle header was decompressed.
    pub available: u64,
}

/// A device target and the tree node that stands for it (the bundle entry or offload entry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub target: Target,
    pub node: Option<NodeId>,
}

/// The kernels of every device image of a file, each decoded (the file explored again with
/// every image decompressed, their bytes dropped as it goes): what the Kernels view shows once
/// asked to decode the images a listing left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedKernels {
    pub table: KernelTable,
    /// Images still not decoded (over a limit of the settings).
    pub undecoded_images: usize,
    /// Device images in all.
    pub images: usize,
}

/// Everything the page shows about one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    pub name: String,
    pub size: u64,
    pub spaces: Vec<SpaceInfo>,
    pub nodes: Vec<NodeInfo>,
    pub targets: Vec<TargetInfo>,
    /// Every kernel of the file, a column per target ([`offload::report::kernels::collect`]).
    pub kernels: KernelTable,
    /// Device images listed but not decoded ([`offload::report::kernels::undecoded_images`]):
    /// their kernels are not in `kernels` until every image is decoded ([`DecodedKernels`]).
    pub undecoded_images: usize,
    /// One line per distinct target, by vendor ([`offload::report::runs_on::summarize`]).
    pub runs_on: RunsOn,
    /// What each target costs ([`offload::report::sizes::sizes`]).
    pub sizes: Sizes,
    /// Device code identical across processors, and what one generic build would save
    /// ([`offload::report::check::advisor::identical_code`]): the size view's advisor.
    pub identical: Vec<Identical>,
    /// Time the worker spent exploring, in microseconds (an integer, so that `Doc` stays `Eq`).
    pub explore_us: u64,
}

/// `Eq` by hand: the core's tree types derive `PartialEq` only, but hold no floating-point
/// number but the sizes' shares of the file, which are always finite (0 for an empty file), so
/// their equality is an equivalence. Being `Eq` makes an `Rc<Doc>` compare by
/// pointer first, so the views' props compare in constant time.
impl Eq for Doc {}

impl Doc {
    /// Flattens an explored tree and finds its device targets. `read` returns the bytes of a
    /// span (used for the raw bytes of small fields); the caller decides where space 0's bytes
    /// come from: the worker reads them from the file's `Blob`, [`Doc::of_bytes`] from memory.
    pub fn from_tree(tree: &Tree, read: &dyn Fn(Span) -> Option<Vec<u8>>) -> Doc {
        Doc::flattened(tree, Flatten { read, fold_arguments: folds_arguments(tree), lean_kernels: false })
    }

    /// [`Doc::from_tree`] for the explorer's document: kernel nodes come without most of their
    /// fields when there are over [`LEAN_KERNELS_OVER`] of them (asked for with [`node_fields`]
    /// when one is inspected).
    pub fn from_tree_lean(tree: &Tree, read: &dyn Fn(Span) -> Option<Vec<u8>>) -> Doc {
        let lean_kernels = count_kind(&tree.root, NodeKind::Kernel) > LEAN_KERNELS_OVER;
        Doc::flattened(tree, Flatten { read, fold_arguments: folds_arguments(tree), lean_kernels })
    }

    fn flattened(tree: &Tree, how: Flatten) -> Doc {
        let mut nodes = Vec::new();
        let fold = how.fold_arguments;
        flatten(&tree.root, None, 0, &mut nodes, &how);
        let arguments = if fold { count_kind(&tree.root, NodeKind::KernelArgument) } else { 0 };
        if fold {
            nodes[0].diagnostics.push(Diagnostic {
                severity: Severity::Note,
                message: format!(
                    "{arguments} kernel arguments are shown as the `arguments` field of their kernels rather than as nodes (over {FOLD_ARGUMENTS_OVER}, nodes would slow the page down); `offload list --json` has each one with its spans"
                ),
                span: None,
            });
        }
        let mut doc = Doc {
            name: tree.spaces.first().map(|s| s.label.clone()).unwrap_or_default(),
            size: tree.spaces.first().map_or(0, |s| s.size),
            spaces: space_infos(tree),
            nodes,
            targets: Vec::new(),
            kernels: offload::report::kernels::collect(tree),
            undecoded_images: offload::report::kernels::undecoded_images(tree),
            runs_on: offload::report::runs_on::summarize(tree),
            sizes: offload::report::sizes::sizes(tree),
            identical: offload::report::check::advisor::identical_code(tree),
            explore_us: 0,
        };
        let targets = offload::report::targets::collect(tree);
        // The core names each target's entry node by its path from the root.
        doc.targets =
            targets.into_iter().map(|target| TargetInfo { node: doc.node_at(&target.path), target }).collect();
        doc
    }

    /// [`Doc::from_tree`] for a file held in memory whole (`input`, the bytes of space 0).
    pub fn of_bytes(tree: &Tree, input: &[u8]) -> Doc {
        Doc::from_tree(tree, &|span| tree.bytes(input, span).map(<[u8]>::to_vec))
    }

    /// The library the node at `path` belongs to, as `offload kernels` names it: the package
    /// member on the path, or the file ([`holes::library_of`] on the core's tree). A path
    /// this document lacks (an image decoded only for the Kernels view) is named by its
    /// nearest node that it has.
    pub fn library_of(&self, path: &[usize]) -> String {
        let Some(at) = self.nearest_at(path) else { return self.name.clone() };
        let mut chain = self.ancestors(at);
        chain.reverse();
        chain.push(at);
        let named = |n: NodeId| (self.nodes[n].kind == NodeKind::PackageMember).then(|| self.text(n, "name")).flatten();
        chain.into_iter().find_map(named).map_or_else(|| self.name.clone(), str::to_string)
    }

    /// The kernel × target holes of `table` (this document's, or every image's once decoded),
    /// each library's as the core finds them ([`holes::holes_with`]).
    pub fn holes(&self, table: &KernelTable) -> Vec<LibraryHoles> {
        holes::holes_with(table, |image| self.library_of(image))
    }

    /// Parents of `id`, nearest first.
    pub fn ancestors(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut at = self.nodes.get(id).and_then(|n| n.parent);
        while let Some(p) = at {
            out.push(p);
            at = self.nodes[p].parent;
        }
        out
    }

    /// Whether `node` is `ancestor` or lies below it.
    pub fn is_within(&self, node: NodeId, ancestor: NodeId) -> bool {
        self.nodes.get(ancestor).is_some_and(|a| node >= ancestor && node < a.subtree_end)
    }

    /// The innermost (deepest, then smallest) node whose span in `space` covers `offset`.
    pub fn innermost_at(&self, space: u32, offset: u64) -> Option<NodeId> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| span_contains(&n.span, space, offset))
            .max_by(|(_, a), (_, b)| a.depth.cmp(&b.depth).then(b.span.size.cmp(&a.span.size)))
            .map(|(id, _)| id)
    }

    /// The target whose node is `id` or an ancestor of `id`.
    pub fn target_of(&self, id: NodeId) -> Option<usize> {
        self.targets.iter().position(|t| t.node.is_some_and(|n| self.is_within(id, n)))
    }

    /// Every diagnostic in tree order, with the node that carries it.
    pub fn diagnostics(&self) -> Vec<(NodeId, &Diagnostic)> {
        self.nodes.iter().enumerate().flat_map(|(id, n)| n.diagnostics.iter().map(move |d| (id, d))).collect()
    }

    /// How many error diagnostics `node` and the nodes below it carry: what a download of its
    /// bytes may read back with (see the worker's read-back check).
    pub fn errors_within(&self, node: NodeId) -> u32 {
        let Some(end) = self.nodes.get(node).map(|n| n.subtree_end.min(self.nodes.len())) else { return 0 };
        self.nodes[node..end].iter().flat_map(|n| &n.diagnostics).filter(|d| d.severity == Severity::Error).count()
            as u32
    }

    /// Nodes drawn in `space`, with their depth counted from the first node in that space
    /// (so a decompressed space's map starts at row 0).
    pub fn nodes_in_space(&self, space: u32) -> Vec<(NodeId, u32)> {
        let mut out = Vec::new();
        for (id, n) in self.nodes.iter().enumerate() {
            if n.span.space != space {
                continue;
            }
            let level = self.ancestors(id).iter().filter(|&&a| self.nodes[a].span.space == space).count() as u32;
            out.push((id, level));
        }
        out
    }

    /// The child indices from the root to `id`: how the core's edits name a node, and what
    /// survives re-exploring an edited file (node ids do not: a grown entry shifts them).
    pub fn path_of(&self, id: NodeId) -> NodePath {
        let mut path = Vec::new();
        let mut at = id;
        while let Some(parent) = self.nodes.get(at).and_then(|n| n.parent) {
            path.push(self.nodes[parent].children.iter().position(|&c| c == at).unwrap_or(0));
            at = parent;
        }
        path.reverse();
        path
    }

    /// The node at a path of child indices from the root, if the tree has one there.
    pub fn node_at(&self, path: &[usize]) -> Option<NodeId> {
        let mut at = if self.nodes.is_empty() { return None } else { 0 };
        for &i in path {
            at = *self.nodes[at].children.get(i)?;
        }
        Some(at)
    }

    /// The deepest node on `path` that this tree has: the node itself, or the nearest
    /// ancestor that still exists (after an edit removed the node).
    pub fn nearest_at(&self, path: &[usize]) -> Option<NodeId> {
        (0..=path.len()).rev().find_map(|n| self.node_at(&path[..n]))
    }

    /// A field's value by name.
    pub fn field(&self, id: NodeId, name: &str) -> Option<&Value> {
        self.nodes.get(id)?.field(name)
    }

    /// A text field's value by name.
    pub fn text(&self, id: NodeId, name: &str) -> Option<&str> {
        self.nodes.get(id)?.text(name)
    }

    /// The chain of spaces from space 0 to `space`, through each space's origin.
    pub fn space_depth(&self, space: u32) -> u32 {
        let mut depth = 0;
        let mut at = space;
        while let Some(origin) = self.spaces.get(at as usize).and_then(|s| s.origin) {
            if origin.space >= at {
                break; // never loop on a malformed origin
            }
            at = origin.space;
            depth += 1;
        }
        depth
    }
}

impl Doc {
    /// Shows whole the spaces of `tree` whose bytes its exploration dropped (a package's,
    /// explored with [`offload::explore::Options::keep_bytes`] off): the worker finds them
    /// again on demand. Not those whose bytes are never kept, nor a bundle of which only the
    /// header was decompressed.
    pub fn with_bytes_found_again(mut self, tree: &Tree) -> Doc {
        use offload::explore::{HEADER_ONLY_SPACE, NOT_KEPT};
        for (info, space) in self.spaces.iter_mut().zip(&tree.spaces).skip(1) {
            let never = space.label.ends_with(NOT_KEPT) || space.label.starts_with(HEADER_ONLY_SPACE);
            if space.data.is_none() && !never {
                info.available = info.size;
            }
        }
        self
    }
}

fn space_infos(tree: &Tree) -> Vec<SpaceInfo> {
    let infos = tree.spaces.iter().enumerate().map(|(i, s)| SpaceInfo {
        label: s.label.clone(),
        size: s.size,
        origin: s.origin,
        // Space 0 is the file, read on demand; a derived space has what was decompressed.
        available: if i == 0 { s.size } else { s.data.as_ref().map_or(0, |d| d.len() as u64) },
    });
    infos.collect()
}

/// Files with more kernel arguments than this (a ROCm library has about 100,000) show them as a
/// field of their kernel: as nodes, they are most of the document and slow every view down.
pub const FOLD_ARGUMENTS_OVER: usize = 20_000;

/// Files with more kernel nodes than this send them to the page with their `name` field only.
/// JAX's ROCm 7 plugin has 138,240 (23,040 kernels on 6 targets), whose 3.2 million fields were
/// 300 of the document's 367 MB: building, sending and reading it took most of the page's time
/// and gigabytes of its memory, for fields a person reads one kernel at a time.
pub const LEAN_KERNELS_OVER: usize = 2_000;

/// The field every kernel node keeps in a lean document: the Code view and downloads find a
/// kernel by it.
const KEPT_KERNEL_FIELD: &str = "name";

/// How [`flatten`] builds the nodes: where small fields' raw bytes come from, whether kernel
/// arguments become a field of their kernel, and whether kernels keep only their name.
struct Flatten<'a> {
    read: &'a dyn Fn(Span) -> Option<Vec<u8>>,
    fold_arguments: bool,
    lean_kernels: bool,
}

fn count_kind(node: &Node, kind: NodeKind) -> usize {
    let own = usize::from(node.kind == kind);
    node.children.iter().map(|c| count_kind(c, kind)).fold(own, usize::saturating_add)
}

/// Whether `tree` has so many kernel arguments that they become fields of their kernels.
fn folds_arguments(tree: &Tree) -> bool {
    count_kind(&tree.root, NodeKind::KernelArgument) > FOLD_ARGUMENTS_OVER
}

/// Every field of node `id` of the document [`Doc::from_tree_lean`] makes of `tree` (with the
/// same raw bytes, from `read`): what the inspector shows of a node sent without them. `None`
/// when there is no such node. Walks the tree in the document's order, without building it.
pub fn node_fields(tree: &Tree, id: NodeId, read: &dyn Fn(Span) -> Option<Vec<u8>>) -> Option<Vec<FieldInfo>> {
    let how = Flatten { read, fold_arguments: folds_arguments(tree), lean_kernels: false };
    let mut next = 0;
    find_in_order(&tree.root, id, &mut next, &how)
}

/// The fields of the node numbered `id` in pre-order from `next` (folded kernels' arguments not
/// counted, as [`flatten`] does not make nodes of them).
fn find_in_order(node: &Node, id: NodeId, next: &mut NodeId, how: &Flatten) -> Option<Vec<FieldInfo>> {
    if *next == id {
        return Some(field_infos(node, how));
    }
    *next += 1;
    if how.fold_arguments && foldable(node) {
        return None;
    }
    node.children.iter().find_map(|child| find_in_order(child, id, next, how))
}

/// A node's fields as the document carries them: with raw bytes when small, with the
/// `arguments` field of a folded kernel, and only the name of a kernel in a lean document.
fn field_infos(node: &Node, how: &Flatten) -> Vec<FieldInfo> {
    let lean = how.lean_kernels && node.kind == NodeKind::Kernel;
    let mut fields: Vec<FieldInfo> = node
        .fields
        .iter()
        .filter(|f| !lean || f.name == KEPT_KERNEL_FIELD)
        .map(|f| FieldInfo { field: f.clone(), raw: f.span.filter(|s| s.size <= RAW_FIELD_LIMIT).and_then(how.read) })
        .collect();
    if how.fold_arguments && foldable(node) && !lean {
        fields.push(arguments_field(node));
    }
    fields
}

/// A kernel whose children are all arguments without findings of their own: its arguments can
/// be one field (its other nodes' paths do not change, arguments being its last level).
fn foldable(node: &Node) -> bool {
    node.kind == NodeKind::Kernel
        && !node.children.is_empty()
        && node
            .children
            .iter()
            .all(|c| c.kind == NodeKind::KernelArgument && c.diagnostics.is_empty() && c.children.is_empty())
}

/// The `arguments` field of a folded kernel: each argument's label, in order.
fn arguments_field(node: &Node) -> FieldInfo {
    let labels: Vec<&str> = node.children.iter().map(|c| c.label.as_str()).collect();
    let field = Field { name: "arguments".into(), value: Value::Text(labels.join("; ")), span: None, editable: false };
    FieldInfo { field, raw: None }
}

fn flatten(node: &Node, parent: Option<NodeId>, depth: u32, out: &mut Vec<NodeInfo>, how: &Flatten) -> NodeId {
    let id = out.len();
    let fold = how.fold_arguments && foldable(node);
    let fields = field_infos(node, how);
    let fields_elided = fields.len() < node.fields.len() + usize::from(fold);
    out.push(NodeInfo {
        kind: node.kind,
        label: node.label.clone(),
        span: node.span,
        parent,
        children: Vec::new(),
        depth,
        subtree_end: id + 1,
        fields,
        diagnostics: node.diagnostics.clone(),
        worst: node.worst_severity(),
        fields_elided,
    });
    for child in node.children.iter().filter(|_| !fold) {
        let c = flatten(child, Some(id), depth + 1, out, how);
        out[id].children.push(c);
    }
    out[id].subtree_end = out.len();
    id
}

/// Explores bytes held in memory and builds the page's model: what the worker does for a file
/// it reads in full, and what the tests use.
pub fn explore_bytes(data: &[u8], name: &str) -> Doc {
    explore_bytes_with(data, name, &offload::explore::Options::default())
}

/// [`explore_bytes`] within other limits.
pub fn explore_bytes_with(data: &[u8], name: &str, options: &offload::explore::Options) -> Doc {
    Doc::of_bytes(&offload::explore::explore(data, name, options), data)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HIP_O: &[u8] = include_bytes!("../../../tests/fixtures/hip_elf_2arch_compressed.o");

    #[test]
    fn paths_name_nodes_from_the_root() {
        let doc = explore_bytes(HIP_O, "hip.o");
        for node in 0..doc.nodes.len() {
            let path = doc.path_of(node);
            assert_eq!(path.len() as u32, doc.nodes[node].depth, "node {node}");
            assert_eq!(doc.nearest_at(&path), Some(node));
        }
        assert_eq!(doc.path_of(0), Vec::<usize>::new());
        // A path deeper or wider than the tree stops at the deepest node it reaches.
        let deepest = doc.nodes.len() - 1;
        let mut longer = doc.path_of(deepest);
        longer.push(7);
        assert_eq!(doc.nearest_at(&longer), Some(deepest));
        assert_eq!(doc.nearest_at(&[999]), Some(0));
    }

    #[test]
    fn every_target_of_a_fatbin_has_its_entry_node() {
        for (name, bytes) in [
            ("size.fatbin", &include_bytes!("../../../tests/fixtures/nvidia/nv_3arch_size.fatbin")[..]),
            ("none.fatbin", &include_bytes!("../../../tests/fixtures/nvidia/nv_3arch_none.fatbin")[..]),
        ] {
            let doc = explore_bytes(bytes, name);
            assert_eq!(doc.targets.len(), 4, "{name}");
            for t in &doc.targets {
                let node = t.node.unwrap_or_else(|| panic!("{name}: no node for {}", t.target.target_id));
                assert_eq!(doc.nodes[node].kind, NodeKind::FatbinEntry, "{name}: {}", t.target.target_id);
            }
        }
    }

    /// A file of one image with `kernels` kernels of `arguments` arguments each; each kernel has
    /// a name, a register count and an index, the first two with a span.
    fn file(kernels: usize, arguments: usize) -> Tree {
        let mut image = Node::new(NodeKind::Image, "AMDGPU code object gfx90a", Span::new(0, 0, 8));
        for k in 0..kernels {
            let mut kernel = Node::new(NodeKind::Kernel, format!("kernel k{k}"), Span::new(0, 0, 4));
            kernel.field("name", format!("k{k}"), Some(Span::new(0, 1, 2)));
            kernel.field("vgpr_count", k as u64, Some(Span::new(0, 3, 1)));
            kernel.field("index", k as u64, None);
            for a in 0..arguments {
                let label = format!("argument {a}: global_buffer (8 bytes at {})", a * 8);
                kernel.children.push(Node::new(NodeKind::KernelArgument, label, Span::new(0, 0, 2)));
            }
            image.children.push(kernel);
        }
        let mut root = Node::new(NodeKind::File, "f", Span::new(0, 0, 8));
        root.children.push(image);
        Tree { spaces: Vec::new(), root }
    }

    /// Raw bytes as the worker reads them: here, the span's offset repeated.
    fn raw(span: Span) -> Option<Vec<u8>> {
        Some(vec![span.offset as u8; span.size as usize])
    }

    #[test]
    fn a_lean_document_sends_kernels_with_their_name_and_the_explorer_has_every_field() {
        // Few kernels: the explorer's document is the whole one.
        let few = file(LEAN_KERNELS_OVER, 2);
        assert_eq!(Doc::from_tree_lean(&few, &raw), Doc::from_tree(&few, &raw));

        // Many, with and without their arguments folded into a field.
        for arguments in [2, FOLD_ARGUMENTS_OVER / LEAN_KERNELS_OVER + 1] {
            let tree = file(LEAN_KERNELS_OVER + 1, arguments);
            let (lean, whole) = (Doc::from_tree_lean(&tree, &raw), Doc::from_tree(&tree, &raw));
            assert_eq!(lean.nodes.len(), whole.nodes.len());
            assert_eq!(lean.kernels, whole.kernels, "the Kernels view's table is whole");
            for (id, (l, w)) in lean.nodes.iter().zip(&whole.nodes).enumerate() {
                assert_eq!((l.kind, &l.label, l.span, l.subtree_end), (w.kind, &w.label, w.span, w.subtree_end));
                assert_eq!(node_fields(&tree, id, &raw).as_ref(), Some(&w.fields), "node {id}");
                if l.kind == NodeKind::Kernel {
                    assert!(l.fields_elided, "node {id}");
                    let names: Vec<&str> = l.fields.iter().map(|f| f.field.name.as_ref()).collect();
                    assert_eq!(names, ["name"], "node {id}");
                    assert_eq!(l.fields[0], w.fields[0], "node {id}: the name, with its raw bytes");
                } else {
                    assert!(!l.fields_elided && l.fields == w.fields, "node {id}");
                }
            }
            assert_eq!(node_fields(&tree, lean.nodes.len(), &raw), None, "past the last node");
        }
    }

    #[test]
    fn kernel_arguments_fold_into_their_kernels_only_in_files_with_very_many() {
        let small = Doc::from_tree(&file(3, 4), &|_| None);
        assert_eq!(small.nodes.iter().filter(|n| n.kind == NodeKind::KernelArgument).count(), 12);
        assert!(small.nodes[0].diagnostics.is_empty());

        let many = FOLD_ARGUMENTS_OVER / 10 + 1;
        let tree = file(many, 10);
        let doc = Doc::from_tree(&tree, &|_| None);
        assert_eq!(doc.nodes.iter().filter(|n| n.kind == NodeKind::KernelArgument).count(), 0);
        assert_eq!(doc.nodes.len(), 2 + many);
        let last = doc.nodes.len() - 1;
        assert_eq!(doc.path_of(last), [0, many - 1], "a kernel keeps its path");
        let args = doc.text(last, "arguments").unwrap();
        assert!(args.starts_with("argument 0: global_buffer (8 bytes at 0); argument 1:"), "{args}");
        assert!(doc.nodes[0].diagnostics[0].message.starts_with(&format!("{} kernel arguments are shown", many * 10)));
    }

    #[test]
    fn values_read_as_one_line() {
        assert_eq!(display_value(&Value::Uint(9)), "9");
        assert_eq!(display_value(&Value::Uint(4096)), "4096 (0x1000)");
        assert_eq!(display_value(&Value::Null), "—");
        assert_eq!(display_value(&Value::Map(vec![("a".into(), "1".into()), ("b".into(), "2".into())])), "a=1, b=2");
    }

    #[test]
    fn spans_contain_their_bytes_in_their_space() {
        let span = Span::new(1, 16, 4);
        assert!(span_contains(&span, 1, 16) && span_contains(&span, 1, 19));
        assert!(!span_contains(&span, 1, 20) && !span_contains(&span, 1, 15) && !span_contains(&span, 0, 16));
    }
}
