//! `offload list`, `kernels`, `fit` and `sizes` on kpack'd builds made by ROCm's rocm-kpack: the
//! archives are found next to the binary as the runtime finds them (or named with `--kpack`),
//! and the answers are those of the build before the transform; a missing archive is said.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/fixtures/kpack").join(name)
}

fn offload(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offload")).args(&args[..1]).arg(file).args(&args[1..]).output().unwrap()
}

fn json(args: &[&str], file: &Path) -> Value {
    let out = offload(args, file);
    assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `list --json`'s targets: (target, processor, features, image size), sorted.
fn targets(doc: &Value) -> Vec<(String, String, String, u64)> {
    let s = |t: &Value, k: &str| t[k].as_str().unwrap_or("").to_string();
    let mut v: Vec<_> = doc["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (s(t, "target_id"), s(t, "processor"), s(t, "features"), t["image_size"].as_u64().unwrap()))
        .collect();
    v.sort();
    v
}

/// `kernels --json` without the tree paths, which differ between the two files.
fn kernels(mut doc: Value) -> Value {
    doc["file"] = Value::Null;
    for k in doc["kernels"].as_array_mut().unwrap() {
        for cell in k["targets"].as_object_mut().unwrap().values_mut() {
            cell.as_object_mut().unwrap().remove("path");
        }
    }
    doc
}

#[test]
fn list_and_kernels_find_the_archives_next_to_the_binary() {
    for binary in ["lib/libkp.so", "bin/kp_app"] {
        let (old, new) = (fixture(&format!("before/{binary}")), fixture(&format!("after/{binary}")));
        let before = targets(&json(&["list", "--json"], &old));
        assert!(!before.is_empty());
        assert_eq!(targets(&json(&["list", "--json"], &new)), before, "{binary}");
        assert_eq!(kernels(json(&["kernels", "--json"], &new)), kernels(json(&["kernels", "--json"], &old)));
    }
    let fit = json(&["fit", "--gpu", "gfx1100", "--json"], &fixture("after/lib/libkp.so"));
    assert_eq!(fit["runs"], true);
    let sizes = json(&["sizes", "--json"], &fixture("after/lib/libkp.so"));
    assert_eq!(sizes["targets"].as_array().unwrap().len(), 2);
}

#[test]
fn a_missing_archive_is_said_and_kpack_names_one() {
    let dir = std::env::temp_dir().join(format!("offload-kpack-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lone = dir.join("libkp.so");
    std::fs::copy(fixture("after/lib/libkp.so"), &lone).unwrap();
    let out = offload(&["list"], &lone);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("kpack'd build") && stderr.contains("--kpack"), "{stderr}");
    assert!(stdout.contains("no device targets found") && stdout.contains("device code not shown"), "{stdout}");
    let out = offload(&["fit", "--gpu", "gfx90a"], &lone);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("kpack'd build"));
    let archive = fixture("after/.kpack/kp_gfx90a.kpack");
    let doc = json(&["list", "--json", "--kpack", archive.to_str().unwrap()], &lone);
    let found: Vec<String> = targets(&doc).into_iter().map(|t| t.1).collect();
    assert_eq!(found, ["gfx90a", "gfx90a"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
