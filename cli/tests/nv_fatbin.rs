//! NVIDIA fat binaries through the `offload` command, against cuobjdump 13.5 (PyPI
//! `nvidia-cuda-cuobjdump`): on every fixture in tests/fixtures/nvidia and on two real CUDA
//! libraries from PyPI wheels of different toolkits (downloaded once into .tools/nvidia/libs).
//!
//! - `list --json` has one `fatbin-entry` with `kind: elf` per cubin `cuobjdump --list-elf`
//!   lists and one with `kind: ptx` per PTX `--list-ptx` lists, with the same arch, in order;
//! - `extract` writes the files `cuobjdump -xelf all` and `-xptx all` write, same names, same
//!   bytes;
//! - `decompress` writes a fatbin whose images cuobjdump extracts to the same bytes again.
//!
//! Each comparison is skipped, saying so, when cuobjdump is not installed or a library cannot
//! be downloaded; a cuobjdump that dies by a signal gave no answer and its case is skipped.

mod support;

use serde_json::Value;
use std::path::Path;
use std::time::Instant;
use support::{llvm_bin, nvidia, offload, s, Scratch};

/// The `fatbin-entry` nodes of `list --json` whose kind is elf or ptx, in tree order.
fn listed_entries(json: &Value, out: &mut Vec<(String, String)>) {
    if json["kind"] == "fatbin-entry" {
        let kind = json["fields"]["kind"].as_str().unwrap_or("").to_string();
        if kind == "elf" || kind == "ptx" {
            out.push((kind, json["fields"]["arch"].as_str().unwrap_or("").to_string()));
        }
    }
    for c in json["children"].as_array().into_iter().flatten() {
        listed_entries(c, out);
    }
}

fn list_json(file: &Path) -> Value {
    let out = offload(&["list", "--json", &s(file)]);
    assert!(out.ok(), "offload list {}: {}", file.display(), out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// Compares our listing and extraction of `file` with cuobjdump's; returns the number of images
/// compared, or `None` when cuobjdump gave no answer.
fn compare_with_cuobjdump(cuobjdump: &Path, file: &Path) -> Option<usize> {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let dir = Scratch::new("nv_fatbin", &format!("cmp-{name}"));
    let listing = nvidia::run(cuobjdump, &["--list-elf", "--list-ptx", file.to_str().unwrap()], dir.dir());
    if listing.crashed(&name) {
        return None;
    }
    assert!(listing.ok, "cuobjdump refused {name}: {}", listing.stderr);
    let theirs = nvidia::parse_list(&listing.stdout);

    // list --json: one fatbin-entry per listed image, same kind and arch, same order per kind.
    let json = list_json(file);
    let mut entries = Vec::new();
    listed_entries(&json["root"], &mut entries);
    for kind in ["ELF", "PTX"] {
        let ours_kind: Vec<String> = entries
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(kind))
            .map(|(_, a)| a.strip_suffix('f').map_or(a.clone(), str::to_string))
            .collect();
        let their_kind: Vec<String> = theirs.iter().filter(|l| l.kind == kind).map(|l| l.arch()).collect();
        assert_eq!(
            ours_kind, their_kind,
            "{name}: {kind} archs (family suffix f left out, as cuobjdump's file names do)"
        );
    }
    let json_targets: Vec<String> = json["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["file_name"].as_str().map(str::to_string))
        .collect();
    let mut their_names: Vec<String> = theirs.iter().map(|l| l.name.clone()).collect();
    let mut sorted = json_targets.clone();
    sorted.sort();
    their_names.sort();
    assert_eq!(sorted, their_names, "{name}: the file names of the targets");

    // extract: the same files, byte for byte.
    let ref_dir = dir.path("cuobjdump");
    let our_dir = dir.path("offload");
    std::fs::create_dir_all(&ref_dir).unwrap();
    for args in [["-xelf", "all"], ["-xptx", "all"]] {
        let a = nvidia::run(cuobjdump, &[args[0], args[1], file.to_str().unwrap()], &ref_dir);
        if a.crashed(&name) {
            return None;
        }
    }
    let out = offload(&["extract", &s(file), "-o", &s(&our_dir)]);
    assert!(out.ok(), "offload extract {name}: {}", out.stderr);
    let (a, b) = (nvidia::files_in(&our_dir), nvidia::files_in(&ref_dir));
    assert_eq!(
        a.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        b.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "{name}: extracted names"
    );
    for ((n, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name}: {n} differs from cuobjdump's ({} vs {} bytes)", x.len(), y.len());
    }
    Some(a.len())
}

#[test]
fn fixtures_list_and_extract_like_cuobjdump() {
    let Some(cuobjdump) = nvidia::cuobjdump("the NVIDIA fixtures against cuobjdump") else { return };
    let mut images = 0;
    for f in nvidia::fixtures() {
        images += compare_with_cuobjdump(&cuobjdump, &f).unwrap_or(0);
    }
    println!("compared {images} images of {} fixtures with cuobjdump", nvidia::fixtures().len());
    assert!(images >= 30, "{images} images compared");
}

#[test]
fn real_libraries_list_and_extract_like_cuobjdump() {
    let Some(cuobjdump) = nvidia::cuobjdump("real CUDA libraries against cuobjdump") else { return };
    for lib in nvidia::REAL_LIBRARIES {
        let Some(path) = nvidia::real_library(lib) else { continue };
        let dir = Scratch::new("nv_fatbin", "time");
        let t = Instant::now();
        let theirs = nvidia::run(&cuobjdump, &["--list-elf", "--list-ptx", path.to_str().unwrap()], dir.dir());
        let their_time = t.elapsed();
        let t = Instant::now();
        let ours_out = offload(&["list", &s(&path)]);
        let our_time = t.elapsed();
        assert!(ours_out.ok(), "offload list {}", path.display());
        let Some(images) = compare_with_cuobjdump(&cuobjdump, &path) else { continue };
        let listed = nvidia::parse_list(&theirs.stdout);
        let elf = listed.iter().filter(|l| l.kind == "ELF").count();
        println!(
            "{} {}: {images} images ({elf} cubins, {} PTX) byte-identical to cuobjdump; list: offload {:.0} ms, cuobjdump {:.0} ms",
            lib.package,
            lib.version,
            listed.len() - elf,
            our_time.as_secs_f64() * 1e3,
            their_time.as_secs_f64() * 1e3
        );
        assert!(images >= 50);
    }
}

#[test]
fn decompressed_fatbins_read_back_in_cuobjdump() {
    let Some(cuobjdump) = nvidia::cuobjdump("offload decompress against cuobjdump") else { return };
    let dir = Scratch::new("nv_fatbin", "decompress");
    for f in nvidia::fixtures() {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path(&format!("{name}.fatbin"));
        let run = offload(&["decompress", &s(&f), "-o", &s(&out)]);
        assert!(run.ok(), "offload decompress {name}: {}", run.stderr);
        // Nothing compressed is left, and cuobjdump extracts the same images as from the input.
        let json = list_json(&out);
        assert!(
            !json.to_string().contains("\"compressed\":\"zstd\"")
                && !json.to_string().contains("\"compressed\":\"lz4\"")
        );
        assert!(compare_with_cuobjdump(&cuobjdump, &out).unwrap_or(1) > 0, "{name}");
    }
    // Decompressing what nvcc compressed gives what nvcc writes uncompressed.
    let none = std::fs::read(nvidia::fixture_dir().join("nv_3arch_none.fatbin")).unwrap();
    for packed in ["nv_3arch_size", "nv_3arch_lz4_all", "nv_3arch_default", "nv_3arch_speed"] {
        assert!(std::fs::read(dir.path(&format!("{packed}.fatbin"))).unwrap() == none, "{packed} decompressed");
    }
}

#[test]
fn extract_filters_by_arch_and_lists_targets() {
    let f = nvidia::fixture_dir().join("nv_3arch_size.fatbin");
    let dir = Scratch::new("nv_fatbin", "filter");
    let out = offload(&["extract", &s(&f), "--image=arch=sm_80", "-o", &s(dir.dir())]);
    assert!(out.ok());
    let names: Vec<String> = nvidia::files_in(dir.dir()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["nv_3arch_size.1.sm_80.ptx", "nv_3arch_size.2.sm_80.cubin"]);
    let text = offload(&["list", &s(&f)]).stdout;
    for want in ["sm_75 cubin", "sm_80 cubin", "compute_80 PTX", "sm_90a cubin"] {
        assert!(text.contains(want), "list shows {want}:\n{text}");
    }
}

/// A CUDA 11.8 library, which cuobjdump 13.5 refuses: every ELF entry is extracted, decompressed
/// from LZ4, and is a cubin whose architecture, as llvm-readelf reads its header, is the entry's;
/// the kernels of every cubin are decoded.
#[test]
fn a_cuda_11_library_reads_and_its_cubins_are_what_their_entries_say() {
    let Some(path) = nvidia::real_library(&nvidia::CUDA11_LIBRARY) else { return };
    let json = list_json(&path);
    let mut entries = Vec::new();
    listed_entries(&json["root"], &mut entries);
    let cubins: Vec<&(String, String)> = entries.iter().filter(|(k, _)| k == "elf").collect();
    assert!(cubins.len() >= 50, "{} cubins", cubins.len());
    assert!(cubins.iter().any(|(_, a)| a == "sm_35"), "the CUDA 11 library has sm_35 cubins");
    let dir = Scratch::new("nv_fatbin", "cu11");
    let t = Instant::now();
    let out = offload(&["extract", &s(&path), "-o", &s(dir.dir())]);
    let took = t.elapsed();
    assert!(out.ok(), "offload extract: {}", out.stderr);
    let files = nvidia::files_in(dir.dir());
    let extracted: Vec<&(String, Vec<u8>)> = files.iter().filter(|(n, _)| n.ends_with(".cubin")).collect();
    assert_eq!(extracted.len(), cubins.len(), "one file per ELF entry");
    let readelf = llvm_bin().join("llvm-readelf");
    let mut named = 0;
    for (name, bytes) in &extracted {
        assert!(bytes.starts_with(b"\x7fELF"), "{name} is an ELF file");
        // `<stem>.<n>.sm_NN.cubin`: the arch the entry declares.
        let arch = name.rsplit('.').nth(1).unwrap();
        if readelf.exists() {
            let header = support::run(&readelf, &["-h", &s(&dir.path(name))]);
            let text = &header.stdout;
            if let Some((_, said)) =
                text.lines().find(|l| l.trim_start().starts_with("Flags:")).and_then(|l| l.split_once(", "))
            {
                assert_eq!(said.trim(), arch, "{name}: llvm-readelf says {said}");
                named += 1;
            }
        }
    }
    let kernels = offload(&["kernels", "--json", &s(&path)]);
    assert!(kernels.ok(), "{}", kernels.stderr);
    let kernels: Value = serde_json::from_str(&kernels.stdout).unwrap();
    let columns = kernels["targets"].as_array().unwrap().iter().filter(|t| t["format"] == "CUDA cubin").count();
    assert!(columns >= 5, "kernels of the cubins of {columns} architectures");
    println!(
        "{} {}: {} cubins extracted in {:.0} ms, {named} of them named by llvm-readelf as their entry says; {} kernel rows",
        nvidia::CUDA11_LIBRARY.package,
        nvidia::CUDA11_LIBRARY.version,
        extracted.len(),
        took.as_secs_f64() * 1e3,
        kernels["kernels"].as_array().unwrap().len()
    );
}
