//! `offload sizes`: what each target costs (bytes of its images, its share of the file, its
//! estimated share of compressed containers), a bar per target; with `--drop`, the exact size
//! of the file without some targets, and with `-o` that file.

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, read_all, shown, write_atomic};
use crate::Limits;
use clap::Args;
use offload::edit::{self, Dropped};
use offload::explore::{self, Options};
use offload::report::check::advisor;
use offload::report::sizes::{self, Sizes, TargetSize};
use offload::util::bytes::human_size;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SizesArgs {
    /// The file to measure: an object, library, bundle, offload binary, archive or fatbin.
    pub file: PathBuf,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Targets to drop (`gfx906`, every feature variant; `gfx90a:xnack+`; `sm_80`; `compute_80`;
    /// an entry ID): the exact size of the file without every one of their images.
    #[arg(long, value_delimiter = ',')]
    pub drop: Vec<String>,
    /// Decode every device image (decompressing every compressed container) to find code that
    /// is identical across processors: what a generic target, or one cubin, would save.
    #[arg(long)]
    pub identical: bool,
    /// Write the file without the `--drop` targets here.
    #[arg(short, long, requires = "drop")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub kpack: crate::kpack::KpackArgs,
    #[command(flatten)]
    pub limits: Limits,
}

/// The file name shown in the tree's root, as `list` names it.
fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(path))
}

pub fn run(a: &SizesArgs) -> Outcome<()> {
    let name = file_name(&a.file);
    let file = open_lazy(&a.file)?;
    // Sizes are read from spans and fields: decompressed bytes are dropped once read.
    let options = Options { keep_bytes: false, verify_all: a.identical, check_hashes: false, ..a.limits.options() };
    let tree = crate::kpack::explore(&a.file, &file, &name, &options, &a.kpack)?;
    let measured = sizes::sizes(&tree);
    let advice = Advice::of(&tree);
    let dropped = match a.drop.is_empty() {
        true => None,
        false => Some(drop(a, &name)?),
    };
    // Device data after the drop, measured on the result: in a linked library the sections
    // keep their size, so the file's size alone would not show what dropping saves.
    let device_after = dropped.as_ref().map(|d| device_stored(&d.bytes, &name, &a.limits.options()));
    if let (Some(out), Some(d)) = (&a.output, &dropped) {
        write_atomic(out, &d.bytes)?;
    }
    if a.json {
        let dropped = dropped.as_ref().zip(device_after).map(|(d, after)| (d, after, &a.drop[..], a.output.as_deref()));
        let mut doc = document(&shown(&a.file), &measured, dropped);
        doc["identical"] = advice.json();
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Failure::new(e.to_string()))?);
    } else {
        print_table(&shown(&a.file), &measured);
        advice.print();
        if let (Some(d), Some(after)) = (&dropped, device_after) {
            print_drop(a, &measured, d, after);
        }
    }
    Failure::in_tree(&shown(&a.file), &tree).map_or(Ok(()), Err)
}

/// The file without the `--drop` targets, made and read back by the core.
fn drop(a: &SizesArgs, name: &str) -> Outcome<Dropped> {
    let bytes = read_all(&a.file)?;
    drop_from(&shown(&a.file), &bytes, name, &a.drop, &a.limits.options())
}

/// `bytes` (the file shown as `file`, named `name` in its tree) without the `targets`.
pub(crate) fn drop_from(
    file: &str,
    bytes: &[u8],
    name: &str,
    targets: &[String],
    options: &Options,
) -> Outcome<Dropped> {
    edit::drop_targets(bytes, name, targets, options)
        .map_err(|e| Failure::new(format!("{file}: cannot drop {}: {e}", targets.join(", "))))
}

/// The device bytes stored in `bytes` (a file without some targets), measured on its tree.
pub(crate) fn device_stored(bytes: &[u8], name: &str, options: &Options) -> u64 {
    let options = Options { verify_all: true, ..options.clone() };
    sizes::sizes(&explore::explore(bytes, name, &options)).device_stored()
}

/// The advisor's answer ([`advisor::identical_code`]), and how many images it could not compare
/// (listed from a header only, without `--identical`).
pub(crate) struct Advice {
    pub groups: Vec<advisor::Identical>,
    pub undecoded: usize,
}

impl Advice {
    pub(crate) fn of(tree: &offload::tree::Tree) -> Advice {
        Advice { groups: advisor::identical_code(tree), undecoded: offload::report::kernels::undecoded_images(tree) }
    }

    /// `{groups: [{vendor, build_for, targets, containers, images, image_bytes, saved}],
    /// saved, images_not_compared}`.
    pub(crate) fn json(&self) -> Value {
        json!({
            "groups": self.groups,
            "saved": self.groups.iter().map(|g| g.saved).sum::<u64>(),
            "images_not_compared": self.undecoded,
        })
    }

    fn print(&self) {
        for line in self.lines() {
            println!("{line}");
        }
    }

    /// The advisor's headline and a line per group ([`advisor::Identical::line`]), then how
    /// many images were not compared.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = advisor::headline(&self.groups).into_iter().collect();
        out.extend(self.groups.iter().map(|g| format!("  {}", g.line())));
        if self.undecoded > 0 {
            out.push(format!(
                "identical code: {} images listed from their headers only were not compared (--identical decodes every image)",
                self.undecoded
            ));
        }
        out
    }
}

fn target_json(t: &TargetSize) -> Value {
    json!({
        "target": t.target,
        "vendor": t.vendor.name(),
        "images": t.images,
        "image_bytes": t.image_bytes,
        "stored_exact": t.stored_exact,
        "stored_estimate": t.stored_estimate,
        "stored": t.stored(),
        "estimate": t.is_estimate(),
        "share_of_file": t.share_of_file,
    })
}

/// `{file, file_size, image_bytes, compressed_stored, targets: [{target, vendor, images,
/// image_bytes, stored_exact, stored_estimate, stored, estimate, share_of_file}], drop?:
/// {targets, removed_entries, size, saved, device_stored, device_stored_after, output}}`; every
/// number under `drop` is exact.
/// `dropped` is the file without some targets, its device bytes, the targets and where it was written.
pub(crate) fn document(file: &str, s: &Sizes, dropped: Option<(&Dropped, u64, &[String], Option<&Path>)>) -> Value {
    let mut doc = json!({
        "file": file,
        "file_size": s.file_size,
        "image_bytes": s.image_bytes,
        "compressed_stored": s.compressed_stored,
        "device_stored": s.device_stored(),
        "targets": s.targets.iter().map(target_json).collect::<Vec<_>>(),
    });
    if let Some((d, device_after, targets, output)) = dropped {
        doc["drop"] = json!({
            "targets": targets,
            "removed_entries": d.removed,
            "size": d.bytes.len(),
            "saved": i128::from(s.file_size) - d.bytes.len() as i128,
            "device_stored": s.device_stored(),
            "device_stored_after": device_after,
            "output": output.map(shown),
        });
    }
    doc
}

const BAR_WIDTH: f64 = 30.0;
const NOTES_SHOWN: usize = 10;

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn print_table(file: &str, s: &Sizes) {
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    let images: usize = s.targets.iter().map(|t| t.images).sum();
    println!(
        "{file}: {} ({} bytes); {} of device images ({}) for {}",
        human_size(s.file_size),
        s.file_size,
        human_size(s.image_bytes),
        plural(images, "image"),
        plural(s.targets.len(), "target")
    );
    if s.targets.is_empty() {
        println!("no device targets found");
        return;
    }
    let estimated = s.targets.iter().any(TargetSize::is_estimate);
    if estimated {
        println!(
            "~ estimate: {} of compressed containers split among their images in proportion to their decompressed size (--drop gives exact sizes)",
            human_size(s.compressed_stored)
        );
    }
    let mark = |t: &TargetSize| if t.is_estimate() { "~" } else { "" };
    let head = ["target", "images", "image bytes", "stored", "share of file"];
    let rows: Vec<[String; 5]> = s
        .targets
        .iter()
        .map(|t| {
            [
                t.target.clone(),
                t.images.to_string(),
                human_size(t.image_bytes),
                format!("{}{}", mark(t), human_size(t.stored())),
                format!("{}{}", mark(t), percent(t.share_of_file)),
            ]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([head[i].len()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..head.len()).map(width).collect();
    let line = |cells: &[String]| {
        let mut out = format!("{:<w$}", cells[0], w = widths[0]);
        for (c, w) in cells.iter().zip(&widths).skip(1) {
            out.push_str(&format!("  {c:>w$}"));
        }
        out
    };
    println!("{}", line(&head.map(String::from)));
    let largest = s.targets.iter().map(TargetSize::stored).max().unwrap_or(0).max(1);
    for (t, r) in s.targets.iter().zip(&rows) {
        let bar = "█".repeat((t.stored() as f64 / largest as f64 * BAR_WIDTH).round() as usize);
        println!("{}  {bar}", line(r));
    }
}

fn print_drop(a: &SizesArgs, s: &Sizes, d: &Dropped, device_after: u64) {
    let after = d.bytes.len() as u64;
    let less = |before: u64, after: u64| {
        let saved = i128::from(before) - i128::from(after);
        let share = if before == 0 { 0.0 } else { saved as f64 / before as f64 };
        format!("{saved} bytes ({}) less", percent(share))
    };
    let entries = if d.removed.len() == 1 { "1 entry".to_string() } else { format!("{} entries", d.removed.len()) };
    println!();
    println!("without {} ({entries} removed; exact sizes, the result read back):", a.drop.join(", "));
    println!("  file:        {after} bytes ({}), {}", human_size(after), less(s.file_size, after));
    println!(
        "  device data: {device_after} bytes ({}), {}",
        human_size(device_after),
        less(s.device_stored(), device_after)
    );
    // One removal per image: the same note can come many times.
    let mut notes: Vec<&String> = Vec::new();
    for n in &d.notes {
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    for note in notes.iter().take(NOTES_SHOWN) {
        println!("  {note}");
    }
    if notes.len() > NOTES_SHOWN {
        println!("  … and {} more notes", notes.len() - NOTES_SHOWN);
    }
    if let Some(out) = &a.output {
        println!("written to {}", shown(out));
    }
}
