//! The generic annotated tree that every view draws.
//!
//! Each [`Node`] has a kind, a label, a byte [`Span`] in a byte space, named [`Field`]s with
//! their own spans (marked editable where an editor can change them), children and
//! [`Diagnostic`]s. Byte space 0 is the input file; decompressing opens a new [`ByteSpace`] whose
//! bytes are kept in the [`Tree`], so that a viewer can show them without decompressing again.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// How the label of a compressed bundle's space read from its header alone says so.
pub const HEADER_ONLY: &str = "header only";
/// How the note on an image or payload listed without being decompressed starts (the explorer
/// and the NVIDIA fatbin reader write it): what [`crate::report::kernels::undecoded_images`]
/// counts.
pub const NOT_DECOMPRESSED: &str = "not decompressed";

/// A byte range in one byte space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Span {
    pub space: u32,
    pub offset: u64,
    pub size: u64,
}

impl Span {
    pub fn new(space: u32, offset: u64, size: u64) -> Self {
        Span { space, offset, size }
    }

    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }

    /// A span `offset..offset+size` relative to the start of this one, cut to lie within it:
    /// offsets and sizes come from the input, and the views draw spans without checking them.
    pub fn sub(&self, offset: u64, size: u64) -> Span {
        let offset = offset.min(self.size);
        let size = size.min(self.size - offset);
        Span { space: self.space, offset: self.offset.saturating_add(offset), size }
    }
}

/// What a node is. The names are stable: they appear in JSON output and drive the UI legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum NodeKind {
    File,
    Section,
    OffloadBinary,
    OffloadEntry,
    StringTable,
    Bundle,
    TextBundle,
    BundleEntry,
    CompressedBundle,
    CompressedPayload,
    Decompressed,
    Image,
    Padding,
    Archive,
    ArchiveMember,
    SymbolTable,
    /// An NVIDIA fatbin container.
    Fatbin,
    /// One entry of an NVIDIA fatbin (a cubin, PTX, or concatenated images).
    FatbinEntry,
    /// The `__fatBinC_Wrapper_t` that points host code at a fatbin.
    FatbinWrapper,
    /// A package that holds files: a zip (wheel, conda), tar, cpio, `.deb` or `.rpm`.
    Package,
    /// One member of a package: a file, directory or link, with its name and sizes.
    PackageMember,
    /// A ROCm `.kpack` archive: device code moved out of kpack'd host binaries.
    KpackArchive,
    /// One code object of a kpack archive: a binary key and an architecture.
    KpackEntry,
    /// A kpack'd host binary's `.rocm_kpack_ref`: the archives and the key of its code objects.
    KpackReference,
    /// A kernel (or device function) named by a device image.
    Kernel,
    /// One argument of a kernel.
    KernelArgument,
    Unknown,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::File => "file",
            NodeKind::Section => "section",
            NodeKind::OffloadBinary => "offload-binary",
            NodeKind::OffloadEntry => "offload-entry",
            NodeKind::StringTable => "string-table",
            NodeKind::Bundle => "bundle",
            NodeKind::TextBundle => "text-bundle",
            NodeKind::BundleEntry => "bundle-entry",
            NodeKind::CompressedBundle => "compressed-bundle",
            NodeKind::CompressedPayload => "compressed-payload",
            NodeKind::Decompressed => "decompressed",
            NodeKind::Image => "image",
            NodeKind::Padding => "padding",
            NodeKind::Archive => "archive",
            NodeKind::ArchiveMember => "archive-member",
            NodeKind::SymbolTable => "symbol-table",
            NodeKind::Fatbin => "fatbin",
            NodeKind::FatbinEntry => "fatbin-entry",
            NodeKind::FatbinWrapper => "fatbin-wrapper",
            NodeKind::Package => "package",
            NodeKind::PackageMember => "package-member",
            NodeKind::KpackArchive => "kpack-archive",
            NodeKind::KpackEntry => "kpack-entry",
            NodeKind::KpackReference => "kpack-reference",
            NodeKind::Kernel => "kernel",
            NodeKind::KernelArgument => "kernel-argument",
            NodeKind::Unknown => "unknown",
        }
    }
}

/// A field's value, decoded.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    Null,
    Bool(bool),
    Uint(u64),
    Text(String),
    /// An ordered key/value map, such as an offload binary's string map.
    Map(Vec<(String, String)>),
}

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Uint(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.into())
    }
}

/// A named, decoded field of a node, with the bytes it was read from.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Field {
    /// Most names are the formats' own words, borrowed for nothing: a large library's tree
    /// holds millions of fields.
    pub name: Cow<'static, str>,
    pub value: Value,
    pub span: Option<Span>,
    pub editable: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// Something worth telling the user about a node: a hash mismatch, unused bytes, a
/// non-canonical target ID, a rule the container breaks, or a part that could not be read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Node {
    pub kind: NodeKind,
    pub label: String,
    pub span: Span,
    pub fields: Vec<Field>,
    pub children: Vec<Node>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Node {
    pub fn new(kind: NodeKind, label: impl Into<String>, span: Span) -> Self {
        Node { kind, label: label.into(), span, fields: Vec::new(), children: Vec::new(), diagnostics: Vec::new() }
    }

    /// Gives back the room this node and its descendants grew into but do not use: an image's
    /// kernels are tens of thousands of nodes in a large library, each with a dozen fields
    /// pushed one at a time, and what the pushes reserved would stay for the whole tree's life.
    pub fn shrink_to_fit(&mut self) {
        self.fields.shrink_to_fit();
        self.diagnostics.shrink_to_fit();
        self.children.shrink_to_fit();
        for child in &mut self.children {
            child.shrink_to_fit();
        }
    }

    /// Adds a read-only field.
    pub fn field(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: impl Into<Value>,
        span: Option<Span>,
    ) -> &mut Self {
        self.fields.push(Field { name: name.into(), value: value.into(), span, editable: false });
        self
    }

    /// Adds a field an editor may change.
    pub fn editable(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: impl Into<Value>,
        span: Option<Span>,
    ) -> &mut Self {
        self.fields.push(Field { name: name.into(), value: value.into(), span, editable: true });
        self
    }

    pub fn diag(&mut self, severity: Severity, message: impl Into<String>, span: Option<Span>) -> &mut Self {
        self.diagnostics.push(Diagnostic { severity, message: message.into(), span });
        self
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.name == name).map(|f| &f.value)
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// Depth-first walk over this node and its descendants, with their depth.
    pub fn walk<'s>(&'s self, visit: &mut dyn FnMut(&'s Node, usize)) {
        fn go<'s>(n: &'s Node, depth: usize, visit: &mut dyn FnMut(&'s Node, usize)) {
            visit(n, depth);
            for c in &n.children {
                go(c, depth + 1, visit);
            }
        }
        go(self, 0, visit)
    }

    /// The diagnostics of `severity` on this node and its descendants, in tree order, each with
    /// the node it sits on.
    pub fn diagnostics_of(&self, severity: Severity) -> Vec<(&Node, &Diagnostic)> {
        let mut found = Vec::new();
        self.walk(&mut |n, _| found.extend(n.diagnostics.iter().filter(|d| d.severity == severity).map(|d| (n, d))));
        found
    }

    /// The error diagnostics of this node and its descendants, in tree order, with their nodes.
    pub fn errors(&self) -> Vec<(&Node, &Diagnostic)> {
        self.diagnostics_of(Severity::Error)
    }

    /// Worst severity among this node's and its descendants' diagnostics.
    pub fn worst_severity(&self) -> Option<Severity> {
        let mut worst = None;
        self.walk(&mut |n, _| {
            for d in &n.diagnostics {
                worst = worst.max(Some(d.severity));
            }
        });
        worst
    }
}

/// A byte space: the input file (space 0) or bytes produced by decompression.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByteSpace {
    pub label: String,
    pub size: u64,
    /// Where in its parent space the bytes came from (the compressed payload).
    pub origin: Option<Span>,
    /// The bytes of a derived space; `None` for the input file, which the caller holds.
    #[cfg_attr(feature = "serde", serde(with = "serde_bytes"))]
    pub data: Option<Vec<u8>>,
}

/// Everything known about one input.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tree {
    pub spaces: Vec<ByteSpace>,
    pub root: Node,
}

impl Tree {
    /// The error diagnostics of the whole tree, in tree order, with their nodes.
    pub fn errors(&self) -> Vec<(&Node, &Diagnostic)> {
        self.root.errors()
    }

    /// The bytes of a derived space, or `input` for space 0.
    pub fn space_bytes<'s>(&'s self, input: &'s [u8], space: u32) -> Option<&'s [u8]> {
        if space == 0 {
            return Some(input);
        }
        self.spaces.get(space as usize)?.data.as_deref()
    }

    /// The node at a path of child indices from the root.
    pub fn node_at(&self, path: &[usize]) -> Option<&Node> {
        path.iter().try_fold(&self.root, |n, &i| n.children.get(i))
    }

    /// The bytes a span covers.
    pub fn bytes<'s>(&'s self, input: &'s [u8], span: Span) -> Option<&'s [u8]> {
        let data = self.space_bytes(input, span.space)?;
        let end = usize::try_from(span.end()).ok()?;
        data.get(usize::try_from(span.offset).ok()?..end)
    }
}
