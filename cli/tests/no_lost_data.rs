//! No lost data: an output never replaces an input unless the user says so, whatever the tool
//! writes reads back, a failed command leaves an existing output as it was (and no file
//! behind), a successful one replaces it whole, and output into a closed pipe ends quietly.

mod support;

use std::process::Command;
use support::{corrupt, fixture, offload, offload_ok, ours, read, s, Scratch, GFX906, HOST};

#[test]
fn an_input_is_not_overwritten_unless_asked() {
    let dir = Scratch::new("no_lost_data", "overwrite");
    let input = dir.path("bundle.hipfb");
    std::fs::copy(fixture("ccob_zstd_v3.hipfb"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    // The same file under another spelling of its path is still the input.
    let aliased = dir.dir().join(".").join("bundle.hipfb");
    let refused = offload(&["decompress", &s(&input), "-o", &s(&aliased)]);
    assert_eq!(refused.code, Some(1));
    let stderr = refused.stderr;
    assert!(stderr.contains("refusing to overwrite") && stderr.contains("--overwrite-input"), "{stderr}");
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input changed");
    let allowed = offload(&["--overwrite-input", "decompress", &s(&input), "-o", &s(&input)]);
    assert!(allowed.ok(), "{}", allowed.stderr);
    assert!(std::fs::read(&input).unwrap().starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
}

#[test]
fn every_container_written_reads_back() {
    let dir = Scratch::new("no_lost_data", "readback");
    let host = s(&dir.write("host.bin", b"host bytes"));
    let dev = s(&dir.write("dev.bin", b"device bytes"));
    let targets = "--targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a";
    for (ty, compress) in [("bc", false), ("bc", true), ("ll", false)] {
        let out = s(&dir.path(&format!("out.{ty}.{compress}")));
        let mut args = vec!["bundle", "--type", ty, targets, "--input", &host, "--input", &dev, "--output", &out];
        if compress {
            args.push("--compress");
        }
        let made = offload(&args);
        assert!(made.ok(), "{args:?}: {}", made.stderr);
        let listed = offload(&["unbundle", "--type", ty, "--list", "--input", &out]);
        let ids = &listed.stdout;
        assert!(ids.contains("hip-amdgcn-amd-amdhsa--gfx90a"), "{ty} {compress}: {ids}");
    }
}

// ---------------------------------------------------------------------------------------------
// Outputs a command must leave as they were, or replace whole
// ---------------------------------------------------------------------------------------------

const SENTINEL: &[u8] = b"sentinel: must survive a failed command\n";

#[test]
fn failed_commands_leave_existing_outputs_untouched() {
    let dir = Scratch::new("cli", "sentinel");
    let trunc = dir.write("trunc.bc", &read(&fixture("bundle_bin.bc"))[..40]);
    let corrupted = dir.write("corrupt.hipfb", &corrupt(&read(&fixture("ccob_zstd_v3.hipfb")), 1000));
    let out = dir.write("out", SENTINEL);
    let out2 = dir.write("out2", SENTINEL);
    let o = s(&out);
    let bundle_o = s(&fixture("bundle_bin_o.hipfb"));
    let cases: Vec<Vec<String>> = vec![
        // The second target is missing: the first output must not be written either.
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906},hipv4-amdgcn-amd-amdhsa--gfx1100"),
            format!("--input={bundle_o}"),
            format!("--output={o}"),
            format!("--output={}", s(&out2)),
        ],
        vec![
            "unbundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST}"),
            format!("--input={}", s(&trunc)),
            format!("--output={o}"),
        ],
        vec![
            "unbundle".into(),
            "--type=o".into(),
            format!("--targets={GFX906}"),
            format!("--input={}", s(&corrupted)),
            format!("--output={o}"),
        ],
        vec!["decompress".into(), s(&corrupted), "-o".into(), o.clone()],
        vec!["decompress".into(), s(&fixture("libhip_3tu_compressed.hipfb")), "-o".into(), o.clone()],
        vec!["decompress".into(), s(&fixture("bundle_bin.bc")), "-o".into(), o.clone()],
        vec!["compress".into(), s(&fixture("hip_elf_2arch.o")), "-o".into(), o.clone()],
        vec!["compress".into(), s(&trunc), "-o".into(), o.clone()],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={bundle_o}"),
            format!("--input={}", s(&dir.path("missing"))),
            format!("--output={o}"),
        ],
        vec![
            "bundle".into(),
            "--type=bc".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={bundle_o}"),
            format!("--output={o}"),
        ],
        vec![
            "package".into(),
            "-o".into(),
            o.clone(),
            format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a", s(&dir.path("missing"))),
        ],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = offload(&args);
        assert_eq!(r.code, Some(1), "offload {args:?} did not fail: {r:?}");
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert_eq!(read(&out), SENTINEL, "offload {args:?} changed the existing output");
        assert_eq!(read(&out2), SENTINEL, "offload {args:?} changed the existing output");
        assert_eq!(dir.names(), ["corrupt.hipfb", "out", "out2", "trunc.bc"], "offload {args:?} left files behind");
    }
}

#[test]
fn refused_bundled_object_leaves_existing_output_untouched() {
    let dir = Scratch::new("cli", "sentinel-elf");
    let src = dir.write("tiny.c", b"int tiny(void) { return 42; }\n");
    // A COFF host object: bundled objects are written for ELF hosts only.
    let obj = fixture("hip_coff_2arch.obj");
    let out = dir.write("bundled.o", SENTINEL);
    let r = offload(&[
        "bundle",
        "--type=o",
        &format!("--targets={HOST},{GFX906}"),
        &format!("--input={}", s(&obj)),
        &format!("--input={}", s(&src)),
        &format!("--output={}", s(&out)),
    ]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert_eq!(read(&out), SENTINEL);
}

/// A successful command replaces the output completely (no stale tail of a longer file).
#[test]
fn successful_commands_replace_existing_outputs() {
    let dir = Scratch::new("cli", "replace");
    let out = dir.write("out", &vec![0xAB; 100_000]);
    offload_ok(&["decompress", &s(&fixture("ccob_zstd_v3.hipfb")), "-o", &s(&out)]);
    assert!(read(&out) == read(&fixture("bundle_bin_o.hipfb")));
    assert_eq!(dir.names(), ["out"], "temporary files left behind");
}

/// `offload list big.so | head -1`: the reader goes away early; the tool must stop without a
/// panic message (it used to panic on the failed print).
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(ours())
        .arg("list")
        .arg(fixture("libhip_3tu_compressed.so"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
