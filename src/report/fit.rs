//! "Will it run on GPU X?" for a whole file: yes or no per library (the file, or each archive or
//! package member that holds device code), per container a runtime loads as one (a bundle, an
//! NVIDIA fatbin, an offload section) and per kernel, with the reason and the image that would
//! load; and what the file needs of the runtime or driver to be read at all ([`requirements`]).
//!
//! A runtime picks one image per container: the HIP runtime per clang offload bundle it
//! registers (a linked library's `.hip_fatbin` holds one per translation unit), the CUDA driver
//! per fatbin, the offload runtime per offload section. A library runs when every container in
//! it has an image for the GPU; a kernel runs when the image picked for its container holds it.
//!
//! # Which image loads ([`fit`])
//!
//! The rules are [`crate::report::runs_on::query`]'s, asked about each container's images; the best
//! image it names loads. Each answer names its rule:
//!
//! | rule | when | source |
//! |---|---|---|
//! | `exact` | an image for the GPU's own target ID (`gfx1201`, `gfx90a:xnack+`, `sm_89`) | — |
//! | `target-id` | same processor; every feature the image sets (`xnack+`, `sramecc-`) set the same way on the GPU, a feature it leaves out means "any". A GPU asked without a mode is answered with the mode the image needs (`needs_mode`) | LLVM `AMDGPUUsage.rst`, "Target ID"; `clang/lib/Basic/TargetID.cpp` `isCompatibleTargetID` |
//! | `generic` | a generic target of the GPU's family (`gfx11-generic` for gfx1100–gfx1153); needs code object v6 (`generic_version` in `e_flags`) | `AMDGPUUsage.rst`, "Generic Processor Versioning" and "AMDGPU Generic Processors" |
//! | `cubin-same-major` | a cubin `sm_XY` runs on GPUs `sm_XZ` with Z ≥ Y | CUDA C++ Programming Guide, "Binary Compatibility" |
//! | `arch-specific` | `sm_90a` (`a`) runs only on `sm_90` | CUDA Programming Guide, "Feature Availability" (architecture-specific features) |
//! | `family-specific` | `sm_100f` (`f`) runs on the GPUs of its family with the same or a higher minor version (`sm_100`, `sm_103`) | CUDA Programming Guide, "Feature Availability" (family-specific features) |
//! | `ptx-jit` | PTX `compute_XY` is compiled by the driver for any GPU `sm_XY` or newer (arch-specific PTX only for its GPU, family-specific only for its family); the driver must know the PTX ISA version (`ptx_version`) | CUDA Programming Guide, "Application Compatibility"; PTX ISA "Release Notes" |
//!
//! LLVM bitcode (`-fgpu-rdc`, LTO) is linked at device link time, never loaded, so a container
//! of bitcode only does not run; nor is SPIR-V (`amdgcnspirv`) answered for.

use crate::ids::{canonical_amdgcn_processor, generic_members, known_processor, ProcessorVendor, TargetId};
use crate::image::occupancy;
use crate::report::requirements::{self, Requirement};
use crate::report::runs_on::{self, Reach, RunsOn, Verdict};
use crate::report::targets::{self, Target};
use crate::tree::{Node, NodeKind, Tree, Value};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// How the image that loads was chosen (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Rule {
    Exact,
    TargetId,
    Generic,
    CubinSameMajor,
    ArchSpecific,
    FamilySpecific,
    PtxJit,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Exact => "exact",
            Rule::TargetId => "target-id",
            Rule::Generic => "generic",
            Rule::CubinSameMajor => "cubin-same-major",
            Rule::ArchSpecific => "arch-specific",
            Rule::FamilySpecific => "family-specific",
            Rule::PtxJit => "ptx-jit",
        }
    }
}

/// The image a runtime would load for the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadedImage {
    /// The image's target as [`crate::report::runs_on`] names it (`gfx90a:xnack+`, `sm_80`, `compute_80`).
    pub target: String,
    /// The entry ID that carries it, as the file writes it.
    pub entry_id: String,
    pub rule: Rule,
    /// Child indices from the root to the image's entry node.
    pub path: Vec<usize>,
    /// AMDGPU: the code object version (`e_ident[EI_ABIVERSION]` + 2).
    pub code_object_version: Option<u64>,
    /// AMDGPU generic targets: the generic version the code object records.
    pub generic_version: Option<u64>,
    /// PTX: the PTX ISA version the driver compiles.
    pub ptx_version: Option<String>,
    /// AMD: the modes the GPU must run in for this image (`xnack+`), when the question left
    /// them open.
    pub needs_mode: Vec<String>,
}

/// One container a runtime loads as a whole, and what it loads from it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContainerFit {
    /// The container node's label (`clang offload bundle, 3 entries`, `NVIDIA fatbin ...`).
    pub container: String,
    /// Child indices from the root to the container node.
    pub path: Vec<usize>,
    pub runs: bool,
    pub reason: String,
    pub image: Option<LoadedImage>,
}

/// Whether one kernel runs, from which image, and with what occupancy on the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelFit {
    pub name: String,
    pub runs: bool,
    /// The target of the image it runs from.
    pub target: Option<String>,
    /// AMD GPUs: waves per SIMD on the GPU asked about ([`crate::image::occupancy`]).
    pub occupancy: Option<u32>,
    /// What limits that occupancy (`VGPRs`, `LDS`, ...).
    pub occupancy_limited_by: Option<String>,
    /// Child indices from the root to the kernel node that runs (or the first one found).
    pub path: Vec<usize>,
    pub reason: String,
}

/// One library: the file itself, or an archive or package member with device code.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LibraryFit {
    /// The member's name, or the file's.
    pub library: String,
    pub runs: bool,
    pub reason: String,
    pub containers: Vec<ContainerFit>,
    pub kernels: Vec<KernelFit>,
}

/// The answer for one GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fit {
    /// The GPU as asked, canonical (`gfx90a:xnack+`, `sm_89`).
    pub gpu: String,
    /// Whether every library runs (and there is at least one).
    pub runs: bool,
    pub reason: String,
    pub libraries: Vec<LibraryFit>,
    /// The most demanding need of each kind the file has of the runtime or driver
    /// ([`crate::report::requirements::strictest`]).
    pub requirements: Vec<Requirement>,
}

/// A GPU asked about: an AMD processor LLVM 22 knows, with its xnack/sramecc modes, or an
/// NVIDIA `sm_NN`. Generic and arch-specific names are targets, not GPUs, and are refused.
pub fn parse_gpu(asked: &str) -> Result<String, String> {
    let asked = asked.trim();
    let lower = asked.to_ascii_lowercase();
    if let Some(digits) = lower.strip_prefix("sm_") {
        let is_gpu = known_processor(&lower).is_some_and(|p| p.vendor == ProcessorVendor::Nvidia);
        if is_gpu && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(lower);
        }
        let plain: String = digits.chars().take_while(|c| c.is_ascii_digit()).collect();
        return Err(if is_gpu {
            format!("a GPU (sm_{plain}), not the arch- or family-specific target '{asked}'")
        } else {
            format!("an NVIDIA GPU LLVM 22 knows (sm_50 ... sm_121), not '{asked}'")
        });
    }
    let id = TargetId::parse_amdgpu(asked)
        .map_err(|e| format!("a GPU ({}), not '{asked}': {e}", "gfx1201, gfx90a:xnack+, sm_89"))?;
    if !generic_members(&id.processor).is_empty() || canonical_amdgcn_processor(&id.processor).is_none() {
        return Err(format!(
            "a GPU, not the generic target '{asked}' (name one of {})",
            generic_members(&id.processor).join(", ")
        ));
    }
    Ok(id.canonical())
}

/// Will the explored file run on `gpu`? `Err` says why `gpu` is not a GPU ([`parse_gpu`]).
pub fn fit(tree: &Tree, gpu: &str) -> Result<Fit, String> {
    let gpu = parse_gpu(gpu)?;
    let images = targets::collect(tree);
    let mut libraries: Vec<(String, Vec<Vec<usize>>)> = Vec::new();
    for t in &images {
        let library = t.member.clone().unwrap_or_else(|| file_name(tree));
        let unit = container_path(tree, &t.path);
        match libraries.iter_mut().find(|(l, _)| *l == library) {
            Some((_, units)) if units.contains(&unit) => {}
            Some((_, units)) => units.push(unit),
            None => libraries.push((library, alloc::vec![unit])),
        }
    }
    let libraries: Vec<LibraryFit> =
        libraries.into_iter().map(|(library, units)| library_fit(tree, &images, &gpu, library, &units)).collect();
    let runs = !libraries.is_empty() && libraries.iter().all(|l| l.runs);
    let reason = if libraries.is_empty() {
        match unjoined_kpack_key(tree) {
            Some(key) => format!(
                "no device code in this file: it is a kpack'd build whose code objects (key `{key}`) are in .kpack archives not given with it"
            ),
            None => "no device code in this file".to_string(),
        }
    } else if runs {
        format!("every library has an image that runs on {gpu}")
    } else {
        let no: Vec<&str> = libraries.iter().filter(|l| !l.runs).map(|l| l.library.as_str()).collect();
        format!("{} of {} libraries do not run on {gpu}: {}", no.len(), libraries.len(), no.join(", "))
    };
    let requirements = requirements::strictest(&requirements::requirements(tree));
    Ok(Fit { gpu, runs, reason, libraries, requirements })
}

/// The key of a kpack'd binary's wrapper whose code objects were not joined, if there is one.
fn unjoined_kpack_key(tree: &Tree) -> Option<String> {
    let mut key = None;
    tree.root.walk(&mut |n, _| {
        if key.is_none() && n.kind == NodeKind::FatbinWrapper && n.children.is_empty() {
            key = n.text("kpack_key").map(String::from);
        }
    });
    key
}

fn file_name(tree: &Tree) -> String {
    tree.spaces.first().map_or_else(|| tree.root.label.clone(), |s| s.label.clone())
}

/// The path of the container a runtime loads the entry at `entry` from: the nearest bundle,
/// fatbin, section, archive member or file above it (an offload binary is one of several in
/// its section, which together are the choice); in a kpack'd binary, the HIP fatbin wrapper
/// whose key names the code objects; alone, the kpack archive.
pub fn container_path(tree: &Tree, entry: &[usize]) -> Vec<usize> {
    for len in (0..entry.len()).rev() {
        let Some(node) = tree.node_at(&entry[..len]) else { continue };
        if matches!(
            node.kind,
            NodeKind::Bundle
                | NodeKind::TextBundle
                | NodeKind::Fatbin
                | NodeKind::FatbinWrapper
                | NodeKind::KpackArchive
                | NodeKind::Section
                | NodeKind::ArchiveMember
                | NodeKind::File
        ) {
            return entry[..len].to_vec();
        }
    }
    Vec::new()
}

fn library_fit(tree: &Tree, images: &[Target], gpu: &str, library: String, units: &[Vec<usize>]) -> LibraryFit {
    let mut containers = Vec::new();
    let mut kernels: Vec<KernelFit> = Vec::new();
    for unit in units {
        let inside: Vec<Target> = images.iter().filter(|t| container_path(tree, &t.path) == *unit).cloned().collect();
        let container = container_fit(tree, &inside, gpu, unit);
        kernels.extend(kernel_fits(tree, &inside, &container, gpu));
        containers.push(container);
    }
    let runs = containers.iter().all(|c| c.runs);
    let reason = if runs {
        let how: Vec<String> = containers
            .iter()
            .filter_map(|c| c.image.as_ref())
            .map(|i| format!("{} ({})", i.target, i.rule.as_str()))
            .collect();
        format!("runs: {}", dedup(how).join(", "))
    } else {
        let first = containers.iter().find(|c| !c.runs).map_or(String::new(), |c| c.reason.clone());
        let n = containers.iter().filter(|c| !c.runs).count();
        format!("{n} of {} containers have nothing for {gpu}: {first}", containers.len())
    };
    LibraryFit { library, runs, reason, containers, kernels }
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = Vec::new();
    v.retain(|s| {
        let new = !seen.contains(s);
        seen.push(s.clone());
        new
    });
    v
}

/// The first image node at or below an entry (not an empty one), and its path.
pub fn image_node<'t>(tree: &'t Tree, entry: &[usize]) -> Option<(&'t Node, Vec<usize>)> {
    fn first<'t>(node: &'t Node, path: &mut Vec<usize>) -> Option<&'t Node> {
        if node.kind == NodeKind::Image && node.text("format").is_some_and(|f| f != "empty") {
            return Some(node);
        }
        for (i, c) in node.children.iter().enumerate() {
            path.push(i);
            if let Some(found) = first(c, path) {
                return Some(found);
            }
            path.pop();
        }
        None
    }
    let mut path = entry.to_vec();
    let node = first(tree.node_at(entry)?, &mut path)?;
    Some((node, path))
}

fn is_bitcode(tree: &Tree, t: &Target) -> bool {
    image_node(tree, &t.path).is_some_and(|(n, _)| n.text("format") == Some("LLVM bitcode"))
}

fn container_fit(tree: &Tree, inside: &[Target], gpu: &str, unit: &[usize]) -> ContainerFit {
    let container = tree.node_at(unit).map_or_else(String::new, |n| n.label.clone());
    let loadable: Vec<Target> = inside.iter().filter(|t| !is_bitcode(tree, t)).cloned().collect();
    let no = |reason: String| ContainerFit {
        container: container.clone(),
        path: unit.to_vec(),
        runs: false,
        reason,
        image: None,
    };
    if loadable.is_empty() {
        let names: Vec<String> = inside.iter().map(targets::target_name).collect();
        return no(format!(
            "only LLVM bitcode ({}): linked into machine code at device link time, not loaded as it is",
            dedup(names).join(", ")
        ));
    }
    let lines = runs_on::summarize_images(tree, &loadable);
    let answer = runs_on::query(&lines, gpu);
    let best = answer.targets.first().filter(|_| answer.verdict != Verdict::Absent);
    let Some(best) = best else { return no(answer.reason) };
    let Some(t) = loadable.iter().find(|t| targets::target_name(t) == *best) else { return no(answer.reason) };
    let image = loaded_image(tree, t, &lines, best, answer.verdict, gpu);
    ContainerFit { container, path: unit.to_vec(), runs: true, reason: answer.reason, image: Some(image) }
}

fn loaded_image(tree: &Tree, t: &Target, lines: &RunsOn, best: &str, verdict: Verdict, gpu: &str) -> LoadedImage {
    let reach = lines.lines.iter().find(|l| l.target == best).map(|l| l.reach);
    let rule = rule_of(best, verdict, reach);
    let image = image_node(tree, &t.path).map(|(n, _)| n);
    let uint = |name: &str| match image.and_then(|n| n.get(name)) {
        Some(Value::Uint(v)) => Some(*v),
        _ => None,
    };
    LoadedImage {
        target: best.to_string(),
        entry_id: t.target_id.clone(),
        rule,
        path: t.path.clone(),
        code_object_version: uint("code_object_version"),
        generic_version: uint("generic_version"),
        ptx_version: image.and_then(|n| n.text("ptx_version")).map(String::from),
        needs_mode: modes_needed(best, gpu),
    }
}

/// The rule that made `target` serve the GPU.
fn rule_of(target: &str, verdict: Verdict, reach: Option<Reach>) -> Rule {
    match (verdict, reach) {
        (Verdict::Exact, _) => Rule::Exact,
        (_, Some(Reach::Generic)) => Rule::Generic,
        (_, Some(Reach::Ptx)) => Rule::PtxJit,
        _ if target.starts_with("sm_") && target.ends_with('a') => Rule::ArchSpecific,
        _ if target.starts_with("sm_") && target.ends_with('f') => Rule::FamilySpecific,
        _ if target.starts_with("sm_") => Rule::CubinSameMajor,
        _ => Rule::TargetId,
    }
}

/// The features an AMD image sets that the GPU asked about left open: the modes it must run in.
fn modes_needed(image: &str, gpu: &str) -> Vec<String> {
    let (Ok(image), Ok(asked)) = (TargetId::parse(image), TargetId::parse(gpu)) else { return Vec::new() };
    image.features.iter().filter(|(f, _)| asked.feature(f).is_none()).map(|(f, s)| format!("{f}{}", s.sign())).collect()
}

/// Every kernel of a container: runs when the image that loads holds it.
fn kernel_fits(tree: &Tree, inside: &[Target], container: &ContainerFit, gpu: &str) -> Vec<KernelFit> {
    let loaded = container.image.as_ref();
    let mut out: Vec<KernelFit> = Vec::new();
    let mut add = |k: &Node, path: Vec<usize>, from_loaded: bool, target: &str| {
        let Some(name) = k.text("name") else { return };
        if let Some(existing) = out.iter_mut().find(|e| e.name == name) {
            if from_loaded && !existing.runs {
                *existing = kernel_fit(k, name, path, target, gpu, container);
            }
            return;
        }
        let fit = if from_loaded {
            kernel_fit(k, name, path, target, gpu, container)
        } else {
            let reason = match loaded {
                Some(i) => format!("not in the {} image that loads", i.target),
                None => container.reason.clone(),
            };
            KernelFit {
                name: name.to_string(),
                runs: false,
                target: None,
                occupancy: None,
                occupancy_limited_by: None,
                path,
                reason,
            }
        };
        out.push(fit);
    };
    for t in inside {
        let Some((image, image_path)) = image_node(tree, &t.path) else { continue };
        let from_loaded = loaded.is_some_and(|i| i.path == t.path);
        let target = targets::target_name(t);
        for (i, k) in image.children.iter().enumerate() {
            // Device functions (cubins, bitcode) are not launched.
            if k.kind == NodeKind::Kernel && k.get("entry") != Some(&Value::Bool(false)) {
                let mut path = image_path.clone();
                path.push(i);
                add(k, path, from_loaded, &target);
            }
        }
    }
    out
}

fn kernel_fit(k: &Node, name: &str, path: Vec<usize>, target: &str, gpu: &str, container: &ContainerFit) -> KernelFit {
    let processor = gpu.split(':').next().unwrap_or(gpu);
    let occupancy = occupancy::of_kernel_node(k, processor);
    KernelFit {
        name: name.to_string(),
        runs: true,
        target: Some(target.to_string()),
        occupancy: occupancy.as_ref().map(|o| o.waves),
        occupancy_limited_by: occupancy.as_ref().map(|o| o.limited_by_text()),
        path,
        reason: container
            .image
            .as_ref()
            .map_or_else(String::new, |i| format!("from {} ({})", i.target, i.rule.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpu_offered_to_pick_from_is_one_fit_answers_for() {
        for gpu in crate::report::runs_on::gpu_choices() {
            assert!(parse_gpu(&gpu).is_ok(), "{gpu}: {:?}", parse_gpu(&gpu).err());
        }
    }

    #[test]
    fn gpus_are_processors_not_targets() {
        assert_eq!(parse_gpu("gfx90a:xnack+:sramecc-").unwrap(), "gfx90a:sramecc-:xnack+");
        assert_eq!(parse_gpu("fiji").unwrap(), "gfx803");
        assert_eq!(parse_gpu("SM_89").unwrap(), "sm_89");
        assert!(parse_gpu("gfx11-generic").unwrap_err().contains("generic target"));
        assert!(parse_gpu("sm_90a").unwrap_err().contains("a GPU (sm_90)"));
        assert!(parse_gpu("sm_999").is_err());
        assert!(parse_gpu("rtx5090").is_err());
        assert!(parse_gpu("gfx906:xnack").is_err());
    }

    #[test]
    fn each_rule_is_named_from_the_answer() {
        assert_eq!(rule_of("gfx90a", Verdict::Exact, Some(Reach::Native)), Rule::Exact);
        assert_eq!(rule_of("gfx90a", Verdict::Compatible, Some(Reach::Native)), Rule::TargetId);
        assert_eq!(rule_of("gfx11-generic", Verdict::Compatible, Some(Reach::Generic)), Rule::Generic);
        assert_eq!(rule_of("sm_80", Verdict::Compatible, Some(Reach::Native)), Rule::CubinSameMajor);
        assert_eq!(rule_of("sm_90a", Verdict::Compatible, Some(Reach::Native)), Rule::ArchSpecific);
        assert_eq!(rule_of("sm_100f", Verdict::Compatible, Some(Reach::Native)), Rule::FamilySpecific);
        assert_eq!(rule_of("compute_80", Verdict::Compatible, Some(Reach::Ptx)), Rule::PtxJit);
    }

    #[test]
    fn modes_the_image_sets_and_the_question_leaves_open() {
        assert_eq!(modes_needed("gfx90a:xnack+", "gfx90a"), ["xnack+"]);
        assert!(modes_needed("gfx90a:xnack+", "gfx90a:xnack+").is_empty());
        assert!(modes_needed("gfx90a", "gfx90a").is_empty());
    }

    #[cfg(feature = "std")]
    fn explored(name: &str) -> Tree {
        let path = alloc::format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let data = std::fs::read(path).unwrap();
        let options = crate::explore::Options { verify_all: true, ..Default::default() };
        crate::explore::explore(&data[..], name, &options)
    }

    #[cfg(feature = "std")]
    #[test]
    fn a_library_of_three_bundles_runs_when_each_has_an_image() {
        let f = fit(&explored("libhip_3tu_compressed.so"), "gfx906:xnack-").unwrap();
        assert!(f.runs, "{}", f.reason);
        let lib = &f.libraries[0];
        assert_eq!(lib.containers.len(), 3);
        assert!(lib.containers.iter().all(|c| c.image.as_ref().unwrap().rule == Rule::Exact));
        assert_eq!(lib.kernels.len(), 3);
        // Occupancy on the GPU asked about: gfx906 has 10 wave slots.
        assert!(lib.kernels.iter().all(|k| k.runs && k.occupancy.is_some_and(|o| o <= 10)));
        let f = fit(&explored("libhip_3tu_compressed.so"), "gfx1100").unwrap();
        assert!(!f.runs);
        assert!(f.libraries[0].kernels.iter().all(|k| !k.runs));
        assert_eq!(f.reason, "1 of 1 libraries do not run on gfx1100: libhip_3tu_compressed.so");
    }

    #[cfg(feature = "std")]
    #[test]
    fn a_file_without_device_code_does_not_run() {
        let mut tree = explored("hip_elf_2arch.o");
        tree.root.children.clear();
        let f = fit(&tree, "gfx90a").unwrap();
        assert!(!f.runs);
        assert_eq!(f.reason, "no device code in this file");
    }
}
