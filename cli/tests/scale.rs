//! Memory bounded by the largest image, not by the file: a wheel whose device images come to
//! 8 GiB once decompressed is read by `list`, `kernels`, `fit` and `sizes` under a 1 GiB
//! address-space limit (`ulimit -v`), with the right answers.
//!
//! The wheel is made with the reference tools: two real AMDGPU code objects (tests/images/,
//! clang-22), each padded with zeros to 128 MiB (trailing bytes do not change what an ELF
//! says), bundled and zstd-compressed by clang-offload-bundler into one compressed bundle, and
//! that bundle stored 32 times in a zip (32 × 2 × 128 MiB = 8 GiB). The answers are checked
//! against what the same commands say of the unpadded code objects, bundled once, without a
//! limit. Skipped, with a message, when clang-offload-bundler or zip is not installed.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{llvm_tool, ours, root, Scratch};

const PADDED: u64 = 128 << 20;
const COPIES: usize = 32;
const TARGETS: &str = "host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1100";
/// The address space every command gets: 1 GiB.
const LIMIT_KIB: u64 = 1 << 20;

fn image(name: &str) -> PathBuf {
    root().join("tests/images").join(name)
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// `offload ARGS` under the address-space limit, through the shell's `ulimit -v`. glibc
/// reserves 64 MiB of address space for each thread's malloc arena (up to eight per core),
/// which `ulimit -v` counts though it is never touched; four arenas keep the limit about the
/// memory the command uses.
fn limited(args: &[&str]) -> Output {
    let script = format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\"");
    Command::new("sh").arg("-c").arg(script).arg(ours()).args(args).env("MALLOC_ARENA_MAX", "4").output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// A compressed bundle of the host placeholder and the two code objects, each padded to
/// `pad` bytes (unpadded when `None`), made by clang-offload-bundler.
fn compressed_bundle(bundler: &Path, dir: &Path, tag: &str, pad: Option<u64>) -> PathBuf {
    let host = dir.join("host.o");
    std::fs::write(&host, b"").unwrap();
    let mut inputs = vec![host];
    for target in ["gfx90a", "gfx1100"] {
        let path = dir.join(format!("{tag}_{target}.co"));
        std::fs::copy(image(&format!("hip_kernels_{target}.co")), &path).unwrap();
        if let Some(size) = pad {
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(size).unwrap();
        }
        inputs.push(path);
    }
    let out = dir.join(format!("{tag}.hipfb"));
    let mut cmd = Command::new(bundler);
    cmd.args(["--type=o", &format!("--targets={TARGETS}"), "--compress"]).arg(format!("--output={}", out.display()));
    for input in &inputs {
        cmd.arg(format!("--input={}", input.display()));
    }
    // zstd, whatever the environment says.
    cmd.env("OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "1");
    run(&mut cmd);
    for input in &inputs[1..] {
        std::fs::remove_file(input).unwrap();
    }
    out
}

/// Kernel names and targets of `offload kernels --json`, sorted.
fn kernel_names(doc: &Value) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> =
        doc["kernels"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap().to_string()).collect();
    names.sort();
    names.dedup();
    let mut targets: Vec<String> =
        doc["targets"].as_array().unwrap().iter().map(|c| c["target"].as_str().unwrap().to_string()).collect();
    targets.sort();
    targets.dedup();
    (names, targets)
}

#[test]
fn eight_gib_of_device_images_are_read_in_one_gib() {
    let Some(bundler) = llvm_tool("clang-offload-bundler") else { return };
    if Command::new("zip").arg("-v").output().is_err() {
        println!("skipping: zip is not installed");
        return;
    }
    let scratch = Scratch::new("scale", "eight_gib");
    let dir = scratch.dir();

    // The answers for one unpadded bundle, read without a limit.
    let small = compressed_bundle(&bundler, dir, "small", None);
    let small = small.to_str().unwrap();
    let expected_kernels = kernel_names(&json(&run(Command::new(ours()).args(["kernels", "--json", small]))));
    assert!(!expected_kernels.0.is_empty(), "the code objects have kernels");

    // The wheel: one padded compressed bundle stored 32 times.
    let big = compressed_bundle(&bundler, dir, "big", Some(PADDED));
    let wheel = dir.join("scale-1.0-py3-none-linux_x86_64.whl");
    let mut zip = Command::new("zip");
    zip.current_dir(dir).args(["-q", "-0", "-j"]).arg(&wheel);
    for i in 0..COPIES {
        let member = dir.join(format!("part_{i:02}.hipfb"));
        std::fs::hard_link(&big, &member).unwrap();
        zip.arg(&member);
    }
    run(&mut zip);
    let wheel = wheel.to_str().unwrap();

    let list = limited(&["list", wheel]);
    assert!(list.status.success(), "list: {}", String::from_utf8_lossy(&list.stderr));

    let kernels = limited(&["kernels", "--json", wheel]);
    assert!(kernels.status.success(), "kernels: {}", String::from_utf8_lossy(&kernels.stderr));
    assert_eq!(kernel_names(&json(&kernels)), expected_kernels, "the same kernels and targets as one small bundle");

    let fit = limited(&["fit", "--json", "--gpu", "gfx90a", wheel]);
    assert!(fit.status.success(), "fit: {}", String::from_utf8_lossy(&fit.stderr));
    assert_eq!(json(&fit)["runs"], Value::Bool(true));

    let sizes = limited(&["sizes", "--json", wheel]);
    assert!(sizes.status.success(), "sizes: {}", String::from_utf8_lossy(&sizes.stderr));
    let doc = json(&sizes);
    let image_bytes = doc["image_bytes"].as_u64().unwrap();
    assert_eq!(image_bytes, COPIES as u64 * 2 * PADDED, "every padded image counted: {doc}");
}
