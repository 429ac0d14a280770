//! Whole packages, read without unpacking them: `offload list --json` on a wheel finds every
//! bundle entry (ROCm) and every cubin and PTX (CUDA) that the per-library references find in
//! the libraries once the wheel is unzipped (`clang-offload-bundler --list` as in
//! real_libraries.rs; `cuobjdump --list-elf --list-ptx`), and small packages made by the real
//! tools (tests/fixtures/packages/generate.sh) list and extract what their libraries hold.
//!
//! Real wheels come from PyPI into the cache real_libraries.rs uses (`OFFLOAD_WHEEL_CACHE`,
//! default `~/.cache/offload-explorer/wheels`); without a network the test says so and skips.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use support::{fixture, llvm_bin, nvidia, offload, run, s, wheels, Scratch};

/// Every file below `dir` that is an ELF file, as a path relative to `dir` with `/`.
fn elf_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if fs::File::open(&p).ok().and_then(|mut f| {
                let mut magic = [0u8; 4];
                std::io::Read::read_exact(&mut f, &mut magic).ok().map(|_| magic == *b"\x7fELF")
            }) == Some(true)
            {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// `offload list --json FILE`, which must succeed.
fn list_json(file: &Path) -> serde_json::Value {
    let out = offload(&["list", "--json", file.to_str().unwrap()]);
    assert!(out.ok(), "offload list {}: {}", file.display(), out.stderr);
    serde_json::from_str(&out.stdout).expect("offload list --json prints JSON")
}

/// Bundle entry IDs under each package member node (the innermost member holding them).
fn ids_by_member(node: &serde_json::Value, member: Option<&str>, out: &mut BTreeMap<String, BTreeMap<String, usize>>) {
    let member = match node["kind"].as_str() {
        Some("package-member") => node["fields"]["name"].as_str(),
        _ => member,
    };
    if node["kind"] == "bundle-entry" {
        if let (Some(id), Some(m)) = (node["fields"]["id"].as_str(), member) {
            *out.entry(m.to_string()).or_default().entry(id.to_string()).or_default() += 1;
        }
    }
    for child in node["children"].as_array().into_iter().flatten() {
        ids_by_member(child, member, out);
    }
}

/// What clang-offload-bundler 22 lists for a library's `.hip_fatbin` bundle (or its bundled
/// object sections); `None` when it has neither or the bundler died.
fn bundler_ids(library: &Path, work: &Path) -> Option<BTreeMap<String, usize>> {
    let lib = library.to_str().unwrap();
    let sections = run(&llvm_bin().join("llvm-readelf"), &["-S", "-W", lib]);
    let sections = sections.stdout.clone();
    let mut input = library.to_path_buf();
    if sections.contains(" .hip_fatbin ") {
        input = work.join("hip_fatbin.bin");
        let dump = format!(".hip_fatbin={}", input.display());
        let objcopy = run(
            &llvm_bin().join("llvm-objcopy"),
            &["--dump-section", &dump, lib, work.join("host.o").to_str().unwrap()],
        );
        assert!(objcopy.ok(), "llvm-objcopy: {}", objcopy.stderr);
    } else if !sections.contains("__CLANG_OFFLOAD_BUNDLE__") {
        return None;
    }
    let listed = run(
        &llvm_bin().join("clang-offload-bundler"),
        &["--list", "--type=o", &format!("--input={}", input.display())],
    );
    if listed.code.is_none() {
        eprintln!("clang-offload-bundler died by a signal on {lib}: no answer to compare with");
        return None;
    }
    assert!(listed.ok(), "clang-offload-bundler --list {lib}: {}", listed.stderr);
    let mut ids = BTreeMap::new();
    for line in listed.stdout.lines().filter(|l| !l.is_empty()) {
        *ids.entry(line.to_string()).or_default() += 1;
    }
    Some(ids)
}

fn errors(node: &serde_json::Value, out: &mut Vec<String>) {
    for d in node["diagnostics"].as_array().into_iter().flatten() {
        if d["severity"] == "error" {
            out.push(format!("{}: {}", node["label"], d["message"]));
        }
    }
    for child in node["children"].as_array().into_iter().flatten() {
        errors(child, out);
    }
}

/// A ROCm wheel of more than 40 MB: every library's bundle entries, as the bundler lists them
/// after unzipping, are found in the wheel itself, under the member of that library.
#[test]
fn a_rocm_wheel_lists_every_bundle_entry_of_every_library() {
    let Some(wheel) = wheels::wheel_file("cupy-rocm-5-0==13.3.0") else { return };
    let root = wheels::unpacked(&wheel);
    let work = Scratch::new("packages", "rocm-wheel");
    let mut reference = BTreeMap::new();
    for lib in elf_files(&root) {
        if let Some(ids) = bundler_ids(&root.join(&lib), work.dir()) {
            reference.insert(lib, ids);
        }
    }
    let json = list_json(&wheel);
    let mut problems = Vec::new();
    errors(&json["root"], &mut problems);
    assert!(problems.is_empty(), "errors where LLVM reads every library: {problems:?}");
    let mut found = BTreeMap::new();
    ids_by_member(&json["root"], None, &mut found);
    assert!(reference.len() >= 3, "the wheel has libraries with bundles: {:?}", reference.keys());
    assert_eq!(
        found, reference,
        "bundle entry IDs per library: ours in the wheel vs the bundler on the unzipped library"
    );
    let entries: usize = reference.values().flat_map(|ids| ids.values()).sum();
    eprintln!("{}: {entries} bundle entries in {} libraries, all found in the wheel", wheel.display(), reference.len());
}

/// A CUDA wheel: every cubin and PTX cuobjdump lists in each unzipped library is a target of the
/// wheel, in that library's member, under the name cuobjdump gives it.
#[test]
fn a_cuda_wheel_lists_every_cubin_and_ptx_of_every_library() {
    let Some(cuobjdump) = nvidia::cuobjdump("a CUDA wheel") else { return };
    let Some(wheel) = wheels::wheel_file("nvidia-curand-cu12==10.3.5.147") else { return };
    let root = wheels::unpacked(&wheel);
    let json = list_json(&wheel);
    let mut reference: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for lib in elf_files(&root) {
        let answer = nvidia::run(&cuobjdump, &["--list-elf", "--list-ptx", root.join(&lib).to_str().unwrap()], &root);
        if answer.crashed(&lib) {
            continue;
        }
        let mut names: Vec<String> = nvidia::parse_list(&answer.stdout).into_iter().map(|l| l.name).collect();
        if !names.is_empty() {
            names.sort();
            reference.insert(lib, names);
        }
    }
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in json["targets"].as_array().unwrap() {
        if let (Some(member), Some(name)) = (t["member"].as_str(), t["file_name"].as_str()) {
            found.entry(member.to_string()).or_default().push(name.to_string());
        }
    }
    found.values_mut().for_each(|v| v.sort());
    assert!(!reference.is_empty(), "cuobjdump finds images in the wheel's libraries");
    assert_eq!(found, reference, "cubins and PTX per library: ours in the wheel vs cuobjdump on the unzipped library");
    let images: usize = reference.values().map(Vec::len).sum();
    eprintln!("{}: {images} images in {} libraries, all found in the wheel", wheel.display(), reference.len());
}

/// The targets of a list document as (member, target ID) pairs, sorted.
fn targets(json: &serde_json::Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = json["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let member = t["member"].as_str().unwrap_or("").trim_start_matches("./").to_string();
            let member = member.rsplit('/').next().unwrap().to_string();
            (member, t["target_id"].as_str().unwrap().to_string())
        })
        .collect();
    v.sort();
    v
}

/// Every package the packaging tools made holds the same two libraries: each lists the targets
/// the libraries list on their own, and extracts the same images, byte for byte.
#[test]
fn packages_made_by_real_tools_hold_what_their_libraries_hold() {
    let dir = fixture("packages");
    let libs = [fixture("libhip_3tu_compressed.so"), fixture("nvidia/libnv_2arch.so")];
    let mut expected = Vec::new();
    for (lib, name) in libs.iter().zip(["libhip_3tu.so", "libnv_2arch.so"]) {
        expected.extend(targets(&list_json(lib)).into_iter().map(|(_, id)| (name.to_string(), id)));
    }
    expected.sort();
    let work = Scratch::new("packages", "fixtures");
    let reference = work.path("reference");
    for lib in &libs {
        let out = offload(&["extract", &s(lib), "-o", &s(&reference)]);
        assert!(out.ok(), "{}", out.stderr);
    }
    let mut reference_bytes: Vec<Vec<u8>> = nvidia::files_in(&reference).into_iter().map(|(_, b)| b).collect();
    reference_bytes.sort();
    let packages = [
        "gpu_libs-1.0-py3-none-linux_x86_64.whl",
        "stored.zip",
        "pkg.tar",
        "pkg.tar.gz",
        "pkg.tar.zst",
        "pkg.tar.xz",
        "gpu-libs-1.0-0.conda",
        "gpu-libs_1.0_amd64.deb",
        "gpu-libs-gzip_1.0_amd64.deb",
    ];
    for package in packages {
        let path = dir.join(package);
        let json = list_json(&path);
        let mut problems = Vec::new();
        errors(&json["root"], &mut problems);
        assert!(problems.is_empty(), "{package}: {problems:?}");
        assert_eq!(targets(&json), expected, "{package}: the targets of its two libraries");
        let out_dir = work.path(package);
        let out = offload(&["extract", &s(&path), "-o", &s(&out_dir)]);
        assert!(out.ok(), "{package}: {}", out.stderr);
        let mut bytes: Vec<Vec<u8>> = nvidia::files_in(&out_dir).into_iter().map(|(_, b)| b).collect();
        bytes.sort();
        assert_eq!(bytes, reference_bytes, "{package}: the extracted images are the libraries' own");
        let names = out.stdout.clone();
        assert!(
            names.contains("libhip_3tu.so.hipv4-amdgcn-amd-amdhsa--gfx90a"),
            "{package}: images named by member: {names}"
        );
    }
    // What the tools list is what we list, member for member.
    let listed = fs::read_to_string(dir.join("expected.txt")).unwrap();
    for package in ["gpu_libs-1.0-py3-none-linux_x86_64.whl", "pkg.tar.gz", "gpu-libs-1.0-0.conda"] {
        let json = list_json(&dir.join(package));
        let mut ours_names = Vec::new();
        member_names(&json["root"], &mut ours_names);
        let section = listed.split("== ").find(|s| s.contains(package)).unwrap();
        let theirs: Vec<&str> = section.lines().skip(1).filter(|l| !l.is_empty()).collect();
        for name in theirs {
            assert!(
                ours_names.iter().any(|n| n == name),
                "{package}: `{name}` is listed by the tool, not by us: {ours_names:?}"
            );
        }
    }
}

fn member_names(node: &serde_json::Value, out: &mut Vec<String>) {
    if node["kind"] == "package-member" {
        out.push(node["fields"]["name"].as_str().unwrap_or("").to_string());
    }
    for child in node["children"].as_array().into_iter().flatten() {
        member_names(child, out);
    }
}

/// A library past the size at which a deflated member is inflated into an unlinked temporary
/// file rather than memory (`explore::SPILL_OVER`, 64 MiB): the wheel holding it lists the same
/// targets and kernels as the library alone, whether the temporary file can be made or not
/// (then the member is inflated into memory), and no temporary file is left behind.
#[test]
fn a_large_member_read_back_from_a_temporary_file_gives_the_same_answers() {
    let scratch = Scratch::new("packages", "spilled");
    let mut library = fs::read(fixture("libhip_3tu_compressed.so")).unwrap();
    library.resize(65 << 20, 0);
    let lib = scratch.write("libbig.so", &library);
    let wheel = scratch.path("big-1.0-py3-none-linux_x86_64.whl");
    let zip = run(Path::new("python3"), &["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], 'big/libbig.so')", &s(&wheel), &s(&lib)]);
    assert!(zip.ok(), "{}", zip.stderr);
    let tmp = scratch.path("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let answers = |file: &Path, tmpdir: &str| {
        let env = [("TMPDIR", tmpdir)];
        let kernels = support::exec_ok(support::ours(), &["kernels", "--json", &s(file)], &env, None).stdout;
        let kernels: serde_json::Value = serde_json::from_str(&kernels).unwrap();
        let sizes = support::exec_ok(support::ours(), &["sizes", "--json", &s(file)], &env, None).stdout;
        let sizes: serde_json::Value = serde_json::from_str(&sizes).unwrap();
        // Each kernel's `path` in the tree: the wheel adds its package and member above.
        let mut rows = kernels["kernels"].clone();
        for row in rows.as_array_mut().into_iter().flatten() {
            for cell in row["targets"].as_object_mut().into_iter().flat_map(|t| t.values_mut()) {
                cell.as_object_mut().map(|c| c.remove("path"));
            }
        }
        (rows, kernels["targets"].clone(), sizes["targets"].clone())
    };
    let alone = answers(&lib, &s(&tmp));
    assert!(alone.0.as_array().is_some_and(|k| !k.is_empty()), "the library has kernels: {alone:?}");
    let spilled = answers(&wheel, &s(&tmp));
    assert_eq!(spilled.0, alone.0, "kernels");
    assert_eq!(spilled.1, alone.1, "kernel targets");
    let targets = |v: &serde_json::Value| v.as_array().unwrap().iter().map(|t| t["target"].clone()).collect::<Vec<_>>();
    assert_eq!(targets(&spilled.2), targets(&alone.2), "targets of sizes");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "a temporary file was left behind");
    let in_memory = answers(&wheel, "/nonexistent/offload-no-temporary-directory");
    assert_eq!(in_memory, spilled, "inflated into memory when no temporary file can be made");
    // Over --max-decompressed: said once, and nothing is inflated or written.
    let limited = support::exec(
        support::ours(),
        &["list", "--max-decompressed", "1048576", &s(&wheel)],
        &[("TMPDIR", &s(&tmp))],
        None,
    );
    assert_eq!(limited.stdout.matches("over the limit of 1048576 bytes").count(), 1, "{}", limited.stdout);
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}
