//! A baseline: what a release held (each library's targets, kernels and their resources),
//! recorded by `offload check --write-baseline` so that a later `--baseline` run fails only on
//! what got worse — a library, a target or a kernel lost, registers or spills up beyond a
//! tolerance, scratch up (how spills show in a cubin, whose resources count no spills) — and
//! reports what got better. Old spills, already shipped, do not fail a build.
//!
//! Libraries are matched by name (a wheel's member path, or the file's name); kernels by their
//! mangled name; targets by the kernel table's column name. A kernel built twice for one
//! target (two translation units) is recorded with its largest numbers.

use super::holes::{KernelName, Library};
use super::policy::Tolerance;
use super::{Finding, Level, Rule};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The baseline of every file checked, by file name.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Baseline {
    /// The format's version: 1.
    pub version: u32,
    pub files: Vec<FileBaseline>,
}

pub const VERSION: u32 = 1;

impl Baseline {
    /// The baseline recorded for `file` (a file name without its directories): the one of
    /// that name, or the only one when there is only one (a wheel whose version changed).
    pub fn for_file(&self, file: &str) -> Option<&FileBaseline> {
        self.files.iter().find(|f| f.file == file).or(match self.files.as_slice() {
            [only] => Some(only),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FileBaseline {
    pub file: String,
    pub libraries: Vec<LibraryBaseline>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LibraryBaseline {
    pub library: String,
    pub targets: Vec<String>,
    /// By mangled name.
    pub kernels: BTreeMap<String, KernelBaseline>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KernelBaseline {
    pub demangled: String,
    /// By target.
    pub targets: BTreeMap<String, Resources>,
}

/// What one kernel uses on one target.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct Resources {
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub registers: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub spills: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub scratch: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub lds: Option<u64>,
}

fn max(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The baseline of one file, named `file`, from its libraries.
pub fn record(file: &str, libraries: &[Library]) -> FileBaseline {
    let libraries = libraries
        .iter()
        .map(|lib| {
            let t = &lib.table;
            let mut kernels: BTreeMap<String, KernelBaseline> = BTreeMap::new();
            for row in &t.rows {
                for (col, cell) in t.columns.iter().zip(&row.cells) {
                    let Some(c) = cell.as_ref().filter(|c| c.entry) else { continue };
                    let k = kernels.entry(row.name.clone()).or_insert_with(|| KernelBaseline {
                        demangled: row.demangled.clone(),
                        targets: BTreeMap::new(),
                    });
                    let r = k.targets.entry(col.target.clone()).or_default();
                    r.registers = max(r.registers, c.registers);
                    r.spills = max(r.spills, c.spills);
                    r.scratch = max(r.scratch, c.scratch);
                    r.lds = max(r.lds, c.lds);
                }
            }
            let targets = t.columns.iter().map(|c| c.target.clone()).collect();
            LibraryBaseline { library: lib.name.clone(), targets, kernels }
        })
        .collect();
    FileBaseline { file: file.into(), libraries }
}

/// What changed from `old` to `new`: regressions (errors) and improvements (notes), each with
/// its library.
pub fn compare(old: &FileBaseline, new: &FileBaseline, tolerance: &Tolerance) -> Vec<Finding> {
    let mut out = Vec::new();
    for was in &old.libraries {
        match counterpart(old, was, new) {
            None => out.push(Finding::new(
                Rule::BaselineLibrary,
                Level::Error,
                &was.library,
                format!("library {} lost: the baseline has it with {} kernels", was.library, was.kernels.len()),
            )),
            Some(now) => compare_library(was, now, tolerance, &mut out),
        }
    }
    for now in new.libraries.iter().filter(|l| !old.libraries.iter().any(|o| counterpart(old, o, new) == Some(*l))) {
        out.push(Finding::new(
            Rule::BaselineLibrary,
            Level::Note,
            &now.library,
            format!("library {} is new ({} kernels)", now.library, now.kernels.len()),
        ));
    }
    out
}

/// The library of `new` that `was` (a library of `old`) is compared with: the one of the same
/// name, or, for a file that is its own library (not a package), the new file itself, whose
/// name may have changed (`libfoo.so.1` → `libfoo.so.2`).
fn counterpart<'n>(old: &FileBaseline, was: &LibraryBaseline, new: &'n FileBaseline) -> Option<&'n LibraryBaseline> {
    new.libraries.iter().find(|l| l.library == was.library).or_else(|| {
        let whole = |f: &FileBaseline, l: &LibraryBaseline| f.libraries.len() == 1 && l.library == f.file;
        new.libraries.first().filter(|l| whole(old, was) && whole(new, l))
    })
}

fn compare_library(was: &LibraryBaseline, now: &LibraryBaseline, tol: &Tolerance, out: &mut Vec<Finding>) {
    let lib = was.library.as_str();
    for t in was.targets.iter().filter(|t| !now.targets.contains(t)) {
        out.push(Finding::new(Rule::BaselineTarget, Level::Error, lib, format!("target {t} lost")).on(t));
    }
    for t in now.targets.iter().filter(|t| !was.targets.contains(t)) {
        out.push(Finding::new(Rule::BaselineTarget, Level::Note, lib, format!("target {t} is new")).on(t));
    }
    for (name, k) in &was.kernels {
        let kernel = KernelName { name: name.clone(), demangled: k.demangled.clone() };
        let now_k = now.kernels.get(name);
        for (target, before) in &k.targets {
            // A lost target is said once, above, not once per kernel.
            if !now.targets.contains(target) {
                continue;
            }
            match now_k.and_then(|n| n.targets.get(target)) {
                None => out.push(
                    Finding::new(Rule::BaselineKernel, Level::Error, lib, format!("{} lost on {target}", k.demangled))
                        .on(target)
                        .kernel(&kernel),
                ),
                Some(after) => compare_resources(lib, target, &kernel, before, after, tol, out),
            }
        }
    }
    for (name, k) in now.kernels.iter().filter(|(n, _)| !was.kernels.contains_key(*n)) {
        let kernel = KernelName { name: name.clone(), demangled: k.demangled.clone() };
        let targets: Vec<&str> = k.targets.keys().map(String::as_str).collect();
        out.push(
            Finding::new(
                Rule::BaselineKernel,
                Level::Note,
                lib,
                format!("{} is new ({})", k.demangled, targets.join(", ")),
            )
            .kernel(&kernel),
        );
    }
}

fn compare_resources(
    lib: &str,
    target: &str,
    kernel: &KernelName,
    before: &Resources,
    after: &Resources,
    tol: &Tolerance,
    out: &mut Vec<Finding>,
) {
    let pairs = [
        (Rule::BaselineRegisters, "registers", before.registers, after.registers, tol.registers),
        (Rule::BaselineSpills, "spills", before.spills, after.spills, tol.spills),
        (Rule::BaselineScratch, "scratch bytes", before.scratch, after.scratch, tol.scratch),
    ];
    for (rule, what, b, a, tolerance) in pairs {
        let (Some(b), Some(a)) = (b, a) else { continue };
        let level = if a > b.saturating_add(tolerance) {
            Level::Error
        } else if a < b {
            Level::Note
        } else {
            continue;
        };
        let how = if a > b { "up" } else { "down" };
        let message = format!("{} on {target}: {what} {how} from {b} to {a}", kernel.demangled);
        out.push(Finding::new(rule, level, lib, message).on(target).kernel(kernel));
    }
}
