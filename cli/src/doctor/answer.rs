//! One library's answer for each GPU, from `offload::report::fit` (the rules live there), and
//! a distribution's answer from its libraries'. A GPU's answer counts only the containers
//! whose images are for its vendor: the NVIDIA fatbin of a library that also carries AMD code
//! is no failure on an AMD GPU.

use super::gpus::Gpu;
use crate::api::Source;
use crate::fail::Failure;
use offload::explore::Options;
use offload::report::fit::{self, ContainerFit, Rule};
use offload::report::targets::{self, Target, Vendor};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// From best to worst: a distribution's answer is its libraries' worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// No code for the GPU's vendor at all.
    NotForGpu,
    /// An image for the GPU itself or one its rules accept (`exact`, `target-id`, ...).
    Runs,
    /// Only through a generic target (`gfx11-generic`).
    RunsGeneric,
    /// Only through PTX the driver compiles on first use.
    RunsPtxJit,
    DoesNotRun,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::NotForGpu => "not-for-this-gpu",
            Verdict::Runs => "runs",
            Verdict::RunsGeneric => "runs-generic",
            Verdict::RunsPtxJit => "runs-ptx-jit",
            Verdict::DoesNotRun => "does-not-run",
        }
    }

    fn of(container: &ContainerFit) -> Verdict {
        match (container.runs, container.image.as_ref().map(|i| i.rule)) {
            (false, _) | (true, None) => Verdict::DoesNotRun,
            (true, Some(Rule::PtxJit)) => Verdict::RunsPtxJit,
            (true, Some(Rule::Generic)) => Verdict::RunsGeneric,
            (true, Some(_)) => Verdict::Runs,
        }
    }
}

/// What runs on one GPU: the verdict, the images that load with their rule, and why not.
#[derive(Clone, Debug)]
pub struct Answer {
    pub verdict: Verdict,
    /// (image target, rule) of the images that load, each once.
    pub images: Vec<(String, &'static str)>,
    pub reason: String,
}

/// One library file and what it holds.
pub struct Library {
    pub path: PathBuf,
    pub distribution: Option<usize>,
    /// Its device targets (as `runs_on` names them) with their vendor, each once.
    pub targets: Vec<(String, Vendor)>,
    /// One per GPU, when it has device code.
    pub answers: Vec<Answer>,
    /// It did not read completely (its answers cover what could be read).
    pub problem: Option<Failure>,
}

/// Reads the library at `path` (nothing kept once read) and answers for every GPU.
pub fn examine(path: PathBuf, distribution: Option<usize>, gpus: &[Gpu]) -> Library {
    let options = Options::default().for_reports();
    let source = Source::Path(path.clone());
    let tree = match source.explore(&options) {
        Ok(tree) => tree,
        Err(problem) => {
            return Library { path, distribution, targets: Vec::new(), answers: Vec::new(), problem: Some(problem) }
        }
    };
    let images = targets::collect(&tree);
    let mut names: Vec<(String, Vendor)> = Vec::new();
    for t in &images {
        let named = (targets::target_name(t), targets::vendor_of(t));
        if !names.contains(&named) {
            names.push(named);
        }
    }
    let answers = if images.is_empty() { Vec::new() } else { gpus.iter().map(|g| answer(&tree, &images, g)).collect() };
    let problem = Failure::in_tree(&source.shown(), &tree);
    Library { path, distribution, targets: names, answers, problem }
}

fn answer(tree: &offload::tree::Tree, images: &[Target], gpu: &Gpu) -> Answer {
    if !images.iter().any(|t| targets::vendor_of(t) == gpu.vendor) {
        return Answer {
            verdict: Verdict::NotForGpu,
            images: Vec::new(),
            reason: format!("no {} code", gpu.vendor.name()),
        };
    }
    let f = match fit::fit(tree, &gpu.loads_as) {
        Ok(f) => f,
        Err(e) => return Answer { verdict: Verdict::DoesNotRun, images: Vec::new(), reason: e },
    };
    let containers: Vec<&ContainerFit> = f.libraries.iter().flat_map(|l| &l.containers).collect();
    let served = served(&containers, images, gpu.vendor);
    let mut verdict = Verdict::Runs;
    let mut loaded: Vec<(String, &'static str)> = Vec::new();
    let mut reason = None;
    for (i, c) in containers.iter().enumerate() {
        if !served.contains(&i) {
            continue;
        }
        let v = Verdict::of(c);
        verdict = verdict.max(v);
        if let Some(image) = c.image.as_ref().filter(|_| c.runs) {
            let named = (image.target.clone(), image.rule.as_str());
            if !loaded.contains(&named) {
                loaded.push(named);
            }
        } else if reason.is_none() {
            reason = Some(format!("{}: {}", c.container, c.reason));
        }
    }
    let reason = reason.unwrap_or_else(|| f.reason.clone());
    Answer { verdict, images: loaded, reason }
}

/// The indices of the containers that load an image of `vendor`: those that are an image's
/// nearest container (the longest container path above it). By path lookups, as a large
/// library has thousands of containers and images.
fn served(containers: &[&ContainerFit], images: &[Target], vendor: Vendor) -> HashSet<usize> {
    let index: HashMap<&[usize], usize> = containers.iter().enumerate().map(|(i, c)| (c.path.as_slice(), i)).collect();
    images
        .iter()
        .filter(|t| targets::vendor_of(t) == vendor)
        .filter_map(|t| (0..=t.path.len()).rev().find_map(|len| index.get(&t.path[..len]).copied()))
        .collect()
}

/// A distribution's answer for GPU number `gpu`: its libraries' worst, the images that load
/// in any of them, the targets of the GPU's vendor they have, and the libraries that do not run.
pub struct Summary {
    pub verdict: Verdict,
    pub images: Vec<(String, &'static str)>,
    pub targets: Vec<String>,
    pub not_running: Vec<usize>,
    pub reason: Option<String>,
}

pub fn summarise(libraries: &[&Library], indices: &[usize], gpu: usize, vendor: Vendor) -> Summary {
    let mut s = Summary {
        verdict: Verdict::NotForGpu,
        images: Vec::new(),
        targets: Vec::new(),
        not_running: Vec::new(),
        reason: None,
    };
    for (&index, l) in indices.iter().zip(libraries) {
        let Some(a) = l.answers.get(gpu) else { continue };
        s.verdict = s.verdict.max(a.verdict);
        for i in &a.images {
            if !s.images.contains(i) {
                s.images.push(i.clone());
            }
        }
        for (t, v) in &l.targets {
            if *v == vendor && !s.targets.contains(t) {
                s.targets.push(t.clone());
            }
        }
        if a.verdict == Verdict::DoesNotRun {
            s.not_running.push(index);
            s.reason.get_or_insert_with(|| a.reason.clone());
        }
    }
    s.targets.sort_by_key(|t| natural(t));
    s
}

/// Sorts `gfx906` before `gfx1010` and `sm_75` before `sm_100`: runs of digits as numbers.
fn natural(name: &str) -> Vec<(String, u64)> {
    let mut parts = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let text: String = rest.chars().take_while(|c| !c.is_ascii_digit()).collect();
        rest = &rest[text.len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        rest = &rest[digits.len()..];
        parts.push((text, digits.parse().unwrap_or(0)));
    }
    parts
}
