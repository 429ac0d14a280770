//! What each target costs: the bytes of its device images, and how much of the file they take.
//!
//! Per target (named as [`crate::report::runs_on`] names them, `gfx90a:xnack+`, `sm_80`):
//!
//! * `image_bytes`: the images' size, decompressed;
//! * `stored_exact`: the bytes of its images stored as they are in the file (exact);
//! * `stored_estimate`: its share of the compressed containers it is in (compressed bundles,
//!   compressed fatbin entries, SYCL zstd frames). Compression works across images, so no
//!   single image owns a number of compressed bytes: a container's stored bytes are split
//!   among its images in proportion to their decompressed sizes. It is an **estimate**, and
//!   is labelled so; [`crate::edit::drop_targets`] gives the exact size of the file without
//!   some targets.
//! * `share_of_file`: `(stored_exact + stored_estimate) / file size`, an estimate as soon as
//!   `stored_estimate` is not zero.

use crate::report::targets::{self, Target};
use crate::report::targets::{target_name, vendor_of, Vendor};
use crate::tree::{Node, NodeKind, Tree};
use crate::util::sort;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// What one target costs.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TargetSize {
    pub target: String,
    pub vendor: Vendor,
    pub images: usize,
    /// The images' size, decompressed.
    pub image_bytes: u64,
    /// Bytes of its images stored uncompressed in the file: exact.
    pub stored_exact: u64,
    /// Its proportional share of the compressed containers its images are in: an estimate.
    pub stored_estimate: u64,
    /// `(stored_exact + stored_estimate) / file size`, from 0 to 1.
    pub share_of_file: f64,
}

impl TargetSize {
    /// Whether any of its stored bytes are estimated (it has images in compressed containers).
    pub fn is_estimate(&self) -> bool {
        self.stored_estimate > 0
    }

    pub fn stored(&self) -> u64 {
        self.stored_exact.saturating_add(self.stored_estimate)
    }
}

/// The sizes of every target of a file, largest stored first.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sizes {
    pub file_size: u64,
    /// All device images, decompressed.
    pub image_bytes: u64,
    /// The stored bytes of every compressed container holding device images.
    pub compressed_stored: u64,
    pub targets: Vec<TargetSize>,
}

impl Sizes {
    /// The bytes device data takes in the file: images stored as they are, and every
    /// compressed container holding images. Exact (only its split among targets is estimated).
    pub fn device_stored(&self) -> u64 {
        self.targets.iter().map(|t| t.stored_exact).fold(self.compressed_stored, u64::saturating_add)
    }
}

/// The per-target sizes of an explored file.
pub fn sizes(tree: &Tree) -> Sizes {
    let file_size = tree.spaces.first().map_or(0, |s| s.size);
    let found = targets::collect(tree);
    let containers = compressed_containers(tree, &found);
    let mut by_name: Vec<TargetSize> = Vec::new();
    for (i, t) in found.iter().enumerate() {
        let name = target_name(t);
        let at = match by_name.iter().position(|s| s.target == name) {
            Some(at) => at,
            None => {
                by_name.push(empty(name, vendor_of(t)));
                by_name.len() - 1
            }
        };
        let s = &mut by_name[at];
        s.images += 1;
        s.image_bytes = s.image_bytes.saturating_add(t.image_size);
        match containers.share_of(i) {
            Some(estimate) => s.stored_estimate = s.stored_estimate.saturating_add(estimate),
            None => s.stored_exact = s.stored_exact.saturating_add(t.stored_size.unwrap_or(t.image_size)),
        }
    }
    for s in &mut by_name {
        s.share_of_file = if file_size == 0 { 0.0 } else { s.stored() as f64 / file_size as f64 };
    }
    sort::sort_by(&mut by_name, |a, b| b.stored().cmp(&a.stored()).then_with(|| a.target.cmp(&b.target)));
    Sizes {
        file_size,
        image_bytes: found.iter().map(|t| t.image_size).fold(0u64, u64::saturating_add),
        compressed_stored: containers.stored.values().fold(0u64, |a, &b| a.saturating_add(b)),
        targets: by_name,
    }
}

fn empty(target: String, vendor: Vendor) -> TargetSize {
    TargetSize { target, vendor, images: 0, image_bytes: 0, stored_exact: 0, stored_estimate: 0, share_of_file: 0.0 }
}

/// The compressed containers holding the images, and which image is in which.
struct Containers {
    /// Stored bytes of each container, by its path.
    stored: BTreeMap<Vec<usize>, u64>,
    /// Sum of the decompressed sizes of the images in each container.
    image_total: BTreeMap<Vec<usize>, u64>,
    /// For each image (by its index in the target list), its container and its size.
    of_image: Vec<Option<(Vec<usize>, u64)>>,
}

impl Containers {
    /// The image's proportional share of its container's stored bytes, or `None` when it is
    /// stored as it is.
    fn share_of(&self, image: usize) -> Option<u64> {
        let (path, size) = self.of_image.get(image)?.as_ref()?;
        let stored = *self.stored.get(path)?;
        let total = *self.image_total.get(path)?;
        if total == 0 {
            return Some(0);
        }
        // u128: stored × size can exceed u64 for multi-gigabyte containers.
        Some((u128::from(stored) * u128::from(*size) / u128::from(total)) as u64)
    }
}

fn compressed_containers(tree: &Tree, found: &[Target]) -> Containers {
    let mut c = Containers { stored: BTreeMap::new(), image_total: BTreeMap::new(), of_image: Vec::new() };
    for t in found {
        let container = innermost_compressed(&tree.root, &t.path);
        if let Some((path, stored)) = &container {
            c.stored.insert(path.clone(), *stored);
            let total = c.image_total.entry(path.clone()).or_insert(0);
            *total = total.saturating_add(t.image_size);
        }
        c.of_image.push(container.map(|(path, _)| (path, t.image_size)));
    }
    c
}

/// The innermost node from the root down to `path` that compresses what is below it (a
/// compressed bundle, or an entry holding compressed payloads: a compressed fatbin entry, a
/// SYCL entry of zstd frames), with its path and stored size.
fn innermost_compressed(root: &Node, path: &[usize]) -> Option<(Vec<usize>, u64)> {
    let compresses = |n: &Node| {
        n.kind == NodeKind::CompressedBundle || n.children.iter().any(|c| c.kind == NodeKind::CompressedPayload)
    };
    let mut node = root;
    let mut found = compresses(node).then(|| (Vec::new(), node.span.size));
    for (depth, &i) in path.iter().enumerate() {
        node = node.children.get(i)?;
        if compresses(node) {
            found = Some((path[..=depth].to_vec(), node.span.size));
        }
    }
    found
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::explore::{explore, Options};

    fn sizes_of(fixture: &str) -> Sizes {
        let path = alloc::format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
        let data = std::fs::read(path).unwrap();
        sizes(&explore(&data[..], fixture, &Options::default()))
    }

    #[test]
    fn uncompressed_images_are_counted_exactly() {
        let s = sizes_of("hip_elf_2arch.o");
        assert_eq!(s.file_size, 25880);
        assert_eq!(s.compressed_stored, 0);
        let names: Vec<&str> = s.targets.iter().map(|t| t.target.as_str()).collect();
        assert_eq!(names.len(), 2);
        for t in &s.targets {
            assert!(!t.is_estimate());
            assert_eq!(t.stored_exact, t.image_bytes);
            assert!((t.share_of_file - t.image_bytes as f64 / 25880.0).abs() < 1e-12);
        }
        assert_eq!(s.image_bytes, s.targets.iter().map(|t| t.image_bytes).sum::<u64>());
    }

    #[test]
    fn compressed_containers_are_split_in_proportion() {
        // Three compressed bundles, each holding gfx906:xnack- and gfx90a.
        let s = sizes_of("libhip_3tu_compressed.so");
        assert_eq!(s.compressed_stored, 1594 + 1961 + 1622);
        assert_eq!(s.targets.len(), 2);
        for t in &s.targets {
            assert_eq!((t.images, t.stored_exact), (3, 0));
            assert!(t.is_estimate());
            assert!(t.stored_estimate < t.image_bytes, "{t:?}");
        }
        // The estimates share out the stored bytes (rounding down, a byte per image at most).
        let estimated: u64 = s.targets.iter().map(|t| t.stored_estimate).sum();
        assert!(s.compressed_stored - estimated <= 6, "{estimated}");
        assert_eq!(s.device_stored(), s.compressed_stored);
    }
}
