//! "What if I drop these targets?": removes every image of the named targets everywhere in a
//! file, one [`Edit::RemoveEntry`] at a time through [`super::apply`], exploring the result
//! again between edits (a removal changes the paths and spans of what follows it). The result
//! is read back before it is returned: it must explore with no error the input did not have,
//! and with exactly the input's targets less the removed ones. Its length is the exact size
//! of the file without those targets ([`crate::report::sizes`] only estimates compressed shares).
//!
//! Works wherever [`Edit::RemoveEntry`] does: bundle entries (plain, in compressed bundles, in
//! text bundles, in archive members), offload entries and binaries, NVIDIA fatbin entries. The
//! images of a concatenated fatbin entry (`nvcc --concat`) share one payload and cannot be
//! dropped one by one.

use super::{apply, invalid, Edit, EditResult};
use crate::explore::{explore, Options};
use crate::report::targets::{self, Target};
use crate::report::targets::{target_name, vendor_of, Vendor};
use crate::tree::Tree;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A file without some targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub bytes: Vec<u8>,
    /// The entry IDs of the removed images, in the order they were removed.
    pub removed: Vec<String>,
    /// What the edits said about how the file was written (a section keeping its size...).
    pub notes: Vec<String>,
}

/// Whether `wanted` names the image `t`: its target name (`gfx90a:xnack+`, `sm_80`,
/// `compute_80`), its entry ID as written, or, for AMD GPUs, its processor (`gfx90a` names
/// every feature variant of gfx90a).
pub fn names_target(t: &Target, wanted: &str) -> bool {
    target_name(t) == wanted || t.target_id == wanted || (vendor_of(t) == Vendor::Amd && t.processor == wanted)
}

/// The file `input` (named `name`) without any image of the targets `wanted`, explored within
/// `options` (every compressed container is decompressed: its entries must be at hand).
pub fn drop_targets(input: &[u8], name: &str, wanted: &[String], options: &Options) -> EditResult<Dropped> {
    let options = Options { verify_all: true, ..options.clone() };
    let first = explore(input, name, &options);
    let before = targets::collect(&first);
    check_wanted(&before, wanted)?;
    let to_remove = before.iter().filter(|t| wanted.iter().any(|w| names_target(t, w))).count();
    let mut dropped = Dropped { bytes: input.to_vec(), removed: Vec::new(), notes: Vec::new() };
    let mut tree = first.clone();
    // Each edit removes at least one image; the bound keeps a removal that changes nothing
    // from looping.
    for _ in 0..to_remove {
        let Some(next) = targets::collect(&tree).into_iter().find(|t| wanted.iter().any(|w| names_target(t, w))) else {
            break;
        };
        let edited = apply(&dropped.bytes, &tree, &Edit::RemoveEntry { node: next.path.clone() })?;
        dropped.removed.push(next.target_id);
        dropped.notes.extend(edited.notes);
        dropped.bytes = edited.bytes;
        tree = explore(&dropped.bytes[..], name, &options);
    }
    read_back(&first, &before, &tree, wanted)?;
    Ok(dropped)
}

/// Every name must name a target of the file: a typo would otherwise drop nothing, silently.
fn check_wanted(found: &[Target], wanted: &[String]) -> EditResult<()> {
    if wanted.is_empty() {
        return invalid("no target to drop was named");
    }
    let unknown: Vec<&str> =
        wanted.iter().filter(|w| !found.iter().any(|t| names_target(t, w))).map(String::as_str).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let mut here: Vec<String> = found.iter().map(target_name).collect();
    here.dedup();
    let here = if here.is_empty() { "none".into() } else { here.join(", ") };
    invalid(format!("no target {} in the file (targets here: {here})", unknown.join(", ")))
}

/// The result must have no new error and exactly the targets it should have.
fn read_back(first: &Tree, before: &[Target], after: &Tree, wanted: &[String]) -> EditResult<()> {
    let old_errors: Vec<&str> = first.errors().iter().map(|(_, d)| d.message.as_str()).collect();
    if let Some((_, d)) = after.errors().into_iter().find(|(_, d)| !old_errors.contains(&d.message.as_str())) {
        return invalid(format!("the file without those targets does not read back: {}", d.message));
    }
    let count = |ts: &[Target], keep: &dyn Fn(&Target) -> bool| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for t in ts.iter().filter(|t| keep(t)) {
            *m.entry(t.target_id.clone()).or_default() += 1;
        }
        m
    };
    let expected = count(before, &|t| !wanted.iter().any(|w| names_target(t, w)));
    let remaining = count(&targets::collect(after), &|_| true);
    if expected != remaining {
        let left: Vec<&String> = remaining.keys().filter(|k| !expected.contains_key(*k)).collect();
        let lost: Vec<&String> = expected.keys().filter(|k| !remaining.contains_key(*k)).collect();
        return invalid(format!(
            "the file without those targets does not hold the expected images (still there: {left:?}; lost: {lost:?})"
        ));
    }
    Ok(())
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    fn names(data: &[u8]) -> Vec<String> {
        targets::collect(&explore(data, "f", &Options::default())).iter().map(target_name).collect()
    }

    fn drop(name: &str, wanted: &[&str]) -> EditResult<Dropped> {
        let wanted: Vec<String> = wanted.iter().map(|s| s.to_string()).collect();
        drop_targets(&fixture(name), name, &wanted, &Options::default())
    }

    #[test]
    fn bundle_entries_go_and_the_rest_stays() {
        let d = drop("hip_elf_2arch.o", &["gfx906:xnack-"]).unwrap();
        assert_eq!(d.removed, ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"]);
        assert_eq!(names(&d.bytes), ["gfx90a"]);
        assert!(d.bytes.len() < fixture("hip_elf_2arch.o").len());
    }

    #[test]
    fn offload_binaries_go_whole() {
        let d = drop("omp_elf_2arch.o", &["gfx1030"]).unwrap();
        assert_eq!(names(&d.bytes), ["gfx90a:xnack+"]);
    }

    #[test]
    fn a_processor_names_every_feature_variant_and_every_bundle() {
        let d = drop("libhip_3tu_compressed.hipfb", &["gfx906"]).unwrap();
        assert_eq!(d.removed.len(), 3);
        assert_eq!(names(&d.bytes), ["gfx90a", "gfx90a", "gfx90a"]);
    }

    #[test]
    fn nvidia_cubins_and_ptx_are_named_apart() {
        let before = names(&fixture("nvidia/nv_3arch_none.fatbin"));
        let d = drop("nvidia/nv_3arch_none.fatbin", &["sm_80"]).unwrap();
        let after = names(&d.bytes);
        let expected: Vec<String> = before.into_iter().filter(|n| n != "sm_80").collect();
        assert_eq!(after, expected);
        assert!(after.iter().any(|n| n.starts_with("compute_")), "{after:?}");
    }

    #[test]
    fn unknown_names_are_refused_with_what_is_here() {
        let e = drop("hip_elf_2arch.o", &["gfx1201"]).unwrap_err();
        assert_eq!(e.to_string(), "no target gfx1201 in the file (targets here: gfx906:xnack-, gfx90a)");
        assert!(drop("hip_elf_2arch.o", &[]).is_err());
    }

    #[test]
    fn the_drop_targets_edit_removes_them_and_says_which() {
        let input = fixture("libhip_3tu_compressed.hipfb");
        let tree = explore(&input[..], "libhip_3tu_compressed.hipfb", &Options::default());
        let edited = apply(&input, &tree, &Edit::DropTargets { targets: alloc::vec!["gfx906".into()] }).unwrap();
        assert_eq!(names(&edited.bytes), ["gfx90a", "gfx90a", "gfx90a"]);
        assert!(
            edited.notes[0].starts_with("removed 3 images of gfx906: hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"),
            "{:?}",
            edited.notes
        );
        assert!(edited.mark.is_empty());
    }
}
