//! The `occupancy` of every AMDGPU kernel node against clang-22's own number: the kernels of
//! `tests/images/occupancy.hip` (many VGPRs, AGPRs, SGPRs, LDS with large and small work-groups)
//! are compiled here for many processors, modes and wave sizes with
//! `-Rpass-analysis=kernel-resource-usage`, and each kernel's "Occupancy [waves/SIMD]: N"
//! remark must equal the `occupancy` field the explorer computes from the code object.

mod common;

use offload::explore::{explore, Options};
use offload::tree::{Node, NodeKind, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn images_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images")
}

/// The processors compiled for, with the extra options of each build.
const BUILDS: &[(&str, &[&str])] = &[
    ("gfx700", &[]),
    ("gfx803", &[]),
    ("gfx900", &[]),
    ("gfx906", &[]),
    ("gfx908", &[]),
    ("gfx90a", &[]),
    ("gfx942", &[]),
    ("gfx950", &[]),
    ("gfx1010", &[]),
    ("gfx1030", &[]),
    ("gfx1100", &[]),
    ("gfx1100", &["-mwavefrontsize64"]),
    ("gfx1100", &["-mcumode"]),
    ("gfx1102", &[]),
    ("gfx1151", &[]),
    ("gfx1200", &[]),
    ("gfx1201", &[]),
    ("gfx9-generic", &["-mcode-object-version=6"]),
    ("gfx9-4-generic", &["-mcode-object-version=6"]),
    ("gfx10-1-generic", &["-mcode-object-version=6"]),
    ("gfx10-3-generic", &["-mcode-object-version=6"]),
    ("gfx11-generic", &["-mcode-object-version=6"]),
    ("gfx12-generic", &["-mcode-object-version=6"]),
];

/// "Function Name" and "Occupancy [waves/SIMD]" of clang's kernel-resource-usage remarks.
fn remarked_occupancy(stderr: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in stderr.lines() {
        let Some((_, remark)) = line.split_once("remark: ") else { continue };
        let remark = remark.split(" [-Rpass").next().unwrap_or(remark).trim();
        if let Some(name) = remark.strip_prefix("Function Name: ") {
            current = Some(name.to_string());
        } else if let Some(n) = remark.strip_prefix("Occupancy [waves/SIMD]: ") {
            let name = current.clone().expect("an occupancy remark before any function name");
            out.insert(name, n.parse().unwrap());
        }
    }
    out
}

fn kernel_nodes(node: &Node, out: &mut Vec<Node>) {
    if node.kind == NodeKind::Kernel {
        out.push(node.clone());
    }
    for c in &node.children {
        kernel_nodes(c, out);
    }
}

fn uint(node: &Node, name: &str) -> Option<u64> {
    match node.get(name) {
        Some(Value::Uint(n)) => Some(*n),
        _ => None,
    }
}

/// Compiles the kernels for one build; clang's stderr and the code object.
fn compile(clang: &Path, dir: &Path, processor: &str, extra: &[&str], out: &str) -> (String, Vec<u8>) {
    let mut cmd = Command::new(clang);
    cmd.current_dir(dir)
        .args(["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "--cuda-device-only", "--no-gpu-bundle-output"])
        .arg(format!("--offload-arch={processor}"))
        .args(extra)
        .args(["-Rpass-analysis=kernel-resource-usage", "-c", "occupancy.hip", "-o", out]);
    let result = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert!(result.status.success(), "clang for {processor} {extra:?}: {stderr}");
    (stderr, std::fs::read(dir.join(out)).unwrap())
}

#[test]
fn occupancy_equals_clangs_remark_for_every_kernel_and_processor() {
    let Some(clang) = common::tool("clang", "occupancy_equals_clangs_remark") else { return };
    let s = common::Scratch::new("occupancy", "remarks");
    for f in ["occupancy.hip", "mini_hip.h"] {
        std::fs::copy(images_dir().join(f), s.path(f)).unwrap();
    }
    // Two builds at a time: the machine's cores are shared.
    let results: Vec<(String, String, Vec<u8>)> = BUILDS
        .chunks(2)
        .flat_map(|pair| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = pair
                    .iter()
                    .enumerate()
                    .map(|(i, &(processor, extra))| {
                        let (clang, dir) = (&clang, s.dir());
                        scope.spawn(move || {
                            let name = format!("{processor}{}", extra.join("")).replace(['-', '='], "_");
                            let (stderr, data) = compile(clang, dir, processor, extra, &format!("{name}{i}.co"));
                            (name, stderr, data)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
            })
        })
        .collect();
    let mut matched = 0;
    let mut limits = BTreeMap::<String, usize>::new();
    let mut per_build = Vec::new();
    for (build, stderr, data) in &results {
        let want = remarked_occupancy(stderr);
        let tree = explore(&data[..], build, &Options::default());
        let mut kernels = Vec::new();
        kernel_nodes(&tree.root, &mut kernels);
        assert_eq!(kernels.len(), want.len(), "{build}: kernels in the code object and remarks");
        for k in &kernels {
            let name = k.text("name").unwrap();
            let got = uint(k, "occupancy").unwrap_or_else(|| panic!("{build} {name}: no occupancy field"));
            let limited_by = k.text("occupancy_limited_by").unwrap_or("").to_string();
            assert_eq!(
                Some(&got),
                want.get(name),
                "{build} {name}: ours {got} (limited by {limited_by}), clang's remark {:?}; fields {:?}",
                want.get(name),
                k.fields.iter().map(|f| (&f.name, &f.value)).collect::<Vec<_>>()
            );
            *limits.entry(limited_by).or_default() += 1;
            matched += 1;
        }
        per_build.push(format!("{build}: {}", kernels.len()));
    }
    println!("occupancy of {matched} kernels matched clang-22's remarks ({})", per_build.join(", "));
    println!("limited by: {limits:?}");
    for l in ["VGPRs", "SGPRs", "LDS", "none"] {
        assert!(limits.keys().any(|k| k.split(", ").any(|x| x == l)), "no kernel limited by {l}: {limits:?}");
    }
    assert!(matched >= 23 * 18, "{matched}");
}
