//! End-to-end tests of the `offload` command: what a user runs and checks.
//!
//! Every test runs the built binary on the real fixtures in `tests/fixtures/` (made by
//! clang-22/llvm-22, see its README) or on files it writes into its own temporary directory.
//! Where a test compares with the LLVM 22 reference tools it looks for them in
//! `/usr/lib/llvm-22/bin` (or `$LLVM_BIN`) and skips that comparison, saying so, when a tool
//! is missing.

#[path = "../../tests/common/mod.rs"]
mod common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn ours() -> &'static str {
    env!("CARGO_BIN_EXE_offload")
}

fn fixture(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join("fixtures").join(name);
    assert!(p.is_file(), "missing fixture {}", p.display());
    p
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// A reference LLVM 22 tool, or `None` (with a message) when it is not installed.
fn llvm_tool(name: &str) -> Option<PathBuf> {
    let dir = std::env::var("LLVM_BIN").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into());
    let p = Path::new(&dir).join(name);
    if p.is_file() {
        Some(p)
    } else {
        println!("skipping the comparison with {name}: {} is missing", p.display());
        None
    }
}

/// A fresh directory under the system temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("offload-cli-test-{tag}-{}-{nanos}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("cannot create {}: {e}", p.display()));
        TempDir(p)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
        p
    }
    /// The names of the files in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Debug)]
struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Out {
    fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

fn exec(program: &Path, args: &[&str], env: &[(&str, &str)], cwd: Option<&Path>) -> Out {
    let mut c = Command::new(program);
    c.args(args);
    for v in common::BUNDLER_ENV {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    let o = c.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Out {
    exec(Path::new(ours()), args, &[], None)
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Out {
    exec(Path::new(ours()), args, env, None)
}

/// Runs our tool and requires success.
fn run_ok(args: &[&str]) -> Out {
    let o = run(args);
    assert!(o.ok(), "offload {args:?} failed: {o:?}");
    assert!(!o.stderr.contains("panicked"), "offload {args:?} panicked: {}", o.stderr);
    o
}

/// Runs a reference tool and requires success.
fn reference_ok(tool: &Path, args: &[&str]) -> Out {
    let o = exec(tool, args, &[], None);
    assert!(o.ok(), "{} {args:?} failed: {o:?}", tool.display());
    o
}

fn s(p: &Path) -> String {
    p.to_str().expect("test paths are UTF-8").to_string()
}

/// A failure as the CLI promises it: exit code 1, exactly one line on standard error naming
/// the file, never a panic; for format errors the line says where, what was expected and
/// what was found.
fn assert_clean_failure(o: &Out, args: &[&str], names: &str, format_error: bool) {
    assert_eq!(o.code, Some(1), "offload {args:?}: expected exit code 1, got {o:?}");
    assert!(!o.stderr.contains("panicked"), "offload {args:?} panicked: {}", o.stderr);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "offload {args:?}: expected exactly one line on stderr, got {:?}", o.stderr);
    let line = lines[0];
    assert!(line.contains(names), "offload {args:?}: the error does not name {names:?}: {line}");
    if format_error {
        for word in ["at byte", "expected", "found"] {
            assert!(line.contains(word), "offload {args:?}: the error does not say {word:?}: {line}");
        }
    }
}

/// The device target IDs of `offload list`'s table, with their kind and compression columns.
fn listed_targets(stdout: &str) -> Vec<(String, String, String)> {
    let mut lines = stdout.lines();
    let count: usize = loop {
        let l = lines.next().unwrap_or_else(|| panic!("no 'device targets (N):' line in:\n{stdout}"));
        if let Some(rest) = l.strip_prefix("device targets (") {
            break rest.trim_end_matches("):").parse().expect("a target count");
        }
    };
    let header = lines.next().expect("a table header");
    assert!(header.trim_start().starts_with("target"), "unexpected table header {header:?}");
    let rows: Vec<(String, String, String)> = lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[0].to_string(), cells[1].to_string(), cells.last().unwrap().to_string())
        })
        .collect();
    assert_eq!(rows.len(), count, "the table has {} rows but says {count}:\n{stdout}", rows.len());
    rows
}

fn ids(rows: &[(String, String, String)]) -> Vec<&str> {
    rows.iter().map(|r| r.0.as_str()).collect()
}

const HOST: &str = "host-x86_64-unknown-linux-gnu";
const GFX906: &str = "hipv4-amdgcn-amd-amdhsa--gfx906";
const GFX90A_XNACK: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
const HIP_906_XNACK_MINUS: &str = "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-";
const HIP_90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";

/// Flips bits of one byte of a copy of `bytes`.
fn corrupt(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[at] ^= 0x5a;
    v
}

// ---------------------------------------------------------------------------------------------
// 1. `offload list`, text
// ---------------------------------------------------------------------------------------------

#[test]
fn list_shows_the_device_targets_of_each_container() {
    let two_hip = [HIP_906_XNACK_MINUS, HIP_90A];
    let cases: &[(&str, Vec<&str>, &str)] = &[
        ("hip_elf_2arch_compressed.o", two_hip.to_vec(), "zstd"),
        ("libhip_3tu_compressed.so", two_hip.repeat(3), "zstd"),
        ("libhip_3tu_compressed.hipfb", two_hip.repeat(3), "zstd"),
        ("omp_elf_2arch.o", vec!["amdgcn-amd-amdhsa-gfx1030", "amdgcn-amd-amdhsa-gfx90a:xnack+"], "no"),
        ("offbin_concat2.offbin", vec!["nvptx64-nvidia-cuda-sm_80", "amdgcn-amd-amdhsa-gfx1030"], "no"),
        ("bundle_text.ll", vec![GFX906, GFX90A_XNACK], "no"),
        ("hip_coff_2arch.obj", two_hip.to_vec(), "no"),
        ("omp_embed_elf64be_ppc64.o", vec!["amdgcn-amd-amdhsa-gfx90a:xnack+"], "no"),
    ];
    for (name, expected, compression) in cases {
        let f = fixture(name);
        let o = run_ok(&["list", &s(&f)]);
        let rows = listed_targets(&o.stdout);
        assert_eq!(ids(&rows), *expected, "{name}: targets listed:\n{}", o.stdout);
        for (id, _, c) in &rows {
            assert_eq!(c, compression, "{name}: compression column of {id}");
            assert!(!id.starts_with("host-"), "{name}: a host entry is listed as a device target");
        }
    }
}

#[test]
fn list_shows_offload_kinds() {
    let o = run_ok(&["list", &s(&fixture("offbin_concat2.offbin"))]);
    let rows = listed_targets(&o.stdout);
    let kinds: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(kinds, ["cuda", "openmp"]);
    let o = run_ok(&["list", &s(&fixture("hip_elf_2arch_compressed.o"))]);
    assert!(listed_targets(&o.stdout).iter().all(|r| r.1 == "hipv4"), "{}", o.stdout);
}

/// A linked `.hip_fatbin` with three compressed bundles back to back: clang-offload-bundler 22
/// fails on it ("Src size is incorrect"); we list all six device images.
#[test]
fn list_reads_a_linked_hip_fatbin_the_reference_bundler_cannot() {
    let f = fixture("libhip_3tu_compressed.hipfb");
    let o = run_ok(&["list", &s(&f)]);
    assert_eq!(listed_targets(&o.stdout).len(), 6);
    assert_eq!(o.stdout.matches("compressed bundle v3").count(), 3, "{}", o.stdout);
    if let Some(bundler) = llvm_tool("clang-offload-bundler") {
        let r = exec(&bundler, &["--list", "--type=o", &format!("--input={}", s(&f))], &[], None);
        assert!(!r.ok(), "clang-offload-bundler now lists the linked .hip_fatbin; update the fixture README: {r:?}");
    }
}

/// Our device targets are the reference bundler's entry IDs without the host.
#[test]
fn list_agrees_with_reference_bundler_list() {
    let Some(bundler) = llvm_tool("clang-offload-bundler") else {
        return;
    };
    for (name, ty) in [
        ("hip_elf_2arch_compressed.hipfb", "o"),
        ("bundle_bin_align4096.bc", "bc"),
        ("bundle_text.i", "i"),
        ("ccob_zlib_v2.hipfb", "o"),
        ("hip_driver_bundle.hipi", "hipi"),
    ] {
        let f = fixture(name);
        let r = reference_ok(&bundler, &["--list", &format!("--type={ty}"), &format!("--input={}", s(&f))]);
        let want: BTreeSet<&str> = r.stdout.lines().filter(|l| !l.starts_with("host-")).collect();
        let o = run_ok(&["list", &s(&f)]);
        let rows = listed_targets(&o.stdout);
        let got: BTreeSet<&str> = ids(&rows).into_iter().collect();
        assert_eq!(got, want, "{name}");
        // And `offload unbundle --list` gives exactly the reference list, host included.
        let u = run_ok(&["unbundle", "--list", &format!("--type={ty}"), &format!("--input={}", s(&f))]);
        let want: BTreeSet<&str> = r.stdout.lines().collect();
        let got: BTreeSet<&str> = u.stdout.lines().collect();
        assert_eq!(got, want, "{name}: unbundle --list");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. `offload list --json`
// ---------------------------------------------------------------------------------------------

fn list_json(f: &Path) -> Value {
    let o = run_ok(&["list", "--json", &s(f)]);
    serde_json::from_str(&o.stdout)
        .unwrap_or_else(|e| panic!("offload list --json {} is not JSON: {e}\n{}", f.display(), o.stdout))
}

/// Checks the shape of every node and returns them all, depth first.
fn nodes(doc: &Value) -> Vec<&Value> {
    fn go<'a>(n: &'a Value, out: &mut Vec<&'a Value>) {
        assert!(n["kind"].is_string(), "node without kind: {n}");
        assert!(n["label"].is_string(), "node without label: {}", n["kind"]);
        assert!(n["offset"].is_u64(), "node without offset: {}", n["label"]);
        assert!(n["size"].is_u64(), "node without size: {}", n["label"]);
        assert!(n["fields"].is_object(), "node without fields: {}", n["label"]);
        assert!(n["diagnostics"].is_array(), "node without diagnostics: {}", n["label"]);
        let children = n["children"].as_array().unwrap_or_else(|| panic!("node without children: {}", n["label"]));
        out.push(n);
        for c in children {
            go(c, out);
        }
    }
    let mut out = Vec::new();
    go(&doc["root"], &mut out);
    out
}

fn of_kind<'a>(all: &[&'a Value], kind: &str) -> Vec<&'a Value> {
    all.iter().copied().filter(|n| n["kind"] == kind).collect()
}

#[test]
fn list_json_compressed_hip_object() {
    let doc = list_json(&fixture("hip_elf_2arch_compressed.o"));
    let all = nodes(&doc);
    assert_eq!(all[0]["kind"], "file");
    let cbs = of_kind(&all, "compressed-bundle");
    assert_eq!(cbs.len(), 1);
    let f = &cbs[0]["fields"];
    assert_eq!(f["version"], 3);
    assert_eq!(f["method"], "zstd");
    assert_eq!(f["hash_ok"], true);
    assert_eq!(f["uncompressed_size"], 18088, "hip_elf_2arch_compressed.hipfb decompresses to 18088 bytes");
    let entries: Vec<&str> =
        of_kind(&all, "bundle-entry").iter().map(|e| e["fields"]["id"].as_str().expect("fields.id")).collect();
    assert_eq!(entries, ["host-x86_64-unknown-linux-gnu-", HIP_906_XNACK_MINUS, HIP_90A]);
    let targets: Vec<&str> =
        doc["targets"].as_array().expect("targets").iter().map(|t| t["target_id"].as_str().unwrap()).collect();
    assert_eq!(targets, [HIP_906_XNACK_MINUS, HIP_90A]);
}

#[test]
fn list_json_offload_entries() {
    let doc = list_json(&fixture("omp_elf_2arch.o"));
    let all = nodes(&doc);
    let entries = of_kind(&all, "offload-entry");
    let arches: Vec<&str> = entries.iter().map(|e| e["fields"]["arch"].as_str().expect("fields.arch")).collect();
    assert_eq!(arches, ["gfx1030", "gfx90a:xnack+"]);
    let data = read(&fixture("omp_elf_2arch.o"));
    for e in &entries {
        let f = &e["fields"];
        assert_eq!(f["triple"], "amdgcn-amd-amdhsa");
        assert_eq!(f["image_kind"], "bitcode");
        assert_eq!(f["offload_kind"], "openmp");
        let strings = f["strings"].as_object().expect("fields.strings is an object");
        assert_eq!(strings["triple"], "amdgcn-amd-amdhsa");
        assert_eq!(strings["arch"], f["arch"]);
        // The image child's offset and size point at the bitcode in the file.
        let image = e["children"].as_array().unwrap().iter().find(|c| c["kind"] == "image").expect("an image child");
        assert_eq!(image["space"], 0);
        let (off, size) = (image["offset"].as_u64().unwrap() as usize, image["size"].as_u64().unwrap() as usize);
        assert_eq!(size as u64, f["image_size"].as_u64().unwrap());
        assert!(data[off..off + size].starts_with(b"BC\xC0\xDE"), "image at {off:#x} is not bitcode");
    }

    let doc = list_json(&fixture("offbin_hip_elf_keys.offbin"));
    let all = nodes(&doc);
    let entries = of_kind(&all, "offload-entry");
    assert_eq!(entries.len(), 1);
    let f = &entries[0]["fields"];
    assert_eq!(f["offload_kind"], "hip");
    assert_eq!(f["image_kind"], "object");
    assert_eq!(f["arch"], "gfx90a:xnack+");
    let strings = f["strings"].as_object().expect("fields.strings is an object");
    assert_eq!(strings["feature"], "+xnack");
    assert_eq!(strings["note"], "made-by-generate.sh");
    assert_eq!(strings["empty"], "");
    assert_eq!(strings.len(), 5, "triple, arch and three extra keys: {strings:?}");
}

#[test]
fn list_json_compressed_bundles() {
    for (name, version, method) in [
        ("ccob_zlib_v2.hipfb", 2, "zlib"),
        ("ccob_zstd_v2.hipfb", 2, "zstd"),
        ("ccob_zlib_v3.hipfb", 3, "zlib"),
        ("ccob_zstd_v1_derived.hipfb", 1, "zstd"),
        ("ccob_zstd_v3_text.ll", 3, "zstd"),
    ] {
        let doc = list_json(&fixture(name));
        let all = nodes(&doc);
        let cbs = of_kind(&all, "compressed-bundle");
        assert_eq!(cbs.len(), 1, "{name}");
        let f = &cbs[0]["fields"];
        assert_eq!(f["version"], version, "{name}");
        assert_eq!(f["method"], method, "{name}");
        assert_eq!(f["hash_ok"], true, "{name}");
        assert_eq!(of_kind(&all, "bundle-entry").len(), 3, "{name}");
    }
    let doc = list_json(&fixture("libhip_3tu_compressed.so"));
    let all = nodes(&doc);
    let cbs = of_kind(&all, "compressed-bundle");
    assert_eq!(cbs.len(), 3);
    for cb in cbs {
        assert_eq!(cb["fields"]["version"], 3);
        assert_eq!(cb["fields"]["hash_ok"], true);
    }
    assert_eq!(of_kind(&all, "bundle-entry").len(), 9);
    assert_eq!(doc["targets"].as_array().unwrap().len(), 6);
}

/// Bundle entries of an uncompressed bundle: offset and size are the bytes the reference
/// bundler unbundles.
#[test]
fn list_json_bundle_entry_spans_are_the_unbundled_bytes() {
    let f = fixture("bundle_bin_o_align4096.hipfb");
    let data = read(&f);
    let doc = list_json(&f);
    let all = nodes(&doc);
    let entries = of_kind(&all, "bundle-entry");
    assert_eq!(entries.len(), 3);
    let bundler = llvm_tool("clang-offload-bundler");
    let dir = TempDir::new("json-spans");
    for e in entries {
        let id = e["fields"]["id"].as_str().unwrap();
        let (off, size) = (e["offset"].as_u64().unwrap() as usize, e["size"].as_u64().unwrap() as usize);
        assert_eq!(e["fields"]["offset"].as_u64().unwrap() as usize, off);
        assert_eq!(off % 4096, 0, "{id}: entries of this fixture are 4096-aligned");
        let bytes = &data[off..off + size];
        if let Some(b) = &bundler {
            let out = dir.path("ref");
            reference_ok(
                b,
                &[
                    "--unbundle",
                    "--type=o",
                    &format!("--input={}", s(&f)),
                    &format!("--targets={id}"),
                    &format!("--output={}", s(&out)),
                ],
            );
            assert_eq!(bytes, &read(&out)[..], "{id}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn truncated_bundle_fails_with_one_clear_line() {
    let dir = TempDir::new("truncated");
    let trunc = dir.write("trunc.bc", &read(&fixture("bundle_bin.bc"))[..40]);
    let out = dir.path("out");
    let t = s(&trunc);
    let cases: Vec<Vec<String>> = vec![
        vec![
            "unbundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST}"),
            format!("--input={t}"),
            format!("--output={}", s(&out)),
        ],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={t}"),
            format!("--output={}", s(&out)),
        ],
        vec!["unbundle".into(), "--list".into(), "--type=bc".into(), format!("--input={t}")],
        vec!["compress".into(), t.clone(), "-o".into(), s(&out)],
        vec!["list".into(), t.clone()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_clean_failure(&o, &args, "trunc.bc", true);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
}

#[test]
fn corrupted_compressed_payload_fails_with_one_clear_line() {
    let dir = TempDir::new("corrupt-payload");
    let bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    // Byte 1000 is in the zstd payload (the header is 32 bytes).
    let bad = dir.write("bad.hipfb", &corrupt(&bytes, 1000));
    let out = dir.path("out");
    let b = s(&bad);
    let cases: Vec<Vec<String>> = vec![
        vec!["decompress".into(), b.clone(), "-o".into(), s(&out)],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={b}"),
            format!("--output={}", s(&out)),
        ],
        vec!["unbundle".into(), "--list".into(), "--type=o".into(), format!("--input={b}")],
        vec!["list".into(), b.clone()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_clean_failure(&o, &args, "bad.hipfb", true);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
}

#[test]
fn corrupted_compressed_header_fails_with_one_clear_line() {
    let dir = TempDir::new("corrupt-header");
    let bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    // 4: version, 6: method, 8: total size, 16: uncompressed size.
    for at in [4, 6, 8, 16] {
        let bad = dir.write("bad.hipfb", &corrupt(&bytes, at));
        let out = dir.path("out");
        let args = ["decompress", &s(&bad), "-o", &s(&out)];
        let o = run(&args);
        assert_clean_failure(&o, &args, "bad.hipfb", true);
        assert!(!out.exists(), "corrupted byte {at}: decompress wrote an output file");
    }
}

/// The stored hash (bytes 24..32 of a v3 header) no longer matches: the bundle decompresses
/// but is refused, and nothing is written.
#[test]
fn compressed_hash_mismatch_is_refused() {
    let dir = TempDir::new("hash");
    let bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    let bad = dir.write("badhash.hipfb", &corrupt(&bytes, 31));
    let out = dir.path("out");
    let b = s(&bad);
    let cases: Vec<Vec<String>> = vec![
        vec!["decompress".into(), b.clone(), "-o".into(), s(&out)],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={b}"),
            format!("--output={}", s(&out)),
        ],
        vec!["list".into(), b.clone()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_clean_failure(&o, &args, "badhash.hipfb", false);
        assert!(o.stderr.contains("hash"), "offload {args:?}: the error does not mention the hash: {}", o.stderr);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
    // `list --json` still shows the tree, with hash_ok false.
    let o = run(&["list", "--json", &b]);
    let doc: Value = serde_json::from_str(&o.stdout).expect("JSON even when the file is broken");
    let all = nodes(&doc);
    assert_eq!(of_kind(&all, "compressed-bundle")[0]["fields"]["hash_ok"], false);
}

#[test]
fn compressed_hash_mismatch_says_where_expected_and_found() {
    let dir = TempDir::new("hash-words");
    let bad = dir.write("badhash.hipfb", &corrupt(&read(&fixture("ccob_zstd_v3.hipfb")), 31));
    let out = dir.path("out");
    let b = s(&bad);
    for args in [
        vec!["decompress".to_string(), b.clone(), "-o".into(), s(&out)],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={b}"),
            format!("--output={}", s(&out)),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clean_failure(&run(&args), &args, "badhash.hipfb", true);
    }
}

#[test]
fn trailing_garbage_after_compressed_bundle_says_expected_and_found() {
    let dir = TempDir::new("trailing");
    let mut bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    bytes.extend_from_slice(b"garbage\n");
    let bad = dir.write("trailing.hipfb", &bytes);
    let args = ["decompress", &s(&bad), "-o", &s(&dir.path("out"))];
    let o = run(&args);
    assert_clean_failure(&o, &args, "trailing.hipfb", true);
    assert!(o.stderr.contains("1798"), "the error should point at byte 1798: {}", o.stderr);
}

#[test]
fn nonexistent_file_fails_with_one_clear_line() {
    let dir = TempDir::new("nonexistent");
    let missing = s(&dir.path("no-such-file.o"));
    let out = s(&dir.path("out"));
    let cases: Vec<Vec<String>> = vec![
        vec!["list".into(), missing.clone()],
        vec!["list".into(), "--json".into(), missing.clone()],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={missing}"),
            format!("--output={out}"),
        ],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={}", s(&fixture("bundle_text.i"))),
            format!("--input={missing}"),
            format!("--output={out}"),
        ],
        vec!["decompress".into(), missing.clone(), "-o".into(), out.clone()],
        vec!["compress".into(), missing.clone(), "-o".into(), out.clone()],
        vec!["extract".into(), missing.clone(), "-o".into(), out.clone()],
        vec![
            "package".into(),
            "-o".into(),
            out.clone(),
            format!("--image=file={missing},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"),
        ],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_clean_failure(&o, &args, "no-such-file.o", false);
        assert!(!dir.path("out").exists(), "offload {args:?} wrote an output");
    }
}

#[test]
fn unbundle_missing_target_fails_unless_allowed() {
    let dir = TempDir::new("missing-target");
    let f = fixture("bundle_bin_o.hipfb");
    let out = dir.path("gfx1100.co");
    let args_owned = [
        "unbundle".to_string(),
        "--type=o".into(),
        "--targets=hipv4-amdgcn-amd-amdhsa--gfx1100".into(),
        format!("--input={}", s(&f)),
        format!("--output={}", s(&out)),
    ];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = run(&args);
    assert_clean_failure(&o, &args, "bundle_bin_o.hipfb", false);
    assert!(o.stderr.contains("gfx1100"), "the error does not name the missing target: {}", o.stderr);
    assert!(!out.exists());

    // With --allow-missing-bundles: an empty file for the missing one, the others as usual.
    let present = dir.path("gfx906.co");
    let o = run_ok(&[
        "unbundle",
        "--type=o",
        &format!("--targets=hipv4-amdgcn-amd-amdhsa--gfx1100,{GFX906}"),
        &format!("--input={}", s(&f)),
        &format!("--output={}", s(&out)),
        &format!("--output={}", s(&present)),
        "--allow-missing-bundles",
    ]);
    assert!(o.stderr.is_empty(), "{}", o.stderr);
    assert_eq!(read(&out), b"", "the missing target's output is not empty");
    assert!(read(&present).starts_with(b"\x7fELF"), "the present target's output is not its code object");
    if let Some(bundler) = llvm_tool("clang-offload-bundler") {
        let r = dir.path("ref.co");
        reference_ok(
            &bundler,
            &[
                "--unbundle",
                "--type=o",
                &format!("--targets={GFX906}"),
                &format!("--input={}", s(&f)),
                &format!("--output={}", s(&r)),
            ],
        );
        assert_eq!(read(&present), read(&r));
    }
}

#[test]
fn bad_command_lines_fail_without_panicking() {
    let dir = TempDir::new("bad-args");
    let f = s(&fixture("bundle_bin_o.hipfb"));
    let out = s(&dir.path("out"));
    let cases: Vec<Vec<String>> = vec![
        vec![
            "unbundle".into(),
            "--type=zz".into(),
            format!("--targets={GFX906}"),
            format!("--input={f}"),
            format!("--output={out}"),
        ],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            "--targets=bogus".into(),
            format!("--input={f}"),
            format!("--output={out}"),
        ],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={f}"),
            format!("--output={out}"),
        ],
        vec!["compress".into(), f.clone(), "-o".into(), out.clone(), "--method=lz4".into()],
        vec!["extract".into(), f.clone(), "-o".into(), s(&dir.0), "--image=bogus".into()],
        vec!["package".into(), "-o".into(), out.clone(), "--image=triple=amdgcn-amd-amdhsa".into()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_eq!(o.code, Some(1), "offload {args:?}: {o:?}");
        assert!(!o.stderr.contains("panicked"), "offload {args:?} panicked: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "offload {args:?}: {}", o.stderr);
        assert!(!dir.path("out").exists(), "offload {args:?} wrote an output");
    }
}

/// Conflicting target IDs are refused with clang-offload-bundler's own message.
#[test]
fn bundle_refuses_conflicting_targets_like_reference() {
    let dir = TempDir::new("conflict");
    let inputs = [dir.write("h", b"h"), dir.write("a", b"a"), dir.write("b", b"b")];
    let out = dir.path("x.bc");
    let mut args: Vec<String> = vec!["--type=bc".into(), format!("--targets={HOST},{HIP_90A},{GFX90A_XNACK}")];
    args.extend(inputs.iter().map(|p| format!("--input={}", s(p))));
    args.push(format!("--output={}", s(&out)));
    let mut a: Vec<&str> = vec!["bundle"];
    a.extend(args.iter().map(String::as_str));
    let o = run(&a);
    assert_clean_failure(&o, &a, "conflicting targets", false);
    assert!(o.stderr.contains(HIP_90A) && o.stderr.contains(GFX90A_XNACK), "{}", o.stderr);
    assert!(!out.exists());
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let ra: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = exec(&b, &ra, &[], None);
        assert!(!r.ok(), "clang-offload-bundler accepted conflicting targets");
        let theirs = r.stderr.lines().next().unwrap_or("").split("error: ").nth(1).unwrap_or("").to_string();
        assert!(!theirs.is_empty() && o.stderr.trim_end().ends_with(&theirs), "ours: {}theirs: {}", o.stderr, r.stderr);
    }
}

#[test]
fn list_of_a_directory_says_it_is_a_directory() {
    let dir = TempDir::new("list-dir");
    let args = ["list", &s(&dir.0)];
    let o = run(&args);
    assert_clean_failure(&o, &args, &s(&dir.0), false);
    assert!(o.stderr.to_lowercase().contains("directory"), "{}", o.stderr);
    assert!(!o.stderr.contains("9223372036854775807"), "{}", o.stderr);
}

// ---------------------------------------------------------------------------------------------
// 4. bundle / unbundle round trips, against clang-offload-bundler
// ---------------------------------------------------------------------------------------------

const TARGETS3: [&str; 3] = [HOST, GFX906, GFX90A_XNACK];

/// Bundles `inputs` with ours (and the reference, when installed: byte-identical), then
/// unbundles each target with ours (and the reference): each gives back its input.
fn bundle_round_trip(dir: &TempDir, ty: &str, inputs: &[PathBuf], extra: &[&str]) {
    let bundler = llvm_tool("clang-offload-bundler");
    let targets = format!("--targets={}", TARGETS3.join(","));
    let out = dir.path(&format!("ours.{ty}"));
    let mut common: Vec<String> = vec![format!("--type={ty}"), targets];
    common.extend(inputs.iter().map(|p| format!("--input={}", s(p))));
    common.extend(extra.iter().map(|e| e.to_string()));
    let mut args = vec!["bundle".to_string()];
    args.extend(common.iter().cloned());
    args.push(format!("--output={}", s(&out)));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&a);
    let ours_bytes = read(&out);
    if let Some(b) = &bundler {
        let r = dir.path(&format!("ref.{ty}"));
        let mut rargs = common.clone();
        rargs.push(format!("--output={}", s(&r)));
        let ra: Vec<&str> = rargs.iter().map(String::as_str).collect();
        reference_ok(b, &ra);
        assert!(ours_bytes == read(&r), "type {ty} {extra:?}: our bundle differs from clang-offload-bundler's");
    }
    // --list
    let l = run_ok(&["unbundle", "--list", &format!("--type={ty}"), &format!("--input={}", s(&out))]);
    let listed: BTreeSet<&str> = l.stdout.lines().collect();
    let want: BTreeSet<&str> = ["host-x86_64-unknown-linux-gnu-", GFX906, GFX90A_XNACK].into_iter().collect();
    assert_eq!(listed, want, "type {ty}: unbundle --list");
    // Unbundle each target, ours and the reference's unbundler.
    for (target, input) in TARGETS3.iter().zip(inputs) {
        let u = dir.path("unbundled");
        run_ok(&[
            "unbundle",
            &format!("--type={ty}"),
            &format!("--targets={target}"),
            &format!("--input={}", s(&out)),
            &format!("--output={}", s(&u)),
        ]);
        assert!(read(&u) == read(input), "type {ty} {extra:?}: {target} does not round trip");
        if let Some(b) = &bundler {
            let r = dir.path("ref-unbundled");
            reference_ok(
                b,
                &[
                    "--unbundle",
                    &format!("--type={ty}"),
                    &format!("--targets={target}"),
                    &format!("--input={}", s(&out)),
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(
                read(&r) == read(input),
                "type {ty} {extra:?}: clang-offload-bundler unbundles {target} of our bundle differently"
            );
        }
    }
}

#[test]
fn text_bundles_round_trip_and_match_reference() {
    let dir = TempDir::new("text");
    let inputs = [
        dir.write("host.txt", b"int host(void) { return 0; }\n// a comment\n"),
        dir.write("gfx906.txt", b"define void @k() {\n  ret void\n}\n"),
        // No final newline, and an empty line inside.
        dir.write("gfx90a.txt", b"; device\n\n  .text"),
    ];
    for ty in ["i", "ii", "cui", "hipi", "d", "ll", "s"] {
        bundle_round_trip(&dir, ty, &inputs, &[]);
    }
}

#[test]
fn binary_bundles_round_trip_and_match_reference() {
    let dir = TempDir::new("binary");
    let noise = |n: usize, seed: u32| -> Vec<u8> {
        (0..n).map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8).collect()
    };
    // Not ELF: for --type=o the bundler then writes a plain binary bundle.
    let inputs = [
        dir.write("host.bin", &noise(3001, 1)),
        dir.write("gfx906.bin", &noise(100, 2)),
        dir.write("gfx90a.bin", &noise(5003, 3)),
    ];
    for ty in ["bc", "o", "gch", "ast"] {
        for align in ["--bundle-align=1", "--bundle-align=8", "--bundle-align=4096"] {
            bundle_round_trip(&dir, ty, &inputs, &[align]);
        }
    }
    // An empty host input, as clang's .hip_fatbin has.
    let empty = [dir.write("empty", b""), inputs[1].clone(), inputs[2].clone()];
    bundle_round_trip(&dir, "o", &empty, &["--bundle-align=4096"]);
}

/// What the fixture bundles made by clang-offload-bundler hold, unbundled by us, is what the
/// reference unbundles.
#[test]
fn unbundle_fixtures_like_reference() {
    let Some(bundler) = llvm_tool("clang-offload-bundler") else {
        return;
    };
    let dir = TempDir::new("unbundle-fixtures");
    for (name, ty) in [
        ("bundle_text.s", "s"),
        ("bundle_text.i", "i"),
        ("bundle_bin.bc", "bc"),
        ("hip_elf_2arch.hipfb", "o"),
        ("ccob_zstd_v3_text.ll", "ll"),
        ("ccob_zstd_v1_derived.hipfb", "o"),
        ("hip_driver_bundle.bc", "bc"),
    ] {
        let f = fixture(name);
        let input = format!("--input={}", s(&f));
        let list = reference_ok(&bundler, &["--list", &format!("--type={ty}"), &input]);
        for id in list.stdout.lines() {
            let (o, r) = (dir.path("ours"), dir.path("ref"));
            run_ok(&[
                "unbundle",
                &format!("--type={ty}"),
                &format!("--targets={id}"),
                &input,
                &format!("--output={}", s(&o)),
            ]);
            reference_ok(
                &bundler,
                &[
                    "--unbundle",
                    &format!("--type={ty}"),
                    &format!("--targets={id}"),
                    &input,
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(read(&o) == read(&r), "{name}: {id} differs from clang-offload-bundler");
        }
    }
}

#[test]
fn clang_style_single_dash_options() {
    let dir = TempDir::new("single-dash");
    let h = dir.write("h.bc", b"host bytes");
    let d = dir.write("d.bc", b"device bytes, more of them");
    let (single, double) = (dir.path("single.bc"), dir.path("double.bc"));
    let targets = format!("{HOST},{GFX906}");
    run_ok(&[
        "bundle",
        "-type=bc",
        &format!("-targets={targets}"),
        &format!("-input={}", s(&h)),
        &format!("-input={}", s(&d)),
        &format!("-output={}", s(&single)),
        "-bundle-align=16",
    ]);
    run_ok(&[
        "bundle",
        "--type=bc",
        &format!("--targets={targets}"),
        &format!("--input={}", s(&h)),
        &format!("--input={}", s(&d)),
        &format!("--output={}", s(&double)),
        "--bundle-align=16",
    ]);
    assert_eq!(read(&single), read(&double));
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let r = dir.path("ref.bc");
        reference_ok(
            &b,
            &[
                "-type=bc",
                &format!("-targets={targets}"),
                &format!("-input={}", s(&h)),
                &format!("-input={}", s(&d)),
                &format!("-output={}", s(&r)),
                "-bundle-align=16",
            ],
        );
        assert_eq!(read(&single), read(&r));
    }
    // Unbundle, both as `offload unbundle` and as `offload bundle -unbundle`, like the bundler.
    let u = dir.path("u");
    run_ok(&[
        "unbundle",
        "-type=bc",
        &format!("-targets={GFX906}"),
        &format!("-input={}", s(&single)),
        &format!("-output={}", s(&u)),
    ]);
    assert_eq!(read(&u), read(&d));
    std::fs::remove_file(&u).unwrap();
    run_ok(&[
        "bundle",
        "-unbundle",
        "-type=bc",
        &format!("-targets={HOST}"),
        &format!("-input={}", s(&single)),
        &format!("-output={}", s(&u)),
    ]);
    assert_eq!(read(&u), read(&h));
    let l = run_ok(&["bundle", "-list", "-type=bc", &format!("-input={}", s(&single))]);
    assert_eq!(
        l.stdout.lines().collect::<BTreeSet<_>>(),
        ["host-x86_64-unknown-linux-gnu-", GFX906].into_iter().collect()
    );
}

// ---------------------------------------------------------------------------------------------
// 5. --type=o with a real ELF host object
// ---------------------------------------------------------------------------------------------

#[test]
fn bundled_object_output_is_written_for_an_elf_host() {
    let dir = TempDir::new("elf-host");
    let src = dir.write("tiny.c", b"int tiny(void) { return 42; }\n");
    let obj = dir.path("tiny.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    match Command::new(&cc).args(["-c", &s(&src), "-o", &s(&obj)]).output() {
        Ok(o) if o.status.success() => {}
        other => {
            println!("skipping: cannot compile a C file with {cc}: {other:?}");
            return;
        }
    }
    assert!(read(&obj).starts_with(b"\x7fELF"), "cc did not make an ELF object");
    let dev = dir.write("dev.co", b"device code");
    let out = dir.path("bundled.o");
    run_ok(&[
        "bundle",
        "--type=o",
        &format!("--targets={HOST},{GFX906}"),
        &format!("--input={}", s(&obj)),
        &format!("--input={}", s(&dev)),
        &format!("--output={}", s(&out)),
    ]);
    // A bundled object: the host object with one section per entry (tests/host_edit.rs compares
    // it with clang-offload-bundler's byte for byte).
    let listed = run_ok(&["unbundle", "--type=o", "--list", &format!("--input={}", s(&out))]);
    assert_eq!(listed.stdout, format!("{HOST}-\n{GFX906}\n"));
    assert_eq!(dir.names(), ["bundled.o", "dev.co", "tiny.c", "tiny.o"], "stray files left behind");
}

// ---------------------------------------------------------------------------------------------
// 6. compress / decompress
// ---------------------------------------------------------------------------------------------

#[test]
fn compress_decompress_round_trip() {
    let dir = TempDir::new("compress");
    let bundler = llvm_tool("clang-offload-bundler");
    let input = fixture("bundle_bin_o.hipfb");
    let plain = read(&input);
    for (method, method_value) in [("zstd", 1u8), ("zlib", 0u8)] {
        for version in [1u8, 2u8, 3u8] {
            for level in [None, Some("1"), Some("9")] {
                let c = dir.path("c.hipfb");
                let mut args = vec![
                    "compress".to_string(),
                    s(&input),
                    "-o".into(),
                    s(&c),
                    format!("--method={method}"),
                    format!("--format-version={version}"),
                ];
                if let Some(l) = level {
                    args.push(format!("--level={l}"));
                }
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                run_ok(&a);
                let cbytes = read(&c);
                let what = format!("{method} v{version} level {level:?}");
                assert_eq!(&cbytes[..4], b"CCOB", "{what}");
                assert_eq!(&cbytes[4..6], &[version, 0], "{what}: version field");
                assert_eq!(&cbytes[6..8], &[method_value, 0], "{what}: method field");
                assert!(cbytes.len() < plain.len(), "{what}: not smaller than its input");
                let d = dir.path("d.hipfb");
                run_ok(&["decompress", &s(&c), "-o", &s(&d)]);
                assert!(read(&d) == plain, "{what}: does not decompress to its input");
                if let Some(b) = &bundler {
                    let l = reference_ok(b, &["--list", "--type=o", &format!("--input={}", s(&c))]);
                    let got: BTreeSet<&str> = l.stdout.lines().collect();
                    assert_eq!(
                        got,
                        ["host-x86_64-unknown-linux-gnu-", GFX906, GFX90A_XNACK].into_iter().collect(),
                        "{what}: clang-offload-bundler --list"
                    );
                    let r = dir.path("r.co");
                    reference_ok(
                        b,
                        &[
                            "--unbundle",
                            "--type=o",
                            &format!("--targets={GFX90A_XNACK}"),
                            &format!("--input={}", s(&c)),
                            &format!("--output={}", s(&r)),
                        ],
                    );
                    let o = dir.path("o.co");
                    run_ok(&[
                        "unbundle",
                        "--type=o",
                        &format!("--targets={GFX90A_XNACK}"),
                        &format!("--input={}", s(&input)),
                        &format!("--output={}", s(&o)),
                    ]);
                    assert!(read(&r) == read(&o), "{what}: clang-offload-bundler unbundles different bytes");
                }
            }
        }
    }
    // The zlib level is used: 9 compresses better than 1.
    let size = |level: &str| {
        let c = dir.path(&format!("zlib{level}"));
        run_ok(&["compress", &s(&input), "-o", &s(&c), "--method=zlib", &format!("--level={level}")]);
        read(&c).len()
    };
    assert!(size("9") < size("1"), "zlib --level has no effect");
}

#[test]
fn compress_text_bundle_round_trip() {
    let dir = TempDir::new("compress-text");
    let input = fixture("bundle_text.ll");
    let c = dir.path("c.ll");
    run_ok(&["compress", &s(&input), "-o", &s(&c)]);
    assert_eq!(&read(&c)[4..6], &[3, 0], "default format version is 3");
    let d = dir.path("d.ll");
    run_ok(&["decompress", &s(&c), "-o", &s(&d)]);
    assert!(read(&d) == read(&input));
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let l = reference_ok(&b, &["--list", "--type=ll", &format!("--input={}", s(&c))]);
        assert_eq!(l.stdout.lines().count(), 3, "{}", l.stdout);
    }
}

#[test]
fn decompress_fixtures_gives_the_bundle_back() {
    let dir = TempDir::new("decompress-fixtures");
    let plain = read(&fixture("bundle_bin_o.hipfb"));
    for name in [
        "ccob_zstd_v3.hipfb",
        "ccob_zstd_v3_level19.hipfb",
        "ccob_zstd_v2.hipfb",
        "ccob_zlib_v3.hipfb",
        "ccob_zlib_v2.hipfb",
        "ccob_zstd_v1_derived.hipfb",
    ] {
        let d = dir.path("d");
        run_ok(&["decompress", &s(&fixture(name)), "-o", &s(&d)]);
        assert!(read(&d) == plain, "{name} does not decompress to bundle_bin_o.hipfb");
    }
    let d = dir.path("t");
    run_ok(&["decompress", &s(&fixture("ccob_zstd_v3_text.ll")), "-o", &s(&d)]);
    assert!(read(&d) == read(&fixture("bundle_text.ll")));
}

#[test]
fn decompress_refuses_several_compressed_bundles() {
    let dir = TempDir::new("decompress-3");
    let out = dir.path("out");
    let f = s(&fixture("libhip_3tu_compressed.hipfb"));
    let args = ["decompress", &f, "-o", &s(&out)];
    let o = run(&args);
    assert_clean_failure(&o, &args, "libhip_3tu_compressed.hipfb", false);
    assert!(o.stderr.contains('3'), "the error does not say how many bundles: {}", o.stderr);
    assert!(!out.exists());
}

#[test]
fn compress_refuses_what_is_not_a_bundle() {
    let dir = TempDir::new("compress-refuse");
    let out = dir.path("out");
    for name in ["hip_elf_2arch.o", "omp_elf_2arch.offload"] {
        let args_owned = ["compress".to_string(), s(&fixture(name)), "-o".into(), s(&out)];
        let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_clean_failure(&o, &args, name, true);
        assert!(!out.exists());
    }
    let args_owned = ["compress".to_string(), s(&fixture("ccob_zstd_v3.hipfb")), "-o".into(), s(&out)];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = run(&args);
    assert_clean_failure(&o, &args, "ccob_zstd_v3.hipfb", false);
    assert!(o.stderr.contains("compressed"), "{}", o.stderr);
    assert!(!out.exists());
}

#[test]
fn bundle_compress_format_version_follows_environment() {
    let dir = TempDir::new("bundle-compress");
    let h = dir.write("h", &[7u8; 3000]);
    let d = dir.write("d", &(0..5000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>());
    let args = |out: &Path| -> Vec<String> {
        vec![
            "--type=o".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={}", s(&h)),
            format!("--input={}", s(&d)),
            format!("--output={}", s(out)),
            "--compress".into(),
        ]
    };
    let ours = |out: &Path, env: &[(&str, &str)]| {
        let mut a = vec!["bundle".to_string()];
        a.extend(args(out));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = run_env(&a, env);
        assert!(o.ok(), "{o:?}");
        read(out)
    };
    let v2 = ours(&dir.path("v2"), &[("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")]);
    assert_eq!(&v2[..4], b"CCOB");
    assert_eq!(&v2[4..6], &[2, 0], "COMPRESSED_BUNDLE_FORMAT_VERSION=2 gives version 2");
    let v3 = ours(&dir.path("v3"), &[]);
    assert_eq!(&v3[4..6], &[3, 0], "version 3 by default");
    let env_compress = ours(&dir.path("env"), &[("OFFLOAD_BUNDLER_COMPRESS", "1")]);
    assert_eq!(&env_compress[..4], b"CCOB");
    // Both decompress to the uncompressed bundle.
    let plain = dir.path("plain");
    let mut a = vec!["bundle".to_string()];
    a.extend(args(&plain));
    a.pop();
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    run_ok(&a);
    for c in ["v2", "v3"] {
        let out = dir.path(&format!("{c}.d"));
        run_ok(&["decompress", &s(&dir.path(c)), "-o", &s(&out)]);
        assert!(read(&out) == read(&plain), "{c}");
    }
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let r3 = dir.path("r3");
        let ra = args(&r3);
        let ra: Vec<&str> = ra.iter().map(String::as_str).collect();
        reference_ok(&b, &ra);
        assert_eq!(&read(&r3)[4..6], &[3, 0], "clang-offload-bundler 22 writes version 3 by default");
        let r2 = dir.path("r2");
        let ra = args(&r2);
        let ra: Vec<&str> = ra.iter().map(String::as_str).collect();
        let o = exec(&b, &ra, &[("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")], None);
        assert!(o.ok(), "{o:?}");
        assert_eq!(&read(&r2)[4..6], &[2, 0]);
        // The reference reads both of ours.
        for c in ["v2", "v3"] {
            let u = dir.path("u");
            reference_ok(
                &b,
                &[
                    "--unbundle",
                    "--type=o",
                    &format!("--targets={GFX906}"),
                    &format!("--input={}", s(&dir.path(c))),
                    &format!("--output={}", s(&u)),
                ],
            );
            assert!(read(&u) == read(&d), "{c}");
        }
    }
}

#[test]
fn unbundle_does_not_silently_drop_bundles_of_a_linked_hip_fatbin() {
    let f = s(&fixture("libhip_3tu_compressed.hipfb"));
    let args = ["unbundle", "--list", "--type=o", &format!("--input={f}")];
    let o = run(&args);
    // Either list the entries of all three bundles, or refuse like `offload decompress` does.
    if o.ok() {
        assert_eq!(o.stdout.lines().count(), 9, "only some bundles listed:\n{}", o.stdout);
    } else {
        assert_clean_failure(&o, &args, "libhip_3tu_compressed.hipfb", false);
    }
}

// ---------------------------------------------------------------------------------------------
// 7. package / extract
// ---------------------------------------------------------------------------------------------

/// A real AMDGPU code object, unbundled from a fixture.
fn code_object(dir: &TempDir) -> PathBuf {
    let p = dir.path("image.co");
    run_ok(&[
        "unbundle",
        "--type=o",
        &format!("--targets={HIP_90A}"),
        &format!("--input={}", s(&fixture("hip_elf_2arch.hipfb"))),
        &format!("--output={}", s(&p)),
    ]);
    assert!(read(&p).starts_with(b"\x7fELF"));
    p
}

#[test]
fn package_matches_llvm_offload_binary() {
    let dir = TempDir::new("package");
    let img = code_object(&dir);
    let bc = fixture("hip_driver_bundle.bc");
    let spec_sets: Vec<Vec<String>> = vec![
        vec![format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", s(&img))],
        vec![
            format!(
                "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=openmp,feature=+xnack,note=x",
                s(&img)
            ),
            format!("--image=file={},triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda", s(&bc)),
        ],
    ];
    let tool = llvm_tool("llvm-offload-binary");
    for specs in &spec_sets {
        let out = dir.path("ours.offbin");
        let mut a: Vec<&str> = vec!["package", "-o"];
        let o = s(&out);
        a.push(&o);
        a.extend(specs.iter().map(String::as_str));
        run_ok(&a);
        let ours_bytes = read(&out);
        assert_eq!(&ours_bytes[..4], b"\x10\xff\x10\xad");
        if let Some(t) = &tool {
            let r = dir.path("ref.offbin");
            let r_s = s(&r);
            let mut ra: Vec<&str> = vec!["-o", &r_s];
            ra.extend(specs.iter().map(String::as_str));
            reference_ok(t, &ra);
            assert!(ours_bytes == read(&r), "{specs:?}: differs from llvm-offload-binary");
        }
    }
    // What we packaged lists as what was asked.
    let out = dir.path("one.offbin");
    run_ok(&[
        "package",
        "-o",
        &s(&out),
        &format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", s(&img)),
    ]);
    let l = run_ok(&["list", &s(&out)]);
    let rows = listed_targets(&l.stdout);
    assert_eq!(rows, [("amdgcn-amd-amdhsa-gfx90a".to_string(), "hip".to_string(), "no".to_string())]);
}

#[test]
fn extract_writes_one_file_per_device_target() {
    let dir = TempDir::new("extract-hip");
    let out = dir.path("out"); // created by extract
    let f = fixture("hip_elf_2arch_compressed.o");
    run_ok(&["extract", &s(&f), "-o", &s(&out)]);
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    let bundler = llvm_tool("clang-offload-bundler");
    for id in [HIP_906_XNACK_MINUS, HIP_90A] {
        let safe = id.replace(':', "_");
        let matching: Vec<&String> =
            names.iter().filter(|n| n.contains(&format!("{safe}.")) || n.ends_with(&safe)).collect();
        assert_eq!(matching.len(), 1, "{id}: {names:?}");
        let name = matching[0];
        assert!(name.ends_with(".co"), "{name}: an AMDGPU code object without .co");
        assert!(!name.contains(':'), "{name}");
        let bytes = read(&out.join(name));
        assert!(bytes.starts_with(b"\x7fELF"), "{name}");
        if let Some(b) = &bundler {
            // The fixture is the .hip_fatbin section of the object (llvm-objcopy --dump-section).
            let r = dir.path("ref");
            reference_ok(
                b,
                &[
                    "--unbundle",
                    "--type=o",
                    &format!("--targets={id}"),
                    &format!("--input={}", s(&fixture("hip_elf_2arch_compressed.hipfb"))),
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(bytes == read(&r), "{name}: differs from clang-offload-bundler --unbundle");
        }
    }
}

#[test]
fn extract_filter_writes_only_matching_images() {
    let dir = TempDir::new("extract-filter");
    let out = dir.path("out");
    run_ok(&["extract", &s(&fixture("hip_elf_2arch_compressed.o")), "-o", &s(&out), "--image=arch=gfx90a"]);
    let names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].contains("gfx90a") && !names[0].contains("gfx906"), "{names:?}");
    assert!(names[0].ends_with(".co"));
    // A filter that matches nothing fails and writes nothing.
    let none = dir.path("none");
    let args_owned = [
        "extract".to_string(),
        s(&fixture("hip_elf_2arch_compressed.o")),
        "-o".into(),
        s(&none),
        "--image=arch=gfx1100".into(),
    ];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = run(&args);
    assert_clean_failure(&o, &args, "hip_elf_2arch_compressed.o", false);
    assert!(!none.exists() || std::fs::read_dir(&none).unwrap().next().is_none());
}

#[test]
fn extract_offload_binaries_like_llvm_offload_binary() {
    let dir = TempDir::new("extract-omp");
    let out = dir.path("out");
    let f = fixture("omp_elf_2arch.o");
    run_ok(&["extract", &s(&f), "-o", &s(&out)]);
    let ours: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), read(&e.path())))
        .collect();
    assert_eq!(ours.len(), 2, "{:?}", ours.iter().map(|o| &o.0).collect::<Vec<_>>());
    for arch in ["gfx1030", "gfx90a:xnack+"] {
        let safe = format!("amdgcn-amd-amdhsa-{}", arch.replace(':', "_"));
        let m: Vec<&(String, Vec<u8>)> = ours.iter().filter(|o| o.0.contains(&safe)).collect();
        assert_eq!(m.len(), 1, "{arch}");
        assert!(m[0].0.ends_with(".bc"), "{}: bitcode without .bc", m[0].0);
        assert!(m[0].1.starts_with(b"BC\xC0\xDE"));
    }
    let Some(tool) = llvm_tool("llvm-offload-binary") else {
        return;
    };
    // llvm-offload-binary extracts only with an --image filter and writes
    // `<input stem>-<triple>-<arch>.<index>.<ext>` into the current directory.
    let refdir = TempDir::new("extract-omp-ref");
    std::fs::copy(&f, refdir.path("omp_elf_2arch.o")).unwrap();
    let r = exec(&tool, &["omp_elf_2arch.o", "--image=triple=amdgcn-amd-amdhsa"], &[], Some(&refdir.0));
    assert!(r.ok(), "{r:?}");
    let refs: Vec<String> = refdir.names().into_iter().filter(|n| n != "omp_elf_2arch.o").collect();
    assert_eq!(refs.len(), 2, "llvm-offload-binary wrote {refs:?}");
    for name in refs {
        let arch = name
            .strip_prefix("omp_elf_2arch-amdgcn-amd-amdhsa-")
            .and_then(|rest| rest.rsplitn(3, '.').nth(2))
            .unwrap_or_else(|| panic!("unexpected llvm-offload-binary output name {name}"));
        let safe = format!("amdgcn-amd-amdhsa-{}", arch.replace(':', "_"));
        let mine = ours
            .iter()
            .find(|o| o.0.contains(&format!("{safe}.")))
            .unwrap_or_else(|| panic!("no extracted file for {arch}"));
        assert!(mine.1 == read(&refdir.path(&name)), "{arch}: differs from llvm-offload-binary's {name}");
    }
}

#[test]
fn list_heterogeneous_archive() {
    let o = run_ok(&["list", &s(&fixture("hip_rdc_archive.a"))]);
    let rows = listed_targets(&o.stdout);
    let got: BTreeSet<&str> = ids(&rows).into_iter().collect();
    assert_eq!(got, ["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a"].into_iter().collect());
    assert_eq!(rows.len(), 4, "two members, two device entries each");
}

#[test]
fn unbundle_archive_is_not_silently_empty() {
    let dir = TempDir::new("unbundle-a");
    let out = dir.path("gfx90a.a");
    let args_owned = [
        "unbundle".to_string(),
        "--type=a".into(),
        "--targets=hip-amdgcn-amd-amdhsa--gfx90a".into(),
        format!("--input={}", s(&fixture("hip_rdc_archive.a"))),
        format!("--output={}", s(&out)),
    ];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = run(&args);
    if o.ok() {
        let bytes = read(&out);
        assert!(
            bytes.starts_with(b"!<arch>\n") && bytes.len() > 8,
            "exit 0 but the output is not a device archive ({} bytes)",
            bytes.len()
        );
    } else {
        assert_clean_failure(&o, &args, "hip_rdc_archive.a", false);
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Output safety
// ---------------------------------------------------------------------------------------------

const SENTINEL: &[u8] = b"sentinel: must survive a failed command\n";

#[test]
fn failed_commands_leave_existing_outputs_untouched() {
    let dir = TempDir::new("sentinel");
    let trunc = dir.write("trunc.bc", &read(&fixture("bundle_bin.bc"))[..40]);
    let corrupted = dir.write("corrupt.hipfb", &corrupt(&read(&fixture("ccob_zstd_v3.hipfb")), 1000));
    let out = dir.write("out", SENTINEL);
    let out2 = dir.write("out2", SENTINEL);
    let o = s(&out);
    let bundle_o = s(&fixture("bundle_bin_o.hipfb"));
    let cases: Vec<Vec<String>> = vec![
        // The second target is missing: the first output must not be written either.
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906},hipv4-amdgcn-amd-amdhsa--gfx1100"),
            format!("--input={bundle_o}"),
            format!("--output={o}"),
            format!("--output={}", s(&out2)),
        ],
        vec![
            "unbundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST}"),
            format!("--input={}", s(&trunc)),
            format!("--output={o}"),
        ],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={}", s(&corrupted)),
            format!("--output={o}"),
        ],
        vec!["decompress".into(), s(&corrupted), "-o".into(), o.clone()],
        vec!["decompress".into(), s(&fixture("libhip_3tu_compressed.hipfb")), "-o".into(), o.clone()],
        vec!["decompress".into(), s(&fixture("bundle_bin.bc")), "-o".into(), o.clone()],
        vec!["compress".into(), s(&fixture("hip_elf_2arch.o")), "-o".into(), o.clone()],
        vec!["compress".into(), s(&trunc), "-o".into(), o.clone()],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={bundle_o}"),
            format!("--input={}", s(&dir.path("missing"))),
            format!("--output={o}"),
        ],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={bundle_o}"),
            format!("--output={o}"),
        ],
        vec![
            "package".into(),
            "-o".into(),
            o.clone(),
            format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a", s(&dir.path("missing"))),
        ],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&args);
        assert_eq!(r.code, Some(1), "offload {args:?} did not fail: {r:?}");
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert_eq!(read(&out), SENTINEL, "offload {args:?} changed the existing output");
        assert_eq!(read(&out2), SENTINEL, "offload {args:?} changed the existing output");
        assert_eq!(dir.names(), ["corrupt.hipfb", "out", "out2", "trunc.bc"], "offload {args:?} left files behind");
    }
}

#[test]
fn refused_bundled_object_leaves_existing_output_untouched() {
    let dir = TempDir::new("sentinel-elf");
    let src = dir.write("tiny.c", b"int tiny(void) { return 42; }\n");
    // A COFF host object: bundled objects are written for ELF hosts only.
    let obj = fixture("hip_coff_2arch.obj");
    let out = dir.write("bundled.o", SENTINEL);
    let r = run(&[
        "bundle",
        "--type=o",
        &format!("--targets={HOST},{GFX906}"),
        &format!("--input={}", s(&obj)),
        &format!("--input={}", s(&src)),
        &format!("--output={}", s(&out)),
    ]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert_eq!(read(&out), SENTINEL);
}

/// A successful command replaces the output completely (no stale tail of a longer file).
#[test]
fn successful_commands_replace_existing_outputs() {
    let dir = TempDir::new("replace");
    let out = dir.write("out", &vec![0xAB; 100_000]);
    run_ok(&["decompress", &s(&fixture("ccob_zstd_v3.hipfb")), "-o", &s(&out)]);
    assert!(read(&out) == read(&fixture("bundle_bin_o.hipfb")));
    assert_eq!(dir.names(), ["out"], "temporary files left behind");
}

/// `offload list big.so | head -1`: the reader goes away early; the tool must stop without a
/// panic message (it used to panic on the failed print).
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(ours())
        .arg("list")
        .arg(fixture("libhip_3tu_compressed.so"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
