//! What the page knows about one explored file: the core's annotated tree flattened into an
//! arena of nodes (pre-order, node 0 is the file), the byte spaces, the device targets and, for
//! each small field, its raw bytes. The worker builds it from `offload::tree::Tree` and sends it
//! to the page; the views only ever read it.
//!
//! Flat and index-based because every view needs the same few questions answered quickly: the
//! parent of a node, its subtree, the innermost node at a byte, the next visible row of the tree.

use offload::targets::Target;
use offload::tree::{Node, Tree, Value};
use serde::{Deserialize, Serialize};

/// Index of a node in [`Doc::nodes`].
pub type NodeId = usize;

/// Fields whose span is at most this many bytes carry their raw bytes to the inspector.
pub const RAW_FIELD_LIMIT: u64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    pub space: u32,
    pub offset: u64,
    pub size: u64,
}

impl Span {
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }

    pub fn contains(&self, space: u32, offset: u64) -> bool {
        self.space == space && offset >= self.offset && offset < self.end()
    }
}

impl From<offload::tree::Span> for Span {
    fn from(s: offload::tree::Span) -> Self {
        Span { space: s.space, offset: s.offset, size: s.size }
    }
}

impl From<Span> for offload::tree::Span {
    fn from(s: Span) -> Self {
        offload::tree::Span::new(s.space, s.offset, s.size)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl From<offload::tree::Severity> for Severity {
    fn from(s: offload::tree::Severity) -> Self {
        match s {
            offload::tree::Severity::Note => Severity::Note,
            offload::tree::Severity::Warning => Severity::Warning,
            offload::tree::Severity::Error => Severity::Error,
        }
    }
}

/// A decoded field value, as the core gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldValue {
    Null,
    Bool(bool),
    Uint(u64),
    Text(String),
    Map(Vec<(String, String)>),
}

impl FieldValue {
    /// One-line rendering for tables; numbers also in hex when that helps reading offsets.
    pub fn display(&self) -> String {
        match self {
            FieldValue::Null => "—".into(),
            FieldValue::Bool(b) => b.to_string(),
            FieldValue::Uint(n) if *n >= 10 => format!("{n} ({n:#x})"),
            FieldValue::Uint(n) => n.to_string(),
            FieldValue::Text(t) => t.clone(),
            FieldValue::Map(m) => m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "),
        }
    }
}

impl From<&Value> for FieldValue {
    fn from(v: &Value) -> Self {
        match v {
            Value::Null => FieldValue::Null,
            Value::Bool(b) => FieldValue::Bool(*b),
            Value::Uint(n) => FieldValue::Uint(*n),
            Value::Text(t) => FieldValue::Text(t.clone()),
            Value::Map(m) => FieldValue::Map(m.clone()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub name: String,
    pub value: FieldValue,
    pub span: Option<Span>,
    pub editable: bool,
    /// The bytes of `span` when it is small and readable (see [`RAW_FIELD_LIMIT`]).
    #[serde(with = "serde_bytes")]
    pub raw: Option<Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// The core's stable kind name (`section`, `bundle-entry`, ...): drives colours and legend.
    pub kind: String,
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub target_id: String,
    pub offload_kind: String,
    pub triple: String,
    pub processor: String,
    pub features: String,
    pub image_size: u64,
    pub stored_size: Option<u64>,
    pub compression: Option<String>,
    /// The image's bytes.
    pub span: Span,
    /// The tree node that stands for this target (the bundle entry or offload entry).
    pub node: Option<NodeId>,
}

/// Everything the page shows about one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    pub name: String,
    pub size: u64,
    pub spaces: Vec<SpaceInfo>,
    pub nodes: Vec<NodeInfo>,
    pub targets: Vec<TargetInfo>,
    /// Time the worker spent exploring, in microseconds. (An integer, so that `Doc` is `Eq` and
    /// an `Rc<Doc>` compares by pointer first: the views' props compare in constant time.)
    pub explore_us: u64,
}

impl Doc {
    /// Flattens an explored tree. `read` returns the bytes of a span (used for the raw bytes of
    /// small fields); the caller decides where space 0's bytes come from.
    pub fn from_tree(tree: &Tree, targets: &[Target], read: &dyn Fn(Span) -> Option<Vec<u8>>) -> Doc {
        let mut nodes = Vec::new();
        flatten(&tree.root, None, 0, &mut nodes, read);
        let spaces = tree
            .spaces
            .iter()
            .enumerate()
            .map(|(i, s)| SpaceInfo {
                label: s.label.clone(),
                size: s.size,
                origin: s.origin.map(Span::from),
                available: if i == 0 { s.size } else { s.data.as_ref().map_or(0, |d| d.len() as u64) },
            })
            .collect();
        let mut doc = Doc {
            name: tree.spaces.first().map(|s| s.label.clone()).unwrap_or_default(),
            size: tree.spaces.first().map_or(0, |s| s.size),
            spaces,
            nodes,
            targets: Vec::new(),
            explore_us: 0,
        };
        doc.targets = targets.iter().map(|t| doc.target_info(t)).collect();
        doc
    }

    fn target_info(&self, t: &Target) -> TargetInfo {
        TargetInfo {
            target_id: t.target_id.clone(),
            offload_kind: t.offload_kind.clone(),
            triple: t.triple.clone(),
            processor: t.processor.clone(),
            features: t.features.clone(),
            image_size: t.image_size,
            stored_size: t.stored_size,
            compression: t.compression.clone(),
            span: t.span.into(),
            node: self.target_node(t),
        }
    }

    /// The node a target was collected from: the one whose ancestors' labels are the target's
    /// chain and whose span (or whose image child's span, for an offload entry) is the target's.
    fn target_node(&self, t: &Target) -> Option<NodeId> {
        let span: Span = t.span.into();
        (0..self.nodes.len()).find(|&id| {
            let n = &self.nodes[id];
            matches!(n.kind.as_str(), "bundle-entry" | "offload-entry")
                && (n.span == span
                    || n.children.iter().any(|&c| self.nodes[c].kind == "image" && self.nodes[c].span == span))
                && self
                    .ancestors(id)
                    .iter()
                    .rev()
                    .map(|&a| self.nodes[a].label.as_str())
                    .eq(t.chain.iter().map(String::as_str))
        })
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
            .filter(|(_, n)| n.span.contains(space, offset))
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
    pub fn path_of(&self, id: NodeId) -> Vec<usize> {
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
    pub fn field(&self, id: NodeId, name: &str) -> Option<&FieldValue> {
        self.nodes.get(id)?.fields.iter().find(|f| f.name == name).map(|f| &f.value)
    }

    /// A text field's value by name.
    pub fn text(&self, id: NodeId, name: &str) -> Option<&str> {
        match self.field(id, name)? {
            FieldValue::Text(t) => Some(t),
            _ => None,
        }
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

fn flatten(
    node: &Node,
    parent: Option<NodeId>,
    depth: u32,
    out: &mut Vec<NodeInfo>,
    read: &dyn Fn(Span) -> Option<Vec<u8>>,
) -> NodeId {
    let id = out.len();
    let fields = node
        .fields
        .iter()
        .map(|f| {
            let span = f.span.map(Span::from);
            let raw = span.filter(|s| s.size <= RAW_FIELD_LIMIT).and_then(read);
            FieldInfo { name: f.name.clone(), value: FieldValue::from(&f.value), span, editable: f.editable, raw }
        })
        .collect();
    let diagnostics = node
        .diagnostics
        .iter()
        .map(|d| Diagnostic { severity: d.severity.into(), message: d.message.clone(), span: d.span.map(Span::from) })
        .collect();
    out.push(NodeInfo {
        kind: node.kind.as_str().to_string(),
        label: node.label.clone(),
        span: node.span.into(),
        parent,
        children: Vec::new(),
        depth,
        subtree_end: id + 1,
        fields,
        diagnostics,
        worst: node.worst_severity().map(Severity::from),
    });
    for child in &node.children {
        let c = flatten(child, Some(id), depth + 1, out, read);
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
    let tree = offload::explore::explore(data, name, options);
    let targets = offload::targets::collect(&tree);
    Doc::from_tree(&tree, &targets, &|span| tree.bytes(data, span.into()).map(<[u8]>::to_vec))
}
