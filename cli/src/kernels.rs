//! `offload kernels`: every kernel of a file in one table, a column group per target
//! (registers, SGPRs, LDS/shared memory, scratch, occupancy), or the same as JSON. Names are
//! printed demangled (`--mangled`: as the images name them); the JSON has both.

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, shown};
use crate::Limits;
use clap::Args;
use offload::report::check::holes;
use offload::report::kernels::{self, KernelCell, KernelTable};
use serde::ser::Serializer;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct KernelsArgs {
    /// The file to read: an object, library, bundle, offload binary, archive or device image.
    pub file: PathBuf,
    /// Print one JSON document instead of the table (each kernel with its mangled `name` and
    /// its `demangled` one).
    #[arg(long)]
    pub json: bool,
    /// Print kernel names as the images name them (mangled C++ or Rust symbols), not demangled.
    #[arg(long)]
    pub mangled: bool,
    /// List the kernels missing on some targets of their library (by default only counted:
    /// "52 kernels missing on gfx1100 of 12 targets").
    #[arg(long)]
    pub holes: bool,
    /// Only these targets (a column's name, `gfx90a:xnack+`, or its processor, `gfx90a`);
    /// repeat or separate with commas.
    #[arg(long = "target", value_delimiter = ',')]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub kpack: crate::kpack::KpackArgs,
    #[command(flatten)]
    pub limits: Limits,
}

/// The holes of each library: a line per target that lacks kernels ("2 kernels missing on
/// gfx1100 of 3 targets"), and with `list` the kernels themselves. Empty when there are none.
pub(crate) fn holes_text(holes: &[holes::LibraryHoles], list: bool, mangled: bool, option: &str) -> String {
    let mut out = String::new();
    for h in holes {
        out.push_str(&format!("holes in {} ({} kernels, {} targets):\n", h.library, h.kernels, h.targets));
        for (line, m) in h.lines().iter().zip(&h.missing) {
            out.push_str(&format!("  {line}\n"));
            if list {
                for k in &m.kernels {
                    out.push_str(&format!("    {}\n", if mangled { &k.name } else { &k.demangled }));
                }
            }
        }
    }
    if !holes.is_empty() && !list {
        out.push_str(&format!("({option} lists the kernels)\n"));
    }
    out
}

/// Whether the column named `column` is one the user asked for with `wanted`.
fn matches(column: &str, wanted: &str) -> bool {
    let processor = column.split([':', ' ']).next().unwrap_or(column);
    column == wanted || processor == wanted
}

pub fn run(a: &KernelsArgs) -> Outcome<()> {
    let file = open_lazy(&a.file)?;
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| shown(&a.file));
    // Every image is needed, so every compressed bundle is decompressed (within the limits);
    // the table needs only what the tree says of each image, so their bytes are not kept, and
    // their hashes are `list`'s business (an MD5 of every decompressed byte: a third of the time
    // on a ROCm framework's library).
    let options = a.limits.options().for_reports();
    let tree = crate::kpack::explore(&a.file, &file, &name, &options, &a.kpack)?;
    let table = table(&shown(&a.file), &tree, &a.targets)?;
    let holes = holes::holes(&tree, &table, &name);
    // The tree is as large as the table again: only its errors are still needed.
    let failure = Failure::in_tree(&shown(&a.file), &tree);
    drop(tree);
    if a.json {
        let shown_file = shown(&a.file);
        let doc = Document::new(&shown_file, &table);
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, &doc)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
            .map_err(|e| Failure::new(format!("writing the document: {e}")))?;
    } else {
        print_table(&table, a.mangled).map_err(|e| Failure::new(format!("writing the table: {e}")))?;
        print!("{}", holes_text(&holes, a.holes, a.mangled, "--holes"));
    }
    failure.map_or(Ok(()), Err)
}

/// The kernel table of the file shown as `file`, with only the columns `targets` names (every
/// column when empty); a target without kernels is refused, naming those that have some.
pub(crate) fn table(file: &str, tree: &offload::tree::Tree, targets: &[String]) -> Outcome<KernelTable> {
    let mut table = kernels::collect(tree);
    if targets.is_empty() {
        return Ok(table);
    }
    let unknown: Vec<&String> =
        targets.iter().filter(|t| !table.columns.iter().any(|c| matches(&c.target, t))).collect();
    if !unknown.is_empty() {
        let have: Vec<&str> = table.columns.iter().map(|c| c.target.as_str()).collect();
        let list = |v: Vec<&str>| if v.is_empty() { "none".to_string() } else { v.join(", ") };
        return Err(Failure::new(format!(
            "{file}: no kernels for target {} (targets with kernels: {})",
            list(unknown.iter().map(|s| s.as_str()).collect()),
            list(have)
        )));
    }
    table.retain_columns(|c| targets.iter().any(|t| matches(&c.target, t)));
    Ok(table)
}

/// [`document`] written as it is serialized, without building it: a large library's is
/// hundreds of megabytes as a `Value`. Fields are declared in the order a `Value` prints its
/// keys (sorted), so both print the same bytes.
#[derive(Serialize)]
pub(crate) struct Document<'a> {
    file: &'a str,
    kernels: Rows<'a>,
    targets: Vec<Column<'a>>,
}

impl<'a> Document<'a> {
    pub(crate) fn new(file: &'a str, table: &'a KernelTable) -> Self {
        let targets = table.columns.iter().map(|c| Column { format: &c.format, target: &c.target }).collect();
        Document { file, kernels: Rows(table), targets }
    }
}

#[derive(Serialize)]
struct Column<'a> {
    format: &'a str,
    target: &'a str,
}

/// The kernel rows of a [`Document`], serialized one at a time.
struct Rows<'a>(&'a KernelTable);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        s.collect_seq(t.rows.iter().map(|r| {
            Row {
                demangled: &r.demangled,
                name: &r.name,
                targets: t
                    .columns
                    .iter()
                    .zip(&r.cells)
                    .filter_map(|(col, c)| c.as_ref().map(|c| (col.target.as_str(), Cell::of(c))))
                    .collect(),
            }
        }))
    }
}

#[derive(Serialize)]
struct Row<'a> {
    demangled: &'a str,
    name: &'a str,
    targets: BTreeMap<&'a str, Cell<'a>>,
}

/// One cell; the numbers a target does not have are left out.
#[derive(Serialize)]
struct Cell<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    agprs: Option<u64>,
    entry: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    lds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    occupancy: Option<u64>,
    path: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    registers: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scratch: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sgprs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    spills: Option<u64>,
}

impl<'a> Cell<'a> {
    fn of(c: &'a KernelCell) -> Self {
        Cell {
            agprs: c.agprs,
            entry: c.entry,
            lds: c.lds,
            occupancy: c.occupancy,
            path: &c.path,
            registers: c.registers,
            scratch: c.scratch,
            sgprs: c.sgprs,
            spills: c.spills,
        }
    }
}

/// `{file, targets: [{target, format}], kernels: [{name, demangled, targets: {target: cell}}]}`
/// (`name` as the image names it, `demangled` as people read it, the same when not mangled); a
/// cell is `{entry, path, registers?, sgprs?, agprs?, lds?, scratch?, spills?, occupancy?}`,
/// `path` being the child indices from the root of `offload list --json`'s tree to the kernel's
/// node.
pub(crate) fn document(file: &str, t: &KernelTable) -> Value {
    serde_json::to_value(Document::new(file, t)).unwrap_or(Value::Null)
}

/// `waves` is the occupancy in waves per SIMD (AMD GPUs).
const GROUP: [&str; 5] = ["regs", "SGPR", "LDS", "scratch", "waves"];

fn values(c: Option<&KernelCell>) -> [String; 5] {
    let show = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |n| n.to_string());
    match c {
        Some(c) => [show(c.registers), show(c.sgprs), show(c.lds), show(c.scratch), show(c.occupancy)],
        None => Default::default(),
    }
}

/// Names longer than this are printed on a line of their own, the row's numbers on the next
/// (as `df` does with long device names): a C++ template kernel's name can run to 11,000
/// characters, and padding every row to it made the table unreadable (164 MB for cuDNN).
const NAME_WIDTH: usize = 60;

fn print_table(t: &KernelTable, mangled: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    write_table(&mut out, t, mangled)?;
    out.flush()
}

fn write_table(out: &mut dyn std::io::Write, t: &KernelTable, mangled: bool) -> std::io::Result<()> {
    if t.rows.is_empty() {
        return writeln!(out, "no kernels found");
    }
    let device_functions = t.rows.iter().any(|r| r.cells.iter().flatten().any(|c| !c.entry));
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    writeln!(
        out,
        "{} across {} (regs: VGPRs on AMD GPUs, registers on NVIDIA; LDS and scratch in bytes; waves: occupancy, waves per SIMD)",
        plural(t.rows.len(), "kernel"),
        plural(t.columns.len(), "target")
    )?;
    // Columns after the name: the kind (when device functions are listed), then each target's group.
    let mut head1 = Vec::new();
    let mut head2 = Vec::new();
    if device_functions {
        head1.push(String::new());
        head2.push("kind".to_string());
    }
    let first_number = head2.len();
    for col in &t.columns {
        for (i, h) in GROUP.iter().enumerate() {
            head1.push(if i == 0 { col.target.clone() } else { String::new() });
            head2.push(h.to_string());
        }
    }
    let rows: Vec<(&str, Vec<String>)> = t
        .rows
        .iter()
        .map(|r| {
            let name = if mangled || r.demangled.is_empty() { &r.name } else { &r.demangled };
            let mut cells = Vec::with_capacity(head2.len());
            if device_functions {
                let entry = r.cells.iter().flatten().any(|c| c.entry);
                cells.push(if entry { "kernel" } else { "device" }.to_string());
            }
            for c in &r.cells {
                cells.extend(values(c.as_ref()));
            }
            (name.as_str(), cells)
        })
        .collect();
    let width = |s: &str| s.chars().count();
    let longest_name = rows.iter().map(|(n, _)| width(n)).max().unwrap_or(0);
    let name_width = longest_name.clamp("kernel".len(), NAME_WIDTH);
    let mut widths: Vec<usize> = (0..head2.len())
        .map(|i| rows.iter().map(|(_, c)| c[i].len()).chain([head2[i].len()]).max().unwrap_or(0))
        .collect();
    // A target's name spans its group: widen the group's last column if the name is longer.
    for g in 0..t.columns.len() {
        let start = first_number + g * GROUP.len();
        let span: usize = widths[start..start + GROUP.len()].iter().sum::<usize>() + 2 * (GROUP.len() - 1);
        let need = head1[start].len();
        if need > span {
            widths[start + GROUP.len() - 1] += need - span;
        }
    }
    let line = |name: &str, cells: &[String]| {
        let mut s = String::with_capacity(name_width + widths.iter().sum::<usize>() + 2 * widths.len());
        s.push_str(name);
        s.extend(core::iter::repeat_n(' ', name_width.saturating_sub(width(name))));
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            s.push_str("  ");
            let pad = w.saturating_sub(c.len());
            if i >= first_number {
                s.extend(core::iter::repeat_n(' ', pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.extend(core::iter::repeat_n(' ', pad));
            }
        }
        s.truncate(s.trim_end().len());
        s
    };
    // The group header: each target's name left-aligned over its group.
    let mut top = String::new();
    let mut at = name_width + 2;
    for (i, h) in head1.iter().enumerate() {
        if !h.is_empty() {
            top.extend(core::iter::repeat_n(' ', at.saturating_sub(top.len())));
            top.push_str(h);
        }
        at += widths[i] + 2;
    }
    writeln!(out, "{}", top.trim_end())?;
    writeln!(out, "{}", line("kernel", &head2))?;
    for (name, cells) in &rows {
        if width(name) > name_width {
            writeln!(out, "{name}")?;
            writeln!(out, "{}", line("", cells))?;
        } else {
            writeln!(out, "{}", line(name, cells))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name longer than the name column goes on a line of its own, its numbers on the next,
    /// aligned under the header; the other rows are not padded to it.
    #[test]
    fn long_names_take_a_line_of_their_own() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/images/hip_kernels.o");
        let data = std::fs::read(path).unwrap();
        let tree = offload::explore::explore(&data[..], "hip_kernels.o", &offload::explore::Options::default());
        let mut t = kernels::collect(&tree);
        let long = format!("void kernel<{}>(int*)", "very_long_template_argument, ".repeat(10));
        t.rows[0].demangled = long.clone();
        let mut out = Vec::new();
        write_table(&mut out, &t, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let header = lines[2];
        let at = lines.iter().position(|l| *l == long).expect(&text);
        let numbers = lines[at + 1];
        assert!(numbers.starts_with(&" ".repeat(NAME_WIDTH)) && numbers.len() == header.len(), "{text}");
        assert!(lines.iter().all(|l| l.len() <= long.len().max(header.len())), "{text}");
        let short = lines.iter().find(|l| l.starts_with(&t.rows[1].demangled)).expect(&text);
        assert_eq!(short.len(), header.len(), "{text}");
    }
}
