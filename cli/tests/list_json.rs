//! `offload list --json` prints what scripts have always read: the documents of two fixtures, a
//! HIP object with compressed bundles (decompressed byte spaces) and an OpenMP object with
//! offload binaries, compared byte for byte with the output recorded in `tests/golden/`
//! (rewrite them with `OFFLOAD_UPDATE_GOLDEN=1` after a deliberate change of the shape).

use std::path::Path;
use std::process::Command;

fn check(fixture: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_offload"))
        .current_dir(root)
        .args(["list", "--json", &format!("tests/fixtures/{fixture}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{fixture}: {}", String::from_utf8_lossy(&out.stderr));
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{fixture}.list.json"));
    if std::env::var_os("OFFLOAD_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out.stdout).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    let got = String::from_utf8(out.stdout).unwrap();
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
    check("hip_elf_2arch_compressed.o");
}

#[test]
fn offload_binaries_list_as_before() {
    check("omp_elf_2arch.o");
}
