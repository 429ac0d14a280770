//! `offload check PATH...`: a release gate. Each file (object, library, archive, bundle, wheel
//! or other package) is judged by a policy — required targets and how each may be served,
//! every kernel on every required target, per-kernel limits — and, with `--baseline`, against
//! an earlier release, failing only on regressions. Exit 0 pass, 1 fail, 2 trouble (a file
//! that cannot be read completely, a policy or baseline that cannot be read).
//!
//! The judging is the core's ([`offload::report::check`]); here are the command line, the
//! policy file (TOML) and the baseline (JSON) read from disk, and the reports: text for people
//! ([`text`]), `--json`, JUnit XML ([`junit`]) and SARIF 2.1.0 ([`sarif`]).

mod junit;
mod sarif;
mod text;

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, shown, write_atomic};
use crate::Limits as ReadLimits;
use clap::Args;
use offload::explore::Options;
use offload::report::check::baseline::{self, Baseline};
use offload::report::check::policy::{Limits, Policy};
use offload::report::check::{self as core_check, FileCheck, Judge};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CheckArgs {
    /// The files to check: objects, libraries, archives, bundles, wheels and other packages.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Targets every library must run on (`gfx942`, `gfx90a:xnack+`, `sm_90`); repeat or
    /// separate with commas. Replaces the policy's `require`.
    #[arg(long, value_delimiter = ',')]
    pub require: Vec<String>,
    /// Most registers a kernel may use (VGPRs on AMD GPUs).
    #[arg(long)]
    pub max_registers: Option<u64>,
    /// Most spills a kernel may have.
    #[arg(long)]
    pub max_spills: Option<u64>,
    /// Most scratch memory a kernel may use per work-item, in bytes.
    #[arg(long)]
    pub max_scratch: Option<u64>,
    /// Most LDS (shared memory) a kernel may use per work-group, in bytes.
    #[arg(long)]
    pub max_lds: Option<u64>,
    /// Fewest waves per SIMD a kernel may reach (AMD occupancy).
    #[arg(long)]
    pub min_waves: Option<u64>,
    /// The policy file (TOML; see docs/cli.md); flags override it.
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Compare with this baseline (written by --write-baseline): fail only on regressions.
    #[arg(long, conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Record the files' libraries, targets, kernels and resources here, as a baseline.
    #[arg(long)]
    pub write_baseline: Option<PathBuf>,
    /// Write a JUnit XML report here (a test suite per file, a test case per check).
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a SARIF 2.1.0 log here, for code-scanning UIs.
    #[arg(long)]
    pub sarif: Option<PathBuf>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// List every finding (by default a long group shows its first few and a count).
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub kpack: crate::kpack::KpackArgs,
    #[command(flatten)]
    pub limits: ReadLimits,
}

impl CheckArgs {
    /// The limits given as flags.
    fn flag_limits(&self) -> Limits {
        Limits {
            registers: self.max_registers,
            spills: self.max_spills,
            scratch: self.max_scratch,
            lds: self.max_lds,
            min_waves: self.min_waves,
        }
    }
}

/// What `check` decided, for the exit status.
pub enum Verdict {
    Pass,
    Fail,
}

/// Runs `offload check`; the exit status: 0 pass, 1 fail, 2 trouble.
pub fn exit_code(a: &CheckArgs) -> u8 {
    match run(a) {
        Ok(Verdict::Pass) => 0,
        Ok(Verdict::Fail) => 1,
        Err(f) => {
            eprintln!("offload: error: {f}");
            2
        }
    }
}

fn run(a: &CheckArgs) -> Outcome<Verdict> {
    let mut policy = match &a.policy {
        Some(p) => read_policy(p)?,
        None => Policy::default(),
    };
    if !a.require.is_empty() {
        policy.require = a.require.clone();
    }
    let problems = policy.problems();
    if !problems.is_empty() {
        return Err(Failure::new(format!("policy: {}", problems.join("; "))));
    }
    let old = a.baseline.as_deref().map(read_baseline).transpose()?;
    let flags = a.flag_limits();
    let options = Options { verify_all: true, keep_bytes: false, ..a.limits.options() };
    let mut checks = Vec::new();
    let mut recorded = Baseline { version: baseline::VERSION, files: Vec::new() };
    let mut trouble = Vec::new();
    for path in &a.paths {
        match check_file(path, &policy, &flags, old.as_ref(), &options, &a.kpack) {
            Ok((c, b)) => {
                checks.push(c);
                recorded.files.push(b);
            }
            Err(f) => trouble.push(f),
        }
    }
    write_reports(a, &checks)?;
    if let Some(out) = &a.write_baseline {
        let text = serde_json::to_string_pretty(&recorded).map_err(|e| Failure::new(e.to_string()))?;
        write_atomic(out, format!("{text}\n").as_bytes())?;
    }
    if let Some(first) = trouble.into_iter().next() {
        return Err(first);
    }
    Ok(if checks.iter().all(FileCheck::passed) { Verdict::Pass } else { Verdict::Fail })
}

/// The checks of one file and its baseline; `Err` when it does not read completely (a file
/// half read cannot pass a gate) or a required target is not a GPU.
pub(crate) fn check_file(
    path: &Path,
    policy: &Policy,
    flags: &Limits,
    old: Option<&Baseline>,
    options: &Options,
    kpack: &crate::kpack::KpackArgs,
) -> Outcome<(FileCheck, baseline::FileBaseline)> {
    let file = open_lazy(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(path));
    let tree = crate::kpack::explore(path, &file, &name, options, kpack)?;
    if let Some(failure) = Failure::in_tree(&shown(path), &tree) {
        return Err(failure);
    }
    let judge = Judge { policy, flags, baseline: old.and_then(|b| b.for_file(&name)) };
    core_check::check(&tree, &shown(path), &name, &judge).map_err(|e| Failure::new(format!("--require: {e}")))
}

fn read_policy(path: &Path) -> Outcome<Policy> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::io(path, "read the policy", e))?;
    toml::from_str(&text).map_err(|e| Failure::new(format!("{}: not a policy: {e}", path.display())))
}

fn read_baseline(path: &Path) -> Outcome<Baseline> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::io(path, "read the baseline", e))?;
    let b: Baseline = serde_json::from_str(&text).map_err(|e| {
        Failure::new(format!("{}: expected a baseline written by --write-baseline: {e}", path.display()))
    })?;
    if b.version != baseline::VERSION {
        return Err(Failure::new(format!(
            "{}: baseline version {} (expected {})",
            path.display(),
            b.version,
            baseline::VERSION
        )));
    }
    Ok(b)
}

/// Text or JSON on standard output, and the JUnit and SARIF files asked for.
fn write_reports(a: &CheckArgs, checks: &[FileCheck]) -> Outcome<()> {
    if a.json {
        let text = serde_json::to_string_pretty(&document(checks)).map_err(|e| Failure::new(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", text::report(checks, a.verbose));
    }
    if let Some(out) = &a.junit {
        write_atomic(out, junit::report(checks).as_bytes())?;
    }
    if let Some(out) = &a.sarif {
        let text = serde_json::to_string_pretty(&sarif::log(checks)).map_err(|e| Failure::new(e.to_string()))?;
        write_atomic(out, format!("{text}\n").as_bytes())?;
    }
    Ok(())
}

/// `{passed, files: [{file, passed, libraries, kernels, checks: [{name, library, target,
/// passed, findings: [{rule, level, library, target, kernel: {name, demangled}, message}]}]}]}`.
pub(crate) fn document(checks: &[FileCheck]) -> serde_json::Value {
    let files: Vec<serde_json::Value> = checks
        .iter()
        .map(|f| {
            let checks: Vec<serde_json::Value> = f
                .checks
                .iter()
                .map(|c| {
                    json!({
                        "name": c.name, "library": c.library, "target": c.target,
                        "passed": c.passed(), "findings": c.findings,
                    })
                })
                .collect();
            json!({"file": f.file, "passed": f.passed(), "libraries": f.libraries, "kernels": f.kernels, "checks": checks})
        })
        .collect();
    json!({"passed": checks.iter().all(FileCheck::passed), "files": files})
}
