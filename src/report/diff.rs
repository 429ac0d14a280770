//! Two explored files compared: which targets were added, removed or kept, how much each
//! target's images grew or shrank, which images are byte-for-byte the same, and, where images
//! are decoded, which kernels were added, removed or changed (registers, SGPRs, AGPRs, LDS,
//! scratch, spills).
//!
//! Targets are compared by entry ID as the file writes it (what `llvm-objdump --offloading` and
//! `clang-offload-bundler --list` print: `hipv4-amdgcn-amd-amdhsa--gfx90a`; `<triple>-<arch>`
//! for offload binaries), NVIDIA fatbin entries by `sm_NN` (cubins) and `compute_NN` (PTX).
//! An ID that comes several times (one bundle per translation unit) pairs its images in file
//! order: the first with the first, and so on.
//!
//! Kernels are compared for the kernel-table columns ([`crate::report::kernels`]) both files have; a
//! target only one file has is reported once, under targets, not kernel by kernel.
//!
//! The files are "equal" when they have the same targets and every image is byte-for-byte the
//! same; host code is not compared.

use crate::report::kernels::{self, KernelCell, KernelTable};
use crate::report::targets::target_name;
use crate::report::targets::{self, Target};
use crate::tree::Tree;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// Entry IDs only in the new file, only in the old one, and in both, each in first-seen order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub common: Vec<String>,
}

/// The images of one entry ID in both files.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SizeChange {
    pub target: String,
    pub old_images: usize,
    pub new_images: usize,
    /// Decompressed bytes of its images.
    pub old_bytes: u64,
    pub new_bytes: u64,
}

impl SizeChange {
    pub fn delta(&self) -> i128 {
        i128::from(self.new_bytes) - i128::from(self.old_bytes)
    }
}

/// The `index`-th image of an entry ID in each file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ImageChange {
    pub target: String,
    pub index: usize,
    /// `None` where that file has no such image.
    pub old_size: Option<u64>,
    pub new_size: Option<u64>,
    /// Whether the bytes are the same; `None` when one side is missing or its bytes are not at
    /// hand (a compressed bundle only listed).
    pub equal: Option<bool>,
}

/// What a kernel uses, as [`crate::report::kernels`] reads it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelUse {
    pub registers: Option<u64>,
    pub sgprs: Option<u64>,
    pub agprs: Option<u64>,
    pub lds: Option<u64>,
    pub scratch: Option<u64>,
    pub spills: Option<u64>,
}

impl KernelUse {
    fn of(cell: &KernelCell) -> KernelUse {
        KernelUse {
            registers: cell.registers,
            sgprs: cell.sgprs,
            agprs: cell.agprs,
            lds: cell.lds,
            scratch: cell.scratch,
            spills: cell.spills,
        }
    }

    /// `(name, old, new)` for every number that differs.
    pub fn changes(&self, new: &KernelUse) -> Vec<(&'static str, Option<u64>, Option<u64>)> {
        [
            ("registers", self.registers, new.registers),
            ("sgprs", self.sgprs, new.sgprs),
            ("agprs", self.agprs, new.agprs),
            ("lds", self.lds, new.lds),
            ("scratch", self.scratch, new.scratch),
            ("spills", self.spills, new.spills),
        ]
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .collect()
    }
}

/// A kernel of one kernel-table column (`gfx90a`, `sm_80`, `gfx90a (bitcode)`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelRef {
    pub target: String,
    pub name: String,
    pub uses: KernelUse,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelChange {
    pub target: String,
    pub name: String,
    pub old: KernelUse,
    pub new: KernelUse,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelChanges {
    pub added: Vec<KernelRef>,
    pub removed: Vec<KernelRef>,
    pub changed: Vec<KernelChange>,
}

/// Two files compared.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Diff {
    pub old_size: u64,
    pub new_size: u64,
    pub targets: TargetChanges,
    /// One per entry ID of either file, in the order of [`TargetChanges`]: common, added, removed.
    pub sizes: Vec<SizeChange>,
    pub images: Vec<ImageChange>,
    pub kernels: KernelChanges,
}

impl Diff {
    /// Same targets, and every image byte-for-byte the same.
    pub fn is_equal(&self) -> bool {
        self.targets.added.is_empty()
            && self.targets.removed.is_empty()
            && self.images.iter().all(|i| i.equal == Some(true))
    }

    /// How many images differ (or are only in one file, or could not be compared).
    pub fn images_differing(&self) -> usize {
        self.images.iter().filter(|i| i.equal != Some(true)).count()
    }
}

/// The identity an image is compared by: its entry ID, or `sm_NN` / `compute_NN` for NVIDIA
/// fatbin entries.
pub fn entry_key(t: &Target) -> String {
    match t.file_name {
        Some(_) => target_name(t),
        None => t.target_id.clone(),
    }
}

/// Compares `old` (whose tree is `old_tree`) with `new`. The trees should be explored with
/// every compressed container decompressed, or images in listed-only containers compare as
/// unknown.
pub fn diff(old: &[u8], old_tree: &Tree, new: &[u8], new_tree: &Tree) -> Diff {
    let old_images = by_key(targets::collect(old_tree));
    let new_images = by_key(targets::collect(new_tree));
    let mut d = Diff { old_size: old.len() as u64, new_size: new.len() as u64, ..Diff::default() };
    for (key, _) in &old_images {
        match new_images.iter().any(|(k, _)| k == key) {
            true => d.targets.common.push(key.clone()),
            false => d.targets.removed.push(key.clone()),
        }
    }
    d.targets.added =
        new_images.iter().filter(|(k, _)| !d.targets.common.contains(k)).map(|(k, _)| k.clone()).collect();
    let empty = Vec::new();
    let images_of = |list: &'_ [(String, Vec<Target>)], key: &str| -> Vec<Target> {
        list.iter().find(|(k, _)| k == key).map_or_else(|| empty.clone(), |(_, v)| v.clone())
    };
    let keys = d.targets.common.iter().chain(&d.targets.added).chain(&d.targets.removed).cloned().collect::<Vec<_>>();
    for key in keys {
        let (a, b) = (images_of(&old_images, &key), images_of(&new_images, &key));
        d.sizes.push(SizeChange {
            target: key.clone(),
            old_images: a.len(),
            new_images: b.len(),
            old_bytes: a.iter().map(|t| t.image_size).fold(0, u64::saturating_add),
            new_bytes: b.iter().map(|t| t.image_size).fold(0, u64::saturating_add),
        });
        for index in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(index), b.get(index));
            let equal = match (x, y) {
                (Some(x), Some(y)) => same_bytes(old_tree, old, x, new_tree, new, y),
                _ => None,
            };
            d.images.push(ImageChange {
                target: key.clone(),
                index,
                old_size: x.map(|t| t.image_size),
                new_size: y.map(|t| t.image_size),
                equal,
            });
        }
    }
    d.kernels = kernel_changes(&kernels::collect(old_tree), &kernels::collect(new_tree));
    d
}

/// Images grouped by [`entry_key`], keys in first-seen order.
fn by_key(found: Vec<Target>) -> Vec<(String, Vec<Target>)> {
    let mut out: Vec<(String, Vec<Target>)> = Vec::new();
    for t in found {
        let key = entry_key(&t);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(t),
            None => out.push((key, alloc::vec![t])),
        }
    }
    out
}

/// The image's bytes: its span, or its parts one after the other (a SYCL entry's modules).
fn image_bytes<'a>(tree: &'a Tree, input: &'a [u8], t: &Target) -> Option<Vec<&'a [u8]>> {
    if t.parts.is_empty() {
        return tree.bytes(input, t.span).map(|b| alloc::vec![b]);
    }
    t.parts.iter().map(|p| tree.bytes(input, *p)).collect()
}

fn same_bytes(old_tree: &Tree, old: &[u8], x: &Target, new_tree: &Tree, new: &[u8], y: &Target) -> Option<bool> {
    let a = image_bytes(old_tree, old, x)?;
    let b = image_bytes(new_tree, new, y)?;
    // Compared as one stream each, so the same bytes split differently still compare equal.
    Some(a.iter().flat_map(|s| s.iter()).eq(b.iter().flat_map(|s| s.iter())))
}

/// Each column's kernels by name, in row order (a name can come once per translation unit).
fn kernels_by_column(table: &KernelTable) -> BTreeMap<&str, Vec<(&str, KernelUse)>> {
    let mut out: BTreeMap<&str, Vec<(&str, KernelUse)>> = BTreeMap::new();
    for row in &table.rows {
        for (column, cell) in table.columns.iter().zip(&row.cells) {
            if let Some(cell) = cell {
                out.entry(column.target.as_str()).or_default().push((row.name.as_str(), KernelUse::of(cell)));
            }
        }
    }
    out
}

fn kernel_changes(old: &KernelTable, new: &KernelTable) -> KernelChanges {
    let (a, b) = (kernels_by_column(old), kernels_by_column(new));
    let mut changes = KernelChanges::default();
    for (column, old_kernels) in &a {
        let Some(new_kernels) = b.get(column) else { continue };
        compare_column(column, old_kernels, new_kernels, &mut changes);
    }
    changes
}

/// Pairs kernels of the same name in order; the unpaired ones were added or removed.
fn compare_column(column: &str, old: &[(&str, KernelUse)], new: &[(&str, KernelUse)], out: &mut KernelChanges) {
    let mut paired = alloc::vec![false; new.len()];
    for (name, uses) in old {
        let partner = new.iter().enumerate().position(|(i, (n, _))| !paired[i] && n == name);
        match partner {
            Some(i) => {
                paired[i] = true;
                if *uses != new[i].1 {
                    out.changed.push(KernelChange {
                        target: column.into(),
                        name: (*name).into(),
                        old: uses.clone(),
                        new: new[i].1.clone(),
                    });
                }
            }
            None => out.removed.push(KernelRef { target: column.into(), name: (*name).into(), uses: uses.clone() }),
        }
    }
    for ((name, uses), _) in new.iter().zip(&paired).filter(|(_, p)| !**p) {
        out.added.push(KernelRef { target: column.into(), name: (*name).into(), uses: uses.clone() });
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::explore::{explore, Options};

    fn open(path: &str) -> (Vec<u8>, Tree) {
        let data = std::fs::read(alloc::format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let tree = explore(&data[..], path, &Options { verify_all: true, ..Options::default() });
        (data, tree)
    }

    fn compare(a: &str, b: &str) -> Diff {
        let ((x, xt), (y, yt)) = (open(a), open(b));
        diff(&x, &xt, &y, &yt)
    }

    #[test]
    fn a_file_equals_itself() {
        let d = compare("tests/fixtures/libhip_3tu_compressed.so", "tests/fixtures/libhip_3tu_compressed.so");
        assert!(d.is_equal());
        assert_eq!(d.targets.common, ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a"]);
        assert_eq!(d.images.len(), 6);
        assert!(d.kernels.added.is_empty() && d.kernels.changed.is_empty());
    }

    #[test]
    fn same_images_in_other_containers_are_equal() {
        // The object's `.hip_fatbin` is the raw bundle: same entries, same bytes.
        let d = compare("tests/fixtures/hip_elf_2arch.o", "tests/fixtures/hip_elf_2arch.hipfb");
        assert!(d.is_equal(), "{d:?}");
        assert_ne!(d.old_size, d.new_size);
    }

    #[test]
    fn added_and_removed_targets_and_sizes() {
        // gfx906:xnack- and gfx90a (old driver) against gfx1030 and gfx90a:xnack+ (OpenMP).
        let d = compare("tests/fixtures/hip_elf_2arch.o", "tests/fixtures/omp_elf_2arch.o");
        assert!(!d.is_equal());
        assert_eq!(d.targets.added, ["amdgcn-amd-amdhsa-gfx1030", "amdgcn-amd-amdhsa-gfx90a:xnack+"]);
        assert_eq!(d.targets.removed, ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a"]);
        assert!(d.targets.common.is_empty());
        let added = d.sizes.iter().find(|s| s.target == "amdgcn-amd-amdhsa-gfx1030").unwrap();
        assert_eq!((added.old_images, added.new_images, added.old_bytes), (0, 1, 0));
        assert_eq!(added.delta(), i128::from(added.new_bytes));
    }

    #[test]
    fn kernels_are_compared_per_common_column() {
        let cell = |registers| KernelCell { registers: Some(registers), lds: Some(0), ..KernelCell::default() };
        let column = |t: &str| kernels::KernelColumn { target: t.into(), format: "AMDGPU code object".into() };
        let row = |name: &str, cells| kernels::KernelRow::new(name.into(), cells);
        let old = KernelTable {
            columns: alloc::vec![column("gfx90a")],
            rows: alloc::vec![row("kept", alloc::vec![Some(cell(10))]), row("gone", alloc::vec![Some(cell(4))])],
        };
        let new = KernelTable {
            columns: alloc::vec![column("gfx90a"), column("gfx1100")],
            rows: alloc::vec![
                row("kept", alloc::vec![Some(cell(12)), Some(cell(8))]),
                row("new", alloc::vec![Some(cell(3)), None]),
            ],
        };
        let c = kernel_changes(&old, &new);
        assert_eq!(c.removed.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["gone"]);
        assert_eq!(
            c.added.iter().map(|k| (k.target.as_str(), k.name.as_str())).collect::<Vec<_>>(),
            [("gfx90a", "new")]
        );
        assert_eq!(c.changed.len(), 1);
        assert_eq!(c.changed[0].old.changes(&c.changed[0].new), [("registers", Some(10), Some(12))]);
    }
}
