//! `offload check`: a release gate. A file is judged by a [`policy::Policy`] (required targets
//! and how each may be served, every kernel on every target, per-kernel limits) and, when one
//! is given, against a [`baseline`] of an earlier release, which fails only on regressions.
//! What it finds is a list of checks ([`Checked`], one per rule and library: what JUnit calls a
//! test case), each with its findings ([`Finding`]: what SARIF calls a result).
//!
//! | module | concern |
//! |---|---|
//! | [`policy`] | the policy's model and how limits apply to one kernel |
//! | [`rules`] | required targets (through [`crate::report::fit`]), completeness, limits |
//! | [`holes`] | libraries' kernel tables, and kernels missing on some of their targets |
//! | [`baseline`] | recording a release, and comparing with it |
//! | [`advisor`] | code identical across processors, and what a generic build would save |
//!
//! Host-independent: the CLI reads the policy (TOML) and the baseline (JSON) and writes the
//! reports (text, JSON, JUnit XML, SARIF); the core judges.

pub mod advisor;
pub mod baseline;
pub mod holes;
pub mod policy;
pub mod rules;

use crate::report::kernels;
use crate::tree::Tree;
use alloc::string::String;
use alloc::vec::Vec;
use holes::KernelName;

/// What a finding is about; its `id` is the SARIF rule id and the JUnit failure type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Rule {
    RequiredTarget,
    Served,
    KernelMissing,
    Registers,
    Spills,
    Scratch,
    Lds,
    Waves,
    BaselineLibrary,
    BaselineTarget,
    BaselineKernel,
    BaselineRegisters,
    BaselineSpills,
    BaselineScratch,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::RequiredTarget,
        Rule::Served,
        Rule::KernelMissing,
        Rule::Registers,
        Rule::Spills,
        Rule::Scratch,
        Rule::Lds,
        Rule::Waves,
        Rule::BaselineLibrary,
        Rule::BaselineTarget,
        Rule::BaselineKernel,
        Rule::BaselineRegisters,
        Rule::BaselineSpills,
        Rule::BaselineScratch,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::RequiredTarget => "required-target",
            Rule::Served => "served",
            Rule::KernelMissing => "kernel-missing",
            Rule::Registers => "registers",
            Rule::Spills => "spills",
            Rule::Scratch => "scratch",
            Rule::Lds => "lds",
            Rule::Waves => "min-waves",
            Rule::BaselineLibrary => "baseline-library",
            Rule::BaselineTarget => "baseline-target",
            Rule::BaselineKernel => "baseline-kernel",
            Rule::BaselineRegisters => "baseline-registers",
            Rule::BaselineSpills => "baseline-spills",
            Rule::BaselineScratch => "baseline-scratch",
        }
    }

    /// One sentence on what the rule asks.
    pub fn description(self) -> &'static str {
        match self {
            Rule::RequiredTarget => "Every library runs on every required target.",
            Rule::Served => "A required target is served only the ways the policy allows (exact, generic, PTX).",
            Rule::KernelMissing => "Every kernel of a library is on every target it must be on.",
            Rule::Registers => "Kernels use at most the registers the policy allows.",
            Rule::Spills => "Kernels spill at most as much as the policy allows.",
            Rule::Scratch => "Kernels use at most the scratch memory the policy allows.",
            Rule::Lds => "Kernels use at most the LDS (shared memory) the policy allows.",
            Rule::Waves => "Kernels reach at least the occupancy (waves per SIMD) the policy asks.",
            Rule::BaselineLibrary => "No library of the baseline is lost.",
            Rule::BaselineTarget => "No target of the baseline is lost.",
            Rule::BaselineKernel => "No kernel of the baseline is lost on any of its targets.",
            Rule::BaselineRegisters => "Registers do not rise over the baseline beyond the tolerance.",
            Rule::BaselineSpills => "Spills do not rise over the baseline beyond the tolerance.",
            Rule::BaselineScratch => {
                "Scratch (local) memory does not rise over the baseline beyond the tolerance: how CUDA spills show."
            }
        }
    }
}

/// How bad a finding is: an error fails the check; a note (an improvement, something new) is
/// reported only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Level {
    Error,
    Note,
}

/// One thing found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Finding {
    pub rule: Rule,
    pub level: Level,
    pub library: String,
    pub target: Option<String>,
    pub kernel: Option<KernelName>,
    pub message: String,
}

impl Finding {
    pub fn new(rule: Rule, level: Level, library: &str, message: String) -> Finding {
        Finding { rule, level, library: library.into(), target: None, kernel: None, message }
    }

    pub fn on(mut self, target: &str) -> Finding {
        self.target = Some(target.into());
        self
    }

    pub fn kernel(mut self, kernel: &KernelName) -> Finding {
        self.kernel = Some(kernel.clone());
        self
    }
}

/// One check made: a rule (or a group of them) on one library, passed when it has no error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Checked {
    /// What was checked: `runs on gfx1100`, `kernel limits`, `baseline`.
    pub name: String,
    pub library: String,
    pub target: Option<String>,
    pub findings: Vec<Finding>,
}

impl Checked {
    pub fn new(name: String, library: &str, target: Option<&str>) -> Checked {
        Checked { name, library: library.into(), target: target.map(String::from), findings: Vec::new() }
    }

    pub fn passed(&self) -> bool {
        !self.findings.iter().any(|f| f.level == Level::Error)
    }
}

/// Everything `check` found in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FileCheck {
    /// The file as the user named it.
    pub file: String,
    pub libraries: usize,
    /// Entry kernels, by name, summed over libraries.
    pub kernels: usize,
    pub checks: Vec<Checked>,
}

impl FileCheck {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Checked::passed)
    }

    pub fn errors(&self) -> usize {
        self.checks.iter().flat_map(|c| &c.findings).filter(|f| f.level == Level::Error).count()
    }
}

/// What to judge a file by.
pub struct Judge<'a> {
    pub policy: &'a policy::Policy,
    /// The command line's limits, which override the policy's `[[limits]]`.
    pub flags: &'a policy::Limits,
    /// The baseline recorded for this file, if one was given.
    pub baseline: Option<&'a baseline::FileBaseline>,
}

/// Checks an explored file (`file` as the user named it, `name` its file name, the key of its
/// baseline). Returns the checks and the file's own baseline (what `--write-baseline`
/// records). `Err` when a required target is not a GPU.
pub fn check(
    tree: &Tree,
    file: &str,
    name: &str,
    judge: &Judge<'_>,
) -> Result<(FileCheck, baseline::FileBaseline), String> {
    let table = kernels::collect(tree);
    let libraries = holes::by_library(tree, &table, name);
    drop(table);
    let mut checks = rules::required_targets(tree, judge.policy)?;
    if judge.policy.complete == policy::Complete::All {
        checks.extend(rules::complete_on_all_targets(&libraries));
    }
    checks.extend(rules::limits(&libraries, judge.policy, judge.flags));
    let recorded = baseline::record(name, &libraries);
    if let Some(old) = judge.baseline {
        checks.extend(baseline_checks(old, &recorded, &judge.policy.baseline));
    }
    let kernels = recorded.libraries.iter().map(|l| l.kernels.len()).sum();
    Ok((FileCheck { file: file.into(), libraries: libraries.len(), kernels, checks }, recorded))
}

/// One `baseline` check per library of either side, with its regressions and improvements.
fn baseline_checks(
    old: &baseline::FileBaseline,
    new: &baseline::FileBaseline,
    tol: &policy::Tolerance,
) -> Vec<Checked> {
    let mut checks: Vec<Checked> = Vec::new();
    // Findings name the library as the baseline does, except those of libraries only the new
    // file has; a file that is its own library is named as it is now.
    let renamed = |l: &str| -> String {
        if old.libraries.len() == 1 && l == old.file {
            new.file.clone()
        } else {
            l.into()
        }
    };
    for l in new.libraries.iter().map(|l| l.library.clone()).chain(old.libraries.iter().map(|l| renamed(&l.library))) {
        if !checks.iter().any(|c| c.library == l) {
            checks.push(Checked::new("baseline".into(), &l, None));
        }
    }
    for mut f in baseline::compare(old, new, tol) {
        f.library = renamed(&f.library);
        if let Some(c) = checks.iter_mut().find(|c| c.library == f.library) {
            c.findings.push(f);
        }
    }
    checks
}
