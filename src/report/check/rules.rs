//! The rules a policy sets, judged on one file: required targets (each library runs on it,
//! served as the policy allows, every kernel with it), every kernel on every target of its
//! library, and per-kernel limits.
//!
//! Whether a library runs on a required target, by which rule and with which kernels is
//! [`crate::report::fit`]'s answer, so `check` and `fit` never disagree.

use super::holes::{self, KernelName, Library};
use super::policy::{Complete, Limits, Policy, Required};
use super::{Checked, Finding, Level, Rule};
use crate::report::demangle::demangle;
use crate::report::fit;
use crate::tree::Tree;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One check per library for each required target. `Err` names a required target that is not
/// a GPU.
pub fn required_targets(tree: &Tree, policy: &Policy) -> Result<Vec<Checked>, String> {
    let mut out = Vec::new();
    for req in policy.required() {
        let answer = fit::fit(tree, &req.target).map_err(|e| format!("required target: expected {e}"))?;
        for lib in &answer.libraries {
            out.push(required_in_library(lib, &req, policy.complete != Complete::Off));
        }
    }
    Ok(out)
}

fn required_in_library(lib: &fit::LibraryFit, req: &Required, complete: bool) -> Checked {
    let mut checked = Checked::new(format!("runs on {}", req.target), &lib.library, Some(&req.target));
    let target = req.target.as_str();
    let runs_somewhere = lib.containers.iter().any(|c| c.runs);
    if !lib.runs {
        checked.findings.push(
            Finding::new(
                Rule::RequiredTarget,
                Level::Error,
                &lib.library,
                format!("does not run on {target}: {}", lib.reason),
            )
            .on(target),
        );
    }
    for c in lib.containers.iter().filter(|c| c.runs) {
        let Some(image) = &c.image else { continue };
        if !req.serve.allows(image.rule) {
            let message = format!(
                "{target} is served by {} ({}) in {}; the policy allows {} only",
                image.target,
                image.rule.as_str(),
                c.container,
                req.serve.as_str()
            );
            checked.findings.push(Finding::new(Rule::Served, Level::Error, &lib.library, message).on(target));
        }
    }
    // Kernels of containers that run but are not in the image that loads: holes. When nothing
    // runs, the library's one finding above says it all.
    if complete && runs_somewhere {
        for k in lib.kernels.iter().filter(|k| !k.runs) {
            let kernel = KernelName { name: k.name.clone(), demangled: demangle(&k.name).into_owned() };
            let message = format!("{} is missing on {target}: {}", kernel.demangled, k.reason);
            checked.findings.push(
                Finding::new(Rule::KernelMissing, Level::Error, &lib.library, message).on(target).kernel(&kernel),
            );
        }
    }
    checked
}

/// With `complete = "all"`: one check per library, every kernel on every target it has.
pub fn complete_on_all_targets(libraries: &[Library]) -> Vec<Checked> {
    libraries
        .iter()
        .map(|lib| {
            let mut checked = Checked::new("every kernel on every target".into(), &lib.name, None);
            for m in holes::holes_of(lib).missing {
                for k in &m.kernels {
                    let message =
                        format!("{} is missing on {} (the library's other targets have it)", k.demangled, m.target);
                    checked.findings.push(
                        Finding::new(Rule::KernelMissing, Level::Error, &lib.name, message).on(&m.target).kernel(k),
                    );
                }
            }
            checked
        })
        .collect()
}

/// One check per library when any limit is set: every entry kernel on every target within the
/// limits the policy (and `flags`) give it there.
pub fn limits(libraries: &[Library], policy: &Policy, flags: &Limits) -> Vec<Checked> {
    let any = !flags.is_empty()
        || policy.limits.iter().any(|l| !l.limits().is_empty())
        || policy.exceptions.iter().any(|e| !e.limits().is_empty());
    if !any {
        return Vec::new();
    }
    libraries.iter().map(|lib| limits_of_library(lib, policy, flags)).collect()
}

fn limits_of_library(lib: &Library, policy: &Policy, flags: &Limits) -> Checked {
    let mut checked = Checked::new("kernel limits".into(), &lib.name, None);
    let t = &lib.table;
    for row in &t.rows {
        for (col, cell) in t.columns.iter().zip(&row.cells) {
            let Some(cell) = cell.as_ref().filter(|c| c.entry) else { continue };
            let Some(limits) = policy.limits_for(flags, &col.target, &row.name, &row.demangled) else { continue };
            let kernel = KernelName { name: row.name.clone(), demangled: row.demangled.clone() };
            let over = |rule: Rule, what: &str, value: Option<u64>, most: Option<u64>| {
                let (Some(v), Some(m)) = (value, most) else { return None };
                (v > m)
                    .then(|| (rule, format!("{} on {}: {what} {v} over the limit of {m}", row.demangled, col.target)))
            };
            let under = match (cell.occupancy, limits.min_waves) {
                (Some(w), Some(m)) if w < m => Some((
                    Rule::Waves,
                    format!("{} on {}: {w} waves per SIMD, fewer than {m}", row.demangled, col.target),
                )),
                _ => None,
            };
            let broken = [
                over(Rule::Registers, "registers", cell.registers, limits.registers),
                over(Rule::Spills, "spills", cell.spills, limits.spills),
                over(Rule::Scratch, "scratch bytes", cell.scratch, limits.scratch),
                over(Rule::Lds, "LDS bytes", cell.lds, limits.lds),
                under,
            ];
            for (rule, message) in broken.into_iter().flatten() {
                checked.findings.push(
                    Finding::new(rule, Level::Error, &lib.name, message).on(&col.target.to_string()).kernel(&kernel),
                );
            }
        }
    }
    checked
}
