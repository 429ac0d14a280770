//! `offload fit FILE --gpu GPU [--gpu ...] [--json]`: will the file run on these GPUs? Per
//! library, per container and per kernel, with the image that would load and the rule that
//! chose it, and the strictest needs the file has of the runtime or driver. Exit status 0 when
//! it runs on every GPU asked, 1 when not, 2 on trouble. Kernel names are printed demangled
//! (`--mangled`: as the images name them); the JSON has both, `name` and `demangled`.

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, shown};
use crate::Limits;
use clap::Args;
use offload::report::demangle::demangle;
use offload::report::fit::{self, Fit, KernelFit, LoadedImage};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Args)]
pub struct FitArgs {
    /// The file to read: an object, library, package, bundle, fatbin, archive or device
    /// image, on disk or at an `http(s)://` URL (read by range requests). Not with `--pip`.
    #[arg(required_unless_present = "requirements", conflicts_with = "requirements")]
    pub file: Option<PathBuf>,
    /// A GPU: an AMD processor with its modes (`gfx1201`, `gfx90a:xnack+`) or an NVIDIA
    /// `sm_NN`; repeat or separate with commas.
    #[arg(long = "gpu", required = true, value_delimiter = ',')]
    pub gpus: Vec<String>,
    /// Print one JSON document instead of the answer.
    #[arg(long)]
    pub json: bool,
    /// Print kernel names as the images name them (mangled C++ or Rust symbols), not demangled.
    #[arg(long)]
    pub mangled: bool,
    /// Print every line: each container, and each kernel (by default identical container
    /// lines are printed once with their count, and of a library with more than 20 kernels
    /// only those that do not run are listed).
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub kpack: crate::kpack::KpackArgs,
    #[command(flatten)]
    pub limits: Limits,
    /// `--pip REQ...`: answer, as `offload doctor` does (per distribution), for the wheels pip
    /// would install.
    #[command(flatten)]
    pub pip: crate::doctor::pip::PipArgs,
    /// The Python interpreter whose pip resolves `--pip` (its version and platform unless
    /// `--python-version` and `--platform` say otherwise).
    #[arg(long, default_value = "python3", requires = "requirements")]
    pub python: String,
}

/// Answers for every GPU; `Ok(true)` when the file runs on all of them.
pub fn run(a: &FitArgs) -> Outcome<bool> {
    let Some(path) = &a.file else { return Err(Failure::new("fit: expected a FILE or --pip REQ...")) };
    let file = open_lazy(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(path));
    // Every image is needed: every compressed container is decompressed (within the limits);
    // the answers need only what the tree says of each image, so their bytes are not kept, and
    // the bundles' hashes are not checked (`list` checks them).
    let options = a.limits.options().for_reports();
    let tree = crate::kpack::explore(path, &file, &name, &options, &a.kpack)?;
    let fits = fits(&tree, &a.gpus)?;
    if a.json {
        let doc = document(&shown(path), &fits);
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Failure::new(e.to_string()))?);
    } else {
        for f in &fits {
            print_fit(&shown(path), f, a.mangled, a.verbose);
        }
        // Kernels a library has for some targets and not others: why a GPU may run only part.
        let table = offload::report::kernels::collect(&tree);
        let holes = offload::report::check::holes::holes(&tree, &table, &name);
        print!("{}", crate::kernels::holes_text(&holes, a.verbose, a.mangled, "--verbose"));
    }
    // A file that did not read completely was not completely answered for.
    if let Some(failure) = Failure::in_tree(&shown(path), &tree) {
        return Err(failure);
    }
    Ok(fits.iter().all(|f| f.runs))
}

/// The answer for each GPU asked; a GPU that is not one is refused.
pub(crate) fn fits(tree: &offload::tree::Tree, gpus: &[String]) -> Outcome<Vec<Fit>> {
    gpus.iter().map(|gpu| fit::fit(tree, gpu).map_err(|e| Failure::new(format!("--gpu: expected {e}")))).collect()
}

/// `{file, runs, gpus: [fit]}`, each kernel with its `demangled` name: what `fit --json` prints.
pub(crate) fn document(file: &str, fits: &[Fit]) -> Value {
    let mut doc = json!({"file": file, "runs": fits.iter().all(|f| f.runs), "gpus": fits});
    add_demangled(&mut doc);
    doc
}

/// Each kernel of `{gpus: [{libraries: [{kernels: [{name, ...}]}]}]}` gains `demangled` beside
/// its `name`.
fn add_demangled(doc: &mut Value) {
    let gpus = doc.get_mut("gpus").and_then(Value::as_array_mut).into_iter().flatten();
    let libraries = gpus.filter_map(|g| g.get_mut("libraries").and_then(Value::as_array_mut)).flatten();
    for kernels in libraries.filter_map(|l| l.get_mut("kernels").and_then(Value::as_array_mut)) {
        for k in kernels.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(name) = k.get("name").and_then(Value::as_str) {
                let demangled = demangle(name).into_owned();
                k.insert("demangled".into(), Value::String(demangled));
            }
        }
    }
}

fn yes_no(runs: bool) -> &'static str {
    if runs {
        "yes"
    } else {
        "no"
    }
}

/// `gfx90a (exact, code object v5)`, `compute_80 (ptx-jit, PTX 8.7)`.
fn image_phrase(i: &LoadedImage) -> String {
    let mut notes = vec![i.rule.as_str().to_string()];
    if let Some(v) = i.code_object_version {
        notes.push(format!("code object v{v}"));
    }
    if let Some(g) = i.generic_version {
        notes.push(format!("generic version {g}"));
    }
    if let Some(p) = &i.ptx_version {
        notes.push(format!("PTX {p}"));
    }
    if !i.needs_mode.is_empty() {
        notes.push(format!("needs {}", i.needs_mode.join(" ")));
    }
    format!("{} ({})", i.target, notes.join(", "))
}

/// Kernels of one library listed one by one without `--verbose`: more are summarised.
const SHOWN_KERNELS: usize = 20;

fn print_fit(file: &str, f: &Fit, mangled: bool, verbose: bool) {
    println!("{file} on {}: {} ({})", f.gpu, yes_no(f.runs), f.reason);
    for l in &f.libraries {
        println!("  library {}: {}", l.library, yes_no(l.runs));
        let lines = l.containers.iter().map(|c| {
            let what = c.image.as_ref().map_or_else(|| "nothing loads".to_string(), image_phrase);
            format!("{}: {} — {}", c.container, what, c.reason)
        });
        for (line, count) in grouped(lines, verbose) {
            match count {
                1 => println!("    {line}"),
                n => println!("    {n} × {line}"),
            }
        }
        let name = |k: &KernelFit| if mangled { k.name.clone() } else { demangle(&k.name).into_owned() };
        if verbose || l.kernels.len() <= SHOWN_KERNELS {
            print_kernels(&l.kernels, &name);
        } else {
            summarise_kernels(&l.kernels, &name);
        }
    }
    if !f.requirements.is_empty() {
        println!("  needs (strictest of each kind):");
        for r in &f.requirements {
            println!("    {}: {} [{}]", r.what, r.needs, r.source);
        }
    }
}

/// Identical lines once each, in first-seen order, with how many times each came (every line
/// once, in order, when `verbose`).
fn grouped(lines: impl Iterator<Item = String>, verbose: bool) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for line in lines {
        match index.get(&line) {
            Some(&i) if !verbose => out[i].1 += 1,
            _ => {
                index.insert(line.clone(), out.len());
                out.push((line, 1));
            }
        }
    }
    out
}

/// The kernel table: one line per kernel.
fn print_kernels(kernels: &[KernelFit], name: &dyn Fn(&KernelFit) -> String) {
    let names: Vec<String> = kernels.iter().map(name).collect();
    let width = names.iter().map(String::len).max().unwrap_or(0).max(6);
    if !kernels.is_empty() {
        println!("    {:<width$}  runs  from            occupancy", "kernel");
    }
    for (k, name) in kernels.iter().zip(&names) {
        let from = k.target.clone().unwrap_or_else(|| "-".into());
        let occupancy = match (&k.occupancy, &k.occupancy_limited_by) {
            (Some(o), Some(by)) => format!("{o} waves/SIMD (limited by {by})"),
            _ if k.runs => "-".into(),
            _ => k.reason.clone(),
        };
        println!("    {name:<width$}  {:<4}  {from:<14}  {occupancy}", yes_no(k.runs));
    }
}

/// Many kernels: how many run and from which image, then those that do not run (at most
/// [`SHOWN_KERNELS`] of them).
fn summarise_kernels(kernels: &[KernelFit], name: &dyn Fn(&KernelFit) -> String) {
    let mut from: Vec<(String, usize)> = Vec::new();
    for k in kernels.iter().filter(|k| k.runs) {
        let target = k.target.clone().unwrap_or_else(|| "-".into());
        match from.iter_mut().find(|(t, _)| *t == target) {
            Some((_, n)) => *n += 1,
            None => from.push((target, 1)),
        }
    }
    let runs: usize = from.iter().map(|(_, n)| n).sum();
    let images: Vec<String> = from.iter().map(|(t, n)| format!("{n} from {t}")).collect();
    let not: Vec<&KernelFit> = kernels.iter().filter(|k| !k.runs).collect();
    println!(
        "    kernels: {} in all; {runs} run ({}); {} do not{}",
        kernels.len(),
        if images.is_empty() { "none".to_string() } else { images.join(", ") },
        not.len(),
        if not.is_empty() { " (--verbose lists every kernel):" } else { " (--verbose lists every kernel)" }
    );
    for k in not.iter().take(SHOWN_KERNELS) {
        println!("      {}: {}", name(k), k.reason);
    }
    if not.len() > SHOWN_KERNELS {
        println!("      ... and {} more; --verbose lists every kernel", not.len() - SHOWN_KERNELS);
    }
}
