//! `offload check`'s report for people: a line per file, then each failed check with its
//! findings grouped by rule and target (a long group shows its first few and a count), then
//! the improvements the baseline comparison found, counted.

use offload::report::check::{Checked, FileCheck, Finding, Level};
use std::fmt::Write as _;

/// Findings shown per group without `--verbose`.
const SHOWN: usize = 5;

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

pub fn report(files: &[FileCheck], verbose: bool) -> String {
    let mut out = String::new();
    for f in files {
        let failed: Vec<&Checked> = f.checks.iter().filter(|c| !c.passed()).collect();
        let notes: Vec<&Finding> =
            f.checks.iter().flat_map(|c| &c.findings).filter(|x| x.level == Level::Note).collect();
        let what = format!(
            "{}, {}",
            plural(f.libraries, "library").replace("librarys", "libraries"),
            plural(f.kernels, "kernel")
        );
        if f.checks.is_empty() {
            let _ = writeln!(
                out,
                "{}: pass ({what}; nothing asked: give --require, a limit, --baseline or --policy)",
                f.file
            );
        } else if failed.is_empty() {
            let _ = writeln!(out, "{}: pass ({}; {} passed)", f.file, what, plural(f.checks.len(), "check"));
        } else {
            let _ = writeln!(
                out,
                "{}: FAIL ({}; {} of {} failed, {})",
                f.file,
                what,
                failed.len(),
                plural(f.checks.len(), "check"),
                plural(f.errors(), "error")
            );
        }
        for c in &failed {
            write_check(&mut out, c, verbose);
        }
        if !notes.is_empty() {
            let _ = writeln!(out, "  improved or new, not failures ({}):", notes.len());
            let shown = if verbose { notes.len() } else { SHOWN.min(notes.len()) };
            for n in &notes[..shown] {
                let _ = writeln!(out, "    {}: {}", n.library, n.message);
            }
            if shown < notes.len() {
                let _ = writeln!(out, "    … and {} more (--verbose lists them)", notes.len() - shown);
            }
        }
    }
    if files.len() > 1 {
        let failed = files.iter().filter(|f| !f.passed()).count();
        let _ = writeln!(out, "{} of {} failed", plural(failed, "file"), files.len());
    }
    out
}

/// A group of findings: rule id and target.
type GroupKey<'a> = (&'static str, Option<&'a str>);

fn write_check(out: &mut String, c: &Checked, verbose: bool) {
    let errors: Vec<&Finding> = c.findings.iter().filter(|f| f.level == Level::Error).collect();
    let _ = writeln!(out, "  ✗ {}: {} ({})", c.library, c.name, plural(errors.len(), "error"));
    // Groups by rule and target, in the order first met.
    let mut groups: Vec<(GroupKey<'_>, Vec<&Finding>)> = Vec::new();
    for f in errors {
        let key = (f.rule.id(), f.target.as_deref());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    for ((rule, target), findings) in groups {
        let on = target.map(|t| format!(" on {t}")).unwrap_or_default();
        let shown = if verbose { findings.len() } else { SHOWN.min(findings.len()) };
        if findings.len() == 1 {
            let _ = writeln!(out, "    {rule}: {}", findings[0].message);
            continue;
        }
        let _ = writeln!(out, "    {rule}{on}: {}", plural(findings.len(), "finding"));
        for f in &findings[..shown] {
            let _ = writeln!(out, "      {}", f.message);
        }
        if shown < findings.len() {
            let _ = writeln!(out, "      … and {} more (--verbose lists them)", findings.len() - shown);
        }
    }
}
