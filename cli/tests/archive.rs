//! `offload unbundle --type=a` and `offload extract --archive` against the LLVM 22 tools, on
//! inputs the tools make during the test: HIP `-fgpu-rdc` objects for three GPUs (with and
//! without `--offload-compress`), objects bundled by `clang-offload-bundler --type=o`, bundles
//! and compressed bundles as members, a plain host object, a long member name; GNU, BSD and
//! thin archives made by `llvm-ar`; OpenMP objects for `extract --archive`.
//!
//! Our device archives are compared member by member with what `clang-offload-bundler --type=a
//! --unbundle` writes for the same target: the bytes must be equal; the names differ by design
//! (ours: `<member stem>-<target id><ext>`; LLVM 22: `<stem>-<entry id><stem><ext>`), so members
//! are matched through the member and the entry they come from.
//! Tests that need a tool print why and return when it is missing.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use support::{exec, hosts, llvm_bin, must_in, offload_in, ours, read, tool, Out, Scratch};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A failure as the CLI promises it: exit 1, no panic, the message naming `names`.
fn assert_fails(o: &Out, names: &str) {
    assert_eq!(o.code, Some(1), "expected exit 1: {o:?}");
    assert!(!o.stderr.contains("panicked"), "panicked: {}", o.stderr);
    assert!(o.stderr.starts_with("offload: error: "), "{}", o.stderr);
    assert!(o.stderr.contains(names), "the error does not name {names:?}: {}", o.stderr);
}

// ---------------------------------------------------------------------------------------------
// Inputs, made once per test run by the real tools
// ---------------------------------------------------------------------------------------------

const LIB_A: &str = r#"#include "mini_hip.h"
__global__ void axpy(float a, const float *x, float *y, int n) { int i = TID(); if (i < n) y[i] = a * x[i] + y[i]; }
void run_axpy(float a, const float *x, float *y, int n) { axpy<<<1, 64>>>(a, x, y, n); }
"#;

const LIB_C: &str = r#"#include "mini_hip.h"
__device__ int table[4] = {1, 2, 3, 5};
__global__ void lookup(const int *idx, int *out) { out[TID()] = table[idx[TID()] & 3]; }
void run_lookup(const int *idx, int *out) { lookup<<<1, 64>>>(idx, out); }
"#;

const OMP: &str = r#"void scale(int n, float a, float *x) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] *= a;
}
"#;

const ARCHS: &str = "--offload-arch=gfx906:xnack-,gfx90a:xnack+,gfx1030";
/// The device targets the HIP inputs are for, as clang writes them, and two more spellings.
const T906: &str = "hip-amdgcn-amd-amdhsa--gfx906:xnack-";
const T90A: &str = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+";
const T1030: &str = "hip-amdgcn-amd-amdhsa--gfx1030";
const T90A_V4: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";

/// The members of the heterogeneous archives, in archive order.
const MEMBERS: &[&str] = &[
    "rdc_a.o",                              // clang -fgpu-rdc, three GPUs
    "rdc_c_compressed.o",                   // the same with --offload-compress
    "plain.o",                              // a host object without device code: skipped
    "bundled_by_bundler.o",                 // clang-offload-bundler --type=o, ELF host
    "device_bundle.bc",                     // clang-offload-bundler --type=bc
    "device_bundle_compressed.bc",          // the same with --compress (a CCOB member)
    "rdc_a_copy_with_a_long_member_name.o", // the name needs the // table
];

struct Inputs {
    dir: Scratch,
    bin: PathBuf,
}

impl Inputs {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path(name)
    }
    fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

/// Compiles and archives the inputs once; `None` (after saying why) without the tools.
fn inputs(test: &str) -> Option<&'static Inputs> {
    static INPUTS: OnceLock<Option<Inputs>> = OnceLock::new();
    let made = INPUTS.get_or_init(|| {
        let needed = ["clang-22", "clang-offload-bundler", "llvm-ar", "llvm-objcopy", "llvm-offload-binary"];
        let found: Vec<PathBuf> = needed.iter().filter_map(|t| tool(t, test)).collect();
        if found.len() != needed.len() {
            return None;
        }
        // Kept for the whole run (a static is never dropped), so it lives in Cargo's own
        // temporary directory and the next run starts by clearing it.
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("archive-test-inputs");
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        let dir = Scratch(path);
        let bin = llvm_bin();
        make_inputs(&dir, &bin);
        Some(Inputs { dir, bin })
    });
    if made.is_none() {
        println!("skipping {test}: the LLVM 22 tools are not all installed");
    }
    made.as_ref()
}

fn make_inputs(dir: &Scratch, bin: &Path) {
    let d = dir.dir();
    let run = |tool: &str, a: &[&str]| {
        must_in(d, &bin.join(tool), &args(a));
    };
    dir.write("mini_hip.h", hosts::MINI_HIP_H.as_bytes());
    dir.write("lib_a.hip", LIB_A.as_bytes());
    dir.write("lib_c.hip", LIB_C.as_bytes());
    dir.write("omp.c", OMP.as_bytes());
    dir.write("plain.c", b"int host_twice(int x) { return 2 * x; }\n");
    let hip = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-fgpu-rdc", ARCHS, "-c"];
    let with =
        |extra: &[&'static str]| -> Vec<&'static str> { hip.iter().copied().chain(extra.iter().copied()).collect() };
    run("clang-22", &with(&["lib_a.hip", "-o", "rdc_a.o"]));
    run("clang-22", &with(&["--offload-compress", "lib_c.hip", "-o", "rdc_c_compressed.o"]));
    run("clang-22", &["-O2", "-c", "plain.c", "-o", "plain.o"]);
    // Device bitcode of lib_c for two GPUs, bundled by the bundler three ways.
    for (arch, out) in [("gfx90a:xnack+", "dev_90a.bc"), ("gfx1030", "dev_1030.bc")] {
        let offload_arch = format!("--offload-arch={arch}");
        run(
            "clang-22",
            &[
                "-x",
                "hip",
                "-nogpulib",
                "-nogpuinc",
                "-O2",
                "--cuda-device-only",
                "-emit-llvm",
                "-c",
                &offload_arch,
                "lib_c.hip",
                "-o",
                out,
            ],
        );
    }
    let targets = format!("--targets=host-x86_64-unknown-linux-gnu,{T90A},{T1030}");
    run(
        "clang-offload-bundler",
        &[
            "--type=o",
            &targets,
            "--input=plain.o",
            "--input=dev_90a.bc",
            "--input=dev_1030.bc",
            "--output=bundled_by_bundler.o",
        ],
    );
    let device_targets = format!("--targets={T90A},{T1030}");
    run(
        "clang-offload-bundler",
        &["--type=bc", &device_targets, "--input=dev_90a.bc", "--input=dev_1030.bc", "--output=device_bundle.bc"],
    );
    run(
        "clang-offload-bundler",
        &[
            "--type=bc",
            "--compress",
            &device_targets,
            "--input=dev_90a.bc",
            "--input=dev_1030.bc",
            "--output=device_bundle_compressed.bc",
        ],
    );
    std::fs::copy(dir.path("rdc_a.o"), dir.path("rdc_a_copy_with_a_long_member_name.o")).unwrap();
    let archive = |flags: &[&str], name: &str| {
        let mut a: Vec<&str> = flags.to_vec();
        a.push(name);
        a.extend(MEMBERS);
        run("llvm-ar", &a);
    };
    archive(&["rc"], "gnu.a");
    archive(&["--format=bsd", "rc"], "bsd.a");
    archive(&["rcT"], "thin.a");
    // OpenMP objects for extract --archive.
    run("clang-22", &["-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-O2", "-c", "omp.c", "-o", "omp_gfx90a.o"]);
    run(
        "clang-22",
        &["-fopenmp", "--offload-arch=gfx90a:xnack+,gfx1030", "-nogpulib", "-O2", "-c", "omp.c", "-o", "omp_2arch.o"],
    );
}

// ---------------------------------------------------------------------------------------------
// Reading device archives with llvm-ar
// ---------------------------------------------------------------------------------------------

/// The members of `archive` as `llvm-ar` sees them: names in order, and bytes by name (`llvm-ar
/// x` into a fresh directory; every name in these archives is distinct).
fn llvm_ar_members(inp: &Inputs, archive: &Path, tag: &str) -> (Vec<String>, BTreeMap<String, Vec<u8>>) {
    let ar = inp.tool("llvm-ar");
    let names: Vec<String> = must_in(inp.dir.dir(), &ar, &args(&["t", &archive.display().to_string()]))
        .stdout
        .lines()
        .map(str::to_string)
        .collect();
    let out = inp.path(&format!("x-{tag}"));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    must_in(&out, &ar, &args(&["x", &archive.display().to_string()]));
    let bytes = names.iter().map(|n| (n.clone(), std::fs::read(out.join(n)).unwrap())).collect();
    std::fs::remove_dir_all(&out).unwrap();
    (names, bytes)
}

/// What `clang-offload-bundler` 22 calls a member: `<stem>-<entry id><stem><ext>`, `:` to `_`.
/// Returns the parent stem and the entry ID's last field (the target ID).
fn llvm_member_origin(name: &str, stems: &[&str]) -> (String, String) {
    for stem in stems {
        let Some(rest) = name.strip_prefix(&format!("{stem}-")) else { continue };
        let Some(dot) = rest.rfind('.') else { continue };
        let Some(entry) = rest[..dot].strip_suffix(stem) else { continue };
        let target_id = entry.splitn(6, '-').nth(5).unwrap_or("").to_string();
        return (stem.to_string(), target_id);
    }
    panic!("{name}: not a clang-offload-bundler 22 member name for any of {stems:?}")
}

fn stem(member: &str) -> &str {
    member.rsplit_once('.').map_or(member, |(s, _)| s)
}

/// Unbundles `input` for `target` with both tools and compares: `llvm-ar` reads ours, our
/// names follow `<stem>-<target id>.bc`, and every member has the bytes of LLVM's member from
/// the same parent and entry (parents as `llvm-ar t` lists the input). Returns our member
/// names, in archive order.
fn compare_with_bundler(inp: &Inputs, input: &str, target: &str, extra: &[&str]) -> Vec<String> {
    let tag = format!("{input}-{}", target.replace([':', '+'], "_"));
    let theirs = inp.path(&format!("theirs-{tag}.a"));
    let mine = inp.path(&format!("ours-{tag}.a"));
    let mut common_args = vec!["--type=a".to_string(), format!("--input={input}"), format!("--targets={target}")];
    common_args.extend(extra.iter().map(|s| s.to_string()));
    let mut reference = vec!["--unbundle".to_string(), format!("--output={}", theirs.display())];
    reference.extend(common_args.iter().cloned());
    must_in(inp.dir.dir(), &inp.tool("clang-offload-bundler"), &reference);
    let mut ours_args = vec!["unbundle".to_string(), format!("--output={}", mine.display())];
    ours_args.extend(common_args.iter().cloned());
    must_in(inp.dir.dir(), ours(), &ours_args);
    // clang-offload-bundler's own spelling, `bundle --unbundle`, goes to the same unbundling.
    let spelled = inp.path(&format!("ours-bundle-unbundle-{tag}.a"));
    let mut bundle_args =
        vec!["bundle".to_string(), "--unbundle".to_string(), format!("--output={}", spelled.display())];
    bundle_args.extend(common_args);
    must_in(inp.dir.dir(), ours(), &bundle_args);
    assert_eq!(read(&spelled), read(&mine), "{input} {target}: `bundle --unbundle` and `unbundle` differ");
    std::fs::remove_file(&spelled).unwrap();

    let (their_names, their_bytes) = llvm_ar_members(inp, &theirs, &format!("theirs-{tag}"));
    let (our_names, our_bytes) = llvm_ar_members(inp, &mine, &format!("ours-{tag}"));
    let ar = inp.tool("llvm-ar");
    let parents = must_in(inp.dir.dir(), &ar, &args(&["t", input])).stdout;
    let stems: Vec<&str> = parents.lines().map(stem).collect();
    let mut expected: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for name in &their_names {
        let (parent, target_id) = llvm_member_origin(name, &stems);
        let ours_name = format!("{parent}-{}.bc", target_id.replace(':', "_"));
        assert!(
            expected.insert(ours_name, their_bytes[name].clone()).is_none(),
            "{name}: two LLVM members map to one of ours"
        );
    }
    assert_eq!(
        our_bytes.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{input} {target}: our members versus clang-offload-bundler's {their_names:?}"
    );
    for (name, bytes) in &our_bytes {
        assert!(bytes == &expected[name], "{input} {target}: {name} differs from clang-offload-bundler's member");
    }
    std::fs::remove_file(&theirs).unwrap();
    std::fs::remove_file(&mine).unwrap();
    our_names
}

// ---------------------------------------------------------------------------------------------
// unbundle --type=a
// ---------------------------------------------------------------------------------------------

#[test]
fn unbundle_archive_matches_clang_offload_bundler_for_each_target() {
    let Some(inp) = inputs("unbundle_archive_matches_clang_offload_bundler_for_each_target") else { return };
    for input in ["gnu.a", "bsd.a"] {
        let gfx90a = compare_with_bundler(inp, input, T90A, &[]);
        // Every bundled member gives its gfx90a:xnack+ entry, in archive order; plain.o gives
        // nothing; the compressed bundle member is decompressed.
        assert_eq!(
            gfx90a,
            [
                "rdc_a-gfx90a_xnack+.bc",
                "rdc_c_compressed-gfx90a_xnack+.bc",
                "bundled_by_bundler-gfx90a_xnack+.bc",
                "device_bundle-gfx90a_xnack+.bc",
                "device_bundle_compressed-gfx90a_xnack+.bc",
                "rdc_a_copy_with_a_long_member_name-gfx90a_xnack+.bc",
            ],
            "{input}"
        );
        assert_eq!(compare_with_bundler(inp, input, T1030, &[]).len(), 6, "{input}");
        // Only the -fgpu-rdc objects have gfx906:xnack-.
        assert_eq!(compare_with_bundler(inp, input, T906, &[]).len(), 3, "{input}");
        // hipv4 asks for the same code as hip.
        assert_eq!(compare_with_bundler(inp, input, T90A_V4, &[]).len(), 6, "{input}");
    }
}

#[test]
fn unbundle_archive_for_several_targets_at_once() {
    let Some(inp) = inputs("unbundle_archive_for_several_targets_at_once") else { return };
    let together = [inp.path("t-90a.a"), inp.path("t-1030.a")];
    let a = vec![
        "unbundle".to_string(),
        "--type=a".into(),
        "--input=gnu.a".into(),
        format!("--targets={T90A},{T1030}"),
        format!("--output={}", together[0].display()),
        format!("--output={}", together[1].display()),
    ];
    must_in(inp.dir.dir(), ours(), &a);
    for (target, path) in [T90A, T1030].iter().zip(&together) {
        let alone = inp.path("t-alone.a");
        let b = args(&[
            "unbundle",
            "--type=a",
            "--input=gnu.a",
            &format!("--targets={target}"),
            &format!("--output={}", alone.display()),
        ]);
        must_in(inp.dir.dir(), ours(), &b);
        assert_eq!(std::fs::read(path).unwrap(), std::fs::read(&alone).unwrap(), "{target}");
    }
}

#[test]
fn missing_target_fails_naming_it_unless_allowed() {
    let Some(inp) = inputs("missing_target_fails_naming_it_unless_allowed") else { return };
    let out = inp.path("missing.a");
    let _ = std::fs::remove_file(&out);
    let missing = "hip-amdgcn-amd-amdhsa--gfx1100";
    let base = args(&[
        "unbundle",
        "--type=a",
        "--input=gnu.a",
        &format!("--targets={T90A},{missing}"),
        "--output=ok.a",
        &format!("--output={}", out.display()),
    ]);
    let o = offload_in(inp.dir.dir(), &base);
    assert_fails(&o, &format!("no compatible code object for {missing} in the archive"));
    for what in ["rdc_a.o: ", "plain.o: not bundled", "device_bundle_compressed.bc: "] {
        assert!(o.stderr.contains(what), "the error does not list {what:?}: {}", o.stderr);
    }
    assert!(!out.exists() && !inp.path("ok.a").exists(), "a failed unbundle wrote output");
    // The reference tool refuses too.
    let r = exec(
        &inp.tool("clang-offload-bundler"),
        &args(&["--unbundle", "--type=a", "--input=gnu.a", &format!("--targets={missing}"), "--output=/dev/null"]),
        &[],
        Some(inp.dir.dir()),
    );
    assert_eq!(r.code, Some(1), "{r:?}");

    // --allow-missing-bundles: an empty archive, exactly what clang-offload-bundler writes.
    let mut allowed = base.clone();
    allowed.push("--allow-missing-bundles".into());
    must_in(inp.dir.dir(), ours(), &allowed);
    let theirs = inp.path("missing-theirs.a");
    must_in(
        inp.dir.dir(),
        &inp.tool("clang-offload-bundler"),
        &args(&[
            "--unbundle",
            "--type=a",
            "--allow-missing-bundles",
            "--input=gnu.a",
            &format!("--targets={missing}"),
            &format!("--output={}", theirs.display()),
        ]),
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&theirs).unwrap());
    let (names, _) = llvm_ar_members(inp, &out, "missing");
    assert!(names.is_empty());
    assert!(!llvm_ar_members(inp, &inp.path("ok.a"), "missing-ok").0.is_empty());
    for p in [out, theirs, inp.path("ok.a")] {
        std::fs::remove_file(p).unwrap();
    }
}

/// Objects with conflicting target IDs, made with llvm-objcopy as the bundler would lay them
/// out (the bundler itself refuses to make them).
fn conflicting_archive(inp: &Inputs) -> PathBuf {
    let path = inp.path("conflicts.a");
    if path.exists() {
        return path;
    }
    let objcopy = inp.tool("llvm-objcopy");
    let add = |out: &str, sections: &[(&str, &str)]| {
        let mut a = Vec::new();
        for (id, file) in sections {
            a.push(format!("--add-section=__CLANG_OFFLOAD_BUNDLE__{id}={file}"));
        }
        a.push("plain.o".into());
        a.push(out.into());
        must_in(inp.dir.dir(), &objcopy, &a);
    };
    add(
        "conflict_90a.o",
        &[
            ("hip-amdgcn-amd-amdhsa--gfx90a", "dev_90a.bc"),
            (T90A, "dev_90a.bc"),
            ("host-x86_64-unknown-linux-gnu-", "/dev/null"),
        ],
    );
    add(
        "conflict_906.o",
        &[("hip-amdgcn-amd-amdhsa--gfx906:xnack-", "dev_90a.bc"), ("hip-amdgcn-amd-amdhsa--gfx906", "dev_90a.bc")],
    );
    must_in(
        inp.dir.dir(),
        &inp.tool("llvm-ar"),
        &args(&["rc", "conflicts.a", "rdc_a.o", "conflict_90a.o", "conflict_906.o"]),
    );
    path
}

#[test]
fn check_input_archive_reports_every_violation_with_its_member() {
    let Some(inp) = inputs("check_input_archive_reports_every_violation_with_its_member") else { return };
    let archive = conflicting_archive(inp);
    let input = format!("--input={}", archive.display());
    let out = inp.path("checked.a");
    let a = args(&[
        "unbundle",
        "--type=a",
        &input,
        &format!("--targets={T1030}"),
        &format!("--output={}", out.display()),
        "--check-input-archive",
    ]);
    let o = offload_in(inp.dir.dir(), &a);
    assert_fails(&o, "conflicts.a");
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert!(lines[0].contains("2 composition rules broken in 2 members"), "{}", o.stderr);
    assert!(lines.iter().any(|l| l.contains("member `conflict_90a.o`") && l.contains("gfx90a")), "{}", o.stderr);
    assert!(lines.iter().any(|l| l.contains("member `conflict_906.o`") && l.contains("gfx906")), "{}", o.stderr);
    assert!(!lines.iter().any(|l| l.contains("rdc_a.o")), "rdc_a.o follows the rules: {}", o.stderr);
    assert!(!out.exists());
    // clang-offload-bundler 22 also refuses, but names only the first member it finds.
    let r = exec(
        &inp.tool("clang-offload-bundler"),
        &args(&[
            "--unbundle",
            "--type=a",
            "--check-input-archive",
            &input,
            &format!("--targets={T1030}"),
            "--output=/dev/null",
        ]),
        &[],
        Some(inp.dir.dir()),
    );
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("conflict_90a.o") && !r.stderr.contains("conflict_906.o"), "{}", r.stderr);
    // Without the check both tools unbundle, and agree.
    assert_eq!(
        compare_with_bundler(inp, "conflicts.a", T90A, &[]),
        ["rdc_a-gfx90a_xnack+.bc", "conflict_90a-gfx90a.bc", "conflict_90a-gfx90a_xnack+.bc"]
    );
}

#[test]
fn thin_archive_is_refused_naming_its_members() {
    let Some(inp) = inputs("thin_archive_is_refused_naming_its_members") else { return };
    let out = inp.path("thin-out.a");
    let o = offload_in(
        inp.dir.dir(),
        &args(&[
            "unbundle",
            "--type=a",
            "--input=thin.a",
            &format!("--targets={T90A}"),
            &format!("--output={}", out.display()),
        ]),
    );
    assert_fails(&o, "thin.a");
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    for m in MEMBERS {
        assert!(o.stderr.contains(m), "the error does not name {m}: {}", o.stderr);
    }
    assert!(o.stderr.contains("other files"), "{}", o.stderr);
    assert!(!out.exists());
    // `list` shows the members and warns, without failing.
    let l = must_in(inp.dir.dir(), ours(), &args(&["list", "thin.a"]));
    assert!(l.stdout.contains("thin archive") && l.stdout.contains("member rdc_a.o (thin"), "{}", l.stdout);
}

#[test]
fn hip_openmp_compatible_lets_openmp_entries_serve_hip() {
    let Some(inp) = inputs("hip_openmp_compatible_lets_openmp_entries_serve_hip") else { return };
    let omp = "openmp-amdgcn-amd-amdhsa--gfx90a:xnack+";
    let bundler = inp.tool("clang-offload-bundler");
    let targets = format!("--targets=host-x86_64-unknown-linux-gnu,{omp}");
    must_in(
        inp.dir.dir(),
        &bundler,
        &args(&["--type=bc", &targets, "--input=/dev/null", "--input=dev_90a.bc", "--output=omp_entry.bc"]),
    );
    must_in(inp.dir.dir(), &inp.tool("llvm-ar"), &args(&["rc", "omp_entries.a", "omp_entry.bc"]));
    let plain = offload_in(
        inp.dir.dir(),
        &args(&["unbundle", "--type=a", "--input=omp_entries.a", &format!("--targets={T90A}"), "--output=x.a"]),
    );
    assert_fails(&plain, T90A);
    let r = exec(
        &bundler,
        &args(&["--unbundle", "--type=a", "--input=omp_entries.a", &format!("--targets={T90A}"), "--output=/dev/null"]),
        &[],
        Some(inp.dir.dir()),
    );
    assert_eq!(r.code, Some(1), "clang-offload-bundler without the option: {r:?}");
    let names = compare_with_bundler(inp, "omp_entries.a", T90A, &["--hip-openmp-compatible"]);
    assert_eq!(names, ["omp_entry-gfx90a_xnack+.bc"]);
}

#[test]
fn host_targets_and_bad_inputs_fail_cleanly() {
    let Some(inp) = inputs("host_targets_and_bad_inputs_fail_cleanly") else { return };
    let o = offload_in(
        inp.dir.dir(),
        &args(&["unbundle", "--type=a", "--input=gnu.a", "--targets=host-x86_64-unknown-linux-gnu", "--output=h.a"]),
    );
    assert_fails(&o, "host-x86_64-unknown-linux-gnu");
    // Not an archive, and a truncated one: the byte offset, what was expected, what was found.
    let o = offload_in(
        inp.dir.dir(),
        &args(&["unbundle", "--type=a", "--input=rdc_a.o", &format!("--targets={T90A}"), "--output=x.a"]),
    );
    assert_fails(&o, "rdc_a.o");
    assert!(o.stderr.contains("at byte 0") && o.stderr.contains("!<arch>"), "{}", o.stderr);
    let gnu = std::fs::read(inp.path("gnu.a")).unwrap();
    inp.dir.write("truncated.a", &gnu[..gnu.len() - 100]);
    let o = offload_in(
        inp.dir.dir(),
        &args(&["unbundle", "--type=a", "--input=truncated.a", &format!("--targets={T90A}"), "--output=x.a"]),
    );
    assert_fails(&o, "truncated.a");
    for word in ["at byte", "expected", "found"] {
        assert!(o.stderr.contains(word), "{}", o.stderr);
    }
    // An archive given with another --type is refused with a pointer to --type=a.
    let o = offload_in(
        inp.dir.dir(),
        &args(&["unbundle", "--type=o", "--input=gnu.a", &format!("--targets={T90A}"), "--output=x.o"]),
    );
    assert_fails(&o, "--type=a");
    assert!(!inp.path("x.a").exists() && !inp.path("h.a").exists());
}

#[test]
fn list_of_the_archive_and_of_our_device_archive() {
    let Some(inp) = inputs("list_of_the_archive_and_of_our_device_archive") else { return };
    let l = must_in(inp.dir.dir(), ours(), &args(&["list", "gnu.a"]));
    // Every bundled member's targets, with the member, in the table.
    for (member, count) in [
        ("rdc_a.o", 3),
        ("rdc_c_compressed.o", 3),
        ("bundled_by_bundler.o", 2),
        ("device_bundle.bc", 2),
        ("device_bundle_compressed.bc", 2),
    ] {
        let rows =
            l.stdout.lines().filter(|r| r.starts_with("  hip-") && r.split_whitespace().nth(4) == Some(member)).count();
        assert_eq!(rows, count, "{member}:\n{}", l.stdout);
    }
    assert!(l.stdout.contains("member plain.o"), "{}", l.stdout);
    let listed = must_in(inp.dir.dir(), ours(), &args(&["unbundle", "--type=a", "--list", "--input=gnu.a"]));
    let ids: Vec<&str> = listed.stdout.lines().collect();
    for t in [T906, T90A, T1030, "host-x86_64-pc-linux-gnu-"] {
        assert!(ids.contains(&t), "--list misses {t}: {ids:?}");
    }
    // Our own output lists as an archive of bitcode members.
    let out = inp.path("listed.a");
    must_in(
        inp.dir.dir(),
        ours(),
        &args(&[
            "unbundle",
            "--type=a",
            "--input=gnu.a",
            &format!("--targets={T1030}"),
            &format!("--output={}", out.display()),
        ]),
    );
    let l = must_in(inp.dir.dir(), ours(), &args(&["list", &out.display().to_string()]));
    assert_eq!(l.stdout.matches("LLVM bitcode").count(), 6, "{}", l.stdout);
    std::fs::remove_file(out).unwrap();
}

// ---------------------------------------------------------------------------------------------
// extract --archive
// ---------------------------------------------------------------------------------------------

#[test]
fn extract_archive_holds_what_llvm_offload_binary_archives() {
    let Some(inp) = inputs("extract_archive_holds_what_llvm_offload_binary_archives") else { return };
    let fixture = support::fixture("omp_elf_2arch.o");
    let objects = [inp.path("omp_gfx90a.o"), inp.path("omp_2arch.o"), fixture];
    for (i, object) in objects.iter().enumerate() {
        let file = object.display().to_string();
        let theirs = inp.path(&format!("lob-{i}.a"));
        must_in(
            inp.dir.dir(),
            &inp.tool("llvm-offload-binary"),
            &args(&[&file, "--archive", &format!("--image=file={},triple=amdgcn-amd-amdhsa", theirs.display())]),
        );
        let mine = inp.path(&format!("ours-{i}.a"));
        let o = must_in(inp.dir.dir(), ours(), &args(&["extract", &file, "--archive", &mine.display().to_string()]));
        // llvm-offload-binary names every member after the input path (all the same name), so
        // members are compared in order, through our reader; names are checked by llvm-ar.
        let their_members = members_in_order(&theirs);
        let our_members = members_in_order(&mine);
        assert_eq!(our_members.len(), their_members.len(), "{file}");
        assert!(!our_members.is_empty());
        for (ours_m, theirs_m) in our_members.iter().zip(&their_members) {
            assert!(ours_m.1 == theirs_m.1, "{file}: member {} differs from llvm-offload-binary's", ours_m.0);
            assert_eq!(theirs_m.0, file, "llvm-offload-binary names members after the input");
        }
        let stem = object.file_name().unwrap().to_string_lossy().into_owned();
        let (names, bytes) = llvm_ar_members(inp, &mine, &format!("extract-{i}"));
        for (name, (ours_name, data)) in names.iter().zip(&our_members) {
            assert_eq!(name, ours_name);
            assert!(name.starts_with(&format!("{stem}.amdgcn-amd-amdhsa-")) && name.ends_with(".bc"), "{name}");
            assert!(&bytes[name] == data);
            assert!(o.stdout.contains(&format!("({name})")), "{}", o.stdout);
        }
    }
}

/// Members of an archive in order (name, bytes), read with our reader.
fn members_in_order(path: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    let ar = offload::format::archive::ar::read(&bytes[..])
        .and_then(offload::format::archive::ar::Archive::complete)
        .unwrap();
    ar.members.iter().map(|m| (m.name.clone(), m.data(&bytes[..]).unwrap().to_vec())).collect()
}
