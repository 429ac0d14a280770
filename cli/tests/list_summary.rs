//! `offload list` on a package: a summary by default (the members with device code and their
//! targets grouped by vendor, the other members counted, the targets, the notes grouped),
//! the whole tree with `--tree`, JSON lines with `--jsonl`. Every expectation is taken from
//! `offload list --json` on the same package, which stays as it was.
//!
//! The package is a wheel made by `zip` from real fixtures (HIP, OpenMP-style offload
//! binaries and CUDA objects and libraries) beside a text file and a Python file; the test is
//! skipped, with a message, when `zip` is not installed.

mod support;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{fixture, ours, Scratch};

fn has_zip() -> bool {
    Command::new("zip").arg("-v").output().is_ok_and(|o| o.status.success())
}

/// `pkg/lib/*` and `pkg/obj/*` from `files` (fixture, directory), a README and a Python file,
/// zipped (deflated, with directory entries) into `dir/name`.
fn wheel(dir: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = dir.join("tree");
    for (file, sub) in files {
        let to = root.join("pkg").join(sub);
        std::fs::create_dir_all(&to).unwrap();
        let base = Path::new(file).file_name().unwrap();
        std::fs::copy(fixture(file), to.join(base)).unwrap();
    }
    std::fs::write(root.join("pkg/README.txt"), "A package with GPU libraries.\n").unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "import os\nprint(os.name)\n").unwrap();
    let out = dir.join(name);
    let zip = Command::new("zip").current_dir(&root).args(["-q", "-r"]).arg(&out).arg("pkg").output().unwrap();
    assert!(zip.status.success(), "zip: {}", String::from_utf8_lossy(&zip.stderr));
    out
}

fn offload(args: &[&str], file: &Path) -> Output {
    Command::new(ours()).args(args).arg(file).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn list_json(file: &Path) -> Value {
    let out = offload(&["list", "--json"], file);
    assert!(out.status.success(), "list --json: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// How `list` names a target of `list --json`'s targets: `gfx906:xnack-`, `sm_80`, `compute_80`.
fn line_name(t: &Value) -> (String, String) {
    let triple = t["triple"].as_str().unwrap();
    if triple.starts_with("nvptx") {
        let id = t["target_id"].as_str().unwrap();
        return ("NVIDIA".into(), id.split(' ').next().unwrap().to_string());
    }
    assert!(triple.starts_with("amdgcn"), "a target of the fixtures: {t}");
    let (p, f) = (t["processor"].as_str().unwrap(), t["features"].as_str().unwrap());
    ("AMD".into(), if f.is_empty() { p.to_string() } else { format!("{p}:{f}") })
}

/// Every node of a `list --json` tree, depth first.
fn nodes(node: &Value) -> Vec<&Value> {
    let mut out = vec![node];
    for c in node["children"].as_array().unwrap() {
        out.extend(nodes(c));
    }
    out
}

/// What `list --json` says of the package: per member with device code, its targets by
/// vendor and image count; and how many members it has.
struct Expected {
    members: BTreeMap<String, (BTreeMap<String, BTreeSet<String>>, usize)>,
    member_count: usize,
}

fn expected(doc: &Value) -> Expected {
    let mut members: BTreeMap<String, (BTreeMap<String, BTreeSet<String>>, usize)> = BTreeMap::new();
    for t in doc["targets"].as_array().unwrap() {
        let (vendor, name) = line_name(t);
        let m = members.entry(t["member"].as_str().unwrap().to_string()).or_default();
        m.0.entry(vendor).or_default().insert(name);
        m.1 += 1;
    }
    let member_count = nodes(&doc["root"]).iter().filter(|n| n["kind"] == "package-member").count();
    Expected { members, member_count }
}

/// The member lines of the summary: name, image count, targets by vendor.
fn summary_members(text: &str) -> BTreeMap<String, (BTreeMap<String, BTreeSet<String>>, usize)> {
    let mut out = BTreeMap::new();
    let start = text.lines().position(|l| l.starts_with("members with device code")).expect("a members section");
    for line in text.lines().skip(start + 1).take_while(|l| l.starts_with("  ")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let name = words[0].to_string();
        let images: usize = words[1].replace(',', "").parse().unwrap();
        assert!(words[2].starts_with("image"), "{line}");
        // After the size (number and unit) come the targets: `AMD gfx906, gfx90a; NVIDIA sm_80`.
        let targets = words[5..].join(" ");
        let mut by_vendor = BTreeMap::new();
        for group in targets.split("; ") {
            let (vendor, names) = group.split_once(' ').unwrap();
            let names: BTreeSet<String> = names.split(", ").map(String::from).collect();
            by_vendor.insert(vendor.to_string(), names);
        }
        out.insert(name, (by_vendor, images));
    }
    out
}

const FILES: &[(&str, &str)] = &[
    ("libhip_3tu_compressed.so", "lib"),
    ("nvidia/libnv_2arch.so", "lib"),
    ("hip_elf_2arch.o", "obj"),
    ("hip_elf_newdriver_rdc.o", "obj"),
    ("offbin_two_images.offbin", "obj"),
    ("nvidia/nv_elf.o", "obj"),
    ("nvidia/nv_rdc.o", "obj"),
];

#[test]
fn a_package_is_summarised_with_its_members_targets_and_grouped_notes() {
    if !has_zip() {
        println!("skipping: zip is not installed");
        return;
    }
    let dir = Scratch::new("list_summary", "summary");
    let whl = wheel(dir.dir(), "gpu_pkg-1.0-py3-none-linux_x86_64.whl", FILES);
    let doc = list_json(&whl);
    let want = expected(&doc);
    assert_eq!(want.members.len(), FILES.len(), "every fixture has device code: {:?}", want.members.keys());

    let out = offload(&["list"], &whl);
    assert!(out.status.success(), "list: {}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(first.contains("zip package") && first.contains(&format!("{} members", want.member_count)), "{first}");

    // Exactly the members with device code, each with its targets grouped by vendor.
    assert_eq!(summary_members(&text), want.members, "{text}");
    let others = want.member_count - want.members.len();
    assert!(
        text.contains(&format!("\n{others} other members (no device code found); --tree lists every member\n")),
        "{text}"
    );
    // Members without device code are counted, not listed.
    assert!(!text.contains("README.txt") && !text.contains("__init__.py"), "{text}");

    // The whole file's targets, one line each.
    let all: BTreeSet<(String, String)> = doc["targets"].as_array().unwrap().iter().map(line_name).collect();
    let start = text.lines().position(|l| l.starts_with("runs on (")).expect("a runs-on section");
    let lines: BTreeSet<(String, String)> = text
        .lines()
        .skip(start + 1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_string(), w[1].to_string())
        })
        .collect();
    assert_eq!(lines, all, "{text}");

    // Diagnostics: each message repeated in the tree is printed once with its count.
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for n in nodes(&doc["root"]) {
        for d in n["diagnostics"].as_array().unwrap() {
            let key = (d["severity"].as_str().unwrap().to_string(), d["message"].as_str().unwrap().to_string());
            *counts.entry(key).or_default() += 1;
        }
    }
    let total: usize = counts.values().sum();
    assert!(counts.values().any(|&c| c > 1), "the fixtures repeat a note: {counts:?}");
    assert!(text.contains(&format!("\ndiagnostics ({total}):\n")), "{text}");
    for ((severity, message), count) in &counts {
        let shown = if *count == 1 { format!("  {severity}") } else { format!("  {count} × {severity}: {message}") };
        let found = text.lines().filter(|l| l.starts_with(&shown) && l.contains(message.as_str())).count();
        assert_eq!(found, 1, "`{message}` ({count} times) is one line: {text}");
    }
}

#[test]
fn tree_prints_the_whole_tree_and_json_lines_stream_the_members() {
    if !has_zip() {
        println!("skipping: zip is not installed");
        return;
    }
    let dir = Scratch::new("list_summary", "tree");
    let whl = wheel(dir.dir(), "gpu_pkg-1.0-py3-none-linux_x86_64.whl", FILES);
    let doc = list_json(&whl);
    let want = expected(&doc);

    // --tree: a line per node, the target table, every diagnostic.
    let tree = offload(&["list", "--tree"], &whl);
    assert!(tree.status.success());
    let text = stdout(&tree);
    let all = nodes(&doc["root"]);
    let targets = doc["targets"].as_array().unwrap().len();
    let diagnostics: usize = all.iter().map(|n| n["diagnostics"].as_array().unwrap().len()).sum();
    let lines = 1 + all.len() + 3 + targets + if diagnostics > 0 { 2 + diagnostics } else { 0 };
    assert_eq!(text.lines().count(), lines, "{text}");
    for n in &all {
        assert!(text.contains(n["label"].as_str().unwrap()), "{} is in the tree", n["label"]);
    }
    assert!(text.contains(&format!("\ndevice targets ({targets}):\n")), "{text}");

    // --jsonl: the file, a line per member with device code, the summary.
    let jsonl = offload(&["list", "--jsonl"], &whl);
    assert!(jsonl.status.success(), "{}", String::from_utf8_lossy(&jsonl.stderr));
    let lines: Vec<Value> =
        stdout(&jsonl).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"file"));
    assert_eq!(types.last(), Some(&"summary"));
    assert!(types[1..types.len() - 1].iter().all(|t| *t == "member"), "{types:?}");
    assert_eq!(types.len() - 2, want.members.len());
    assert_eq!(lines[0]["format"], "zip");
    assert_eq!(lines[0]["package"], true);
    assert_eq!(lines[0]["size"], std::fs::metadata(&whl).unwrap().len());
    for m in &lines[1..lines.len() - 1] {
        let name = m["name"].as_str().unwrap();
        let of_member: Vec<&Value> =
            doc["targets"].as_array().unwrap().iter().filter(|t| t["member"] == name).collect();
        assert_eq!(
            m["targets"].as_array().unwrap().iter().collect::<Vec<_>>(),
            of_member,
            "{name}: list --json's targets"
        );
        assert_eq!(m["images"], of_member.len());
        let bytes: u64 = of_member.iter().map(|t| t["image_size"].as_u64().unwrap()).sum();
        assert_eq!(m["bytes"], bytes);
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["members"], want.member_count);
    assert_eq!(summary["members_with_device_code"], want.members.len());
    assert_eq!(summary["other_members"], want.member_count - want.members.len());
    assert_eq!(summary["images"], targets);
    let grouped: u64 = summary["diagnostics"].as_array().unwrap().iter().map(|g| g["count"].as_u64().unwrap()).sum();
    assert_eq!(grouped as usize, diagnostics);

    // Not a package: the default output is the tree, and the JSON lines list its targets.
    let object = fixture("hip_elf_2arch_compressed.o");
    assert_eq!(stdout(&offload(&["list"], &object)), stdout(&offload(&["list", "--tree"], &object)));
    let lines: Vec<Value> =
        stdout(&offload(&["list", "--jsonl"], &object)).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let doc = list_json(&object);
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    let mut expected_types = vec!["file"];
    expected_types.extend(std::iter::repeat_n("target", doc["targets"].as_array().unwrap().len()));
    expected_types.push("summary");
    assert_eq!(types, expected_types);
    assert_eq!(lines[0]["package"], false);
    assert_eq!(lines.last().unwrap()["members"], Value::Null);
}

#[test]
fn errors_in_a_package_are_shown_and_fail_the_command() {
    if !has_zip() {
        println!("skipping: zip is not installed");
        return;
    }
    let dir = Scratch::new("list_summary", "errors");
    // A compressed bundle cut short, as one member beside a library.
    let bundle = std::fs::read(fixture("ccob_zstd_v3.hipfb")).unwrap();
    std::fs::write(dir.path("cut.hipfb"), &bundle[..bundle.len() / 2]).unwrap();
    std::fs::copy(fixture("hip_elf_2arch.o"), dir.path("hip_elf_2arch.o")).unwrap();
    let zip = Command::new("zip")
        .current_dir(dir.dir())
        .args(["-q", "broken.zip", "cut.hipfb", "hip_elf_2arch.o"])
        .output()
        .unwrap();
    assert!(zip.status.success());
    let file = dir.path("broken.zip");
    let errors: Vec<String> =
        nodes(&serde_json::from_slice::<Value>(&offload(&["list", "--json"], &file).stdout).unwrap()["root"])
            .iter()
            .flat_map(|n| n["diagnostics"].as_array().unwrap().iter())
            .filter(|d| d["severity"] == "error")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect();
    assert!(!errors.is_empty(), "a cut bundle is an error");
    for args in [&["list"][..], &["list", "--tree"], &["list", "--jsonl"], &["list", "--json"]] {
        let out = offload(args, &file);
        assert_eq!(out.status.code(), Some(1), "{args:?} fails on an error");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&errors[0]), "{args:?}: the first error is told");
    }
    let text = stdout(&offload(&["list"], &file));
    assert!(
        text.lines().any(|l| l.starts_with("  error") && l.contains(&errors[0]) && l.contains("cut.hipfb")),
        "{text}"
    );
    assert!(text.contains("hip_elf_2arch.o"), "the readable member is still listed: {text}");
}
