//! `offload list`, `kernels`, `fit` and `sizes` on kpack'd builds made by ROCm's rocm-kpack: the
//! archives are found next to the binary as the runtime finds them (or named with `--kpack`),
//! and the answers are those of the build before the transform; a missing archive is said.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{fixture, offload, s, Out, Scratch};

/// A file of the kpack fixtures (tests/fixtures/kpack).
fn kpack_fixture(name: &str) -> PathBuf {
    fixture(&format!("kpack/{name}"))
}

/// `offload <args[0]> FILE <args[1..]>`.
fn offload_on(args: &[&str], file: &Path) -> Out {
    offload(&[&args[..1], &[s(file).as_str()], &args[1..]].concat())
}

fn json(args: &[&str], file: &Path) -> Value {
    let out = offload_on(args, file);
    assert!(out.ok(), "{}: {}", file.display(), out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
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
        let (old, new) = (kpack_fixture(&format!("before/{binary}")), kpack_fixture(&format!("after/{binary}")));
        let before = targets(&json(&["list", "--json"], &old));
        assert!(!before.is_empty());
        assert_eq!(targets(&json(&["list", "--json"], &new)), before, "{binary}");
        assert_eq!(kernels(json(&["kernels", "--json"], &new)), kernels(json(&["kernels", "--json"], &old)));
    }
    let fit = json(&["fit", "--gpu", "gfx1100", "--json"], &kpack_fixture("after/lib/libkp.so"));
    assert_eq!(fit["runs"], true);
    let sizes = json(&["sizes", "--json"], &kpack_fixture("after/lib/libkp.so"));
    assert_eq!(sizes["targets"].as_array().unwrap().len(), 2);
}

#[test]
fn a_missing_archive_is_said_and_kpack_names_one() {
    let dir = Scratch::new("kpack", "lone");
    let lone = dir.path("libkp.so");
    std::fs::copy(kpack_fixture("after/lib/libkp.so"), &lone).unwrap();
    let out = offload_on(&["list"], &lone);
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert!(stderr.contains("kpack'd build") && stderr.contains("--kpack"), "{stderr}");
    assert!(stdout.contains("no device targets found") && stdout.contains("device code not shown"), "{stdout}");
    let out = offload_on(&["fit", "--gpu", "gfx90a"], &lone);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.contains("kpack'd build"));
    let archive = kpack_fixture("after/.kpack/kp_gfx90a.kpack");
    let doc = json(&["list", "--json", "--kpack", archive.to_str().unwrap()], &lone);
    let found: Vec<String> = targets(&doc).into_iter().map(|t| t.1).collect();
    assert_eq!(found, ["gfx90a", "gfx90a"]);
}
