//! End-to-end tests of the `offload` command, reading: `offload list` (its table and its JSON,
//! the JSON also against recorded documents) on every kind of container, and the clean failure
//! on truncated, corrupted or missing input. `writing.rs` has the commands that write,
//! `no_lost_data.rs` what they must not destroy.
//!
//! Every test runs the built binary on the real fixtures in `tests/fixtures/` (made by
//! clang-22/llvm-22, see its README) or on files it writes into its own temporary directory.
//! Where a test compares with the LLVM 22 reference tools it looks for them in
//! `/usr/lib/llvm-22/bin` (or `$LLVM_BIN`) and skips that comparison, saying so, when a tool
//! is missing.

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use support::{
    assert_clean_failure, corrupt, exec, fixture, hosts, ids, listed_targets, llvm_tool, must, offload, offload_in,
    offload_ok, read, root, s, Scratch, GFX906, GFX90A_XNACK, HIP_906_XNACK_MINUS, HIP_90A, HOST,
};

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
        let o = offload_ok(&["list", &s(&f)]);
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
    let o = offload_ok(&["list", &s(&fixture("offbin_concat2.offbin"))]);
    let rows = listed_targets(&o.stdout);
    let kinds: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(kinds, ["cuda", "openmp"]);
    let o = offload_ok(&["list", &s(&fixture("hip_elf_2arch_compressed.o"))]);
    assert!(listed_targets(&o.stdout).iter().all(|r| r.1 == "hipv4"), "{}", o.stdout);
}

/// A linked `.hip_fatbin` with three compressed bundles back to back: clang-offload-bundler 22
/// fails on it ("Src size is incorrect"); we list all six device images.
#[test]
fn list_reads_a_linked_hip_fatbin_the_reference_bundler_cannot() {
    let f = fixture("libhip_3tu_compressed.hipfb");
    let o = offload_ok(&["list", &s(&f)]);
    assert_eq!(listed_targets(&o.stdout).len(), 6);
    assert_eq!(o.stdout.matches("compressed bundle v3").count(), 3, "{}", o.stdout);
    if let Some(bundler) = llvm_tool("clang-offload-bundler") {
        let r = exec(&bundler, &["--list", "--type=o", &format!("--input={}", s(&f))], &[], None);
        assert!(!r.ok(), "clang-offload-bundler now lists the linked .hip_fatbin; update the fixture README: {r:?}");
    }
}

/// Linked without compression, a `.hip_fatbin` holds one binary bundle per translation unit,
/// back to back: every one is read (not the first, with the rest as stray bytes), so the library
/// has the kernels of all its objects.
#[test]
fn a_linked_hip_fatbin_of_plain_bundles_has_the_kernels_of_every_object() {
    let Some(clang) = llvm_tool("clang") else { return };
    let work = Scratch::new("reading", "plain_hip_fatbin");
    let lib = hosts::hip_shared_library_of(&clang, work.dir(), false);
    let kernels = |f: &Path| -> BTreeSet<(String, String)> {
        let doc: Value = serde_json::from_str(&offload_ok(&["kernels", "--json", &s(f)]).stdout).unwrap();
        let mut found = BTreeSet::new();
        for k in doc["kernels"].as_array().unwrap() {
            for target in k["targets"].as_object().unwrap().keys() {
                found.insert((k["name"].as_str().unwrap().to_string(), target.clone()));
            }
        }
        found
    };
    let mut expected = BTreeSet::new();
    for i in 0..hosts::LIB_TUS.len() {
        expected.extend(kernels(&work.path(&format!("lib{i}.o"))));
    }
    assert!(expected.len() >= hosts::LIB_TUS.len() * 2, "{expected:?}");
    assert_eq!(kernels(&lib), expected, "the library's kernels are its three objects'");
    let listed = offload_ok(&["list", "--tree", &s(&lib)]);
    let bundles = listed.stdout.lines().filter(|l| l.ends_with("clang offload bundle, 3 entries")).count();
    assert_eq!(bundles, 3, "{}", listed.stdout);
    assert!(!listed.stdout.contains("belong to no entry"), "{}", listed.stdout);
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
        let r = must(&bundler, &["--list", &format!("--type={ty}"), &format!("--input={}", s(&f))]);
        let want: BTreeSet<&str> = r.stdout.lines().filter(|l| !l.starts_with("host-")).collect();
        let o = offload_ok(&["list", &s(&f)]);
        let rows = listed_targets(&o.stdout);
        let got: BTreeSet<&str> = ids(&rows).into_iter().collect();
        assert_eq!(got, want, "{name}");
        // And `offload unbundle --list` gives exactly the reference list, host included.
        let u = offload_ok(&["unbundle", "--list", &format!("--type={ty}"), &format!("--input={}", s(&f))]);
        let want: BTreeSet<&str> = r.stdout.lines().collect();
        let got: BTreeSet<&str> = u.stdout.lines().collect();
        assert_eq!(got, want, "{name}: unbundle --list");
    }
}

#[test]
fn list_heterogeneous_archive() {
    let o = offload_ok(&["list", &s(&fixture("hip_rdc_archive.a"))]);
    let rows = listed_targets(&o.stdout);
    let got: BTreeSet<&str> = ids(&rows).into_iter().collect();
    assert_eq!(got, ["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a"].into_iter().collect());
    assert_eq!(rows.len(), 4, "two members, two device entries each");
}

// ---------------------------------------------------------------------------------------------
// 2. `offload list --json`
// ---------------------------------------------------------------------------------------------

fn list_json(f: &Path) -> Value {
    let o = offload_ok(&["list", "--json", &s(f)]);
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
    let dir = Scratch::new("cli", "json-spans");
    for e in entries {
        let id = e["fields"]["id"].as_str().unwrap();
        let (off, size) = (e["offset"].as_u64().unwrap() as usize, e["size"].as_u64().unwrap() as usize);
        assert_eq!(e["fields"]["offset"].as_u64().unwrap() as usize, off);
        assert_eq!(off % 4096, 0, "{id}: entries of this fixture are 4096-aligned");
        let bytes = &data[off..off + size];
        if let Some(b) = &bundler {
            let out = dir.path("ref");
            must(
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
// 3. `offload list --json`, as scripts have always read it: the documents of two fixtures, a HIP
// object with compressed bundles (decompressed byte spaces) and an OpenMP object with offload
// binaries, compared byte for byte with the output recorded in `cli/tests/golden/` (rewrite
// them with `OFFLOAD_UPDATE_GOLDEN=1` after a deliberate change of the shape)
// ---------------------------------------------------------------------------------------------

/// `offload list --json` on `fixture`, byte for byte the document recorded in `cli/tests/golden/`.
fn check_golden(fixture: &str) {
    // The document names the file as given: a path relative to the repository's root.
    let out = offload_in(&root(), &["list", "--json", &format!("tests/fixtures/{fixture}")]);
    assert!(out.ok(), "{fixture}: {}", out.stderr);
    let golden = root().join(format!("cli/tests/golden/{fixture}.list.json"));
    if std::env::var_os("OFFLOAD_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out.stdout).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    let got = out.stdout;
    if got != expected {
        let line = got.lines().zip(expected.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{fixture}: the JSON differs from {} from line {}: got {:?}, expected {:?}",
            golden.display(),
            line + 1,
            got.lines().nth(line),
            expected.lines().nth(line)
        );
    }
}

#[test]
fn compressed_bundles_list_as_before() {
    check_golden("hip_elf_2arch_compressed.o");
}

#[test]
fn offload_binaries_list_as_before() {
    check_golden("omp_elf_2arch.o");
}

// ---------------------------------------------------------------------------------------------
// 4. Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn truncated_bundle_fails_with_one_clear_line() {
    let dir = Scratch::new("cli", "truncated");
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
        let o = offload(&args);
        assert_clean_failure(&o, &args, "trunc.bc", true);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
}

#[test]
fn corrupted_compressed_payload_fails_with_one_clear_line() {
    let dir = Scratch::new("cli", "corrupt-payload");
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
        let o = offload(&args);
        assert_clean_failure(&o, &args, "bad.hipfb", true);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
}

#[test]
fn corrupted_compressed_header_fails_with_one_clear_line() {
    let dir = Scratch::new("cli", "corrupt-header");
    let bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    // 4: version, 6: method, 8: total size, 16: uncompressed size.
    for at in [4, 6, 8, 16] {
        let bad = dir.write("bad.hipfb", &corrupt(&bytes, at));
        let out = dir.path("out");
        let args = ["decompress", &s(&bad), "-o", &s(&out)];
        let o = offload(&args);
        assert_clean_failure(&o, &args, "bad.hipfb", true);
        assert!(!out.exists(), "corrupted byte {at}: decompress wrote an output file");
    }
}

/// The stored hash (bytes 24..32 of a v3 header) no longer matches: the bundle decompresses
/// but is refused, and nothing is written.
#[test]
fn compressed_hash_mismatch_is_refused() {
    let dir = Scratch::new("cli", "hash");
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
        let o = offload(&args);
        assert_clean_failure(&o, &args, "badhash.hipfb", false);
        assert!(o.stderr.contains("hash"), "offload {args:?}: the error does not mention the hash: {}", o.stderr);
        assert!(!out.exists(), "offload {args:?} wrote an output file");
    }
    // `list --json` still shows the tree, with hash_ok false.
    let o = offload(&["list", "--json", &b]);
    let doc: Value = serde_json::from_str(&o.stdout).expect("JSON even when the file is broken");
    let all = nodes(&doc);
    assert_eq!(of_kind(&all, "compressed-bundle")[0]["fields"]["hash_ok"], false);
}

#[test]
fn compressed_hash_mismatch_says_where_expected_and_found() {
    let dir = Scratch::new("cli", "hash-words");
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
        assert_clean_failure(&offload(&args), &args, "badhash.hipfb", true);
    }
}

#[test]
fn trailing_garbage_after_compressed_bundle_says_expected_and_found() {
    let dir = Scratch::new("cli", "trailing");
    let mut bytes = read(&fixture("ccob_zstd_v3.hipfb"));
    bytes.extend_from_slice(b"garbage\n");
    let bad = dir.write("trailing.hipfb", &bytes);
    let args = ["decompress", &s(&bad), "-o", &s(&dir.path("out"))];
    let o = offload(&args);
    assert_clean_failure(&o, &args, "trailing.hipfb", true);
    assert!(o.stderr.contains("1798"), "the error should point at byte 1798: {}", o.stderr);
}

#[test]
fn nonexistent_file_fails_with_one_clear_line() {
    let dir = Scratch::new("cli", "nonexistent");
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
        let o = offload(&args);
        assert_clean_failure(&o, &args, "no-such-file.o", false);
        assert!(!dir.path("out").exists(), "offload {args:?} wrote an output");
    }
}

#[test]
fn unbundle_missing_target_fails_unless_allowed() {
    let dir = Scratch::new("cli", "missing-target");
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
    let o = offload(&args);
    assert_clean_failure(&o, &args, "bundle_bin_o.hipfb", false);
    assert!(o.stderr.contains("gfx1100"), "the error does not name the missing target: {}", o.stderr);
    assert!(!out.exists());

    // With --allow-missing-bundles: an empty file for the missing one, the others as usual.
    let present = dir.path("gfx906.co");
    let o = offload_ok(&[
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
        must(
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
    let dir = Scratch::new("cli", "bad-args");
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
        let o = offload(&args);
        assert_eq!(o.code, Some(1), "offload {args:?}: {o:?}");
        assert!(!o.stderr.contains("panicked"), "offload {args:?} panicked: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "offload {args:?}: {}", o.stderr);
        assert!(!dir.path("out").exists(), "offload {args:?} wrote an output");
    }
}

/// Conflicting target IDs are refused with clang-offload-bundler's own message.
#[test]
fn bundle_refuses_conflicting_targets_like_reference() {
    let dir = Scratch::new("cli", "conflict");
    let inputs = [dir.write("h", b"h"), dir.write("a", b"a"), dir.write("b", b"b")];
    let out = dir.path("x.bc");
    let mut args: Vec<String> = vec!["--type=bc".into(), format!("--targets={HOST},{HIP_90A},{GFX90A_XNACK}")];
    args.extend(inputs.iter().map(|p| format!("--input={}", s(p))));
    args.push(format!("--output={}", s(&out)));
    let mut a: Vec<&str> = vec!["bundle"];
    a.extend(args.iter().map(String::as_str));
    let o = offload(&a);
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
    let dir = Scratch::new("cli", "list-dir");
    let args = ["list", &s(&dir.0)];
    let o = offload(&args);
    assert_clean_failure(&o, &args, &s(&dir.0), false);
    assert!(o.stderr.to_lowercase().contains("directory"), "{}", o.stderr);
    assert!(!o.stderr.contains("9223372036854775807"), "{}", o.stderr);
}
