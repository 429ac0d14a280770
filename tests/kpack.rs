//! kpack'd ROCm builds: binaries transformed by ROCm's own rocm-kpack (`tests/fixtures/kpack/`,
//! see its README) read, with their `.kpack` archives, as the builds before the transform.

use offload::explore::{explore, explore_with_companions, Companion, Options};
use offload::report::kernels::{self, KernelTable};
use offload::report::targets;
use offload::tree::{NodeKind, Severity, Tree};
use std::path::Path;

fn read(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kpack").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const ARCHIVES: [&str; 2] = ["after/.kpack/kp_gfx90a.kpack", "after/.kpack/kp_gfx1100.kpack"];

fn options() -> Options {
    Options { verify_all: true, ..Options::default() }
}

fn before(binary: &str) -> Tree {
    explore(&read(&format!("before/{binary}"))[..], binary, &options())
}

fn after(binary: &str, archives: &[&str]) -> Tree {
    let data: Vec<(String, Vec<u8>)> = archives.iter().map(|a| (a.to_string(), read(a))).collect();
    explore_with_companions(&read(&format!("after/{binary}"))[..], binary, &options(), &Companion::all(&data))
}

/// The targets as a sorted list of what names them and their image sizes.
fn target_list(tree: &Tree) -> Vec<(String, String, String, u64)> {
    let mut v: Vec<_> =
        targets::collect(tree).into_iter().map(|t| (t.target_id, t.processor, t.features, t.image_size)).collect();
    v.sort();
    v
}

/// A kernel, its column, and its registers, SGPRs, LDS and occupancy.
type KernelCell = (String, String, Option<u64>, Option<u64>, Option<u64>, Option<u64>);

/// The kernel table with paths left out (they differ: the trees differ), columns sorted.
fn kernel_list(table: &KernelTable) -> Vec<KernelCell> {
    let mut v = Vec::new();
    for row in &table.rows {
        for (column, cell) in table.columns.iter().zip(&row.cells) {
            if let Some(c) = cell {
                v.push((row.name.clone(), column.target.clone(), c.registers, c.sgprs, c.lds, c.occupancy));
            }
        }
    }
    v.sort();
    v
}

#[test]
fn a_kpacked_build_with_its_archives_reads_as_before_the_transform() {
    for binary in ["lib/libkp.so", "bin/kp_app"] {
        let (old, new) = (before(binary), after(binary, &ARCHIVES));
        assert!(new.errors().is_empty(), "{binary}: {:?}", new.errors());
        let targets = target_list(&old);
        assert!(targets.len() >= 2, "{binary}: {targets:?}");
        assert_eq!(target_list(&new), targets, "{binary}");
        let kernels = kernel_list(&kernels::collect(&old));
        assert!(!kernels.is_empty());
        assert_eq!(kernel_list(&kernels::collect(&new)), kernels, "{binary}");
    }
}

#[test]
fn the_wrappers_and_the_reference_are_described() {
    let tree = after("lib/libkp.so", &ARCHIVES);
    let mut wrappers = Vec::new();
    let mut reference = None;
    tree.root.walk(&mut |n, _| match n.kind {
        NodeKind::FatbinWrapper => wrappers.push(n.clone()),
        NodeKind::KpackReference => reference = Some(n.clone()),
        _ => {}
    });
    let keys: Vec<&str> = wrappers.iter().map(|w| w.text("kpack_key").unwrap()).collect();
    assert_eq!(keys, ["stage/lib/libkp.so#0", "stage/lib/libkp.so#1"]);
    assert!(wrappers.iter().all(|w| w.text("magic") == Some("HIPK") && w.children.len() == 2));
    let reference = reference.unwrap();
    assert_eq!(reference.text("kernel_name"), Some("stage/lib/libkp.so"));
    assert_eq!(reference.text("kpack_search_path"), Some("../.kpack/kp_@GFXARCH@.kpack"));
}

#[test]
fn without_its_archives_a_kpacked_build_says_where_its_device_code_is() {
    let tree = after("lib/libkp.so", &[]);
    assert!(targets::collect(&tree).is_empty());
    let warnings = tree.root.diagnostics_of(Severity::Warning);
    assert!(warnings.iter().any(|(_, d)| d.message.contains("stage/lib/libkp.so#1")), "{warnings:?}");
    let fit = offload::report::fit::fit(&tree, "gfx90a").unwrap();
    assert!(!fit.runs && fit.reason.contains("kpack"), "{}", fit.reason);
    // One archive: only its architecture joins.
    let tree = after("lib/libkp.so", &ARCHIVES[..1]);
    let found: Vec<String> = targets::collect(&tree).into_iter().map(|t| t.processor).collect();
    assert_eq!(found, ["gfx90a", "gfx90a"]);
}

#[test]
fn an_archive_alone_lists_every_code_object() {
    let data = read("after/.kpack/kp_gfx1100.kpack");
    let tree = explore(&data[..], "kp_gfx1100.kpack", &options());
    assert!(tree.errors().is_empty(), "{:?}", tree.errors());
    assert_eq!(tree.root.children[0].kind, NodeKind::KpackArchive);
    let found = targets::collect(&tree);
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|t| t.target_id == "hipv4-amdgcn-amd-amdhsa--gfx1100" && t.compression.is_none()));
    // The same code objects, written by rocm-kpack's zstd-per-kernel scheme.
    let zstd = read("kp_gfx1100_zstd.kpack");
    let ztree = explore(&zstd[..], "kp_gfx1100_zstd.kpack", &options());
    assert!(ztree.errors().is_empty(), "{:?}", ztree.errors());
    let ztargets = targets::collect(&ztree);
    assert!(ztargets.iter().all(|t| t.compression.as_deref() == Some("zstd")));
    assert_eq!(target_list(&ztree), target_list(&tree));
    assert_eq!(kernel_list(&kernels::collect(&ztree)), kernel_list(&kernels::collect(&tree)));
}

/// A ustar archive of `files` (name, bytes), for the package test.
fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..108].copy_from_slice(b"0000644\0");
        h[108..116].copy_from_slice(b"0000000\0");
        h[116..124].copy_from_slice(b"0000000\0");
        h[124..136].copy_from_slice(format!("{:011o}\0", data.len()).as_bytes());
        h[136..148].copy_from_slice(b"00000000000\0");
        h[156] = b'0';
        h[257..265].copy_from_slice(b"ustar\x0000");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

#[test]
fn a_package_holding_a_binary_and_its_archives_joins_them_and_counts_each_code_object_once() {
    let lib = read("after/lib/libkp.so");
    let (a, b) = (read(ARCHIVES[0]), read(ARCHIVES[1]));
    let package = tar(&[("lib/libkp.so", &lib), (".kpack/kp_gfx90a.kpack", &a), (".kpack/kp_gfx1100.kpack", &b)]);
    let tree = explore(&package[..], "kp.tar", &options());
    // Each code object counts once: under the library, not again under its archive.
    assert_eq!(target_list(&tree), target_list(&before("lib/libkp.so")));
    let of_lib: Vec<(String, String, String, u64)> = {
        let mut v: Vec<_> = targets::collect(&tree)
            .into_iter()
            .filter(|t| t.member.as_deref() == Some("lib/libkp.so"))
            .map(|t| (t.target_id, t.processor, t.features, t.image_size))
            .collect();
        v.sort();
        v
    };
    let notes: Vec<&str> = tree.root.diagnostics_of(Severity::Note).iter().map(|(_, d)| d.message.as_str()).collect();
    assert_eq!(
        notes.iter().filter(|m| m.contains("shown under the package's kpack'd binaries")).count(),
        2,
        "{notes:?}"
    );
    assert_eq!(of_lib, target_list(&before("lib/libkp.so")));
}
