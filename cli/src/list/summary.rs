//! What `offload list` prints by default for a package (a wheel or zip, a tarball, a conda, deb
//! or rpm package), where the whole tree would be tens of thousands of lines:
//!
//! 1. one header line: the package's format, its member count and its size;
//! 2. one line per member with device code: its images, their bytes, and its targets grouped
//!    by vendor as "Runs on" groups them (`AMD gfx90a, gfx942; NVIDIA sm_80, compute_90`);
//! 3. the members without device code, counted, not listed;
//! 4. the whole file's "runs on" lines (vendor, target, images, bytes);
//! 5. kernel × target holes: a line per library and target lacking kernels the library has
//!    on its other targets ([`offload::report::check::holes`]), as `offload kernels` counts them;
//! 6. the diagnostics grouped ([`group_diagnostics`]).
//!
//! A member here is a member that is not itself a package: the members of a conda's
//! `pkg-*.tar.zst` or of a `.deb`'s `data.tar.xz` are counted and listed in their place. A
//! member's device code is every image below it, in archives inside it too.

use offload::report::check::holes::LibraryHoles;
use offload::report::diagnostics::pattern;
use offload::report::runs_on::{self, RunsOn};
use offload::report::targets::Target;
use offload::tree::{Diagnostic, Node, NodeKind, Severity, Span, Tree};
use offload::util::bytes::human_size;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Write};

/// Errors are listed one by one up to this many; more are grouped like notes and warnings.
pub const MAX_SINGLE_ERRORS: usize = 20;

/// The outermost package of a file, when the file is one: the root's child, or inside the
/// compressed streams around it (a `.tar.gz`).
pub struct Package<'t> {
    pub node: &'t Node,
    /// The streams around the package, outermost first (`gzip`, `zstd`, `xz`).
    pub streams: Vec<String>,
}

impl Package<'_> {
    /// `zip`, `tar`, `deb`, `rpm`, `cpio`.
    pub fn format(&self) -> &str {
        self.node.text("format").unwrap_or("unknown")
    }
}

/// The outermost package of `tree`'s file, if the file is a package.
pub fn package(tree: &Tree) -> Option<Package<'_>> {
    let mut node = &tree.root;
    let mut streams = Vec::new();
    loop {
        if let Some(p) = node.children.iter().find(|c| c.kind == NodeKind::Package) {
            return Some(Package { node: p, streams });
        }
        node = node.children.iter().find(|c| matches!(c.kind, NodeKind::CompressedPayload | NodeKind::Decompressed))?;
        if node.kind == NodeKind::CompressedPayload {
            streams.push(node.text("method").unwrap_or("compressed").to_string());
        }
    }
}

/// A member with device code.
pub struct Member<'t> {
    pub node: &'t Node,
    /// Its name in the innermost package holding it.
    pub name: String,
    /// Its device images, in tree order.
    pub targets: Vec<Target>,
    /// Its targets, one line each, grouped by vendor.
    pub runs_on: RunsOn,
    /// Every diagnostic of the member and of what is inside it.
    pub diagnostics: Vec<&'t Diagnostic>,
}

impl Member<'_> {
    pub fn bytes(&self) -> u64 {
        self.targets.iter().map(|t| t.image_size).fold(0, u64::saturating_add)
    }
}

/// Diagnostics that are one message, or one message but for its numbers.
pub struct Group {
    pub severity: Severity,
    pub count: usize,
    /// The message with each number replaced by `#` ([`pattern`]).
    pub pattern: String,
    /// The first message of the group, where it is, and the label of its node.
    pub example: String,
    pub at: Option<Span>,
    pub label: String,
    /// Whether every message of the group is the example (not only its pattern).
    pub identical: bool,
    /// How many distinct members the group's diagnostics are in, and the first of them.
    pub members: usize,
    pub member: Option<String>,
}

/// A package's summary.
pub struct Summary<'t> {
    pub package: Package<'t>,
    /// Members that are not packages themselves, in every package of the file.
    pub member_count: usize,
    /// Packages inside the outermost one.
    pub nested_packages: usize,
    /// The members with device code, in file order.
    pub members: Vec<Member<'t>>,
    /// The whole file's targets.
    pub runs_on: RunsOn,
    pub diagnostics: Vec<Group>,
}

impl<'t> Summary<'t> {
    /// The summary of `tree`, whose device images are `found` ([`offload::report::targets::collect`]);
    /// `None` when the file is not a package.
    pub fn of(tree: &'t Tree, found: &[Target]) -> Option<Summary<'t>> {
        let package = package(tree)?;
        let mut walk = Walk::default();
        walk.visit(&tree.root, &mut Vec::new(), None);
        let by_path: BTreeMap<&[usize], usize> =
            walk.leaves.iter().enumerate().map(|(i, l)| (l.path.as_slice(), i)).collect();
        let mut targets: Vec<Vec<Target>> = vec![Vec::new(); walk.leaves.len()];
        for t in found {
            if let Some(&i) = (1..=t.path.len()).rev().find_map(|k| by_path.get(&t.path[..k])) {
                targets[i].push(t.clone());
            }
        }
        let diagnostics = group_diagnostics(walk.diagnostics.iter().map(|&(m, n, d)| {
            let member = m.and_then(|m| walk.leaves[m].node.text("name"));
            (member, n, d)
        }));
        let member_count = walk.leaves.len();
        let mut leaf_diagnostics: Vec<Vec<&'t Diagnostic>> = vec![Vec::new(); member_count];
        for &(m, _, d) in &walk.diagnostics {
            if let Some(m) = m {
                leaf_diagnostics[m].push(d);
            }
        }
        let members = walk
            .leaves
            .iter()
            .zip(targets)
            .zip(leaf_diagnostics)
            .filter(|((_, t), _)| !t.is_empty())
            .map(|((leaf, targets), diagnostics)| Member {
                node: leaf.node,
                name: leaf.node.text("name").unwrap_or(&leaf.node.label).to_string(),
                runs_on: runs_on::summarize_images(tree, &targets),
                targets,
                diagnostics,
            })
            .collect();
        Some(Summary {
            package,
            member_count,
            nested_packages: walk.packages.saturating_sub(1),
            members,
            runs_on: runs_on::summarize_images(tree, found),
            diagnostics,
        })
    }
}

/// A member that is not a package, and where it is (child indices from the root).
struct Leaf<'t> {
    node: &'t Node,
    path: Vec<usize>,
}

/// One walk over the tree: its members that are not packages, its packages, and every
/// diagnostic with the member it is in.
#[derive(Default)]
struct Walk<'t> {
    leaves: Vec<Leaf<'t>>,
    packages: usize,
    diagnostics: Vec<(Option<usize>, &'t Node, &'t Diagnostic)>,
}

impl<'t> Walk<'t> {
    fn visit(&mut self, node: &'t Node, path: &mut Vec<usize>, mut member: Option<usize>) {
        match node.kind {
            NodeKind::PackageMember if !holds_package(node) => {
                self.leaves.push(Leaf { node, path: path.clone() });
                member = Some(self.leaves.len() - 1);
            }
            NodeKind::Package => self.packages += 1,
            _ => {}
        }
        self.diagnostics.extend(node.diagnostics.iter().map(|d| (member, node, d)));
        for (i, c) in node.children.iter().enumerate() {
            path.push(i);
            self.visit(c, path, member);
            path.pop();
        }
    }
}

fn holds_package(node: &Node) -> bool {
    node.children.iter().any(|c| c.kind == NodeKind::Package || holds_package(c))
}

/// The diagnostics `(member, node, diagnostic)` grouped: errors first, then warnings, then
/// notes, each the largest group first. Messages equal but for their numbers ([`pattern`]) are
/// one group. Errors stay one by one when there are at most [`MAX_SINGLE_ERRORS`].
pub fn group_diagnostics<'t>(all: impl Iterator<Item = (Option<&'t str>, &'t Node, &'t Diagnostic)>) -> Vec<Group> {
    let all: Vec<_> = all.collect();
    let errors = all.iter().filter(|(_, _, d)| d.severity == Severity::Error).count();
    let single_errors = errors <= MAX_SINGLE_ERRORS;
    let mut groups: Vec<Group> = Vec::new();
    let mut members: Vec<HashSet<&str>> = Vec::new();
    let mut index: HashMap<(u8, String), usize> = HashMap::new();
    for (member, node, d) in all {
        let pattern = pattern(&d.message);
        let key = (d.severity as u8, pattern.clone());
        let known = if single_errors && d.severity == Severity::Error { None } else { index.get(&key).copied() };
        let at = match known {
            Some(i) => i,
            None => {
                index.insert(key, groups.len());
                groups.push(Group {
                    severity: d.severity,
                    count: 0,
                    pattern,
                    example: d.message.clone(),
                    at: d.span,
                    label: node.label.clone(),
                    identical: true,
                    members: 0,
                    member: member.map(String::from),
                });
                members.push(HashSet::new());
                groups.len() - 1
            }
        };
        let g = &mut groups[at];
        g.count += 1;
        g.identical &= g.example == d.message;
        if let Some(m) = member {
            members[at].insert(m);
        }
    }
    for (g, m) in groups.iter_mut().zip(&members) {
        g.members = m.len();
    }
    // A stable sort: equal counts keep the order they were first seen in.
    groups.sort_by_key(|g| (std::cmp::Reverse(g.severity), std::cmp::Reverse(g.count)));
    groups
}

/// `12775` as `12,775`.
pub fn count(n: usize) -> String {
    offload::util::bytes::thousands(n as u64)
}

/// `n thing` or `n things`.
fn counted(n: usize, thing: &str) -> String {
    format!("{} {thing}{}", count(n), if n == 1 { "" } else { "s" })
}

/// `    3 images` or `    1 image ` in a column whose numbers are `width` wide.
fn images_column(n: usize, width: usize) -> String {
    format!("{:>width$} {:<6}", count(n), if n == 1 { "image" } else { "images" })
}

/// Targets grouped by vendor, in the "Runs on" order: `AMD gfx90a, gfx942; NVIDIA sm_80`.
pub fn grouped_targets(runs_on: &RunsOn) -> String {
    let mut out = String::new();
    let mut vendor = None;
    for line in &runs_on.lines {
        if vendor != Some(line.vendor) {
            if vendor.is_some() {
                out.push_str("; ");
            }
            out.push_str(line.vendor.name());
            out.push(' ');
            vendor = Some(line.vendor);
        } else {
            out.push_str(", ");
        }
        out.push_str(&line.target);
    }
    out
}

/// The header line: `name: zip package, 2,034 members, 57.8 MiB`.
fn header(name: &str, size: u64, s: &Summary) -> String {
    let p = &s.package;
    let mut what = format!("{} package", p.format());
    if !p.streams.is_empty() {
        // Innermost first: `tar package in a gzip stream`.
        let streams: Vec<&str> = p.streams.iter().rev().map(String::as_str).collect();
        what.push_str(&format!(" in a {} stream", streams.join(" stream in a ")));
    }
    let direct = p.node.children.iter().filter(|c| c.kind == NodeKind::PackageMember).count();
    let mut members = counted(direct, "member");
    if s.nested_packages > 0 {
        members.push_str(&format!(
            " ({} once the {} inside it are opened)",
            count(s.member_count),
            counted(s.nested_packages, "package")
        ));
    }
    let mut size = human_size(size);
    if !p.streams.is_empty() {
        size.push_str(&format!(" ({} decompressed)", human_size(p.node.span.size)));
    }
    format!("{name}: {what}, {members}, {size}")
}

/// How a single diagnostic is shown, as `list --tree` shows it, with its member.
fn single(g: &Group) -> String {
    let at = g.at.map(|s| format!(" at {}:{:#x}", s.space, s.offset)).unwrap_or_default();
    let member = g.member.as_ref().map(|m| format!(" in {m}")).unwrap_or_default();
    format!("{}{at}: {} ({}){member}", g.severity.as_str(), g.example, g.label)
}

/// Prints the summary of the file `name` of `size` bytes, with its libraries' `holes`.
pub fn print(out: &mut impl Write, name: &str, size: u64, s: &Summary, holes: &[LibraryHoles]) -> io::Result<()> {
    writeln!(out, "{}", header(name, size, s))?;
    writeln!(out)?;
    let others = s.member_count - s.members.len();
    if s.members.is_empty() {
        writeln!(out, "{}, no device code found; --tree lists every member", counted(s.member_count, "member"))?;
    } else {
        writeln!(out, "members with device code ({} of {}):", count(s.members.len()), count(s.member_count))?;
        let width = s.members.iter().map(|m| m.name.chars().count()).max().unwrap_or(0).min(60);
        let images = s.members.iter().map(|m| count(m.targets.len()).len()).max().unwrap_or(0);
        for m in &s.members {
            let n = images_column(m.targets.len(), images);
            let bytes = human_size(m.bytes());
            writeln!(out, "  {:<width$}  {n}  {bytes:>10}  {}", m.name, grouped_targets(&m.runs_on))?;
        }
        writeln!(out, "{} (no device code found); --tree lists every member", counted(others, "other member"))?;
    }
    writeln!(out)?;
    print_runs_on(out, &s.runs_on)?;
    print_holes(out, holes)?;
    print_diagnostics(out, &s.diagnostics)
}

/// The holes, a line per library and target: "libx.so: 52 kernels missing on gfx1100 of 12
/// targets". Nothing when no library has any.
pub fn print_holes(out: &mut impl Write, holes: &[LibraryHoles]) -> io::Result<()> {
    if holes.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "kernels missing on some targets of their library (`offload kernels --holes` lists them):")?;
    for h in holes {
        for line in h.lines() {
            writeln!(out, "  {}: {line}", h.library)?;
        }
    }
    Ok(())
}

/// The whole file's "runs on" lines: vendor, target, images, bytes, and the line's note.
pub fn print_runs_on(out: &mut impl Write, runs_on: &RunsOn) -> io::Result<()> {
    if runs_on.lines.is_empty() {
        return writeln!(out, "no device targets found");
    }
    let images: usize = runs_on.lines.iter().map(|l| l.images).sum();
    let bytes = runs_on.lines.iter().map(|l| l.bytes).fold(0, u64::saturating_add);
    writeln!(out, "runs on ({}, {}):", counted(images, "image"), human_size(bytes))?;
    let target = runs_on.lines.iter().map(|l| l.target.len()).max().unwrap_or(0);
    let count_width = runs_on.lines.iter().map(|l| count(l.images).len()).max().unwrap_or(0);
    for l in &runs_on.lines {
        let note = l.note.as_ref().map(|n| format!("  {n}")).unwrap_or_default();
        let n = images_column(l.images, count_width);
        let bytes = human_size(l.bytes);
        writeln!(out, "  {:<6}  {:<target$}  {n}  {bytes:>10}{note}", l.vendor.name(), l.target)?;
    }
    Ok(())
}

/// The grouped diagnostics: `3,175 × note: ...` for a group, as `--tree` prints it for one.
pub fn print_diagnostics(out: &mut impl Write, groups: &[Group]) -> io::Result<()> {
    if groups.is_empty() {
        return Ok(());
    }
    let total: usize = groups.iter().map(|g| g.count).sum();
    writeln!(out)?;
    writeln!(out, "diagnostics ({}):", count(total))?;
    for g in groups {
        if g.count == 1 {
            writeln!(out, "  {}", single(g))?;
            continue;
        }
        let mut place = match (g.members, &g.member) {
            (0, _) => String::new(),
            (1, Some(m)) => format!(" in {m}"),
            (n, _) => format!(" in {}", counted(n, "member")),
        };
        if !g.identical {
            place.push_str(if place.is_empty() { " " } else { "; " });
            place.push_str("numbers differ, the first is shown");
        }
        let place = if place.is_empty() { String::new() } else { format!(" —{place}") };
        writeln!(out, "  {} × {}: {} ({}){place}", count(g.count), g.severity.as_str(), g.example, g.label)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(12775), "12,775");
        assert_eq!(count(1234567), "1,234,567");
    }
}
