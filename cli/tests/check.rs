//! `offload check`, the release gate, on releases built here with the real compilers: two
//! versions of a HIP library (clang-22) and of a CUDA fatbin (nvcc), the second with a kernel
//! removed for one target and a kernel that spills more. With a baseline of the first, `check`
//! fails on exactly those; its JUnit and SARIF reports are valid by their schemas (validated by
//! PyPI's `jsonschema` and `xmlschema`, installed with the schemas by
//! scripts/install-report-schemas.sh). And `sizes --identical`'s advisor on a real ROCm wheel,
//! against a comparison of the `.text` bytes of its code objects.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{llvm_bin, nvidia, offload, root, s, tool, wheels, Scratch};

/// (rule, kernel as demangled, target) of every error of a `check --json` document.
fn errors(doc: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for file in doc["files"].as_array().unwrap() {
        for check in file["checks"].as_array().unwrap() {
            for f in check["findings"].as_array().unwrap() {
                if f["level"] == "error" {
                    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
                    out.insert((text(&f["rule"]), text(&f["kernel"]["demangled"]), text(&f["target"])));
                }
            }
        }
    }
    out
}

fn set(items: &[(&str, &str, &str)]) -> BTreeSet<(String, String, String)> {
    items.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
}

/// The HIP library of tests/images/check_release.hip built for gfx90a and gfx1100 with `defines`.
fn hip_library(scratch: &Scratch, name: &str, defines: &[&str]) -> Option<PathBuf> {
    let clang = tool("clang-22", "check: HIP releases")?;
    let out = scratch.path(name);
    let images = root().join("tests/images");
    let status = Command::new(clang)
        .args(["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-g0", "-fPIC", "-shared", "-nostdlib", "-fuse-ld=lld"])
        .args(["--no-offload-add-rpath", "--offload-arch=gfx90a", "--offload-arch=gfx1100"])
        .args(defines)
        .arg(format!("-I{}", s(&images)))
        .arg(images.join("check_release.hip"))
        .arg("-o")
        .arg(&out)
        .env("PATH", format!("{}:{}", s(&llvm_bin()), std::env::var("PATH").unwrap_or_default()))
        .status()
        .unwrap();
    assert!(status.success(), "clang-22 failed on check_release.hip {defines:?}");
    Some(out)
}

/// The CUDA fatbin of tests/images/check_release.cu for sm_80 and sm_90 with `defines`.
fn cuda_fatbin(scratch: &Scratch, name: &str, defines: &[&str]) -> Option<PathBuf> {
    let nvcc = nvidia::nv_bin().join("nvcc");
    if !nvcc.is_file() {
        println!(
            "skipping the CUDA releases: nvcc is not installed at {} (scripts/install-nvidia.sh installs it)",
            nvcc.display()
        );
        return None;
    }
    let out = scratch.path(name);
    let status = Command::new(&nvcc)
        .args(["-fatbin", "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"])
        .args(defines)
        .arg(root().join("tests/images/check_release.cu"))
        .arg("-o")
        .arg(&out)
        .env("PATH", format!("{}:{}", s(&nvidia::nv_bin()), std::env::var("PATH").unwrap_or_default()))
        .status()
        .unwrap();
    assert!(status.success(), "nvcc failed on check_release.cu {defines:?}");
    Some(out)
}

/// Where scripts/install-report-schemas.sh put the validators and schemas.
fn schemas_dir() -> PathBuf {
    std::env::var_os("REPORT_SCHEMAS_DIR").map(PathBuf::from).unwrap_or_else(|| root().join(".tools/report-schemas"))
}

/// Validates the reports against the SARIF 2.1.0 schema and the JUnit XSD; installs the
/// validators first when they are not there, and says so and returns when that cannot be done.
fn validate(sarif: &Path, junit: &Path) {
    let dir = schemas_dir();
    let python = dir.join("venv/bin/python");
    if !python.is_file() {
        let installed =
            Command::new(root().join("scripts/install-report-schemas.sh")).status().is_ok_and(|s| s.success());
        if !installed {
            println!(
                "skipping the schema validation: scripts/install-report-schemas.sh could not install the validators"
            );
            return;
        }
    }
    let out = Command::new(&python)
        .arg(root().join("scripts/report_schemas.py"))
        .args(["validate", &s(&dir), "--sarif", &s(sarif), "--junit", &s(junit)])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    match out.status.code() {
        Some(0) => {}
        Some(3) => println!("skipping the schema validation: {said}"),
        _ => panic!("the reports are not valid by their schemas:\n{said}{}", String::from_utf8_lossy(&out.stderr)),
    }
}

/// Runs `check` on the second release with the first's baseline: exit 1, exactly `expected`
/// as errors, reports valid; the first release against its own baseline passes.
fn second_release_fails_on_exactly(
    scratch: &Scratch,
    v1: &Path,
    v2: &Path,
    require: &str,
    expected: BTreeSet<(String, String, String)>,
) {
    let base = scratch.path("base.json");
    let first = offload(&["check", &s(v1), "--require", require, "--write-baseline", &s(&base)]);
    assert_eq!(first.code, Some(0), "{}{}", first.stdout, first.stderr);
    let again = offload(&["check", &s(v1), "--require", require, "--baseline", &s(&base)]);
    assert_eq!(again.code, Some(0), "the baseline's own release passes: {}", again.stdout);

    let (junit, sarif) = (scratch.path("check.xml"), scratch.path("check.sarif"));
    let args = [
        "check",
        &s(v2),
        "--require",
        require,
        "--baseline",
        &s(&base),
        "--json",
        "--junit",
        &s(&junit),
        "--sarif",
        &s(&sarif),
    ];
    let second = offload(&args);
    assert_eq!(second.code, Some(1), "{}{}", second.stdout, second.stderr);
    let doc: serde_json::Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(doc["passed"], false);
    assert_eq!(errors(&doc), expected, "{}", second.stdout);

    // The same errors in the SARIF log and in the JUnit report's failures.
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.iter().filter(|r| r["level"] == "error").count(), expected.len());
    let xml = std::fs::read_to_string(&junit).unwrap();
    for (rule, _, _) in &expected {
        assert!(xml.contains(&format!("{rule}: ")), "{rule} not in {xml}");
    }
    validate(&sarif, &junit);

    // Text for people: grouped, names demangled, exit status the same.
    let text = offload(&["check", &s(v2), "--require", require, "--baseline", &s(&base)]);
    assert_eq!(text.code, Some(1));
    assert!(text.stdout.contains(": FAIL ("), "{}", text.stdout);
}

#[test]
fn hip_release_with_a_kernel_dropped_and_a_spill_fails_on_exactly_those() {
    let scratch = Scratch::new("check", "hip_release");
    let Some(v1) = hip_library(&scratch, "librelease.so.1", &[]) else { return };
    let Some(v2) = hip_library(&scratch, "librelease.so.2", &["-DDROP_SCALE_ON_GFX1100", "-DHEAVY_VGPRS=32"]) else {
        return;
    };
    let heavy = "heavy(float const*, float*)";
    let scale = "scale(float*, float)";
    let expected = set(&[
        ("kernel-missing", scale, "gfx1100"),
        ("baseline-kernel", scale, "gfx1100"),
        ("baseline-spills", heavy, "gfx90a"),
        ("baseline-spills", heavy, "gfx1100"),
        ("baseline-scratch", heavy, "gfx90a"),
        ("baseline-scratch", heavy, "gfx1100"),
    ]);
    second_release_fails_on_exactly(&scratch, &v1, &v2, "gfx90a,gfx1100", expected);
}

/// The kernels `kernels --json` has on some machine-code targets of `file` and not on
/// `target`: (target, demangled) for each target.
fn absent_from_json(file: &Path) -> BTreeSet<(String, String)> {
    let o = offload(&["kernels", "--json", &s(file)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = doc["kernels"].as_array().unwrap();
    let targets: BTreeSet<String> =
        rows.iter().flat_map(|r| r["targets"].as_object().unwrap().keys().cloned()).collect();
    let mut out = BTreeSet::new();
    for r in rows {
        let on = r["targets"].as_object().unwrap();
        for t in targets.iter().filter(|t| !on.contains_key(*t)) {
            out.insert((t.clone(), r["demangled"].as_str().unwrap().to_string()));
        }
    }
    out
}

/// `kernels --holes`'s answer: its count lines ("1 kernel missing on gfx1100 of 2 targets")
/// prefixed by their library, and each listed kernel with the target it is missing on.
fn kernels_holes(file: &Path) -> (Vec<String>, BTreeSet<(String, String)>) {
    let o = offload(&["kernels", "--holes", &s(file)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let (mut lines, mut missing) = (Vec::new(), BTreeSet::new());
    let (mut library, mut target) = (String::new(), String::new());
    // The table comes first; the holes follow their first heading.
    let start = o.stdout.find("\nholes in ").map_or(o.stdout.len(), |at| at + 1);
    for line in o.stdout[start..].lines() {
        if let Some(rest) = line.strip_prefix("holes in ") {
            library = rest.split(" (").next().unwrap().to_string();
        } else if let Some(kernel) = line.strip_prefix("    ") {
            missing.insert((target.clone(), kernel.to_string()));
        } else if let Some(count) = line.strip_prefix("  ").filter(|l| l.contains(" missing on ")) {
            target = count.split(" missing on ").nth(1).unwrap().split(" of ").next().unwrap().to_string();
            lines.push(format!("{library}: {count}"));
        }
    }
    (lines, missing)
}

/// The holes lines of `list`'s output: those under its holes heading.
fn list_holes(file: &Path) -> Vec<String> {
    let o = offload(&["list", &s(file)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let mut lines = o.stdout.lines().skip_while(|l| !l.starts_with("kernels missing on some targets"));
    lines.next();
    lines.take_while(|l| l.starts_with("  ")).map(|l| l.trim_start().to_string()).collect()
}

#[test]
fn list_counts_the_holes_kernels_lists() {
    let scratch = Scratch::new("check", "list_holes");
    let Some(v1) = hip_library(&scratch, "librelease.so.1", &[]) else { return };
    let Some(v2) = hip_library(&scratch, "librelease.so.2", &["-DDROP_SCALE_ON_GFX1100"]) else { return };
    // The first release has every kernel everywhere: no holes, no heading.
    assert!(absent_from_json(&v1).is_empty());
    assert!(list_holes(&v1).is_empty());
    assert!(!offload(&["list", &s(&v1)]).stdout.contains("missing on"));
    // The second lacks on gfx1100 what the kernel table shows absent there, and `list` says
    // what `kernels` counts, a line per library and target.
    let absent = absent_from_json(&v2);
    assert_eq!(absent, [("gfx1100".to_string(), "scale(float*, float)".to_string())].into());
    let (lines, missing) = kernels_holes(&v2);
    assert_eq!(missing, absent);
    assert_eq!(lines, ["librelease.so.2: 1 kernel missing on gfx1100 of 2 targets"]);
    assert_eq!(list_holes(&v2), lines);
    // In a wheel the library is its member, and the package summary counts its holes too.
    if Command::new("zip").arg("-v").output().is_ok_and(|o| o.status.success()) {
        let dir = scratch.path("wheel");
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::copy(&v2, dir.join("pkg/librelease.so.2")).unwrap();
        let wheel = scratch.path("release-2-py3-none-any.whl");
        let zip = Command::new("zip").current_dir(&dir).args(["-q", "-r"]).arg(&wheel).arg("pkg").status().unwrap();
        assert!(zip.success());
        let (in_wheel, _) = kernels_holes(&wheel);
        assert_eq!(in_wheel, ["pkg/librelease.so.2: 1 kernel missing on gfx1100 of 2 targets"]);
        assert_eq!(list_holes(&wheel), in_wheel);
    } else {
        println!("skipping the wheel: zip is not installed");
    }
}

#[test]
fn cuda_release_with_a_kernel_dropped_and_a_spill_fails_on_exactly_those() {
    let scratch = Scratch::new("check", "cuda_release");
    let Some(v1) = cuda_fatbin(&scratch, "release1.fatbin", &[]) else { return };
    let Some(v2) = cuda_fatbin(&scratch, "release2.fatbin", &["-DDROP_SCALE_ON_SM90", "-DHEAVY_REGS=32"]) else {
        return;
    };
    // A cubin counts no spills: they show as local memory (scratch), and fewer registers.
    let expected = set(&[
        ("kernel-missing", "scale", "sm_90"),
        ("baseline-kernel", "scale", "sm_90"),
        ("baseline-scratch", "heavy", "sm_80"),
        ("baseline-scratch", "heavy", "sm_90"),
    ]);
    second_release_fails_on_exactly(&scratch, &v1, &v2, "sm_80,sm_90", expected);
}

/// A policy file: limits by vendor, a per-kernel exception by glob, flags over the file; a
/// misspelt key or a policy that cannot be read is trouble (exit 2), as is a missing file.
#[test]
fn policy_limits_exceptions_and_trouble() {
    let scratch = Scratch::new("check", "policy");
    let Some(lib) = hip_library(&scratch, "libspill.so", &["-DHEAVY_VGPRS=32"]) else { return };
    let policy = scratch.write(
        "offload-check.toml",
        b"require = [\"gfx90a\"]\n\n[[limits]]\nvendor = \"amd\"\nspills = 0\n\n[[exceptions]]\nkernel = \"add*\"\nignore = true\n",
    );
    let out = offload(&["check", &s(&lib), "--policy", &s(&policy), "--json"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let heavy = "heavy(float const*, float*)";
    assert_eq!(errors(&doc), set(&[("spills", heavy, "gfx90a"), ("spills", heavy, "gfx1100")]));

    let allowed = scratch
        .write("allowed.toml", b"[[limits]]\nspills = 0\n\n[[exceptions]]\nkernel = \"heavy*\"\nspills = 1000\n");
    let out = offload(&["check", &s(&lib), "--policy", &s(&allowed)]);
    assert_eq!(out.code, Some(0), "the exception allows heavy's spills: {}", out.stdout);
    // A flag over the policy's limits: registers for every kernel; the exception still applies last.
    let out = offload(&["check", &s(&lib), "--policy", &s(&allowed), "--max-registers", "2", "--json"]);
    assert_eq!(out.code, Some(1));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(errors(&doc).iter().all(|(rule, _, _)| rule == "registers"), "{}", out.stdout);

    let misspelt = scratch.write("misspelt.toml", b"[[limits]]\nspils = 0\n");
    let out = offload(&["check", &s(&lib), "--policy", &s(&misspelt)]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("spils"), "{}", out.stderr);
    let out = offload(&["check", &s(&scratch.path("missing.so"))]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let out = offload(&["check", &s(&lib), "--require", "gfx11-generic"]);
    assert_eq!(out.code, Some(2), "a generic target is not a GPU: {}", out.stderr);
}

/// The code objects of one library's bundle: (target, instruction bytes, size of the code
/// object). The section is dumped by llvm-objcopy; the bundle's entries are walked here by its
/// documented layout (magic, u64 count, then u64 offset, u64 size, u64 id length and the id of
/// each entry), since clang-offload-bundler 22 refuses these bundles' 3-field host entry
/// (`host-x86_64-unknown-linux`: "invalid bundle id"); `.text` is read by the `object` crate.
fn unbundled(library: &Path, work: &Path) -> Vec<(String, Vec<u8>, u64)> {
    let fatbin = work.join("fatbin.hipfb");
    let dump = format!(".hip_fatbin={}", s(&fatbin));
    let objcopy = llvm_bin().join("llvm-objcopy");
    assert!(Command::new(objcopy)
        .args(["--dump-section", &dump])
        .arg(library)
        .arg(work.join("host.o"))
        .status()
        .unwrap()
        .success());
    let data = std::fs::read(&fatbin).unwrap();
    assert!(data.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"), "{}: one uncompressed bundle", library.display());
    let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) as usize;
    let mut at = 24;
    let count = u64_at(at);
    at += 8;
    let mut out = Vec::new();
    for _ in 0..count {
        let (offset, size, id_len) = (u64_at(at), u64_at(at + 8), u64_at(at + 16));
        let id = std::str::from_utf8(&data[at + 24..at + 24 + id_len]).unwrap().to_string();
        at += 24 + id_len;
        if !id.starts_with("hip") {
            continue;
        }
        let image = &data[offset..offset + size];
        use object::{Object, ObjectSection};
        let elf = object::File::parse(image).unwrap();
        let text = elf.section_by_name(".text").unwrap().data().unwrap().to_vec();
        out.push((id.rsplit("--").next().unwrap().to_string(), text, size as u64));
    }
    out
}

/// A generic family and instruction bytes.
type FamilyAndCode<'a> = (&'static str, &'a [u8]);

/// `sizes --identical` on cupy-rocm-5-0 (three libraries, one bundle each, nine processors):
/// its groups are those a comparison of the unbundled code objects' `.text` bytes gives.
#[test]
fn advisor_groups_on_a_rocm_wheel_equal_a_byte_comparison() {
    let Some(wheel) = wheels::wheel_file("cupy-rocm-5-0==13.3.0") else { return };
    if tool("clang-offload-bundler", "the advisor's byte comparison").is_none() {
        return;
    }
    let out = offload(&["sizes", "--identical", "--json", &s(&wheel)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["identical"]["images_not_compared"], 0);
    let ours: BTreeMap<Vec<String>, (String, u64, u64, u64)> = doc["identical"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let targets = g["targets"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
            let n = |k: &str| g[k].as_u64().unwrap();
            (targets, (g["build_for"].as_str().unwrap().to_string(), n("containers"), n("images"), n("saved")))
        })
        .collect();

    let unpacked = wheels::unpacked(&wheel);
    let scratch = Scratch::new("check", "advisor");
    let mut expected: BTreeMap<Vec<String>, (String, u64, u64, u64)> = BTreeMap::new();
    let libraries = ["cupy/cuda/cub", "cupy/cuda/thrust", "cupy/random/_generator_api"];
    for (i, lib) in libraries.iter().enumerate() {
        let work = scratch.path(&format!("lib{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let objects = unbundled(&unpacked.join(format!("{lib}.cpython-311-x86_64-linux-gnu.so")), &work);
        assert_eq!(objects.len(), 9, "{lib}");
        // Same family and same instruction bytes: one group.
        let mut groups: BTreeMap<FamilyAndCode<'_>, Vec<(&str, u64)>> = BTreeMap::new();
        for (target, text, size) in &objects {
            if let Some(family) = offload::ids::generic_family_of(target) {
                groups.entry((family, text)).or_default().push((target, *size));
            }
        }
        for ((family, _), mut members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
            members.sort();
            let targets: Vec<String> = members.iter().map(|(t, _)| t.to_string()).collect();
            let bytes: u64 = members.iter().map(|(_, n)| n).sum();
            let kept = members.iter().map(|(_, n)| *n).max().unwrap();
            let e = expected.entry(targets).or_insert((family.to_string(), 0, 0, 0));
            e.1 += 1;
            e.2 += members.len() as u64;
            e.3 += bytes - kept;
        }
    }
    assert!(!expected.is_empty(), "cupy-rocm-5-0 builds gfx1010, gfx1011 and gfx1012 alike");
    assert_eq!(ours, expected);
}
