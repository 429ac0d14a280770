//! `offload fit`: a matrix of files × GPUs, each answered with its rule and reason, and the
//! exit status (0 runs, 1 does not, 2 trouble). AMD: exact, features left open ("any"), a mode
//! the image needs, a mode set the other way, a generic target (compiled here by clang-22),
//! absent, bitcode only; NVIDIA: same major, arch-specific, family-specific, PTX only, absent.

mod support;

use serde_json::Value;
use std::path::Path;
use support::{fixture, hosts, must_in, offload, root, s, tool, Scratch};

/// `offload fit FILE --gpu GPU --json`: the exit status and the document.
fn fit(file: &Path, gpu: &str) -> (i32, Value) {
    let out = offload(&["fit", &s(file), "--gpu", gpu, "--json"]);
    let code = out.code.unwrap();
    assert!(code == 0 || code == 1, "{}: {}", file.display(), out.stderr);
    (code, serde_json::from_str(&out.stdout).unwrap())
}

/// The rule of the image that loads in the first container of the first library, or "none",
/// and that container's reason.
fn answer(doc: &Value) -> (String, String) {
    let c = &doc["gpus"][0]["libraries"][0]["containers"][0];
    let rule = c["image"]["rule"].as_str().unwrap_or("none").to_string();
    (rule, c["reason"].as_str().unwrap().to_string())
}

#[test]
fn the_matrix_of_files_and_gpus() {
    let cases: &[(&str, &str, i32, &str, &str)] = &[
        ("hip_elf_2arch.o", "gfx90a", 0, "exact", "gfx90a is here"),
        ("hip_elf_2arch.o", "gfx90a:xnack+", 0, "target-id", "gfx90a leaves its features open"),
        ("hip_elf_2arch.o", "gfx906:xnack+", 1, "none", "needs xnack off, and gfx906:xnack+ asks for xnack on"),
        ("hip_elf_2arch.o", "gfx1201", 1, "none", "no image for gfx1201 or its generic target gfx12-generic"),
        ("bundle_obj_elf.o", "gfx90a", 0, "target-id", "but only when xnack is on"),
        ("hip_rdc_archive.a", "gfx90a", 1, "none", "only LLVM bitcode"),
        ("nvidia/nv_3arch_default.fatbin", "sm_86", 0, "cubin-same-major", "the sm_80 cubin runs on sm_86"),
        ("nvidia/nv_3arch_default.fatbin", "sm_90", 0, "arch-specific", "sm_90a cubin runs on sm_90 only"),
        ("nvidia/nv_3arch_default.fatbin", "sm_120", 0, "ptx-jit", "compiles the compute_80 PTX"),
        ("nvidia/nv_3arch_default.fatbin", "sm_70", 1, "none", "no cubin for sm_7x at or below sm_70"),
        ("nvidia/nv_sm100_sm120.fatbin", "sm_103", 0, "family-specific", "the sm_100f cubin runs on sm_103"),
        ("nvidia/nv_sm100_sm120.fatbin", "sm_90", 1, "none", "no cubin"),
    ];
    for &(file, gpu, code, rule, reason) in cases {
        let (got_code, doc) = fit(&fixture(file), gpu);
        let (got_rule, got_reason) = answer(&doc);
        assert_eq!((got_code, got_rule.as_str()), (code, rule), "{file} on {gpu}: {got_reason}");
        assert!(got_reason.contains(reason), "{file} on {gpu}: {got_reason}");
        assert_eq!(doc["runs"], Value::Bool(code == 0), "{file} on {gpu}");
    }
}

#[test]
fn every_library_and_kernel_is_answered() {
    // Three translation units: three bundles, each picks its own image.
    let (code, doc) = fit(&fixture("libhip_3tu_compressed.so"), "gfx90a");
    assert_eq!(code, 0);
    let lib = &doc["gpus"][0]["libraries"][0];
    assert_eq!(lib["containers"].as_array().unwrap().len(), 3);
    let kernels = lib["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 3);
    for k in kernels {
        assert_eq!((k["runs"].as_bool(), k["target"].as_str()), (Some(true), Some("gfx90a")), "{k}");
        assert_eq!(k["occupancy"].as_u64(), Some(8), "{k}");
        // `name` is the mangled symbol; `demangled` beside it is what the text answer prints.
        let (name, demangled) = (k["name"].as_str().unwrap(), k["demangled"].as_str().unwrap());
        assert!(name.starts_with("_Z") && demangled.ends_with(')') && !demangled.starts_with("_Z"), "{k}");
    }
    // The strictest needs: compressed bundle v3 (zstd) and the code object version.
    let needs: Vec<&str> =
        doc["gpus"][0]["requirements"].as_array().unwrap().iter().map(|r| r["what"].as_str().unwrap()).collect();
    assert_eq!(needs[0], "compressed bundle v3 (zstd)");
    assert!(needs[1].starts_with("AMDGPU code object v"), "{needs:?}");
    // An archive: one library per member.
    let (_, doc) = fit(&fixture("hip_rdc_archive.a"), "gfx90a");
    let libs: Vec<&str> =
        doc["gpus"][0]["libraries"].as_array().unwrap().iter().map(|l| l["library"].as_str().unwrap()).collect();
    assert_eq!(libs, ["rdc_a.o", "rdc_c.o"]);
}

#[test]
fn a_generic_target_compiled_here_serves_its_family() {
    let Some(clang) = tool("clang", "a_generic_target_compiled_here_serves_its_family") else { return };
    let dir = Scratch::new("fit", "generic");
    dir.write("mini_hip.h", hosts::MINI_HIP_H.as_bytes());
    dir.write("occupancy.hip", &std::fs::read(root().join("tests/images/occupancy.hip")).unwrap());
    let hip = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "--offload-arch=gfx11-generic", "-mcode-object-version=6"];
    must_in(dir.dir(), &clang, &[&hip[..], &["-c", "occupancy.hip", "-o", "g.o"]].concat());
    let (code, doc) = fit(&dir.path("g.o"), "gfx1103");
    let image = &doc["gpus"][0]["libraries"][0]["containers"][0]["image"];
    assert_eq!((code, image["rule"].as_str()), (0, Some("generic")), "{doc}");
    assert_eq!(image["code_object_version"].as_u64(), Some(6));
    assert!(image["generic_version"].as_u64().unwrap() >= 1);
    // Occupancy is computed for the GPU asked about, not the generic target.
    let kernels = doc["gpus"][0]["libraries"][0]["kernels"].as_array().unwrap();
    assert!(kernels.iter().all(|k| k["occupancy"].as_u64().is_some()), "{kernels:?}");
    // gfx1201 is not in gfx11-generic's family.
    let (code, _) = fit(&dir.path("g.o"), "gfx1201");
    assert_eq!(code, 1);
    // Not a GPU: exit 2.
    let out = offload(&["fit", &s(&dir.path("g.o")), "--gpu", "gfx11-generic"]);
    assert_eq!(out.code, Some(2));
}

/// The answer a person reads: a library's identical container lines once, with their count;
/// `--verbose` prints each, as `--json` has each.
#[test]
fn identical_lines_are_grouped_and_verbose_keeps_every_one() {
    let lib = fixture("libhip_3tu_compressed.so");
    let (_, doc) = fit(&lib, "gfx90a:xnack+");
    let containers = doc["gpus"][0]["libraries"][0]["containers"].as_array().unwrap().len();
    assert_eq!(containers, 3, "one bundle per translation unit");
    let grouped = offload(&["fit", "--gpu", "gfx90a:xnack+", &s(&lib)]);
    let bundle_lines = |text: &str| text.lines().filter(|l| l.contains("clang offload bundle, 3 entries")).count();
    assert_eq!(bundle_lines(&grouped.stdout), 1, "{}", grouped.stdout);
    assert!(grouped.stdout.contains("    3 × clang offload bundle, 3 entries: gfx90a"), "{}", grouped.stdout);
    let verbose = offload(&["fit", "--verbose", "--gpu", "gfx90a:xnack+", &s(&lib)]);
    assert_eq!(bundle_lines(&verbose.stdout), containers, "{}", verbose.stdout);
    assert!(!verbose.stdout.contains(" × "), "{}", verbose.stdout);
}
