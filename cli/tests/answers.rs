//! `offload diff` and `offload sizes` on files made by the real tools, checked against what the
//! LLVM 22 tools read in them: two HIP builds of the same source for different GPUs (clang-22,
//! no ROCm), and two ROCm builds of the same library from PyPI (cupy for ROCm 4.3 and 5.0,
//! downloaded once into the cache `real_libraries.rs` uses; without a network that test says so
//! and checks nothing). The reference target lists come from `llvm-objdump --offloading` and
//! `clang-offload-bundler --list`; a reference that dies by a signal gave no answer.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use support::{fixture, hosts, llvm_bin, must, offload, run, s, wheels, Out, Scratch};

fn json_of(out: &Out) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr))
}

fn strings(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// Kernels that change between the "old" and the "new" source (`-DNEW`): one goes, one comes,
/// one uses twice the LDS, one stays as it is.
const SOURCE: &str = r#"#include "mini_hip.h"
__global__ void kept(float *x, float a) { x[TID()] *= a; }
#ifdef NEW
__global__ void added(int *x) { x[TID()] = BID(); }
#define LDS 512
#else
__global__ void removed(int *x) { x[TID()] = -BID(); }
#define LDS 256
#endif
__global__ void lds(const int *in, int *out) {
  __shared__ int tmp[LDS];
  tmp[TID()] = in[BID() * LDS + TID()];
  __builtin_amdgcn_s_barrier();
  out[BID()] = tmp[(TID() + 1) % LDS];
}
"#;

/// Compiles `SOURCE` with clang-22 for `archs` (no ROCm: `-nogpulib -nogpuinc` and the few
/// declarations of `tests/images/mini_hip.h`), as an object with a `.hip_fatbin`.
fn hip_object(work: &Scratch, out: &str, archs: &[&str], extra: &[&str]) -> String {
    work.write("mini_hip.h", hosts::MINI_HIP_H.as_bytes());
    work.write("k.hip", SOURCE.as_bytes());
    let mut args: Vec<String> =
        ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-g0", "-cuid=answers", "-c"].map(String::from).to_vec();
    args.extend(archs.iter().map(|a| format!("--offload-arch={a}")));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([s(&work.path("k.hip")), "-o".into(), s(&work.path(out))]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    must(&llvm_bin().join("clang"), &args);
    s(&work.path(out))
}

/// The device entry IDs `llvm-objdump --offloading` finds in `file` (it extracts each entry
/// beside its input, named `<input>.<n>.<entry id>`, so it runs on a copy in its own folder).
fn objdump_ids(file: &str) -> BTreeSet<String> {
    let dir = PathBuf::from(format!("{file}.objdump"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("f");
    fs::copy(file, &copy).unwrap();
    let out = run(&llvm_bin().join("llvm-objdump"), &["--offloading", copy.to_str().unwrap()]);
    assert!(out.code.is_some(), "llvm-objdump died by a signal on {file}: no answer to compare with");
    assert!(out.ok(), "llvm-objdump --offloading {file}: {}", out.stderr);
    let prefix = format!("Extracting offload bundle: {}.", copy.display());
    let ids = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|rest| rest.split_once('.').map(|(_, id)| id.to_string()))
        .filter(|id| !id.starts_with("host-"))
        .collect();
    let _ = fs::remove_dir_all(&dir);
    ids
}

/// The device entry IDs `clang-offload-bundler --list` reads in the `.hip_fatbin` of `file`.
fn bundler_ids(file: &str, work: &Scratch) -> Option<BTreeSet<String>> {
    let section = s(&work.path("hip_fatbin.bin"));
    let dump = format!(".hip_fatbin={section}");
    must(&llvm_bin().join("llvm-objcopy"), &["--dump-section", &dump, file, &s(&work.path("host.o"))]);
    let input = format!("--input={section}");
    let listed = run(&llvm_bin().join("clang-offload-bundler"), &["--list", "--type=o", &input]);
    if listed.code.is_none() {
        eprintln!("clang-offload-bundler --list died by a signal on {file}: no answer to compare with");
        return None;
    }
    assert!(listed.ok(), "clang-offload-bundler --list: {}", listed.stderr);
    Some(listed.stdout.lines().filter(|l| !l.is_empty() && !l.starts_with("host-")).map(String::from).collect())
}

/// `offload diff --json OLD NEW` against the reference lists of both files.
fn check_diff_against(
    old: &str,
    new: &str,
    old_ids: &BTreeSet<String>,
    new_ids: &BTreeSet<String>,
) -> serde_json::Value {
    let out = offload(&["diff", "--json", old, new]);
    let doc = json_of(&out);
    let expected_added: BTreeSet<String> = new_ids.difference(old_ids).cloned().collect();
    let expected_removed: BTreeSet<String> = old_ids.difference(new_ids).cloned().collect();
    let expected_common: BTreeSet<String> = old_ids.intersection(new_ids).cloned().collect();
    assert_eq!(strings(&doc["targets"]["added"]), expected_added, "added");
    assert_eq!(strings(&doc["targets"]["removed"]), expected_removed, "removed");
    assert_eq!(strings(&doc["targets"]["common"]), expected_common, "common");
    let equal = doc["equal"].as_bool().unwrap();
    assert_eq!(out.code, Some(if equal { 0 } else { 1 }), "{}", out.stderr);
    doc
}

#[test]
fn diff_of_two_hip_builds_reports_the_targets_llvm_objdump_lists() {
    let work = Scratch::new("answers", "diff-builds");
    let old = hip_object(&work, "old.o", &["gfx906:xnack-", "gfx90a", "gfx1030"], &["--offload-compress"]);
    let new = hip_object(&work, "new.o", &["gfx90a", "gfx1100", "gfx1201"], &["--offload-compress", "-DNEW"]);
    let (old_ids, new_ids) = (objdump_ids(&old), objdump_ids(&new));
    assert_eq!(old_ids.len(), 3, "{old_ids:?}");
    let doc = check_diff_against(&old, &new, &old_ids, &new_ids);
    assert_eq!(doc["equal"], false);
    assert_eq!(strings(&doc["targets"]["common"]), BTreeSet::from(["hipv4-amdgcn-amd-amdhsa--gfx90a".to_string()]));
    // Each target has its size on both sides; an added one had nothing before.
    let sizes = doc["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 5);
    let gfx1201 = sizes.iter().find(|s| s["target"] == "hipv4-amdgcn-amd-amdhsa--gfx1201").unwrap();
    assert_eq!((gfx1201["old_bytes"].as_u64(), gfx1201["old_images"].as_u64()), (Some(0), Some(0)));
    assert_eq!(gfx1201["delta"], gfx1201["new_bytes"]);
}

#[test]
fn diff_of_the_same_build_compressed_or_not_is_equal() {
    let work = Scratch::new("answers", "diff-equal");
    let plain = hip_object(&work, "plain.o", &["gfx90a", "gfx1100"], &[]);
    let compressed = hip_object(&work, "compressed.o", &["gfx90a", "gfx1100"], &["--offload-compress"]);
    let ids = objdump_ids(&plain);
    assert_eq!(ids, objdump_ids(&compressed));
    let doc = check_diff_against(&plain, &compressed, &ids, &ids);
    assert_eq!(doc["equal"], true);
    assert!(doc["images"].as_array().unwrap().iter().all(|i| i["equal"] == true));
    let text = offload(&["diff", &plain, &compressed]);
    assert_eq!(text.code, Some(0));
    let stdout = &text.stdout;
    assert!(stdout.contains("targets: 0 added, 0 removed, 2 common"), "{stdout}");
    assert!(stdout.trim_end().ends_with("device contents are equal"), "{stdout}");
}

#[test]
fn diff_lists_kernels_added_removed_and_changed() {
    let work = Scratch::new("answers", "diff-kernels");
    let old = hip_object(&work, "old.o", &["gfx90a"], &[]);
    let new = hip_object(&work, "new.o", &["gfx90a"], &["-DNEW"]);
    let out = offload(&["diff", "--json", &old, &new]);
    assert_eq!(out.code, Some(1));
    let doc = json_of(&out);
    let names = |list: &serde_json::Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|k| format!("{} {}", k["target"].as_str().unwrap(), k["name"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(names(&doc["kernels"]["added"]), ["gfx90a _Z5addedPi"]);
    assert_eq!(names(&doc["kernels"]["removed"]), ["gfx90a _Z7removedPi"]);
    let changed = doc["kernels"]["changed"].as_array().unwrap();
    let lds = changed.iter().find(|k| k["name"] == "_Z3ldsPKiPi").expect("the LDS kernel changed");
    assert_eq!((lds["old"]["lds"].as_u64(), lds["new"]["lds"].as_u64()), (Some(1024), Some(2048)));
    assert!(!changed.iter().any(|k| k["name"] == "_Z4keptPff"), "an unchanged kernel is not listed: {changed:?}");
    let text = offload(&["diff", &old, &new]);
    let stdout = &text.stdout;
    assert!(stdout.contains("kernels: 1 added, 1 removed, 1 changed"), "{stdout}");
    assert!(stdout.contains("~ gfx90a  _Z3ldsPKiPi: lds 1024 -> 2048"), "{stdout}");
    assert!(stdout.contains("~ hipv4-amdgcn-amd-amdhsa--gfx90a"), "{stdout}");
}

#[test]
fn diff_exits_2_when_a_file_cannot_be_read() {
    let fixture = fixture("hip_elf_2arch.o");
    let out = offload(&["diff", fixture.to_str().unwrap(), "/nonexistent/offload-answers"]);
    assert_eq!(out.code, Some(2));
    let stderr = &out.stderr;
    assert!(stderr.contains("/nonexistent/offload-answers: cannot read"), "{stderr}");
}

#[test]
fn sizes_drop_writes_a_file_the_reference_tools_read_with_exactly_the_rest() {
    let work = Scratch::new("answers", "sizes-drop");
    for (name, extra) in [("plain.o", &[][..]), ("compressed.o", &["--offload-compress"][..])] {
        let input = hip_object(&work, name, &["gfx906:xnack-", "gfx90a", "gfx1030"], extra);
        let output = s(&work.path(&format!("dropped-{name}")));
        let out = offload(&["sizes", "--json", &input, "--drop", "gfx906,gfx1030", "-o", &output]);
        assert!(out.ok(), "{}", out.stderr);
        let doc = json_of(&out);
        let kept = BTreeSet::from(["hipv4-amdgcn-amd-amdhsa--gfx90a".to_string()]);
        assert_eq!(objdump_ids(&output), kept, "{name}: llvm-objdump --offloading");
        if let Some(listed) = bundler_ids(&output, &work) {
            assert_eq!(listed, kept, "{name}: clang-offload-bundler --list");
        }
        let written = fs::metadata(&output).unwrap().len();
        assert_eq!(doc["drop"]["size"].as_u64(), Some(written), "{name}: the exact size is the size written");
        assert_eq!(
            strings(&doc["drop"]["removed_entries"]),
            BTreeSet::from([
                "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-".into(),
                "hipv4-amdgcn-amd-amdhsa--gfx1030".into()
            ])
        );
        assert!(doc["drop"]["device_stored_after"].as_u64() < doc["drop"]["device_stored"].as_u64());
        // The written file, measured again, holds gfx90a alone.
        let again = json_of(&offload(&["sizes", "--json", &output]));
        let targets: Vec<&str> =
            again["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect();
        assert_eq!(targets, ["gfx90a"]);
    }
}

#[test]
fn sizes_drop_removes_offload_binaries_as_llvm_objdump_reads_them() {
    let work = Scratch::new("answers", "sizes-offbin");
    let input = fixture("omp_elf_2arch.o");
    let output = s(&work.path("omp.o"));
    let out = offload(&["sizes", input.to_str().unwrap(), "--drop", "gfx1030", "-o", &output]);
    assert!(out.ok(), "{}", out.stderr);
    let listed = must(&llvm_bin().join("llvm-objdump"), &["--offloading", &output]);
    let text = &listed.stdout;
    let arches: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("arch")).map(str::trim).collect();
    assert_eq!(arches, ["gfx90a:xnack+"], "{text}");
}

#[test]
fn sizes_table_has_a_row_and_a_bar_per_target() {
    let fixture = fixture("libhip_3tu_compressed.so");
    let out = offload(&["sizes", fixture.to_str().unwrap()]);
    assert!(out.ok(), "{}", out.stderr);
    let text = &out.stdout;
    assert!(text.contains("(20000 bytes); 25.1 KiB of device images (6 images) for 2 targets"), "{text}");
    assert!(text.contains("~ estimate:"), "compressed shares are labelled as estimates: {text}");
    for target in ["gfx90a", "gfx906:xnack-"] {
        let row = text.lines().find(|l| l.starts_with(&format!("{target} "))).unwrap_or_else(|| panic!("{text}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], "3", "{row}");
        // target, images, image bytes (2), stored (2), share, bar
        assert!(cells[6].starts_with('~') && cells[6].ends_with('%'), "{row}");
        assert!(row.ends_with('█'), "{row}");
    }
    let doc = json_of(&offload(&["sizes", "--json", fixture.to_str().unwrap()]));
    let targets = doc["targets"].as_array().unwrap();
    let images: u64 = targets.iter().map(|t| t["image_bytes"].as_u64().unwrap()).sum();
    assert_eq!(doc["image_bytes"].as_u64(), Some(images));
    for t in targets {
        assert_eq!(t["estimate"], true);
        let share = t["stored"].as_f64().unwrap() / 20000.0;
        assert!((t["share_of_file"].as_f64().unwrap() - share).abs() < 1e-9);
    }
}

#[test]
fn sizes_drop_of_an_absent_target_says_what_is_there() {
    let fixture = fixture("hip_elf_2arch.o");
    let out = offload(&["sizes", fixture.to_str().unwrap(), "--drop", "gfx1201"]);
    assert_eq!(out.code, Some(1));
    let stderr = &out.stderr;
    assert!(stderr.contains("no target gfx1201 in the file (targets here: gfx906:xnack-, gfx90a)"), "{stderr}");
}

/// One library of a wheel, unpacked into `dir` of the work directory.
fn library_of(wheel: &Path, member: &str, work: &Scratch, dir: &str) -> String {
    assert!(wheels::unzip(wheel, &work.path(dir), &[member]), "cannot unzip {member} of {}", wheel.display());
    s(&work.path(dir).join(member))
}

#[test]
fn diff_of_two_rocm_builds_of_a_real_library_matches_the_bundler() {
    const LIBRARY: &str = "cupy/cuda/thrust.cpython-311-x86_64-linux-gnu.so";
    let (Some(old_wheel), Some(new_wheel)) =
        (wheels::wheel_file("cupy-rocm-4-3==13.3.0"), wheels::wheel_file("cupy-rocm-5-0==13.3.0"))
    else {
        eprintln!("SKIPPED: the cupy ROCm wheels could not be downloaded; nothing was checked");
        return;
    };
    let work = Scratch::new("answers", "diff-cupy");
    let old = library_of(&old_wheel, LIBRARY, &work, "rocm-4.3");
    let new = library_of(&new_wheel, LIBRARY, &work, "rocm-5.0");
    let (Some(old_ids), Some(new_ids)) = (bundler_ids(&old, &work), bundler_ids(&new, &work)) else { return };
    let doc = check_diff_against(&old, &new, &old_ids, &new_ids);
    // Two ROCm releases compile the same sources into other machine code.
    assert_eq!(doc["equal"], false);
    assert!(doc["images"].as_array().unwrap().iter().any(|i| i["equal"] == false));
    eprintln!("cupy thrust, ROCm 4.3 vs 5.0: {} common targets", old_ids.intersection(&new_ids).count());
}
