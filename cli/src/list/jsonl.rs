//! The JSON lines of `offload list --jsonl`, stable for scripts: one object per line, so that
//! a script reads a large package a member at a time, each with its `type` first.
//!
//! 1. `{type: "file", name, size, format, package, compression}`: `format` is a package's format
//!    (`zip`, `tar`, `deb`, `rpm`, `cpio`) or what any other file is (its container, as the
//!    tree's root says: `ELF 64-bit little-endian x86_64 relocatable`); `package` is true for a
//!    package, and `compression` names the stream around it (`gzip`, `zstd`, `xz`) or is null.
//! 2. For a package, one `{type: "member", name, size, images, bytes, targets: [target], runs_on:
//!    [line], diagnostics: [diagnostic]}` per member with device code, in file order (members of
//!    the packages inside it in their place); for any other file, one `{type: "target", ...}`
//!    per device target. A target has the fields of `list --json`'s `targets`; a diagnostic is
//!    `{severity, message, span}` as in `list --json`'s nodes, every one of the member and of
//!    what is inside it.
//! 3. `{type: "summary", package, members, members_with_device_code, other_members,
//!    nested_packages, images, bytes, runs_on: [line], diagnostics: [group], errors, warnings,
//!    notes}`: the member counts are null for a file that is not a package; `errors`,
//!    `warnings` and `notes` count diagnostics.
//!
//! A runs-on line is `{vendor, target, images, bytes, reach, note}` (`vendor`: `AMD`, `NVIDIA`,
//! `other`; `reach`: `native`, `generic`, `ptx`, `spirv`, `bitcode`, `other`; `note`: a sentence
//! or null). A diagnostic group is `{severity, count, message, pattern, identical, members}`:
//! `message` is the group's first, `pattern` the message with its numbers replaced by `#`,
//! `identical` whether every message is the first, `members` how many members they are in.

use super::summary::{self, Group, Summary};
use crate::json::{JsonDiagnostic, JsonTarget};
use offload::report::runs_on::{self, Reach, RunsOn, RunsOnLine};
use offload::report::targets::Target;
use offload::tree::{Diagnostic, Severity, Tree, Value};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::io::{self, Write};

/// Writes the lines of the file `name`, whose tree is `tree` and device images `found`.
pub fn write(out: &mut impl Write, name: &str, tree: &Tree, found: &[Target]) -> io::Result<()> {
    let package = Summary::of(tree, found);
    let (format, compression) = match &package {
        Some(s) => (s.package.format().to_string(), s.package.streams.first().cloned()),
        None => (what_file(tree), None),
    };
    line(
        out,
        &Map(vec![
            ("type", Val::Str("file")),
            ("name", Val::Str(name)),
            ("size", Val::U64(tree.root.span.size)),
            ("format", Val::Str(&format)),
            ("package", Val::Bool(package.is_some())),
            ("compression", Val::OptStr(compression.as_deref())),
        ]),
    )?;
    let other;
    let (runs_on, groups): (&RunsOn, &[Group]) = match &package {
        Some(s) => {
            for m in &s.members {
                line(
                    out,
                    &Map(vec![
                        ("type", Val::Str("member")),
                        ("name", Val::Str(&m.name)),
                        (
                            "size",
                            Val::OptU64(match m.node.get("size") {
                                Some(Value::Uint(n)) => Some(*n),
                                _ => None,
                            }),
                        ),
                        ("images", Val::U64(m.targets.len() as u64)),
                        ("bytes", Val::U64(m.bytes())),
                        ("targets", Val::Targets(&m.targets)),
                        ("runs_on", Val::RunsOn(&m.runs_on)),
                        ("diagnostics", Val::Diagnostics(&m.diagnostics)),
                    ]),
                )?;
            }
            (&s.runs_on, &s.diagnostics)
        }
        None => {
            for t in found {
                line(out, &TargetLine(t))?;
            }
            let mut all = Vec::new();
            tree.root.walk(&mut |n, _| all.extend(n.diagnostics.iter().map(|d| (None, n, d))));
            other = (runs_on::summarize_images(tree, found), summary::group_diagnostics(all.into_iter()));
            (&other.0, &other.1)
        }
    };
    let mut severities = [0u64; 3];
    tree.root.walk(&mut |n, _| {
        for d in &n.diagnostics {
            severities[d.severity as usize] += 1;
        }
    });
    let members = |f: fn(&Summary) -> usize| Val::OptU64(package.as_ref().map(|s| f(s) as u64));
    line(
        out,
        &Map(vec![
            ("type", Val::Str("summary")),
            ("package", Val::Bool(package.is_some())),
            ("members", members(|s| s.member_count)),
            ("members_with_device_code", members(|s| s.members.len())),
            ("other_members", members(|s| s.member_count - s.members.len())),
            ("nested_packages", members(|s| s.nested_packages)),
            ("images", Val::U64(found.len() as u64)),
            ("bytes", Val::U64(found.iter().map(|t| t.image_size).fold(0, u64::saturating_add))),
            ("runs_on", Val::RunsOn(runs_on)),
            ("diagnostics", Val::Groups(groups)),
            ("errors", Val::U64(severities[Severity::Error as usize])),
            ("warnings", Val::U64(severities[Severity::Warning as usize])),
            ("notes", Val::U64(severities[Severity::Note as usize])),
        ]),
    )?;
    out.flush()
}

/// What a file that is not a package is: its root's `container` field, else its first part.
fn what_file(tree: &Tree) -> String {
    let root = &tree.root;
    root.text("container")
        .map(String::from)
        .or_else(|| root.children.first().map(|c| c.label.clone()))
        .unwrap_or_else(|| "unknown".into())
}

/// One line: `value` as JSON, then a newline.
fn line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// The values of the lines' entries.
enum Val<'a> {
    Str(&'a str),
    OptStr(Option<&'a str>),
    U64(u64),
    OptU64(Option<u64>),
    Bool(bool),
    Targets(&'a [Target]),
    RunsOn(&'a RunsOn),
    Diagnostics(&'a [&'a Diagnostic]),
    Groups(&'a [Group]),
}

impl Serialize for Val<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Val::Str(v) => s.serialize_str(v),
            Val::OptStr(v) => v.serialize(s),
            Val::U64(v) => s.serialize_u64(*v),
            Val::OptU64(v) => v.serialize(s),
            Val::Bool(v) => s.serialize_bool(*v),
            Val::Targets(ts) => seq(s, ts.iter().map(JsonTarget)),
            Val::RunsOn(r) => seq(s, r.lines.iter().map(JsonRunsOn)),
            Val::Diagnostics(ds) => seq(s, ds.iter().map(|d| JsonDiagnostic(d))),
            Val::Groups(gs) => seq(s, gs.iter().map(JsonGroup)),
        }
    }
}

fn seq<S: Serializer, T: Serialize>(s: S, items: impl ExactSizeIterator<Item = T>) -> Result<S::Ok, S::Error> {
    let mut q = s.serialize_seq(Some(items.len()))?;
    for item in items {
        q.serialize_element(&item)?;
    }
    q.end()
}

/// A map written in the order of its entries.
struct Map<'a>(Vec<(&'static str, Val<'a>)>);

impl Serialize for Map<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// `{type: "target", ...}`: a target of a file that is not a package.
struct TargetLine<'a>(&'a Target);

impl Serialize for TargetLine<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", "target")?;
        JsonTarget(self.0).entries(&mut m)?;
        m.end()
    }
}

struct JsonRunsOn<'a>(&'a RunsOnLine);

impl Serialize for JsonRunsOn<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.0;
        let reach = match l.reach {
            Reach::Native => "native",
            Reach::Generic => "generic",
            Reach::Ptx => "ptx",
            Reach::SpirV => "spirv",
            Reach::Bitcode => "bitcode",
            Reach::Other => "other",
        };
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("vendor", l.vendor.name())?;
        m.serialize_entry("target", &l.target)?;
        m.serialize_entry("images", &l.images)?;
        m.serialize_entry("bytes", &l.bytes)?;
        m.serialize_entry("reach", reach)?;
        m.serialize_entry("note", &l.note)?;
        m.end()
    }
}

struct JsonGroup<'a>(&'a Group);

impl Serialize for JsonGroup<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let g = self.0;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("severity", g.severity.as_str())?;
        m.serialize_entry("count", &g.count)?;
        m.serialize_entry("message", &g.example)?;
        m.serialize_entry("pattern", &g.pattern)?;
        m.serialize_entry("identical", &g.identical)?;
        m.serialize_entry("members", &g.members)?;
        m.end()
    }
}
