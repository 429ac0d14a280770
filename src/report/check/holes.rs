//! Kernel × target holes: kernels a library has for some of its targets and not for others
//! ("52 kernels missing on gfx1100 of 12 targets"), what a build that silently skipped a
//! translation unit or a kernel for one GPU leaves behind.
//!
//! A library is a package's member (a wheel's `.so`), or the file itself when it is not a
//! package; its targets are the columns of its kernel table ([`crate::report::kernels`]) that
//! hold machine code (AMDGPU code objects, cubins): bitcode is linked later and PTX is
//! compiled by the driver, so neither has holes of its own. Only entry kernels count: device
//! functions are inlined or not as the compiler likes, per target.

use crate::report::kernels::{KernelColumn, KernelTable};
use crate::tree::{NodeKind, Tree};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

/// The kernels of one library: its name and its own kernel table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    pub name: String,
    pub table: KernelTable,
}

/// One kernel, by its symbol and as people read it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelName {
    pub name: String,
    pub demangled: String,
}

/// The kernels missing on one target of a library.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MissingOn {
    pub target: String,
    /// By mangled name.
    pub kernels: Vec<KernelName>,
}

/// The holes of one library.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LibraryHoles {
    pub library: String,
    /// Targets of the library with machine code.
    pub targets: usize,
    /// Entry kernels of the library (distinct names).
    pub kernels: usize,
    /// Each target that lacks some kernel, in column order.
    pub missing: Vec<MissingOn>,
}

impl LibraryHoles {
    /// "52 kernels missing on gfx1100 of 12 targets" for each target with holes.
    pub fn lines(&self) -> Vec<String> {
        self.missing
            .iter()
            .map(|m| {
                let n = m.kernels.len();
                let kernels = if n == 1 { "1 kernel".into() } else { alloc::format!("{n} kernels") };
                alloc::format!("{kernels} missing on {} of {} targets", m.target, self.targets)
            })
            .collect()
    }
}

/// The name of the library a node at `path` belongs to: the package member on the path, or
/// `file`.
pub fn library_of(tree: &Tree, path: &[usize], file: &str) -> String {
    let mut node = &tree.root;
    for &i in path {
        match node.children.get(i) {
            Some(child) => node = child,
            None => break,
        }
        if node.kind == NodeKind::PackageMember {
            if let Some(name) = node.text("name") {
                return name.into();
            }
        }
    }
    file.into()
}

/// `table` (the whole tree's kernel table) split into one table per library, in the order
/// libraries first appear; a library keeps only its own columns.
pub fn by_library(tree: &Tree, table: &KernelTable, file: &str) -> Vec<Library> {
    by_library_with(table, |image| library_of(tree, image, file))
}

/// `table` split into one table per library as [`by_library`] does, the library of a cell
/// named by `library_of` from its image's path (child indices from the root): for a caller
/// that holds the tree in another shape (the page's flat document).
pub fn by_library_with(table: &KernelTable, mut library_of: impl FnMut(&[usize]) -> String) -> Vec<Library> {
    let mut order: Vec<String> = Vec::new();
    // For each library: its tables' rows, built from the cells whose path lies in it.
    let mut parts: BTreeMap<String, KernelTable> = BTreeMap::new();
    // Each column's library is found once, from its first cell: a column (a target) of the
    // whole table may hold cells of several libraries, so each cell is placed by its own path.
    let mut cache: BTreeMap<Vec<usize>, String> = BTreeMap::new();
    for row in &table.rows {
        let mut cells_of: BTreeMap<String, Vec<(usize, &crate::report::kernels::KernelCell)>> = BTreeMap::new();
        for (col, cell) in row.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            // The image's path (the kernel's parent) names its library as well as the kernel's.
            let image = &cell.path[..cell.path.len().saturating_sub(1)];
            let lib = match cache.get(image) {
                Some(l) => l.clone(),
                None => {
                    let l = library_of(image);
                    cache.insert(image.to_vec(), l.clone());
                    l
                }
            };
            cells_of.entry(lib).or_default().push((col, cell));
        }
        for (lib, cells) in cells_of {
            if !parts.contains_key(&lib) {
                order.push(lib.clone());
            }
            let part = parts.entry(lib).or_default();
            let mut new_cells = alloc::vec![None; part.columns.len()];
            for (col, cell) in cells {
                let at = column_in(part, &table.columns[col], &mut new_cells);
                new_cells[at] = Some(cell.clone());
            }
            part.rows.push(crate::report::kernels::KernelRow {
                name: row.name.clone(),
                demangled: row.demangled.clone(),
                cells: new_cells,
            });
        }
    }
    order.into_iter().filter_map(|name| parts.remove(&name).map(|table| Library { name, table })).collect()
}

/// The index of `column` in `part`, added (with an empty cell in every row, and in `cells`,
/// the row being built) when it is new.
fn column_in(
    part: &mut KernelTable,
    column: &KernelColumn,
    cells: &mut Vec<Option<crate::report::kernels::KernelCell>>,
) -> usize {
    if let Some(i) = part.columns.iter().position(|c| c == column) {
        return i;
    }
    part.columns.push(column.clone());
    for r in &mut part.rows {
        r.cells.push(None);
    }
    cells.push(None);
    part.columns.len() - 1
}

/// Whether a column holds machine code, which can have holes.
pub fn is_machine_code(column: &KernelColumn) -> bool {
    matches!(column.format.as_str(), "AMDGPU code object" | "CUDA cubin")
}

/// The holes of one library's kernel table.
pub fn holes_of(library: &Library) -> LibraryHoles {
    let t = &library.table;
    let columns: Vec<usize> = (0..t.columns.len()).filter(|&c| is_machine_code(&t.columns[c])).collect();
    // Each entry kernel's name, with the columns it is on.
    let mut on: BTreeMap<&str, (&str, BTreeSet<usize>)> = BTreeMap::new();
    for row in &t.rows {
        for &c in &columns {
            if let Some(cell) = &row.cells[c] {
                if cell.entry {
                    on.entry(row.name.as_str()).or_insert((row.demangled.as_str(), BTreeSet::new())).1.insert(c);
                }
            }
        }
    }
    let missing = columns
        .iter()
        .map(|&c| MissingOn {
            target: t.columns[c].target.clone(),
            kernels: on
                .iter()
                .filter(|(_, (_, cols))| !cols.contains(&c))
                .map(|(name, (demangled, _))| KernelName {
                    name: String::from(*name),
                    demangled: String::from(*demangled),
                })
                .collect(),
        })
        .filter(|m| !m.kernels.is_empty())
        .collect();
    LibraryHoles { library: library.name.clone(), targets: columns.len(), kernels: on.len(), missing }
}

/// The holes of every library of an explored file whose kernel table is `table`: only the
/// libraries that have some.
pub fn holes(tree: &Tree, table: &KernelTable, file: &str) -> Vec<LibraryHoles> {
    holes_with(table, |image| library_of(tree, image, file))
}

/// The holes of every library of `table`, each cell's library named by `library_of` from its
/// image's path ([`by_library_with`]): only the libraries that have some.
pub fn holes_with(table: &KernelTable, library_of: impl FnMut(&[usize]) -> String) -> Vec<LibraryHoles> {
    by_library_with(table, library_of).iter().map(holes_of).filter(|h| !h.missing.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Node, Span};

    fn kernel(name: &str) -> Node {
        let mut k = Node::new(NodeKind::Kernel, name, Span::default());
        k.field("name", name, None).field("vgpr_count", 8u64, None);
        k
    }

    fn image(target: &str, kernels: &[&str]) -> Node {
        let mut i = Node::new(NodeKind::Image, "AMDGPU code object", Span::default());
        i.field("format", "AMDGPU code object", None).field("target_id", target, None);
        i.children = kernels.iter().map(|k| kernel(k)).collect();
        i
    }

    fn member(name: &str, images: Vec<Node>) -> Node {
        let mut m = Node::new(NodeKind::PackageMember, name, Span::default());
        m.field("name", name, None);
        m.children = images;
        m
    }

    #[test]
    fn holes_are_per_library_and_per_target() {
        let mut root = Node::new(NodeKind::File, "w.whl", Span::default());
        root.children.push(member(
            "a.so",
            alloc::vec![
                image("gfx90a", &["k1", "k2", "k3"]),
                image("gfx1100", &["k1"]),
                image("gfx942", &["k1", "k2", "k3"])
            ],
        ));
        // b.so has only gfx90a: the gfx1100 column of a.so is no hole of its.
        root.children.push(member("b.so", alloc::vec![image("gfx90a", &["k1", "k4"])]));
        let tree = Tree { spaces: Vec::new(), root };
        let table = crate::report::kernels::collect(&tree);
        let libs = by_library(&tree, &table, "w.whl");
        assert_eq!(libs.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["a.so", "b.so"]);
        assert_eq!(libs[1].table.columns.len(), 1);
        let h = holes(&tree, &table, "w.whl");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].library, "a.so");
        assert_eq!((h[0].targets, h[0].kernels), (3, 3));
        assert_eq!(h[0].missing.len(), 1);
        assert_eq!(h[0].missing[0].target, "gfx1100");
        let names: Vec<&str> = h[0].missing[0].kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["k2", "k3"]);
        assert_eq!(h[0].lines(), ["2 kernels missing on gfx1100 of 3 targets"]);
    }
}
