//! Every kernel of an explored file as one table: a row per kernel name, a column group per
//! target, so that the same kernel built for gfx90a, gfx1100 and sm_80 reads across one line.
//! What `offload kernels` prints and what a Kernels view draws.
//!
//! A column is a target: the image's own target ID for AMDGPU code objects (`gfx90a:xnack+`)
//! and cubins (`sm_80`); for PTX, bitcode and SPIR-V, the target of the entry that carries the
//! image (or the image's triple) followed by the format: `gfx90a (bitcode)`, `sm_80 (PTX)`. Each
//! cell keeps the path of its `kernel` node, for linking a row to the selection.
//!
//! A row is keyed by the kernel's symbol as the image names it (mangled, `_Z6vecaddPfS_S_i`):
//! that is what joins a kernel across targets and between two files. Beside it, the name as
//! people read it ([`super::demangle`]: `vecadd(float*, float*, float*, int)`), for showing.
//!
//! | cell | AMDGPU | CUDA cubin |
//! |---|---|---|
//! | `registers` | `vgpr_count` | `registers` (REG) |
//! | `sgprs` | `sgpr_count` | - |
//! | `agprs` | `agpr_count` | - |
//! | `lds` (bytes per work-group / block) | `lds_size` | `shared_size` |
//! | `scratch` (bytes per work-item / thread) | `scratch_size` | `stack_size` + `local_size` |
//! | `spills` | `vgpr_spill_count` + `sgpr_spill_count` | - |

use crate::tree::{Node, NodeKind, Tree, Value};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One kernel built for one target.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelCell {
    /// Path of child indices from the tree's root to the `kernel` node.
    pub path: Vec<usize>,
    /// An entry kernel (`false`: a device function).
    pub entry: bool,
    pub registers: Option<u64>,
    pub sgprs: Option<u64>,
    pub agprs: Option<u64>,
    pub lds: Option<u64>,
    pub scratch: Option<u64>,
    pub spills: Option<u64>,
    /// AMDGPU: waves per SIMD on the image's processor ([`crate::image::occupancy`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub occupancy: Option<u64>,
}

/// A kernel name and its cell in each column (`None` where that target lacks it).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelRow {
    /// The symbol as the image names it (mangled): the row's key.
    pub name: String,
    /// `name` demangled for reading ([`super::demangle::demangle`]); `name` itself when it is
    /// not a mangled name.
    #[cfg_attr(feature = "serde", serde(default))]
    pub demangled: String,
    pub cells: Vec<Option<KernelCell>>,
}

impl KernelRow {
    /// A row for the kernel named `name` (mangled), with its demangled name beside it.
    pub fn new(name: String, cells: Vec<Option<KernelCell>>) -> KernelRow {
        let demangled = super::demangle::demangle(&name).into_owned();
        KernelRow { name, demangled, cells }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelColumn {
    /// The column's name: `gfx90a`, `sm_80`, `gfx90a (bitcode)`.
    pub target: String,
    /// The image format, as the image node's `format` field says.
    pub format: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelTable {
    pub columns: Vec<KernelColumn>,
    pub rows: Vec<KernelRow>,
}

impl KernelTable {
    /// Only the columns `keep` accepts, and the rows that still have a cell.
    pub fn retain_columns(&mut self, keep: impl Fn(&KernelColumn) -> bool) {
        let kept: Vec<bool> = self.columns.iter().map(&keep).collect();
        let mut i = 0;
        self.columns.retain(|_| {
            i += 1;
            kept[i - 1]
        });
        for row in &mut self.rows {
            let mut i = 0;
            row.cells.retain(|_| {
                i += 1;
                kept[i - 1]
            });
        }
        self.rows.retain(|r| r.cells.iter().any(Option::is_some));
    }

    /// How many kernel nodes the table holds.
    pub fn cells(&self) -> usize {
        self.rows.iter().map(|r| r.cells.iter().flatten().count()).sum()
    }
}

fn uint(node: &Node, name: &str) -> Option<u64> {
    match node.get(name) {
        Some(Value::Uint(n)) => Some(*n),
        _ => None,
    }
}

fn text(node: &Node, name: &str) -> Option<String> {
    match node.get(name) {
        Some(Value::Text(t)) if !t.is_empty() => Some(t.clone()),
        _ => None,
    }
}

/// The column an image's kernels go in, given the target of the entry that carries it.
fn column_of(image: &Node, carrier: Option<&str>) -> KernelColumn {
    let format = text(image, "format").unwrap_or_default();
    let own = text(image, "target_id");
    let target = match format.as_str() {
        // CUDA 13 cubins for `sm_90a` or `sm_100f` carry the plain `sm_NN` in their ELF flags;
        // the fatbin entry that holds one names the variant.
        "CUDA cubin" => match (own, carrier) {
            (Some(own), Some(c)) if c.starts_with(own.as_str()) => c.to_string(),
            (own, c) => own.or(c.map(String::from)).unwrap_or_else(|| "?".into()),
        },
        "AMDGPU code object" => own.or(carrier.map(String::from)).unwrap_or_else(|| "?".into()),
        _ => {
            let short = match format.as_str() {
                "LLVM bitcode" => "bitcode",
                "SPIR-V module" => "SPIR-V",
                other => other,
            };
            let base = own.or(carrier.map(String::from)).or_else(|| text(image, "triple"));
            match base {
                Some(b) => format!("{b} ({short})"),
                None => short.to_string(),
            }
        }
    };
    KernelColumn { target, format }
}

fn cell(kernel: &Node, path: Vec<usize>) -> KernelCell {
    let cuda = kernel.get("registers").is_some();
    let spills = match (uint(kernel, "vgpr_spill_count"), uint(kernel, "sgpr_spill_count")) {
        (None, None) => None,
        (v, s) => Some(v.unwrap_or(0).saturating_add(s.unwrap_or(0))),
    };
    KernelCell {
        path,
        entry: !matches!(kernel.get("entry"), Some(Value::Bool(false))),
        registers: if cuda { uint(kernel, "registers") } else { uint(kernel, "vgpr_count") },
        sgprs: uint(kernel, "sgpr_count"),
        agprs: uint(kernel, "agpr_count"),
        lds: uint(kernel, "lds_size").or_else(|| uint(kernel, "shared_size")),
        scratch: uint(kernel, "scratch_size").or_else(|| {
            match (uint(kernel, "stack_size"), uint(kernel, "local_size")) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
            }
        }),
        spills,
        occupancy: uint(kernel, "occupancy"),
    }
}

/// The kernel table of an explored file, columns and rows in tree order.
pub fn collect(tree: &Tree) -> KernelTable {
    let mut table = KernelTable::default();
    let mut path = Vec::new();
    let mut rows_by_name = BTreeMap::new();
    visit(&tree.root, None, &mut path, &mut table, &mut rows_by_name);
    table
}

/// How many device images of the tree were listed but not decoded (an NVIDIA fatbin entry or a
/// compressed bundle read from its header only, while listing): their kernels are not in
/// [`collect`]'s table, which must not be read as the file's whole when this is not 0.
pub fn undecoded_images(tree: &Tree) -> usize {
    fn has_image(node: &Node) -> bool {
        node.kind == NodeKind::Image || node.children.iter().any(has_image)
    }
    fn listed_only(node: &Node) -> bool {
        node.label.contains(crate::tree::HEADER_ONLY)
            || node.diagnostics.iter().any(|d| d.message.starts_with(crate::tree::NOT_DECOMPRESSED))
    }
    fn listed_below(node: &Node) -> bool {
        listed_only(node) || node.children.iter().any(listed_below)
    }
    let listed_above = |path: &[usize]| (0..path.len()).filter_map(|n| tree.node_at(&path[..n])).any(listed_only);
    let targets = super::targets::collect(tree);
    let undecoded = |t: &super::targets::Target| {
        tree.node_at(&t.path).is_some_and(|entry| !has_image(entry) && (listed_below(entry) || listed_above(&t.path)))
    };
    targets.iter().filter(|t| undecoded(t)).count()
}

/// The rows of each kernel name, in order: a file with tens of thousands of kernels finds a
/// name's rows without looking through all of them.
type RowsByName = BTreeMap<String, Vec<usize>>;

fn visit(node: &Node, carrier: Option<&str>, path: &mut Vec<usize>, table: &mut KernelTable, rows: &mut RowsByName) {
    let own = match node.kind {
        NodeKind::BundleEntry | NodeKind::KpackEntry => text(node, "target_id"),
        NodeKind::OffloadEntry => text(node, "arch"),
        NodeKind::FatbinEntry => text(node, "file_arch"),
        _ => None,
    };
    let carrier = own.as_deref().or(carrier);
    if node.kind == NodeKind::Image && node.children.iter().any(|c| c.kind == NodeKind::Kernel) {
        let column = column_of(node, carrier);
        let col = match table.columns.iter().position(|c| *c == column) {
            Some(i) => i,
            None => {
                table.columns.push(column);
                for row in &mut table.rows {
                    row.cells.push(None);
                }
                table.columns.len() - 1
            }
        };
        for (i, k) in node.children.iter().enumerate().filter(|(_, c)| c.kind == NodeKind::Kernel) {
            path.push(i);
            let name = text(k, "name").unwrap_or_else(|| k.label.clone());
            let c = cell(k, path.clone());
            path.pop();
            // The first row of that name with this column free; a name seen twice for one
            // target (two translation units) gets a second row.
            let same_name = rows.entry(name.clone()).or_default();
            match same_name.iter().find(|&&r| table.rows[r].cells[col].is_none()) {
                Some(&row) => table.rows[row].cells[col] = Some(c),
                None => {
                    let mut cells = alloc::vec![None; table.columns.len()];
                    cells[col] = Some(c);
                    same_name.push(table.rows.len());
                    table.rows.push(KernelRow::new(name, cells));
                }
            }
        }
        return;
    }
    for (i, child) in node.children.iter().enumerate() {
        path.push(i);
        visit(child, carrier, path, table, rows);
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Span, Tree};

    fn kernel(name: &str, vgpr: u64, lds: u64) -> Node {
        let mut k = Node::new(NodeKind::Kernel, name, Span::default());
        k.field("name", name, None).field("vgpr_count", vgpr, None).field("sgpr_count", 8u64, None);
        k.field("lds_size", lds, None).field("scratch_size", 0u64, None);
        k.field("vgpr_spill_count", 2u64, None).field("sgpr_spill_count", 1u64, None);
        k
    }

    fn image(target: &str, kernels: Vec<Node>) -> Node {
        let mut i = Node::new(NodeKind::Image, "AMDGPU code object", Span::default());
        i.field("format", "AMDGPU code object", None).field("target_id", target, None);
        i.children = kernels;
        i
    }

    #[test]
    fn rows_keep_the_mangled_name_and_show_the_demangled_one() {
        let mut root = Node::new(NodeKind::File, "f", Span::default());
        root.children.push(image("gfx90a", alloc::vec![kernel("_Z6vecaddPfS_S_i", 10, 0)]));
        root.children.push(image("gfx1100", alloc::vec![kernel("_Z6vecaddPfS_S_i", 12, 0)]));
        let t = collect(&Tree { spaces: Vec::new(), root });
        assert_eq!(t.rows.len(), 1, "one row across targets, joined by the mangled name");
        assert_eq!(t.rows[0].name, "_Z6vecaddPfS_S_i");
        assert_eq!(t.rows[0].demangled, "vecadd(float*, float*, float*, int)");
    }

    #[test]
    fn rows_by_name_columns_by_target() {
        let mut root = Node::new(NodeKind::File, "f", Span::default());
        root.children.push(image("gfx90a", alloc::vec![kernel("a", 10, 0), kernel("b", 20, 1024)]));
        root.children.push(image("gfx1100", alloc::vec![kernel("b", 30, 1024), kernel("c", 5, 0)]));
        root.children.push(image("gfx90a", alloc::vec![kernel("a", 11, 0)]));
        let tree = Tree { spaces: Vec::new(), root };
        let t = collect(&tree);
        let cols: Vec<&str> = t.columns.iter().map(|c| c.target.as_str()).collect();
        assert_eq!(cols, ["gfx90a", "gfx1100"]);
        let names: Vec<&str> = t.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "a"]);
        assert!(t.rows.iter().all(|r| r.demangled == r.name), "plain names are shown as they are");
        let b = &t.rows[1];
        assert_eq!(b.cells[0].as_ref().unwrap().registers, Some(20));
        assert_eq!(b.cells[1].as_ref().unwrap().registers, Some(30));
        assert_eq!(b.cells[1].as_ref().unwrap().path, [1, 0]);
        assert_eq!(b.cells[1].as_ref().unwrap().spills, Some(3));
        assert_eq!(t.cells(), 5);
        let mut only = t.clone();
        only.retain_columns(|c| c.target == "gfx1100");
        assert_eq!(only.rows.len(), 2);
        assert_eq!(only.columns.len(), 1);
    }

    /// A compressed bundle listed from its header has images whose kernels are not known, and
    /// says how many; decompressed, none is left. Files made by clang-offload-bundler.
    #[test]
    fn images_listed_but_not_decoded_are_counted() {
        use crate::explore::{explore, Options};
        for name in ["hip_elf_2arch_compressed.hipfb", "ccob_zstd_v3.hipfb", "libhip_3tu_compressed.so"] {
            let path = alloc::format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            let data = std::fs::read(&path).unwrap();
            let listed = explore(&data[..], name, &Options { full_decompress_up_to: 0, ..Options::default() });
            let images = crate::report::targets::collect(&listed).len();
            assert!(images >= 2, "{name}: {images} images");
            assert_eq!(undecoded_images(&listed), images, "{name}: listed from the header");
            assert!(collect(&listed).rows.is_empty(), "{name}");
            let decoded = explore(&data[..], name, &Options { verify_all: true, ..Options::default() });
            assert_eq!(undecoded_images(&decoded), 0, "{name}: decompressed");
            assert!(!collect(&decoded).rows.is_empty(), "{name}");
        }
    }

    /// Every image of every fixture, decoded, is an image node: a count of images not decoded
    /// never counts what was decoded.
    #[test]
    fn decoded_fixtures_have_no_image_left_undecoded() {
        use crate::explore::{explore, Options};
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !path.is_file()
                || name.ends_with(".sh")
                || name.ends_with(".txt")
                || name.ends_with(".md")
                || name == "SHA256SUMS"
            {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let tree = explore(&data[..], &name, &Options { verify_all: true, ..Options::default() });
            assert_eq!(undecoded_images(&tree), 0, "{name}");
            files += 1;
        }
        assert!(files >= 30, "only {files} fixtures");
    }
}
