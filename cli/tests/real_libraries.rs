//! Real libraries from PyPI wheels, read by every command as LLVM 22 reads them: older ROCm
//! builds (three-part host IDs), Intel SYCL builds (`sycl-spir64` sections with raw zstd frames
//! or SPIR-V modules). For each library, `offload list` exits 0 with the entry IDs
//! clang-offload-bundler 22 lists, `offload extract` exits 0 and writes every device image, and
//! `offload unbundle --list` agrees.
//!
//! The wheels are downloaded once into a cache (`OFFLOAD_WHEEL_CACHE`, default
//! `~/.cache/offload-explorer/wheels`) with `pip download`; without a network the test says so
//! and checks nothing. A reference that dies by a signal gave no answer: that library is
//! reported and its comparison skipped.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use support::{llvm_bin, must, offload, ours, run, s, wheels, Scratch};

/// A wheel, pinned, and the libraries in it to read (paths inside the wheel).
struct Wheel {
    requirement: &'static str,
    libraries: &'static [&'static str],
}

const WHEELS: &[Wheel] = &[
    // ROCm 4.3 and 5.0 builds: `.hip_fatbin` bundles with the host ID `host-x86_64-unknown-linux`.
    Wheel {
        requirement: "cupy-rocm-4-3==13.3.0",
        libraries: &[
            "cupy/cuda/thrust.cpython-311-x86_64-linux-gnu.so",
            "cupy/cuda/cub.cpython-311-x86_64-linux-gnu.so",
            "cupy/random/_generator_api.cpython-311-x86_64-linux-gnu.so",
        ],
    },
    Wheel {
        requirement: "cupy-rocm-5-0==13.3.0",
        libraries: &[
            "cupy/cuda/thrust.cpython-311-x86_64-linux-gnu.so",
            "cupy/cuda/cub.cpython-311-x86_64-linux-gnu.so",
        ],
    },
    // Intel SYCL builds: `__CLANG_OFFLOAD_BUNDLE__sycl-spir64` holding SPIR-V modules.
    Wheel {
        requirement: "dpctl==0.22.1",
        libraries: &["dpctl/libDPCTLSyclInterface.so", "dpctl/memory/_memory.cpython-311-x86_64-linux-gnu.so"],
    },
    Wheel {
        requirement: "dpnp==0.20.0",
        libraries: &["dpnp/libdpnp_backend_c.so", "dpnp/tensor/_tensor_sorting_impl.cpython-311-x86_64-linux-gnu.so"],
    },
    // oneMKL SYCL builds: the same section holding raw zstd frames, zero-padded.
    Wheel {
        requirement: "onemkl-sycl-datafitting==2026.2.0",
        libraries: &["onemkl_sycl_datafitting-2026.2.0.data/data/lib/libmkl_sycl_data_fitting.so.6"],
    },
    Wheel {
        requirement: "onemkl-sycl-stats==2026.2.0",
        libraries: &["onemkl_sycl_stats-2026.2.0.data/data/lib/libmkl_sycl_stats.so.6"],
    },
];

/// Entry IDs of every bundle entry in `offload list --json` output, with their counts.
fn listed_ids(json: &serde_json::Value, out: &mut BTreeMap<String, usize>) {
    if json["kind"] == "bundle-entry" {
        if let Some(id) = json["fields"]["id"].as_str() {
            *out.entry(id.to_string()).or_default() += 1;
        }
    }
    for child in json["children"].as_array().into_iter().flatten() {
        listed_ids(child, out);
    }
}

/// What clang-offload-bundler 22 lists for `library`: the bundled-object sections of the
/// library itself, or, for a library with a `.hip_fatbin`, the bundle in that section. `None`
/// when the bundler died by a signal.
fn reference_ids(library: &Path, work: &Path) -> Option<BTreeMap<String, usize>> {
    let mut input = library.to_path_buf();
    let readelf = run(&llvm_bin().join("llvm-readelf"), &["-S", "-W", library.to_str().unwrap()]);
    if readelf.stdout.contains(" .hip_fatbin ") {
        input = work.join("hip_fatbin.bin");
        let dump = format!(".hip_fatbin={}", input.display());
        let objcopy = run(
            &llvm_bin().join("llvm-objcopy"),
            &["--dump-section", &dump, library.to_str().unwrap(), work.join("host.o").to_str().unwrap()],
        );
        assert!(objcopy.ok(), "llvm-objcopy: {}", objcopy.stderr);
    }
    let input_arg = format!("--input={}", input.display());
    let listed = run(&llvm_bin().join("clang-offload-bundler"), &["--list", "--type=o", &input_arg]);
    if listed.code.is_none() {
        eprintln!("clang-offload-bundler --list died by a signal on {}: no answer to compare with", library.display());
        return None;
    }
    assert!(listed.ok(), "clang-offload-bundler --list: {}", listed.stderr);
    let mut ids = BTreeMap::new();
    for line in listed.stdout.lines().filter(|l| !l.is_empty()) {
        *ids.entry(line.to_string()).or_default() += 1;
    }
    Some(ids)
}

fn check_library(library: &Path, work: &Path) -> usize {
    let lib = library.to_str().unwrap();
    let list = offload(&["list", "--json", lib]);
    assert!(list.ok(), "offload list {lib} exited {:?}: {}", list.code, list.stderr);
    let json: serde_json::Value = serde_json::from_str(&list.stdout).expect("offload list --json prints JSON");
    let errors: Vec<&serde_json::Value> = all_diagnostics(&json["root"]).filter(|d| d["severity"] == "error").collect();
    assert!(errors.is_empty(), "{lib}: errors where LLVM reads the file: {errors:?}");
    let mut ours_ids = BTreeMap::new();
    listed_ids(&json["root"], &mut ours_ids);
    if let Some(reference) = reference_ids(library, work) {
        assert_eq!(ours_ids, reference, "{lib}: entry IDs, ours vs clang-offload-bundler --list");
    }

    // The same question to both tools on the library itself: its bundled-object sections.
    let input = format!("--input={lib}");
    let unbundle = offload(&["unbundle", "--list", "--type=o", &input]);
    assert!(unbundle.ok(), "offload unbundle --list {lib}: {}", unbundle.stderr);
    let bundler = run(&llvm_bin().join("clang-offload-bundler"), &["--list", "--type=o", &input]);
    if bundler.code.is_some() {
        assert_eq!(unbundle.stdout, bundler.stdout, "{lib}: offload unbundle --list vs clang-offload-bundler --list");
    }

    let out_dir = work.join("extracted");
    let extract = offload(&["extract", lib, "-o", out_dir.to_str().unwrap()]);
    assert!(extract.ok(), "offload extract {lib}: {}", extract.stderr);
    let written: Vec<PathBuf> = fs::read_dir(&out_dir).unwrap().flatten().map(|e| e.path()).collect();
    let printed = extract.stdout.lines().count();
    assert_eq!(written.len(), printed, "{lib}: every image written is reported, once");
    for file in &written {
        let size = fs::metadata(file).unwrap().len();
        assert!(size > 0, "{}: an empty image was extracted", file.display());
        let name = file.to_string_lossy();
        assert!(!name.contains("host-"), "{name}: host entries are not device images");
        if name.ends_with(".spv") {
            assert_eq!(&fs::read(file).unwrap()[..4], &[0x03, 0x02, 0x23, 0x07], "{name}: a SPIR-V module");
        }
    }
    let _ = fs::remove_dir_all(&out_dir);
    written.len()
}

fn all_diagnostics(node: &serde_json::Value) -> Box<dyn Iterator<Item = &serde_json::Value> + '_> {
    let own = node["diagnostics"].as_array().into_iter().flatten();
    let children = node["children"].as_array().into_iter().flatten().flat_map(all_diagnostics);
    Box::new(own.chain(children))
}

#[test]
fn real_rocm_and_sycl_libraries_are_read_as_llvm_reads_them() {
    let mut checked = 0;
    for wheel in WHEELS {
        let Some(file) = wheels::wheel_file(wheel.requirement) else { continue };
        let root = wheels::unpacked(&file);
        for library in wheel.libraries {
            let work = Scratch::new("real_libraries", "library");
            let images = check_library(&root.join(library), work.dir());
            eprintln!(
                "{} {library}: list and unbundle --list agree with the bundler; {images} images extracted",
                wheel.requirement
            );
            checked += 1;
        }
    }
    if checked == 0 {
        eprintln!("SKIPPED: no wheel could be downloaded; nothing was checked");
    } else {
        assert!(checked >= 10, "only {checked} libraries checked");
    }
}

/// The layout of Intel's `spir64_gen` sections, made here with the real tools (no PyPI wheel we
/// found carries one): objects by clang-22 stand in for the Intel GPU binaries, `llvm-ar` archives
/// them, the `zstd` tool compresses each archive into one frame, and `llvm-objcopy` adds the two
/// frames, at 16-byte steps with zero bytes between them as a linker leaves them, as the section
/// `__CLANG_OFFLOAD_BUNDLE__sycl-spir64_gen` of a host object.
#[test]
fn a_sycl_spir64_gen_section_of_zstd_framed_archives_is_opened() {
    let work = Scratch::new("real_libraries", "spir64-gen");
    let at = |name: &str| s(&work.path(name));
    let clang = llvm_bin().join("clang");
    let mut section = Vec::new();
    let mut archives = Vec::new();
    for (n, members) in [["a", "b"], ["c", "d"]].iter().enumerate() {
        for m in members {
            fs::write(work.path(&format!("{m}.c")), format!("int {m}(void) {{ return {n}; }}\n")).unwrap();
            must(&clang, &["-c", &at(&format!("{m}.c")), "-o", &at(&format!("{m}.o"))]);
        }
        let archive = at(&format!("dev{n}.a"));
        must(
            &llvm_bin().join("llvm-ar"),
            &["rc", &archive, &at(&format!("{}.o", members[0])), &at(&format!("{}.o", members[1]))],
        );
        must(Path::new("zstd"), &["-q", "-f", "-19", &archive, "-o", &format!("{archive}.zst")]);
        section.resize(section.len().next_multiple_of(16), 0);
        section.extend(fs::read(format!("{archive}.zst")).unwrap());
        archives.push(fs::read(&archive).unwrap());
    }
    fs::write(work.path("section.bin"), &section).unwrap();
    fs::write(work.path("host.c"), "int main(void) { return 0; }\n").unwrap();
    must(&clang, &["-c", &at("host.c"), "-o", &at("host.o")]);
    let add = format!("__CLANG_OFFLOAD_BUNDLE__sycl-spir64_gen={}", at("section.bin"));
    must(&llvm_bin().join("llvm-objcopy"), &["--add-section", &add, &at("host.o"), &at("sycl.o")]);

    let list = must(ours(), &["list", "--json", &at("sycl.o")]);
    let json: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    let mut ids = BTreeMap::new();
    listed_ids(&json["root"], &mut ids);
    assert_eq!(ids, reference_ids(Path::new(&at("sycl.o")), work.dir()).unwrap_or_else(|| ids.clone()));
    assert_eq!(ids.keys().collect::<Vec<_>>(), ["sycl-spir64_gen"]);
    let mut members = Vec::new();
    collect_members(&json["root"], &mut members);
    assert_eq!(members, ["a.o", "b.o", "c.o", "d.o"], "the archives in the frames, member by member");

    let extract = must(ours(), &["extract", &at("sycl.o"), "-o", &at("out")]);
    let stdout = &extract.stdout;
    for (n, archive) in archives.iter().enumerate() {
        let name =
            if n == 0 { "sycl.o.sycl-spir64_gen.a".to_string() } else { format!("sycl.o.sycl-spir64_gen.{n}.a") };
        assert_eq!(&fs::read(work.path("out").join(&name)).unwrap(), archive, "{name} is the archive llvm-ar wrote");
        assert!(stdout.contains(&name), "{stdout}");
    }
}

fn collect_members(node: &serde_json::Value, out: &mut Vec<String>) {
    if node["kind"] == "archive-member" {
        out.push(node["fields"]["name"].as_str().unwrap_or_default().to_string());
    }
    for child in node["children"].as_array().into_iter().flatten() {
        collect_members(child, out);
    }
}
