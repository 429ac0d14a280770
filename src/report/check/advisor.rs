//! The generic-target and duplicate advisor: device code built once per processor that came
//! out the same, and what one build would save.
//!
//! * AMD: code objects of one container (a bundle: one translation unit) whose instruction
//!   bytes (`.text`) are identical for several processors of one generic family
//!   (`gfx1100`, `gfx1101` and `gfx1102` under `gfx11-generic`; the families are LLVM 22's,
//!   [`crate::ids::generic_family_of`]). One code object for the generic target (code object
//!   v6) would serve them all: the bytes saved are those of every copy but one.
//! * NVIDIA: cubins of one fatbin identical across `sm_` targets of one major version
//!   (`sm_86`, `sm_89`): the lowest runs on the others (a cubin `sm_XY` runs on `sm_XZ`,
//!   Z ≥ Y), so it alone serves them.
//!
//! Instruction bytes are compared by the `code_hash` the image decoder records (XXH3-64 of the
//! executable sections, [`crate::image::elf::Elf::code_digest`]), so the tree's bytes need not
//! be kept. Sizes are image bytes, decompressed: in a compressed container the file shrinks by
//! less.

use crate::ids::generic_family_of;
use crate::report::fit::{container_path, image_node};
use crate::report::targets::{self, target_name, vendor_of, Vendor};
use crate::tree::{Tree, Value};
use crate::util::bytes::human_size;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Targets whose code came out identical, summed over the containers where it did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Identical {
    pub vendor: Vendor,
    /// The target one build would be for: the generic target (`gfx11-generic`), or the lowest
    /// `sm_` of the group.
    pub build_for: String,
    /// The targets whose images are identical, in order.
    pub targets: Vec<String>,
    /// Containers where these targets' images are identical.
    pub containers: usize,
    /// Images in those groups (`containers × targets`).
    pub images: usize,
    /// Their size, decompressed.
    pub image_bytes: u64,
    /// What one build instead of several would save: every image but one per container.
    pub saved: u64,
}

impl Identical {
    /// "gfx1010, gfx1011, gfx1012: 3 identical code objects in 1 container, 18.3 MiB; one
    /// gfx10-1-generic build would save 12.2 MiB", or for cubins "sm_86, sm_89: 2 identical
    /// cubins in 1 container, 1.2 MiB; sm_86 alone serves them": what `offload sizes` prints
    /// and the page shows.
    pub fn line(&self) -> String {
        let (what, how) = match self.vendor {
            Vendor::Nvidia => ("cubins", alloc::format!("{} alone serves them", self.build_for)),
            _ => ("code objects", alloc::format!("one {} build would save {}", self.build_for, human_size(self.saved))),
        };
        let containers = if self.containers == 1 {
            "1 container".to_string()
        } else {
            alloc::format!("{} containers", self.containers)
        };
        alloc::format!(
            "{}: {} identical {what} in {containers}, {}; {how}",
            self.targets.join(", "),
            self.images,
            human_size(self.image_bytes)
        )
    }
}

/// The line above the groups: what every group together would save, when there are any.
pub fn headline(groups: &[Identical]) -> Option<String> {
    if groups.is_empty() {
        return None;
    }
    let saved = groups.iter().map(|g| g.saved).fold(0, u64::saturating_add);
    Some(alloc::format!(
        "identical code across targets (instruction bytes equal; image bytes, decompressed): {} could be saved",
        human_size(saved)
    ))
}

/// One image the advisor compares.
struct Code {
    target: String,
    /// Family key: the generic target (AMD) or the `sm_` major (NVIDIA).
    family: String,
    hash: String,
    size: u64,
}

/// A container's images by (family, code hash).
type SameCode = BTreeMap<(String, String), Vec<Code>>;

/// The groups of a file, most bytes saved first.
pub fn identical_code(tree: &Tree) -> Vec<Identical> {
    let found = targets::collect(tree);
    // Per container, per (family, hash): the images.
    let mut by_container: BTreeMap<Vec<usize>, SameCode> = BTreeMap::new();
    for t in &found {
        let Some(code) = code_of(tree, t) else { continue };
        let container = container_path(tree, &t.path);
        by_container
            .entry(container)
            .or_default()
            .entry((code.family.clone(), code.hash.clone()))
            .or_default()
            .push(code);
    }
    let mut groups: BTreeMap<(String, Vec<String>), Identical> = BTreeMap::new();
    for same in by_container.into_values().flat_map(BTreeMap::into_values) {
        add_group(&mut groups, same);
    }
    let mut out: Vec<Identical> = groups.into_values().collect();
    out.sort_by(|a, b| b.saved.cmp(&a.saved).then_with(|| a.targets.cmp(&b.targets)));
    out
}

/// Adds images of one container with the same code to the group of their targets, when there
/// are several targets.
fn add_group(groups: &mut BTreeMap<(String, Vec<String>), Identical>, mut same: Vec<Code>) {
    same.sort_by(|a, b| sm_number(&a.target).cmp(&sm_number(&b.target)).then_with(|| a.target.cmp(&b.target)));
    same.dedup_by(|a, b| a.target == b.target);
    if same.len() < 2 {
        return;
    }
    let targets: Vec<String> = same.iter().map(|c| c.target.clone()).collect();
    let nvidia = same[0].target.starts_with("sm_");
    let build_for = if nvidia { same[0].target.clone() } else { same[0].family.clone() };
    let bytes: u64 = same.iter().map(|c| c.size).sum();
    let kept = if nvidia { same[0].size } else { same.iter().map(|c| c.size).max().unwrap_or(0) };
    let g = groups.entry((build_for.clone(), targets.clone())).or_insert_with(|| Identical {
        vendor: if nvidia { Vendor::Nvidia } else { Vendor::Amd },
        build_for,
        targets,
        containers: 0,
        images: 0,
        image_bytes: 0,
        saved: 0,
    });
    g.containers += 1;
    g.images += same.len();
    g.image_bytes = g.image_bytes.saturating_add(bytes);
    g.saved = g.saved.saturating_add(bytes - kept);
}

/// `sm_86` → 86, for ordering cubins by architecture; 0 for other names.
fn sm_number(target: &str) -> u64 {
    target.strip_prefix("sm_").and_then(|d| d.parse().ok()).unwrap_or(0)
}

/// What the advisor needs of one image: a machine-code image of a processor in a generic
/// family (AMD) or a plain `sm_NN` cubin (NVIDIA), with its code hash.
fn code_of(tree: &Tree, t: &targets::Target) -> Option<Code> {
    let (image, _) = image_node(tree, &t.path)?;
    let hash = image.text("code_hash")?.to_string();
    let format = image.text("format")?;
    let target = target_name(t);
    let family = match (vendor_of(t), format) {
        (Vendor::Amd, "AMDGPU code object") => {
            let processor = image.text("processor").unwrap_or(&t.processor);
            generic_family_of(processor)?.to_string()
        }
        (Vendor::Nvidia, "CUDA cubin") if sm_number(&target) > 0 && target[3..].bytes().all(|b| b.is_ascii_digit()) => {
            // sm_86 → "sm_8x": majors are the number without its last digit.
            alloc::format!("sm_{}x", sm_number(&target) / 10)
        }
        _ => return None,
    };
    let size = match image.get("code_bytes") {
        Some(Value::Uint(_)) => t.image_size,
        _ => return None,
    };
    Some(Code { target, family, hash, size })
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::explore::{explore, Options};

    /// hip_kernels.o holds gfx90a and gfx1100: no family in common, so no group.
    #[test]
    fn processors_of_different_families_are_not_grouped() {
        let path = alloc::format!("{}/tests/images/hip_kernels.o", env!("CARGO_MANIFEST_DIR"));
        let data = std::fs::read(path).unwrap();
        let tree = explore(&data[..], "hip_kernels.o", &Options::default());
        assert!(identical_code(&tree).is_empty());
    }
}
