//! No lost data: an output never replaces an input unless the user says so, and whatever the
//! tool writes reads back.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn offload(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offload")).args(args).output().unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("offload-nolost-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn an_input_is_not_overwritten_unless_asked() {
    let dir = scratch("overwrite");
    let input = dir.join("bundle.hipfb");
    std::fs::copy(fixture("ccob_zstd_v3.hipfb"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    // The same file under another spelling of its path is still the input.
    let aliased = dir.join(".").join("bundle.hipfb");
    let refused = offload(&["decompress", s(&input), "-o", s(&aliased)]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("refusing to overwrite") && stderr.contains("--overwrite-input"), "{stderr}");
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input changed");
    let allowed = offload(&["--overwrite-input", "decompress", s(&input), "-o", s(&input)]);
    assert!(allowed.status.success(), "{}", String::from_utf8_lossy(&allowed.stderr));
    assert!(std::fs::read(&input).unwrap().starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_container_written_reads_back() {
    let dir = scratch("readback");
    let host = dir.join("host.bin");
    let dev = dir.join("dev.bin");
    std::fs::write(&host, b"host bytes").unwrap();
    std::fs::write(&dev, b"device bytes").unwrap();
    let targets = "--targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a";
    for (ty, compress) in [("bc", false), ("bc", true), ("ll", false)] {
        let out = dir.join(format!("out.{ty}.{compress}"));
        let mut args =
            vec!["bundle", "--type", ty, targets, "--input", s(&host), "--input", s(&dev), "--output", s(&out)];
        if compress {
            args.push("--compress");
        }
        let made = offload(&args);
        assert!(made.status.success(), "{args:?}: {}", String::from_utf8_lossy(&made.stderr));
        let listed = offload(&["unbundle", "--type", ty, "--list", "--input", s(&out)]);
        let ids = String::from_utf8_lossy(&listed.stdout);
        assert!(ids.contains("hip-amdgcn-amd-amdhsa--gfx90a"), "{ty} {compress}: {ids}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
