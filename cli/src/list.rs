//! `offload list`: the tree, one line per node, then the table of device targets and the
//! kernels missing on some targets of their library; or JSON. A
//! package is summarised instead ([`summary`]) unless `--tree` asks for the tree; `--jsonl`
//! writes JSON lines ([`jsonl`]).

mod jsonl;
mod summary;
pub(crate) mod variant;

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, shown};
use crate::json::ListDocument;
use crate::ListArgs;
use offload::explore::Options;
use offload::report::check::holes;
use offload::report::kernels;
use offload::report::targets::{self, Target};
use offload::tree::{Node, Tree};
use offload::util::bytes::human_size;
use std::io::{self, BufWriter, Write};

pub fn options(a: &ListArgs) -> Options {
    // The listing shows spans and fields, never bytes: each decompressed space is dropped once read.
    Options { verify_all: a.verify, keep_bytes: false, ..a.limits.options() }
}

pub fn run(a: &ListArgs) -> Outcome<()> {
    let file = open_lazy(&a.file)?;
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(&a.file));
    let tree = crate::kpack::explore(&a.file, &file, &name, &options(a), &a.kpack)?;
    let found = targets::collect(&tree);
    // A variant wheel's declared properties, beside what its binaries hold.
    let declared = match variant::declared(&file, &name, &found) {
        Some(Err(why)) => {
            eprintln!("offload: note: {}: {why}", shown(&a.file));
            None
        }
        Some(Ok(d)) => Some(d),
        None => None,
    };
    if a.json {
        let mut doc = document(&shown(&a.file), &tree, &found)?;
        if let Some(d) = &declared {
            doc["variant"] = d.json();
        }
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Failure::new(e.to_string()))?);
    } else if a.jsonl {
        jsonl::write(&mut BufWriter::new(io::stdout().lock()), &shown(&a.file), &tree, &found).map_err(written)?;
    } else if let Some(summary) = (!a.tree).then(|| summary::Summary::of(&tree, &found)).flatten() {
        let mut out = BufWriter::new(io::stdout().lock());
        let holes = holes::holes(&tree, &kernels::collect(&tree), &name);
        summary::print(&mut out, &name, tree.root.span.size, &summary, &holes)
            .and_then(|()| out.flush())
            .map_err(written)?;
    } else {
        print_tree(&tree);
        print_targets(&found);
        let holes = holes::holes(&tree, &kernels::collect(&tree), &name);
        summary::print_holes(&mut io::stdout().lock(), &holes).map_err(written)?;
        print_diagnostics(&tree);
    }
    if let (Some(d), false) = (&declared, a.json || a.jsonl) {
        print!("{}", d.text());
    }
    Failure::in_tree(&shown(&a.file), &tree).map_or(Ok(()), Err)
}

/// The document `list --json` prints (also `offload.list` in Python).
pub(crate) fn document(file: &str, tree: &Tree, found: &[Target]) -> Outcome<serde_json::Value> {
    let doc = ListDocument { file, tree, targets: found };
    // Through a `serde_json::Value`, whose maps sort their keys: the order scripts have seen.
    serde_json::to_value(&doc).map_err(|e| Failure::new(e.to_string()))
}

fn written(e: io::Error) -> Failure {
    Failure::new(format!("cannot write the listing: {e}"))
}

fn print_tree(tree: &Tree) {
    println!("{:<6} {:>12} {:>10}  what", "space", "offset", "size");
    tree.root.walk(&mut |n: &Node, depth| {
        println!(
            "{:<6} {:>#12x} {:>10}  {}{}",
            n.span.space,
            n.span.offset,
            human_size(n.span.size),
            "  ".repeat(depth),
            n.label
        );
    });
}

fn print_targets(found: &[Target]) {
    println!();
    if found.is_empty() {
        println!("no device targets found");
        return;
    }
    println!("device targets ({}):", found.len());
    // Targets found in archive members say which member; other files have no such column.
    let in_archive = found.iter().any(|t| t.member.is_some());
    let dash = |s: &str| if s.is_empty() { "-".to_string() } else { s.to_string() };
    let rows: Vec<Vec<String>> = found
        .iter()
        .map(|t| {
            let mut row = vec![t.target_id.clone(), t.offload_kind.clone(), t.processor.clone(), dash(&t.features)];
            if in_archive {
                row.push(dash(t.member.as_deref().unwrap_or("")));
            }
            row.push(human_size(t.image_size));
            row.push(t.stored_size.map(human_size).unwrap_or_else(|| "-".into()));
            row.push(t.compression.clone().unwrap_or_else(|| "no".into()));
            row
        })
        .collect();
    let mut head = vec!["target", "kind", "processor", "features"];
    if in_archive {
        head.push("member");
    }
    head.extend(["image", "stored", "compressed"]);
    let widths: Vec<usize> =
        (0..head.len()).map(|i| rows.iter().map(|r| r[i].len()).chain([head[i].len()]).max().unwrap_or(0)).collect();
    let line =
        |cells: &[String]| cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect::<Vec<_>>().join("  ");
    println!("  {}", line(&head.iter().map(|h| h.to_string()).collect::<Vec<_>>()));
    for r in &rows {
        println!("  {}", line(r));
    }
}

fn print_diagnostics(tree: &Tree) {
    let mut lines = Vec::new();
    tree.root.walk(&mut |n: &Node, _| {
        for d in &n.diagnostics {
            let at = d.span.map(|s| format!(" at {}:{:#x}", s.space, s.offset)).unwrap_or_default();
            lines.push(format!("  {}{at}: {} ({})", d.severity.as_str(), d.message, n.label));
        }
    });
    if !lines.is_empty() {
        println!();
        println!("diagnostics ({}):", lines.len());
        for l in lines {
            println!("{l}");
        }
    }
}
