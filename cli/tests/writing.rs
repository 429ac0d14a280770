//! End-to-end tests of the `offload` command, writing: `bundle` and `unbundle` round trips
//! against clang-offload-bundler (text, binary and bundled-object layouts), `compress` and
//! `decompress`, and `package` and `extract` against llvm-offload-binary. `reading.rs` has
//! `offload list` and bad input, `no_lost_data.rs` what a command must not destroy.
//!
//! Every test runs the built binary on the real fixtures in `tests/fixtures/` (made by
//! clang-22/llvm-22, see its README) or on files it writes into its own temporary directory.
//! Where a test compares with the LLVM 22 reference tools it looks for them in
//! `/usr/lib/llvm-22/bin` (or `$LLVM_BIN`) and skips that comparison, saying so, when a tool
//! is missing.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{
    assert_clean_failure, exec, fixture, listed_targets, llvm_tool, must, offload, offload_ok, ours, read, s, Scratch,
    XorShift, GFX906, GFX90A_XNACK, HIP_906_XNACK_MINUS, HIP_90A, HOST,
};

// ---------------------------------------------------------------------------------------------
// 1. bundle / unbundle round trips, against clang-offload-bundler
// ---------------------------------------------------------------------------------------------

const TARGETS3: [&str; 3] = [HOST, GFX906, GFX90A_XNACK];

/// Bundles `inputs` with ours (and the reference, when installed: byte-identical), then
/// unbundles each target with ours (and the reference): each gives back its input.
fn bundle_round_trip(dir: &Scratch, ty: &str, inputs: &[PathBuf], extra: &[&str]) {
    let bundler = llvm_tool("clang-offload-bundler");
    let targets = format!("--targets={}", TARGETS3.join(","));
    let out = dir.path(&format!("ours.{ty}"));
    let mut common: Vec<String> = vec![format!("--type={ty}"), targets];
    common.extend(inputs.iter().map(|p| format!("--input={}", s(p))));
    common.extend(extra.iter().map(|e| e.to_string()));
    let mut args = vec!["bundle".to_string()];
    args.extend(common.iter().cloned());
    args.push(format!("--output={}", s(&out)));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    offload_ok(&a);
    let ours_bytes = read(&out);
    if let Some(b) = &bundler {
        let r = dir.path(&format!("ref.{ty}"));
        let mut rargs = common.clone();
        rargs.push(format!("--output={}", s(&r)));
        let ra: Vec<&str> = rargs.iter().map(String::as_str).collect();
        must(b, &ra);
        assert!(ours_bytes == read(&r), "type {ty} {extra:?}: our bundle differs from clang-offload-bundler's");
    }
    // --list
    let l = offload_ok(&["unbundle", "--list", &format!("--type={ty}"), &format!("--input={}", s(&out))]);
    let listed: BTreeSet<&str> = l.stdout.lines().collect();
    let want: BTreeSet<&str> = ["host-x86_64-unknown-linux-gnu-", GFX906, GFX90A_XNACK].into_iter().collect();
    assert_eq!(listed, want, "type {ty}: unbundle --list");
    // Unbundle each target, ours and the reference's unbundler.
    for (target, input) in TARGETS3.iter().zip(inputs) {
        let u = dir.path("unbundled");
        offload_ok(&[
            "unbundle",
            &format!("--type={ty}"),
            &format!("--targets={target}"),
            &format!("--input={}", s(&out)),
            &format!("--output={}", s(&u)),
        ]);
        assert!(read(&u) == read(input), "type {ty} {extra:?}: {target} does not round trip");
        if let Some(b) = &bundler {
            let r = dir.path("ref-unbundled");
            must(
                b,
                &[
                    "--unbundle",
                    &format!("--type={ty}"),
                    &format!("--targets={target}"),
                    &format!("--input={}", s(&out)),
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(
                read(&r) == read(input),
                "type {ty} {extra:?}: clang-offload-bundler unbundles {target} of our bundle differently"
            );
        }
    }
}

#[test]
fn text_bundles_round_trip_and_match_reference() {
    let dir = Scratch::new("cli", "text");
    let inputs = [
        dir.write("host.txt", b"int host(void) { return 0; }\n// a comment\n"),
        dir.write("gfx906.txt", b"define void @k() {\n  ret void\n}\n"),
        // No final newline, and an empty line inside.
        dir.write("gfx90a.txt", b"; device\n\n  .text"),
    ];
    for ty in ["i", "ii", "cui", "hipi", "d", "ll", "s"] {
        bundle_round_trip(&dir, ty, &inputs, &[]);
    }
}

#[test]
fn binary_bundles_round_trip_and_match_reference() {
    let dir = Scratch::new("cli", "binary");
    let noise = |n: usize, seed: u32| XorShift(seed).bytes(n);
    // Not ELF: for --type=o the bundler then writes a plain binary bundle.
    let inputs = [
        dir.write("host.bin", &noise(3001, 1)),
        dir.write("gfx906.bin", &noise(100, 2)),
        dir.write("gfx90a.bin", &noise(5003, 3)),
    ];
    for ty in ["bc", "o", "gch", "ast"] {
        for align in ["--bundle-align=1", "--bundle-align=8", "--bundle-align=4096"] {
            bundle_round_trip(&dir, ty, &inputs, &[align]);
        }
    }
    // An empty host input, as clang's .hip_fatbin has.
    let empty = [dir.write("empty", b""), inputs[1].clone(), inputs[2].clone()];
    bundle_round_trip(&dir, "o", &empty, &["--bundle-align=4096"]);
}

/// What the fixture bundles made by clang-offload-bundler hold, unbundled by us, is what the
/// reference unbundles.
#[test]
fn unbundle_fixtures_like_reference() {
    let Some(bundler) = llvm_tool("clang-offload-bundler") else {
        return;
    };
    let dir = Scratch::new("cli", "unbundle-fixtures");
    for (name, ty) in [
        ("bundle_text.s", "s"),
        ("bundle_text.i", "i"),
        ("bundle_bin.bc", "bc"),
        ("hip_elf_2arch.hipfb", "o"),
        ("ccob_zstd_v3_text.ll", "ll"),
        ("ccob_zstd_v1_derived.hipfb", "o"),
        ("hip_driver_bundle.bc", "bc"),
    ] {
        let f = fixture(name);
        let input = format!("--input={}", s(&f));
        let list = must(&bundler, &["--list", &format!("--type={ty}"), &input]);
        for id in list.stdout.lines() {
            let (o, r) = (dir.path("ours"), dir.path("ref"));
            offload_ok(&[
                "unbundle",
                &format!("--type={ty}"),
                &format!("--targets={id}"),
                &input,
                &format!("--output={}", s(&o)),
            ]);
            must(
                &bundler,
                &[
                    "--unbundle",
                    &format!("--type={ty}"),
                    &format!("--targets={id}"),
                    &input,
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(read(&o) == read(&r), "{name}: {id} differs from clang-offload-bundler");
        }
    }
}

#[test]
fn clang_style_single_dash_options() {
    let dir = Scratch::new("cli", "single-dash");
    let h = dir.write("h.bc", b"host bytes");
    let d = dir.write("d.bc", b"device bytes, more of them");
    let (single, double) = (dir.path("single.bc"), dir.path("double.bc"));
    let targets = format!("{HOST},{GFX906}");
    offload_ok(&[
        "bundle",
        "-type=bc",
        &format!("-targets={targets}"),
        &format!("-input={}", s(&h)),
        &format!("-input={}", s(&d)),
        &format!("-output={}", s(&single)),
        "-bundle-align=16",
    ]);
    offload_ok(&[
        "bundle",
        "--type=bc",
        &format!("--targets={targets}"),
        &format!("--input={}", s(&h)),
        &format!("--input={}", s(&d)),
        &format!("--output={}", s(&double)),
        "--bundle-align=16",
    ]);
    assert_eq!(read(&single), read(&double));
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let r = dir.path("ref.bc");
        must(
            &b,
            &[
                "-type=bc",
                &format!("-targets={targets}"),
                &format!("-input={}", s(&h)),
                &format!("-input={}", s(&d)),
                &format!("-output={}", s(&r)),
                "-bundle-align=16",
            ],
        );
        assert_eq!(read(&single), read(&r));
    }
    // Unbundle, both as `offload unbundle` and as `offload bundle -unbundle`, like the bundler.
    let u = dir.path("u");
    offload_ok(&[
        "unbundle",
        "-type=bc",
        &format!("-targets={GFX906}"),
        &format!("-input={}", s(&single)),
        &format!("-output={}", s(&u)),
    ]);
    assert_eq!(read(&u), read(&d));
    std::fs::remove_file(&u).unwrap();
    offload_ok(&[
        "bundle",
        "-unbundle",
        "-type=bc",
        &format!("-targets={HOST}"),
        &format!("-input={}", s(&single)),
        &format!("-output={}", s(&u)),
    ]);
    assert_eq!(read(&u), read(&h));
    let l = offload_ok(&["bundle", "-list", "-type=bc", &format!("-input={}", s(&single))]);
    assert_eq!(
        l.stdout.lines().collect::<BTreeSet<_>>(),
        ["host-x86_64-unknown-linux-gnu-", GFX906].into_iter().collect()
    );
}

// ---------------------------------------------------------------------------------------------
// 2. --type=o with a real ELF host object
// ---------------------------------------------------------------------------------------------

#[test]
fn bundled_object_output_is_written_for_an_elf_host() {
    let dir = Scratch::new("cli", "elf-host");
    let src = dir.write("tiny.c", b"int tiny(void) { return 42; }\n");
    let obj = dir.path("tiny.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    match Command::new(&cc).args(["-c", &s(&src), "-o", &s(&obj)]).output() {
        Ok(o) if o.status.success() => {}
        other => {
            println!("skipping: cannot compile a C file with {cc}: {other:?}");
            return;
        }
    }
    assert!(read(&obj).starts_with(b"\x7fELF"), "cc did not make an ELF object");
    let dev = dir.write("dev.co", b"device code");
    let out = dir.path("bundled.o");
    offload_ok(&[
        "bundle",
        "--type=o",
        &format!("--targets={HOST},{GFX906}"),
        &format!("--input={}", s(&obj)),
        &format!("--input={}", s(&dev)),
        &format!("--output={}", s(&out)),
    ]);
    // A bundled object: the host object with one section per entry (tests/host_edit.rs compares
    // it with clang-offload-bundler's byte for byte).
    let listed = offload_ok(&["unbundle", "--type=o", "--list", &format!("--input={}", s(&out))]);
    assert_eq!(listed.stdout, format!("{HOST}-\n{GFX906}\n"));
    assert_eq!(dir.names(), ["bundled.o", "dev.co", "tiny.c", "tiny.o"], "stray files left behind");
}

// ---------------------------------------------------------------------------------------------
// 3. compress / decompress
// ---------------------------------------------------------------------------------------------

#[test]
fn compress_decompress_round_trip() {
    let dir = Scratch::new("cli", "compress");
    let bundler = llvm_tool("clang-offload-bundler");
    let input = fixture("bundle_bin_o.hipfb");
    let plain = read(&input);
    for (method, method_value) in [("zstd", 1u8), ("zlib", 0u8)] {
        for version in [1u8, 2u8, 3u8] {
            for level in [None, Some("1"), Some("9")] {
                let c = dir.path("c.hipfb");
                let mut args = vec![
                    "compress".to_string(),
                    s(&input),
                    "-o".into(),
                    s(&c),
                    format!("--method={method}"),
                    format!("--format-version={version}"),
                ];
                if let Some(l) = level {
                    args.push(format!("--level={l}"));
                }
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                offload_ok(&a);
                let cbytes = read(&c);
                let what = format!("{method} v{version} level {level:?}");
                assert_eq!(&cbytes[..4], b"CCOB", "{what}");
                assert_eq!(&cbytes[4..6], &[version, 0], "{what}: version field");
                assert_eq!(&cbytes[6..8], &[method_value, 0], "{what}: method field");
                assert!(cbytes.len() < plain.len(), "{what}: not smaller than its input");
                let d = dir.path("d.hipfb");
                offload_ok(&["decompress", &s(&c), "-o", &s(&d)]);
                assert!(read(&d) == plain, "{what}: does not decompress to its input");
                if let Some(b) = &bundler {
                    let l = must(b, &["--list", "--type=o", &format!("--input={}", s(&c))]);
                    let got: BTreeSet<&str> = l.stdout.lines().collect();
                    assert_eq!(
                        got,
                        ["host-x86_64-unknown-linux-gnu-", GFX906, GFX90A_XNACK].into_iter().collect(),
                        "{what}: clang-offload-bundler --list"
                    );
                    let r = dir.path("r.co");
                    must(
                        b,
                        &[
                            "--unbundle",
                            "--type=o",
                            &format!("--targets={GFX90A_XNACK}"),
                            &format!("--input={}", s(&c)),
                            &format!("--output={}", s(&r)),
                        ],
                    );
                    let o = dir.path("o.co");
                    offload_ok(&[
                        "unbundle",
                        "--type=o",
                        &format!("--targets={GFX90A_XNACK}"),
                        &format!("--input={}", s(&input)),
                        &format!("--output={}", s(&o)),
                    ]);
                    assert!(read(&r) == read(&o), "{what}: clang-offload-bundler unbundles different bytes");
                }
            }
        }
    }
    // The zlib level is used: 9 compresses better than 1.
    let size = |level: &str| {
        let c = dir.path(&format!("zlib{level}"));
        offload_ok(&["compress", &s(&input), "-o", &s(&c), "--method=zlib", &format!("--level={level}")]);
        read(&c).len()
    };
    assert!(size("9") < size("1"), "zlib --level has no effect");
}

#[test]
fn compress_text_bundle_round_trip() {
    let dir = Scratch::new("cli", "compress-text");
    let input = fixture("bundle_text.ll");
    let c = dir.path("c.ll");
    offload_ok(&["compress", &s(&input), "-o", &s(&c)]);
    assert_eq!(&read(&c)[4..6], &[3, 0], "default format version is 3");
    let d = dir.path("d.ll");
    offload_ok(&["decompress", &s(&c), "-o", &s(&d)]);
    assert!(read(&d) == read(&input));
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let l = must(&b, &["--list", "--type=ll", &format!("--input={}", s(&c))]);
        assert_eq!(l.stdout.lines().count(), 3, "{}", l.stdout);
    }
}

#[test]
fn decompress_fixtures_gives_the_bundle_back() {
    let dir = Scratch::new("cli", "decompress-fixtures");
    let plain = read(&fixture("bundle_bin_o.hipfb"));
    for name in [
        "ccob_zstd_v3.hipfb",
        "ccob_zstd_v3_level19.hipfb",
        "ccob_zstd_v2.hipfb",
        "ccob_zlib_v3.hipfb",
        "ccob_zlib_v2.hipfb",
        "ccob_zstd_v1_derived.hipfb",
    ] {
        let d = dir.path("d");
        offload_ok(&["decompress", &s(&fixture(name)), "-o", &s(&d)]);
        assert!(read(&d) == plain, "{name} does not decompress to bundle_bin_o.hipfb");
    }
    let d = dir.path("t");
    offload_ok(&["decompress", &s(&fixture("ccob_zstd_v3_text.ll")), "-o", &s(&d)]);
    assert!(read(&d) == read(&fixture("bundle_text.ll")));
}

#[test]
fn decompress_refuses_several_compressed_bundles() {
    let dir = Scratch::new("cli", "decompress-3");
    let out = dir.path("out");
    let f = s(&fixture("libhip_3tu_compressed.hipfb"));
    let args = ["decompress", &f, "-o", &s(&out)];
    let o = offload(&args);
    assert_clean_failure(&o, &args, "libhip_3tu_compressed.hipfb", false);
    assert!(o.stderr.contains('3'), "the error does not say how many bundles: {}", o.stderr);
    assert!(!out.exists());
}

#[test]
fn compress_refuses_what_is_not_a_bundle() {
    let dir = Scratch::new("cli", "compress-refuse");
    let out = dir.path("out");
    for name in ["hip_elf_2arch.o", "omp_elf_2arch.offload"] {
        let args_owned = ["compress".to_string(), s(&fixture(name)), "-o".into(), s(&out)];
        let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
        let o = offload(&args);
        assert_clean_failure(&o, &args, name, true);
        assert!(!out.exists());
    }
    let args_owned = ["compress".to_string(), s(&fixture("ccob_zstd_v3.hipfb")), "-o".into(), s(&out)];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = offload(&args);
    assert_clean_failure(&o, &args, "ccob_zstd_v3.hipfb", false);
    assert!(o.stderr.contains("compressed"), "{}", o.stderr);
    assert!(!out.exists());
}

#[test]
fn bundle_compress_format_version_follows_environment() {
    let dir = Scratch::new("cli", "bundle-compress");
    let h = dir.write("h", &[7u8; 3000]);
    let d = dir.write("d", &(0..5000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>());
    let args = |out: &Path| -> Vec<String> {
        vec![
            "--type=o".into(),
            format!("--targets={HOST},{GFX906}"),
            format!("--input={}", s(&h)),
            format!("--input={}", s(&d)),
            format!("--output={}", s(out)),
            "--compress".into(),
        ]
    };
    let ours = |out: &Path, env: &[(&str, &str)]| {
        let mut a = vec!["bundle".to_string()];
        a.extend(args(out));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = exec(ours(), &a, env, None);
        assert!(o.ok(), "{o:?}");
        read(out)
    };
    let v2 = ours(&dir.path("v2"), &[("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")]);
    assert_eq!(&v2[..4], b"CCOB");
    assert_eq!(&v2[4..6], &[2, 0], "COMPRESSED_BUNDLE_FORMAT_VERSION=2 gives version 2");
    let v3 = ours(&dir.path("v3"), &[]);
    assert_eq!(&v3[4..6], &[3, 0], "version 3 by default");
    let env_compress = ours(&dir.path("env"), &[("OFFLOAD_BUNDLER_COMPRESS", "1")]);
    assert_eq!(&env_compress[..4], b"CCOB");
    // Both decompress to the uncompressed bundle.
    let plain = dir.path("plain");
    let mut a = vec!["bundle".to_string()];
    a.extend(args(&plain));
    a.pop();
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    offload_ok(&a);
    for c in ["v2", "v3"] {
        let out = dir.path(&format!("{c}.d"));
        offload_ok(&["decompress", &s(&dir.path(c)), "-o", &s(&out)]);
        assert!(read(&out) == read(&plain), "{c}");
    }
    if let Some(b) = llvm_tool("clang-offload-bundler") {
        let r3 = dir.path("r3");
        let ra = args(&r3);
        let ra: Vec<&str> = ra.iter().map(String::as_str).collect();
        must(&b, &ra);
        assert_eq!(&read(&r3)[4..6], &[3, 0], "clang-offload-bundler 22 writes version 3 by default");
        let r2 = dir.path("r2");
        let ra = args(&r2);
        let ra: Vec<&str> = ra.iter().map(String::as_str).collect();
        let o = exec(&b, &ra, &[("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")], None);
        assert!(o.ok(), "{o:?}");
        assert_eq!(&read(&r2)[4..6], &[2, 0]);
        // The reference reads both of ours.
        for c in ["v2", "v3"] {
            let u = dir.path("u");
            must(
                &b,
                &[
                    "--unbundle",
                    "--type=o",
                    &format!("--targets={GFX906}"),
                    &format!("--input={}", s(&dir.path(c))),
                    &format!("--output={}", s(&u)),
                ],
            );
            assert!(read(&u) == read(&d), "{c}");
        }
    }
}

#[test]
fn unbundle_does_not_silently_drop_bundles_of_a_linked_hip_fatbin() {
    let f = s(&fixture("libhip_3tu_compressed.hipfb"));
    let args = ["unbundle", "--list", "--type=o", &format!("--input={f}")];
    let o = offload(&args);
    // Either list the entries of all three bundles, or refuse like `offload decompress` does.
    if o.ok() {
        assert_eq!(o.stdout.lines().count(), 9, "only some bundles listed:\n{}", o.stdout);
    } else {
        assert_clean_failure(&o, &args, "libhip_3tu_compressed.hipfb", false);
    }
}

// ---------------------------------------------------------------------------------------------
// 4. package / extract
// ---------------------------------------------------------------------------------------------

/// A real AMDGPU code object, unbundled from a fixture.
fn code_object(dir: &Scratch) -> PathBuf {
    let p = dir.path("image.co");
    offload_ok(&[
        "unbundle",
        "--type=o",
        &format!("--targets={HIP_90A}"),
        &format!("--input={}", s(&fixture("hip_elf_2arch.hipfb"))),
        &format!("--output={}", s(&p)),
    ]);
    assert!(read(&p).starts_with(b"\x7fELF"));
    p
}

#[test]
fn package_matches_llvm_offload_binary() {
    let dir = Scratch::new("cli", "package");
    let img = code_object(&dir);
    let bc = fixture("hip_driver_bundle.bc");
    let spec_sets: Vec<Vec<String>> = vec![
        vec![format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", s(&img))],
        vec![
            format!(
                "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=openmp,feature=+xnack,note=x",
                s(&img)
            ),
            format!("--image=file={},triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda", s(&bc)),
        ],
    ];
    let tool = llvm_tool("llvm-offload-binary");
    for specs in &spec_sets {
        let out = dir.path("ours.offbin");
        let mut a: Vec<&str> = vec!["package", "-o"];
        let o = s(&out);
        a.push(&o);
        a.extend(specs.iter().map(String::as_str));
        offload_ok(&a);
        let ours_bytes = read(&out);
        assert_eq!(&ours_bytes[..4], b"\x10\xff\x10\xad");
        if let Some(t) = &tool {
            let r = dir.path("ref.offbin");
            let r_s = s(&r);
            let mut ra: Vec<&str> = vec!["-o", &r_s];
            ra.extend(specs.iter().map(String::as_str));
            must(t, &ra);
            assert!(ours_bytes == read(&r), "{specs:?}: differs from llvm-offload-binary");
        }
    }
    // What we packaged lists as what was asked.
    let out = dir.path("one.offbin");
    offload_ok(&[
        "package",
        "-o",
        &s(&out),
        &format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", s(&img)),
    ]);
    let l = offload_ok(&["list", &s(&out)]);
    let rows = listed_targets(&l.stdout);
    assert_eq!(rows, [("amdgcn-amd-amdhsa-gfx90a".to_string(), "hip".to_string(), "no".to_string())]);
}

#[test]
fn extract_writes_one_file_per_device_target() {
    let dir = Scratch::new("cli", "extract-hip");
    let out = dir.path("out"); // created by extract
    let f = fixture("hip_elf_2arch_compressed.o");
    offload_ok(&["extract", &s(&f), "-o", &s(&out)]);
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    let bundler = llvm_tool("clang-offload-bundler");
    for id in [HIP_906_XNACK_MINUS, HIP_90A] {
        let safe = id.replace(':', "_");
        let matching: Vec<&String> =
            names.iter().filter(|n| n.contains(&format!("{safe}.")) || n.ends_with(&safe)).collect();
        assert_eq!(matching.len(), 1, "{id}: {names:?}");
        let name = matching[0];
        assert!(name.ends_with(".co"), "{name}: an AMDGPU code object without .co");
        assert!(!name.contains(':'), "{name}");
        let bytes = read(&out.join(name));
        assert!(bytes.starts_with(b"\x7fELF"), "{name}");
        if let Some(b) = &bundler {
            // The fixture is the .hip_fatbin section of the object (llvm-objcopy --dump-section).
            let r = dir.path("ref");
            must(
                b,
                &[
                    "--unbundle",
                    "--type=o",
                    &format!("--targets={id}"),
                    &format!("--input={}", s(&fixture("hip_elf_2arch_compressed.hipfb"))),
                    &format!("--output={}", s(&r)),
                ],
            );
            assert!(bytes == read(&r), "{name}: differs from clang-offload-bundler --unbundle");
        }
    }
}

#[test]
fn extract_filter_writes_only_matching_images() {
    let dir = Scratch::new("cli", "extract-filter");
    let out = dir.path("out");
    offload_ok(&["extract", &s(&fixture("hip_elf_2arch_compressed.o")), "-o", &s(&out), "--image=arch=gfx90a"]);
    let names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].contains("gfx90a") && !names[0].contains("gfx906"), "{names:?}");
    assert!(names[0].ends_with(".co"));
    // A filter that matches nothing fails and writes nothing.
    let none = dir.path("none");
    let args_owned = [
        "extract".to_string(),
        s(&fixture("hip_elf_2arch_compressed.o")),
        "-o".into(),
        s(&none),
        "--image=arch=gfx1100".into(),
    ];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = offload(&args);
    assert_clean_failure(&o, &args, "hip_elf_2arch_compressed.o", false);
    assert!(!none.exists() || std::fs::read_dir(&none).unwrap().next().is_none());
}

#[test]
fn extract_offload_binaries_like_llvm_offload_binary() {
    let dir = Scratch::new("cli", "extract-omp");
    let out = dir.path("out");
    let f = fixture("omp_elf_2arch.o");
    offload_ok(&["extract", &s(&f), "-o", &s(&out)]);
    let ours: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), read(&e.path())))
        .collect();
    assert_eq!(ours.len(), 2, "{:?}", ours.iter().map(|o| &o.0).collect::<Vec<_>>());
    for arch in ["gfx1030", "gfx90a:xnack+"] {
        let safe = format!("amdgcn-amd-amdhsa-{}", arch.replace(':', "_"));
        let m: Vec<&(String, Vec<u8>)> = ours.iter().filter(|o| o.0.contains(&safe)).collect();
        assert_eq!(m.len(), 1, "{arch}");
        assert!(m[0].0.ends_with(".bc"), "{}: bitcode without .bc", m[0].0);
        assert!(m[0].1.starts_with(b"BC\xC0\xDE"));
    }
    let Some(tool) = llvm_tool("llvm-offload-binary") else {
        return;
    };
    // llvm-offload-binary extracts only with an --image filter and writes
    // `<input stem>-<triple>-<arch>.<index>.<ext>` into the current directory.
    let refdir = Scratch::new("cli", "extract-omp-ref");
    std::fs::copy(&f, refdir.path("omp_elf_2arch.o")).unwrap();
    let r = exec(&tool, &["omp_elf_2arch.o", "--image=triple=amdgcn-amd-amdhsa"], &[], Some(&refdir.0));
    assert!(r.ok(), "{r:?}");
    let refs: Vec<String> = refdir.names().into_iter().filter(|n| n != "omp_elf_2arch.o").collect();
    assert_eq!(refs.len(), 2, "llvm-offload-binary wrote {refs:?}");
    for name in refs {
        let arch = name
            .strip_prefix("omp_elf_2arch-amdgcn-amd-amdhsa-")
            .and_then(|rest| rest.rsplitn(3, '.').nth(2))
            .unwrap_or_else(|| panic!("unexpected llvm-offload-binary output name {name}"));
        let safe = format!("amdgcn-amd-amdhsa-{}", arch.replace(':', "_"));
        let mine = ours
            .iter()
            .find(|o| o.0.contains(&format!("{safe}.")))
            .unwrap_or_else(|| panic!("no extracted file for {arch}"));
        assert!(mine.1 == read(&refdir.path(&name)), "{arch}: differs from llvm-offload-binary's {name}");
    }
}

#[test]
fn unbundle_archive_is_not_silently_empty() {
    let dir = Scratch::new("cli", "unbundle-a");
    let out = dir.path("gfx90a.a");
    let args_owned = [
        "unbundle".to_string(),
        "--type=a".into(),
        "--targets=hip-amdgcn-amd-amdhsa--gfx90a".into(),
        format!("--input={}", s(&fixture("hip_rdc_archive.a"))),
        format!("--output={}", s(&out)),
    ];
    let args: Vec<&str> = args_owned.iter().map(String::as_str).collect();
    let o = offload(&args);
    if o.ok() {
        let bytes = read(&out);
        assert!(
            bytes.starts_with(b"!<arch>\n") && bytes.len() > 8,
            "exit 0 but the output is not a device archive ({} bytes)",
            bytes.len()
        );
    } else {
        assert_clean_failure(&o, &args, "hip_rdc_archive.a", false);
    }
}
