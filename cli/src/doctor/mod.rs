//! `offload doctor [--gpu GPU ...] [--json] [PATH ...]`: will the libraries of this Python
//! environment (the directories on its `sys.path`), or of the given directories, run on this
//! machine's GPUs? Every library with device code is read (in parallel, one at a time per
//! thread, nothing kept once read), grouped by the installed distribution that owns it, and
//! answered for each GPU with `offload::report::fit`'s rules: runs (which image, which rule),
//! runs only through PTX JIT or a generic target, does not run (with the targets it has), or
//! not for this GPU (code for another vendor only). Libraries without device code are counted.
//!
//! Exit status: 0 when every library with code for a GPU's vendor has an image that runs on
//! it, 1 when one does not, 2 on trouble (no GPU to answer for, a library that did not read
//! completely, a directory that cannot be read) when nothing fails to run.

mod answer;
pub mod gpus;
pub mod pip;
mod scan;

use crate::fail::{Failure, Outcome};
use answer::{Library, Verdict};
use clap::Args;
use gpus::{Environment, Gpu};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args)]
pub struct DoctorArgs {
    /// Directories (a ROCm or CUDA install's `lib`, a `site-packages`) or library files to
    /// read instead of the Python environment's `sys.path`.
    pub paths: Vec<PathBuf>,
    /// A GPU to answer for instead of this machine's (`gfx1201`, `gfx90a:xnack+`, `sm_89`);
    /// repeat or separate with commas.
    #[arg(long = "gpu", value_delimiter = ',')]
    pub gpus: Vec<String>,
    /// The Python interpreter whose environment is read (its `sys.path`), when no PATH is
    /// given: `$OFFLOAD_PYTHON` (which the wheel's `offload` command sets to its own
    /// interpreter), else `python3`.
    #[arg(long, default_value_t = default_python())]
    pub python: String,
    /// Print one JSON document instead of the answer.
    #[arg(long)]
    pub json: bool,
    /// List every library with device code under its distribution, with its own answers.
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub pip: pip::PipArgs,
}

fn default_python() -> String {
    std::env::var("OFFLOAD_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// What to examine: the directories (empty: `python`'s `sys.path`), the GPUs (empty: this
/// machine's), and whether to draw a progress bar on a terminal.
pub struct Request {
    pub paths: Vec<PathBuf>,
    pub gpus: Vec<String>,
    pub python: String,
    pub progress: bool,
    /// Requirements whose wheels pip would install are read instead of directories.
    pub pip: pip::PipArgs,
}

/// Everything `doctor` found.
pub struct Report {
    pub gpus: Vec<Gpu>,
    pub notes: Vec<String>,
    pub directories: Vec<PathBuf>,
    pub distributions: Vec<scan::Distribution>,
    /// The libraries with device code or a problem, in the order found.
    pub libraries: Vec<Library>,
    /// How many library files were read in all.
    pub scanned: usize,
    /// (where, what) of what could not be read.
    pub problems: Vec<(String, String, Option<u64>)>,
    /// The requirements pip resolved, when the wheels it would install were read.
    pub requirements: Vec<String>,
}

pub fn run(a: &DoctorArgs) -> u8 {
    if a.pip.asked() && !a.paths.is_empty() {
        eprintln!("offload: error: --pip: expected requirements or PATHs, found both");
        return 2;
    }
    let request = Request {
        paths: a.paths.clone(),
        gpus: a.gpus.clone(),
        python: a.python.clone(),
        progress: true,
        pip: a.pip.clone(),
    };
    answer_request(&request, a.json, a.verbose)
}

/// Answers `request`, printing the answer (or its JSON); the exit status.
pub fn answer_request(request: &Request, json: bool, verbose: bool) -> u8 {
    let report = match examine(request) {
        Ok(r) => r,
        Err(f) => {
            eprintln!("offload: error: {f}");
            return 2;
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&document(&report)).unwrap_or_default());
    } else {
        print(&report, verbose);
    }
    exit_status(&report)
}

/// 1 when a library does not run on a GPU; else 2 when something could not be read; else 0.
pub fn exit_status(report: &Report) -> u8 {
    let fails = report.libraries.iter().flat_map(|l| &l.answers).any(|a| a.verdict == Verdict::DoesNotRun);
    match (fails, report.problems.is_empty()) {
        (true, _) => 1,
        (false, false) => 2,
        (false, true) => 0,
    }
}

/// Finds the GPUs and the libraries, and answers. `Err` when there is nothing to answer for:
/// no GPU, a `--gpu` that is not one, an interpreter that does not say its `sys.path`.
pub fn examine(request: &Request) -> Outcome<Report> {
    let env = Environment::current();
    let (gpus, notes) = gpus::gpus(&request.gpus, &env).map_err(Failure::new)?;
    if gpus.is_empty() {
        let mut why = format!(
            "no GPU to answer for: expected a GPU in the KFD topology ({}) or from nvidia-smi, found none",
            gpus::topology(&env).display()
        );
        for n in &notes {
            why.push_str(&format!("; {n}"));
        }
        return Err(Failure::new(format!("{why}; name one with --gpu (gfx1201, gfx90a:xnack+, sm_89)")));
    }
    if request.pip.asked() {
        let wheels = pip::resolve(&request.pip, &request.python)?;
        let (libraries, distributions) = pip::as_libraries(wheels);
        let found = scan::Found { libraries, distributions };
        return Ok(answered(found, Vec::new(), Vec::new(), gpus, notes, request));
    }
    // URLs (a wheel, a library on a web server) are read by range requests, each a library
    // of no distribution.
    let (urls, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        request.paths.iter().cloned().partition(|p| crate::io::url_of(p).is_some());
    if !urls.is_empty() && paths.is_empty() {
        let found = scan::Found { libraries: urls.into_iter().map(|u| (u, None)).collect(), distributions: Vec::new() };
        return Ok(answered(found, Vec::new(), Vec::new(), gpus, notes, request));
    }
    let directories = match paths.is_empty() {
        true => scan::python_path(&request.python)?,
        false => {
            if let Some(p) = paths.iter().find(|p| !p.exists()) {
                return Err(Failure::new(format!(
                    "{}: expected a directory or a library, found nothing there",
                    p.display()
                )));
            }
            paths
        }
    };
    let mut problems = Vec::new();
    let mut found = scan::find(&directories, &mut problems);
    found.libraries.extend(urls.into_iter().map(|u| (u, None)));
    Ok(answered(found, problems, directories, gpus, notes, request))
}

/// Reads the libraries `found` and answers for `gpus`.
fn answered(
    found: scan::Found,
    problems: Vec<(String, String)>,
    directories: Vec<PathBuf>,
    gpus: Vec<Gpu>,
    notes: Vec<String>,
    request: &Request,
) -> Report {
    let libraries = read_all(found.libraries.clone(), &gpus, request.progress);
    let scanned = libraries.len();
    let mut problems: Vec<(String, String, Option<u64>)> = problems.into_iter().map(|(w, m)| (w, m, None)).collect();
    for l in &libraries {
        if let Some(f) = &l.problem {
            problems.push((l.path.display().to_string(), f.message.clone(), f.offset));
        }
    }
    let libraries = libraries.into_iter().filter(|l| !l.targets.is_empty() || l.problem.is_some()).collect();
    let requirements = request.pip.requirements.clone();
    Report { gpus, notes, directories, distributions: found.distributions, libraries, scanned, problems, requirements }
}

/// Every library read and answered for on every core, in the order found, one at a time per
/// thread (a library's bytes are dropped when its answer is made).
fn read_all(found: Vec<(PathBuf, Option<usize>)>, gpus: &[Gpu], progress: bool) -> Vec<Library> {
    // Libraries read by URL (`--pip`) in parallel: this bar stands for them all, theirs would
    // draw over each other.
    crate::remote::show_progress(false);
    let bar = if progress && std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(found.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} libraries  {wide_msg}") {
        bar.set_style(style);
    }
    let libraries = found
        .into_par_iter()
        .map(|(path, distribution)| {
            bar.set_message(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            let l = answer::examine(path, distribution, gpus);
            bar.inc(1);
            l
        })
        .collect();
    bar.finish_and_clear();
    libraries
}

/// `gfx1031 (KFD node 1; runs gfx1030 images: HSA_OVERRIDE_GFX_VERSION=10.3.0, an override)`.
fn gpu_phrase(g: &Gpu) -> String {
    match &g.override_by {
        Some(by) if g.loads_as != g.name => {
            format!("{} ({}; the runtime loads {} images: {by}, an override)", g.name, g.found_by, g.loads_as)
        }
        Some(by) => format!("{} ({}; {by}, an override, names the GPU itself)", g.name, g.found_by),
        None => format!("{} ({})", g.name, g.found_by),
    }
}

/// The libraries of each distribution (by index into `report.libraries`), distributions in
/// name order, "not from a distribution" last.
fn groups(report: &Report) -> Vec<(Option<usize>, Vec<usize>)> {
    let mut out: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (i, l) in report.libraries.iter().enumerate().filter(|(_, l)| !l.targets.is_empty()) {
        match out.iter_mut().find(|(d, _)| *d == l.distribution) {
            Some((_, v)) => v.push(i),
            None => out.push((l.distribution, vec![i])),
        }
    }
    out.sort_by_key(|(d, _)| (d.is_none(), d.map(|d| report.distributions[d].name.to_lowercase())));
    out
}

fn distribution_name(report: &Report, d: Option<usize>) -> String {
    d.map_or_else(
        || "not from a distribution".to_string(),
        |d| format!("{} {}", report.distributions[d].name, report.distributions[d].version),
    )
}

fn images_phrase(images: &[(String, &str)]) -> String {
    images.iter().map(|(t, r)| format!("{t} ({r})")).collect::<Vec<_>>().join(", ")
}

/// The answer line of a distribution (or one library) on one GPU.
/// `file_name` and `libraries_path` name library `i` of the report.
fn answer_line(
    s: &answer::Summary,
    gpu: &Gpu,
    libraries: &[&Library],
    file_name: &dyn Fn(usize) -> String,
    libraries_path: &dyn Fn(usize) -> String,
) -> String {
    let targets = if s.targets.is_empty() { "none".to_string() } else { s.targets.join(", ") };
    match s.verdict {
        Verdict::NotForGpu => {
            let others: Vec<&str> =
                libraries.iter().flat_map(|l| &l.targets).map(|(_, v)| v.name()).fold(Vec::new(), |mut v, n| {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                    v
                });
            format!("not for this GPU ({} code only)", others.join(" and "))
        }
        Verdict::Runs => format!("runs: {}", images_phrase(&s.images)),
        Verdict::RunsGeneric => format!("runs through a generic target: {}", images_phrase(&s.images)),
        Verdict::RunsPtxJit => {
            format!("runs through PTX JIT (compiled by the driver on first use): {}", images_phrase(&s.images))
        }
        Verdict::DoesNotRun => {
            let mut names: Vec<String> = s.not_running.iter().map(|&i| file_name(i)).collect();
            // Two libraries of one name (in different directories) are told apart by their path.
            if (1..names.len()).any(|i| names[..i].contains(&names[i])) {
                names = s.not_running.iter().map(|&i| libraries_path(i)).collect();
            }
            let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
            let more = if names.len() > 5 { format!(" and {} more", names.len() - 5) } else { String::new() };
            format!(
                "does not run: {} of {} libraries have no image for {}: {}{more}; its {} targets: {targets}; first reason: {}",
                names.len(),
                libraries.len(),
                gpu.loads_as,
                shown.join(", "),
                gpu.vendor.name(),
                s.reason.as_deref().unwrap_or("-")
            )
        }
    }
}

fn print(report: &Report, verbose: bool) {
    let gpus: Vec<String> = report.gpus.iter().map(gpu_phrase).collect();
    println!("GPUs: {}", gpus.join(", "));
    for n in &report.notes {
        println!("  note: {n}");
    }
    let with_code = report.libraries.iter().filter(|l| !l.targets.is_empty()).count();
    if report.requirements.is_empty() {
        println!(
            "read {} under {}: {with_code} with device code, {} without",
            plural(report.scanned, "library", "libraries"),
            plural(report.directories.len(), "directory", "directories"),
            report.scanned - with_code
        );
    } else {
        println!(
            "read {} pip would install for {}: {with_code} with device code, {} without",
            plural(report.scanned, "wheel", "wheels"),
            report.requirements.join(" "),
            report.scanned - with_code
        );
    }
    let file_name = |i: usize| {
        let p = &report.libraries[i].path;
        p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
    };
    let path = |i: usize| report.libraries[i].path.display().to_string();
    for (d, indices) in groups(report) {
        let libraries: Vec<&Library> = indices.iter().map(|&i| &report.libraries[i]).collect();
        println!();
        println!(
            "{} ({} with device code)",
            distribution_name(report, d),
            plural(libraries.len(), "library", "libraries")
        );
        for (g, gpu) in report.gpus.iter().enumerate() {
            let s = answer::summarise(&libraries, &indices, g, gpu.vendor);
            println!("  {}: {}", gpu.name, answer_line(&s, gpu, &libraries, &file_name, &path));
        }
        if verbose {
            for (&i, l) in indices.iter().zip(&libraries) {
                println!("    {}", l.path.display());
                for (g, gpu) in report.gpus.iter().enumerate() {
                    let s = answer::summarise(std::slice::from_ref(l), &[i], g, gpu.vendor);
                    println!(
                        "      {}: {}",
                        gpu.name,
                        answer_line(&s, gpu, std::slice::from_ref(l), &file_name, &path)
                    );
                }
            }
        }
    }
    if !report.problems.is_empty() {
        println!();
        println!("could not read everything ({}):", report.problems.len());
        for (at, what, _) in &report.problems {
            println!("  {at}: {what}");
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn images_json(images: &[(String, &str)]) -> Value {
    Value::Array(images.iter().map(|(t, r)| json!({"target": t, "rule": r})).collect())
}

/// `{runs, gpus: [{gpu, loads_as, vendor, found_by, override}], notes, directories,
/// libraries: {read, with_device_code, without_device_code}, distributions: [{name, version,
/// answers: [{gpu, verdict, images: [{target, rule}], targets, not_running, reason}],
/// libraries: [{path, targets, answers: [{gpu, verdict, images, reason}]}]}], problems:
/// [{path, message, offset}]}`; `name` and `version` are null for libraries from no distribution.
pub fn document(report: &Report) -> Value {
    let gpus: Vec<Value> = report
        .gpus
        .iter()
        .map(|g| {
            json!({"gpu": g.name, "loads_as": g.loads_as, "vendor": g.vendor.name(), "found_by": g.found_by, "override": g.override_by})
        })
        .collect();
    let distributions: Vec<Value> =
        groups(report).into_iter().map(|(d, indices)| distribution_json(report, d, &indices)).collect();
    let with_code = report.libraries.iter().filter(|l| !l.targets.is_empty()).count();
    let problems: Vec<Value> =
        report.problems.iter().map(|(p, m, o)| json!({"path": p, "message": m, "offset": o})).collect();
    let directories: Vec<String> = report.directories.iter().map(|d| d.display().to_string()).collect();
    json!({
        "runs": exit_status(report) != 1,
        "gpus": gpus,
        "notes": report.notes,
        "directories": directories,
        "requirements": report.requirements,
        "libraries": {"read": report.scanned, "with_device_code": with_code, "without_device_code": report.scanned - with_code},
        "distributions": distributions,
        "problems": problems,
    })
}

/// One distribution's answers per GPU, and each of its libraries with device code.
fn distribution_json(report: &Report, d: Option<usize>, indices: &[usize]) -> Value {
    let libraries: Vec<&Library> = indices.iter().map(|&i| &report.libraries[i]).collect();
    let answers: Vec<Value> = report
        .gpus
        .iter()
        .enumerate()
        .map(|(g, gpu)| {
            let s = answer::summarise(&libraries, indices, g, gpu.vendor);
            let not_running: Vec<String> =
                s.not_running.iter().map(|&i| report.libraries[i].path.display().to_string()).collect();
            json!({
                "gpu": gpu.name, "verdict": s.verdict.as_str(), "images": images_json(&s.images),
                "targets": s.targets, "not_running": not_running, "reason": s.reason,
            })
        })
        .collect();
    let each: Vec<Value> = libraries
        .iter()
        .map(|l| {
            let answers: Vec<Value> = report
                .gpus
                .iter()
                .zip(&l.answers)
                .map(|(gpu, a)| {
                    json!({"gpu": gpu.name, "verdict": a.verdict.as_str(), "images": images_json(&a.images), "reason": a.reason})
                })
                .collect();
            let targets: Vec<&str> = l.targets.iter().map(|(t, _)| t.as_str()).collect();
            json!({"path": l.path.display().to_string(), "targets": targets, "answers": answers})
        })
        .collect();
    let dist = d.map(|d| &report.distributions[d]);
    json!({
        "name": dist.map(|d| &d.name), "version": dist.map(|d| &d.version),
        "answers": answers, "libraries": each,
    })
}
