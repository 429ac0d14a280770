//! `offload diff OLD NEW`: targets added, removed and common, each target's size change, which
//! images differ, and kernels added, removed or changed. Exit status as `diff`'s: 0 when the
//! device contents are equal, 1 when they differ, 2 on trouble.

use crate::fail::{Failure, Outcome};
use crate::io::{read_all, shown};
use crate::Limits;
use clap::Args;
use offload::explore::{self, Options};
use offload::report::diff::{self, Diff, KernelUse};
use offload::tree::Tree;
use offload::util::bytes::human_size;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct DiffArgs {
    /// The old file.
    pub old: PathBuf,
    /// The new file.
    pub new: PathBuf,
    /// Print one JSON document instead of the summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: Limits,
}

/// `diff`'s exit status: 0 equal, 1 different, 2 trouble (with the message on stderr).
pub fn exit_code(outcome: Outcome<bool>) -> u8 {
    match outcome {
        Ok(false) => 0,
        Ok(true) => 1,
        Err(f) => {
            eprintln!("offload: error: {f}");
            2
        }
    }
}

/// Compares the files and prints the result; `Ok(true)` when they differ.
pub fn run(a: &DiffArgs) -> Outcome<bool> {
    // Images are compared byte for byte: every compressed container is decompressed.
    let options = Options { verify_all: true, ..a.limits.options() };
    let (old, old_tree) = open(&a.old, &options)?;
    let (new, new_tree) = open(&a.new, &options)?;
    let d = diff::diff(&old, &old_tree, &new, &new_tree);
    if a.json {
        let doc = document(&shown(&a.old), &shown(&a.new), &d);
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Failure::new(e.to_string()))?);
    } else {
        print_summary(a, &d);
    }
    // A file that did not read completely was not completely compared.
    for (path, tree) in [(&a.old, &old_tree), (&a.new, &new_tree)] {
        if let Some(failure) = Failure::in_tree(&shown(path), tree) {
            return Err(failure);
        }
    }
    Ok(!d.is_equal())
}

fn open(path: &Path, options: &Options) -> Outcome<(Vec<u8>, Tree)> {
    let bytes = read_all(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(path));
    let tree = explore::explore(&bytes[..], &name, options);
    Ok((bytes, tree))
}

fn uses_json(u: &KernelUse) -> Value {
    json!({
        "registers": u.registers, "sgprs": u.sgprs, "agprs": u.agprs,
        "lds": u.lds, "scratch": u.scratch, "spills": u.spills,
    })
}

/// `{old, new, equal, files: {old_size, new_size}, targets: {added, removed, common},
/// sizes: [{target, old_images, new_images, old_bytes, new_bytes, delta}],
/// images: [{target, index, old_size, new_size, equal}],
/// kernels: {added: [{target, name, uses}], removed: [...], changed: [{target, name, old, new}]}}`.
pub(crate) fn document(old: &str, new: &str, d: &Diff) -> Value {
    let kernel = |k: &diff::KernelRef| json!({"target": k.target, "name": k.name, "uses": uses_json(&k.uses)});
    json!({
        "old": old,
        "new": new,
        "equal": d.is_equal(),
        "files": {"old_size": d.old_size, "new_size": d.new_size},
        "targets": {"added": d.targets.added, "removed": d.targets.removed, "common": d.targets.common},
        "sizes": d.sizes.iter().map(|s| json!({
            "target": s.target, "old_images": s.old_images, "new_images": s.new_images,
            "old_bytes": s.old_bytes, "new_bytes": s.new_bytes, "delta": s.delta() as i64,
        })).collect::<Vec<_>>(),
        "images": d.images.iter().map(|i| json!({
            "target": i.target, "index": i.index, "old_size": i.old_size, "new_size": i.new_size, "equal": i.equal,
        })).collect::<Vec<_>>(),
        "kernels": {
            "added": d.kernels.added.iter().map(kernel).collect::<Vec<_>>(),
            "removed": d.kernels.removed.iter().map(kernel).collect::<Vec<_>>(),
            "changed": d.kernels.changed.iter().map(|k| json!({
                "target": k.target, "name": k.name, "old": uses_json(&k.old), "new": uses_json(&k.new),
            })).collect::<Vec<_>>(),
        },
    })
}

fn signed(delta: i128) -> String {
    match delta {
        0 => "same size".into(),
        d if d > 0 => format!("+{d} bytes"),
        d => format!("{d} bytes"),
    }
}

fn images(n: usize) -> String {
    if n == 1 {
        "1 image".into()
    } else {
        format!("{n} images")
    }
}

fn value(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |n| n.to_string())
}

fn print_summary(a: &DiffArgs, d: &Diff) {
    println!("--- {} ({})", shown(&a.old), human_size(d.old_size));
    println!("+++ {} ({})", shown(&a.new), human_size(d.new_size));
    let t = &d.targets;
    println!("targets: {} added, {} removed, {} common", t.added.len(), t.removed.len(), t.common.len());
    for s in &d.sizes {
        let differing = d.images.iter().filter(|i| i.target == s.target && i.equal != Some(true)).count();
        let (sign, detail) = if t.added.contains(&s.target) {
            ("+", format!("{} in {}", human_size(s.new_bytes), images(s.new_images)))
        } else if t.removed.contains(&s.target) {
            ("-", format!("{} in {}", human_size(s.old_bytes), images(s.old_images)))
        } else {
            let images = if differing == 0 {
                format!("{} identical", images(s.new_images))
            } else {
                format!("{differing} of {} images differ", s.old_images.max(s.new_images))
            };
            let mark = if differing == 0 { " " } else { "~" };
            (
                mark,
                format!("{} -> {} ({}), {images}", human_size(s.old_bytes), human_size(s.new_bytes), signed(s.delta())),
            )
        };
        println!("{sign} {}  {detail}", s.target);
    }
    let k = &d.kernels;
    if !(k.added.is_empty() && k.removed.is_empty() && k.changed.is_empty()) {
        println!("kernels: {} added, {} removed, {} changed", k.added.len(), k.removed.len(), k.changed.len());
        for r in &k.added {
            println!("+ {}  {}", r.target, r.name);
        }
        for r in &k.removed {
            println!("- {}  {}", r.target, r.name);
        }
        for c in &k.changed {
            let what: Vec<String> =
                c.old.changes(&c.new).iter().map(|(n, o, v)| format!("{n} {} -> {}", value(*o), value(*v))).collect();
            println!("~ {}  {}: {}", c.target, c.name, what.join(", "));
        }
    }
    if d.is_equal() {
        println!("device contents are equal");
    } else {
        println!("device contents differ ({} of {} images)", d.images_differing(), d.images.len());
    }
}
