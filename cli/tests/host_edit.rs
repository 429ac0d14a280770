//! End-to-end tests of the host-editing commands: `offload bundle/unbundle --type=o` with object
//! hosts (bundled objects) against clang-offload-bundler 22, and `offload replace-section` on
//! HIP and OpenMP objects, a HIP shared library, COFF and Mach-O objects. Inputs are built in
//! the test run by clang-22 and the system `cc`; the results are read by the LLVM tools, linked
//! with `cc` and run. A test that needs a missing tool says so and returns.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::hosts::{self, run_ok, system_cc};
use support::{fixture, offload, offload_ok, read, run, s, tool, Scratch};

const SUITE: &str = "host_edit";
const T3: &str = "host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
const HOST_C: &str = "int host_fn(int x) { return x * 3 + 1; }\n";
const MAIN_C: &str = "#include <stdio.h>\nint host_fn(int);\nint main(void) { printf(\"host_fn(13) = %d\\n\", host_fn(13)); return 0; }\n";

/// Runs our tool, which must fail with exit code 1; what it said on standard error.
fn offload_err(args: &[&str]) -> String {
    let o = offload(args);
    assert_eq!(o.code, Some(1), "offload {args:?} should fail: {}", o.stdout);
    o.stderr
}

/// `llvm-readelf -a --wide` reads the file with nothing on standard error.
fn readelf_is_clean(readelf: &Path, file: &Path) {
    let out = run(readelf, &["-a", "--wide", &s(file)]);
    assert!(out.ok() && out.stderr.is_empty(), "llvm-readelf -a --wide {}: {}", file.display(), out.stderr);
}

/// Device code objects for gfx906 and gfx90a:xnack+, compiled from the HIP kernel.
fn code_objects(clang: &Path, dir: &Path) -> [PathBuf; 2] {
    std::fs::write(dir.join("mini_hip.h"), hosts::MINI_HIP_H).unwrap();
    std::fs::write(dir.join("kern.hip"), hosts::KERN_HIP).unwrap();
    ["gfx906", "gfx90a:xnack+"].map(|arch| {
        let out = dir.join(format!("{}.co", arch.replace(':', "_")));
        run_ok(
            Command::new(clang)
                .current_dir(dir)
                .args([
                    "-x",
                    "hip",
                    "--cuda-device-only",
                    "--no-gpu-bundle-output",
                    "-nogpulib",
                    "-nogpuinc",
                    "-O2",
                    "-c",
                    "kern.hip",
                ])
                .arg(format!("--offload-arch={arch}"))
                .arg("-o")
                .arg(&out),
        );
        out
    })
}

fn clang_bundler(bundler: &Path, args: &[&str]) -> Vec<u8> {
    let mut cmd = Command::new(bundler);
    cmd.env_remove("OFFLOAD_BUNDLER_COMPRESS").args(args);
    run_ok(&mut cmd)
}

/// `offload bundle --type=o` with an ELF host object gives clang-offload-bundler's bytes; both
/// tools list and unbundle it alike; llvm-readelf reads it cleanly; `cc` links it into a program
/// that runs, also after a device entry is replaced.
#[test]
fn bundle_type_o_matches_clang_and_links() {
    const TEST: &str = "bundle_type_o_matches_clang_and_links";
    let (Some(bundler), Some(clang), Some(readelf)) =
        (tool("clang-offload-bundler", TEST), tool("clang", TEST), tool("llvm-readelf", TEST))
    else {
        return;
    };
    let Some(cc) = system_cc(TEST) else { return };
    let work = Scratch::new(SUITE, "bundle-o");
    std::fs::write(work.path("host.c"), HOST_C).unwrap();
    std::fs::write(work.path("main.c"), MAIN_C).unwrap();
    run_ok(Command::new(&cc).current_dir(work.dir()).args(["-O2", "-c", "host.c", "-o", "host.o"]));
    let [gfx906, gfx90a] = code_objects(&clang, work.dir());
    let (host, ours_o, theirs_o) = (work.path("host.o"), work.path("ours.o"), work.path("theirs.o"));
    let inputs =
        [format!("--input={}", s(&host)), format!("--input={}", s(&gfx906)), format!("--input={}", s(&gfx90a))];
    let targets = format!("--targets={T3}");
    let mut args: Vec<&str> = vec!["bundle", "--type=o", &targets];
    args.extend(inputs.iter().map(String::as_str));
    let out_arg = format!("--output={}", s(&ours_o));
    args.push(&out_arg);
    offload_ok(&args);
    let theirs_arg = format!("--output={}", s(&theirs_o));
    let mut clang_args: Vec<&str> = vec!["--type=o", &targets];
    clang_args.extend(inputs.iter().map(String::as_str));
    clang_args.push(&theirs_arg);
    clang_bundler(&bundler, &clang_args);
    assert!(read(&ours_o) == read(&theirs_o), "offload bundle --type=o differs from clang-offload-bundler");

    let input_arg = format!("--input={}", s(&ours_o));
    let listed_ours = offload_ok(&["unbundle", "--type=o", "--list", &input_arg]).stdout;
    let listed_theirs = String::from_utf8(clang_bundler(&bundler, &["--type=o", "--list", &input_arg])).unwrap();
    assert_eq!(listed_ours, listed_theirs);
    assert_eq!(listed_ours.lines().count(), 3);
    for target in T3.split(',') {
        let (a, b) = (work.path("a.part"), work.path("b.part"));
        offload_ok(&[
            "unbundle",
            "--type=o",
            &format!("--targets={target}"),
            &input_arg,
            &format!("--output={}", s(&a)),
        ]);
        clang_bundler(
            &bundler,
            &["--type=o", "--unbundle", &format!("--targets={target}"), &input_arg, &format!("--output={}", s(&b))],
        );
        assert!(read(&a) == read(&b), "unbundled {target} differs");
    }
    readelf_is_clean(&readelf, &ours_o);
    let run = hosts::link_and_run(&cc, work.dir(), &[&work.path("main.c"), &ours_o], "prog");
    assert_eq!(run, "host_fn(13) = 40\n");

    // A bigger device entry in the bundled object: clang still unbundles it, and it still links.
    let replaced = work.path("replaced.o");
    offload_ok(&[
        "replace-section",
        &s(&ours_o),
        "--section",
        "__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx906",
        "--with",
        &s(&gfx90a),
        "-o",
        &s(&replaced),
    ]);
    let part = work.path("replaced.part");
    clang_bundler(
        &bundler,
        &[
            "--type=o",
            "--unbundle",
            "--targets=hipv4-amdgcn-amd-amdhsa--gfx906",
            &format!("--input={}", s(&replaced)),
            &format!("--output={}", s(&part)),
        ],
    );
    assert_eq!(read(&part), read(&gfx90a));
    readelf_is_clean(&readelf, &replaced);
    assert_eq!(hosts::link_and_run(&cc, work.dir(), &[&work.path("main.c"), &replaced], "prog2"), "host_fn(13) = 40\n");
}

/// Bundled objects made by clang-offload-bundler (plain and with --compress) are listed and
/// unbundled by `offload` to clang's bytes for every target, the host object included; an
/// object without bundle sections is, as for clang, the host entry itself when missing bundles
/// are allowed, and an error otherwise.
#[test]
fn unbundle_type_o_matches_clang_on_its_bundled_objects() {
    const TEST: &str = "unbundle_type_o_matches_clang_on_its_bundled_objects";
    let (Some(bundler), Some(clang)) = (tool("clang-offload-bundler", TEST), tool("clang", TEST)) else { return };
    let work = Scratch::new(SUITE, "unbundle-o");
    std::fs::write(work.path("host.c"), HOST_C).unwrap();
    run_ok(Command::new(&clang).current_dir(work.dir()).args(["-O2", "-g", "-c", "host.c", "-o", "host.o"]));
    let [gfx906, gfx90a] = code_objects(&clang, work.dir());
    for (name, extra) in [("plain.o", None), ("compressed.o", Some("--compress")), ("host.o", None)] {
        let bundled = work.path(name);
        if name != "host.o" {
            let mut args = vec![
                "--type=o".to_string(),
                format!("--targets={T3}"),
                format!("--input={}", s(&work.path("host.o"))),
                format!("--input={}", s(&gfx906)),
                format!("--input={}", s(&gfx90a)),
                format!("--output={}", s(&bundled)),
            ];
            args.extend(extra.map(String::from));
            clang_bundler(&bundler, &args.iter().map(String::as_str).collect::<Vec<_>>());
        }
        let input_arg = format!("--input={}", s(&bundled));
        assert_eq!(
            offload_ok(&["unbundle", "--type=o", "--list", &input_arg]).stdout,
            String::from_utf8(clang_bundler(&bundler, &["--type=o", "--list", &input_arg])).unwrap(),
            "{name}"
        );
        let outs: Vec<(PathBuf, PathBuf)> =
            (0..3).map(|i| (work.path(&format!("ours{i}")), work.path(&format!("theirs{i}")))).collect();
        let targets = format!("--targets={T3}");
        let mut ours_args = vec!["unbundle".to_string(), "--type=o".into(), targets.clone(), input_arg.clone()];
        let mut theirs_args = vec!["--unbundle".to_string(), "--type=o".into(), targets.clone(), input_arg.clone()];
        if name == "host.o" {
            // Without bundles both tools fail ("can't find bundles") unless missing ones are allowed.
            let err = offload_err(&[
                "unbundle",
                "--type=o",
                &targets,
                &input_arg,
                "--output=/dev/null",
                "--output=/dev/null",
                "--output=/dev/null",
            ]);
            assert!(err.contains("can't find bundles for"), "{err}");
            ours_args.push("--allow-missing-bundles".into());
            theirs_args.push("--allow-missing-bundles".into());
        }
        for (o, t) in &outs {
            ours_args.push(format!("--output={}", s(o)));
            theirs_args.push(format!("--output={}", s(t)));
        }
        offload_ok(&ours_args.iter().map(String::as_str).collect::<Vec<_>>());
        clang_bundler(&bundler, &theirs_args.iter().map(String::as_str).collect::<Vec<_>>());
        for (i, (o, t)) in outs.iter().enumerate() {
            assert!(read(o) == read(t), "{name}: target {i} differs from clang-offload-bundler's");
        }
        if name != "host.o" {
            assert_eq!(read(&outs[1].0), read(&gfx906), "{name}");
            assert!(!read(&outs[0].0).is_empty());
        } else {
            assert_eq!(read(&outs[0].0), read(&bundled), "an object without bundle sections is the host entry");
        }
    }
}

/// `.hip_fatbin` of HIP objects (with and without --offload-compress) replaced by bigger and
/// smaller payloads made with our own commands; the object links with `cc` against a stub HIP
/// runtime, and the program registers the NEW fat binary and both kernels.
#[test]
fn replaced_hip_fatbin_is_what_the_linked_program_registers() {
    const TEST: &str = "replaced_hip_fatbin_is_what_the_linked_program_registers";
    let (Some(clang), Some(objcopy), Some(readelf)) =
        (tool("clang", TEST), tool("llvm-objcopy", TEST), tool("llvm-readelf", TEST))
    else {
        return;
    };
    let Some(cc) = system_cc(TEST) else { return };
    let work = Scratch::new(SUITE, "hip");
    for compress in [false, true] {
        let extra: &[&str] = if compress { &["--offload-compress"] } else { &[] };
        let obj = hosts::hip_object(&clang, work.dir(), "kern.hip", hosts::KERN_HIP, "kern.o", extra);
        let original = work.path("original.fatbin");
        run_ok(
            Command::new(&objcopy)
                .arg(format!("--dump-section=.hip_fatbin={}", s(&original)))
                .arg(&obj)
                .arg(work.path("discard.o")),
        );
        let before = hosts::link_with_stub_and_run(&cc, work.dir(), &[&obj], "before");
        assert!(before.starts_with(&hosts::registered_line(&read(&original))), "{before}");
        let payloads = payloads_for(&work, &clang, &objcopy, &original, compress);
        for (what, payload) in &payloads {
            let out = work.path("replaced.o");
            let said = offload_ok(&[
                "replace-section",
                &s(&obj),
                "--section",
                ".hip_fatbin",
                "--with",
                &s(payload),
                "-o",
                &s(&out),
            ])
            .stdout;
            assert!(said.contains("(object re-laid out)"), "{said}");
            readelf_is_clean(&readelf, &out);
            let printed = hosts::link_with_stub_and_run(&cc, work.dir(), &[&out], "after");
            let expected = format!(
                "{}\nkernel _Z5scalePffi\nkernel _Z4fillPii\nmain ran\n",
                hosts::registered_line(&read(payload))
            );
            assert_eq!(printed, expected, "compress={compress} {what}");
            let listed = offload_ok(&["list", &s(&out)]).stdout;
            assert!(listed.contains("hipv4-amdgcn-amd-amdhsa--gfx90a"), "{listed}");
        }
        let sizes: Vec<u64> = payloads.iter().map(|(_, f)| f.metadata().unwrap().len()).collect();
        let original_size = original.metadata().unwrap().len();
        assert!(
            sizes[0] > original_size && sizes[1] < original_size,
            "compress={compress}: {sizes:?} around {original_size}"
        );
    }
}

/// A bigger and a smaller payload for `.hip_fatbin`. For a bundle: its entries re-bundled by
/// `offload unbundle`/`offload bundle` at 8192-byte alignment (bigger), and `offload compress`
/// (smaller). For a compressed bundle: `offload decompress` (bigger), and the same kernel
/// compiled for gfx90a only by clang with --offload-compress (smaller; our zstd, about level 1,
/// compresses less than clang's level 3, so recompressing with it would not shrink the payload).
fn payloads_for(
    work: &Scratch,
    clang: &Path,
    objcopy: &Path,
    original: &Path,
    compressed: bool,
) -> [(&'static str, PathBuf); 2] {
    let (bigger, smaller) = (work.path("bigger.fatbin"), work.path("smaller.fatbin"));
    if compressed {
        offload_ok(&["decompress", &s(original), "-o", &s(&bigger)]);
        let one = hosts::hip_object_for(
            clang,
            work.dir(),
            "kern.hip",
            hosts::KERN_HIP,
            "one.o",
            "gfx90a",
            &["--offload-compress"],
        );
        run_ok(
            Command::new(objcopy)
                .arg(format!("--dump-section=.hip_fatbin={}", s(&smaller)))
                .arg(&one)
                .arg(work.path("discard1.o")),
        );
    } else {
        let ids = offload_ok(&["unbundle", "--type=o", "--list", &format!("--input={}", s(original))]).stdout;
        let ids: Vec<&str> = ids.lines().collect();
        let parts: Vec<PathBuf> = (0..ids.len()).map(|i| work.path(&format!("entry{i}"))).collect();
        let mut args = vec![
            "unbundle".to_string(),
            "--type=o".into(),
            format!("--targets={}", ids.join(",")),
            format!("--input={}", s(original)),
        ];
        args.extend(parts.iter().map(|x| format!("--output={}", s(x))));
        offload_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let mut args = vec![
            "bundle".to_string(),
            "--type=o".into(),
            "--bundle-align=8192".into(),
            format!("--targets={}", ids.join(",")),
        ];
        args.extend(parts.iter().map(|x| format!("--input={}", s(x))));
        args.push(format!("--output={}", s(&bigger)));
        offload_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        offload_ok(&["compress", &s(original), "-o", &s(&smaller)]);
    }
    [("bigger", bigger), ("smaller", smaller)]
}

/// `.llvm.offloading` of an OpenMP object replaced with offload binaries repackaged by `offload
/// package` (the image under two architectures); llvm-objdump --offloading shows the new images.
#[test]
fn replaced_llvm_offloading_shows_the_repackaged_images() {
    const TEST: &str = "replaced_llvm_offloading_shows_the_repackaged_images";
    let (Some(clang), Some(objdump), Some(readelf)) =
        (tool("clang", TEST), tool("llvm-objdump", TEST), tool("llvm-readelf", TEST))
    else {
        return;
    };
    let work = Scratch::new(SUITE, "omp");
    let obj = hosts::openmp_object(&clang, work.dir());
    let images = work.path("images");
    offload_ok(&["extract", &s(&obj), "-o", &s(&images)]);
    let image = std::fs::read_dir(&images).unwrap().next().unwrap().unwrap().path();
    let packaged = work.path("new.offload");
    offload_ok(&[
        "package",
        "-o",
        &s(&packaged),
        &format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp", s(&image)),
        &format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx942,kind=openmp,note=repackaged", s(&image)),
    ]);
    let out = work.path("replaced.o");
    offload_ok(&[
        "replace-section",
        &s(&obj),
        "--section",
        ".llvm.offloading",
        "--with",
        &s(&packaged),
        "-o",
        &s(&out),
    ]);
    readelf_is_clean(&readelf, &out);
    let work = work.path("objdump");
    std::fs::create_dir_all(&work).unwrap();
    let shown =
        String::from_utf8(run_ok(Command::new(&objdump).current_dir(&work).arg("--offloading").arg(&out))).unwrap();
    let archs: Vec<&str> = shown.lines().filter_map(|l| l.strip_prefix("arch")).map(str::trim).collect();
    assert_eq!(archs, ["gfx90a", "gfx942"], "{shown}");
    assert_eq!(shown.matches("OFFLOADING IMAGE").count(), 2, "{shown}");
}

/// A HIP shared library: a payload that fits is written in place (llvm-readelf reads the result
/// cleanly, `list` shows the new targets); a bigger one is refused with the excess, and nothing
/// is written.
#[test]
fn shared_library_in_place_or_refused() {
    const TEST: &str = "shared_library_in_place_or_refused";
    let (Some(clang), Some(objcopy), Some(readelf)) =
        (tool("clang", TEST), tool("llvm-objcopy", TEST), tool("llvm-readelf", TEST))
    else {
        return;
    };
    let work = Scratch::new(SUITE, "library");
    let lib = hosts::hip_shared_library(&clang, work.dir());
    let fatbin = work.path("lib.fatbin");
    run_ok(
        Command::new(&objcopy)
            .arg(format!("--dump-section=.hip_fatbin={}", s(&fatbin)))
            .arg(&lib)
            .arg(work.path("discard.so")),
    );
    let payload = work.path("one.ccob");
    std::fs::write(&payload, read(&fixture("hip_elf_2arch_compressed.hipfb"))).unwrap();
    let out = work.path("out.so");
    let said =
        offload_ok(&["replace-section", &s(&lib), "--section", ".hip_fatbin", "--with", &s(&payload), "-o", &s(&out)])
            .stdout;
    let (old, new) = (read(&fatbin).len(), read(&payload).len());
    assert!(
        said.contains(&format!(
            "{old} -> {old} bytes (written in place, {} zero bytes of padding after the payload)",
            old - new
        )),
        "{said}"
    );
    readelf_is_clean(&readelf, &out);
    let listed = offload_ok(&["list", &s(&out)]).stdout;
    assert!(listed.contains("device targets (2)") && listed.contains("gfx906:xnack-"), "{listed}");

    let big = work.path("big.bundle");
    offload_ok(&["decompress", &s(&fixture("hip_elf_2arch_compressed.hipfb")), "-o", &s(&big)]);
    let refused = work.path("refused.so");
    let err =
        offload_err(&["replace-section", &s(&lib), "--section", ".hip_fatbin", "--with", &s(&big), "-o", &s(&refused)]);
    let over = read(&big).len() - old;
    assert!(err.contains(&format!("{} bytes, {over} bytes over", read(&big).len())), "{err}");
    assert!(err.contains("fixed addresses"), "{err}");
    assert!(!refused.exists(), "a refused replacement wrote its output");
}

/// COFF and Mach-O objects through the CLI: the section holds the payload afterwards.
#[test]
fn coff_and_macho_objects_through_the_cli() {
    const TEST: &str = "coff_and_macho_objects_through_the_cli";
    let Some(objcopy) = tool("llvm-objcopy", TEST) else { return };
    let work = Scratch::new(SUITE, "coff-macho");
    let bundle = work.path("bundle.bin");
    std::fs::write(&bundle, read(&fixture("hip_elf_2arch.hipfb"))).unwrap();
    for (host, section, payload) in [
        ("hip_coff_compressed.obj", ".hip_fatbin", bundle.clone()),
        ("macho_objcopy_offloading.o", "__LLVM,__offloading", fixture("omp_elf_2arch.offload")),
    ] {
        let out = work.path("out");
        let said = offload_ok(&[
            "replace-section",
            &s(&fixture(host)),
            "--section",
            section,
            "--with",
            &s(&payload),
            "-o",
            &s(&out),
        ])
        .stdout;
        assert!(said.contains("(object re-laid out)"), "{said}");
        let dumped = work.path("dumped");
        run_ok(
            Command::new(&objcopy)
                .arg(format!("--dump-section={section}={}", s(&dumped)))
                .arg(&out)
                .arg(work.path("discard")),
        );
        assert_eq!(read(&dumped), read(&payload), "{host}");
    }
}

/// Errors name the file, where, what was expected and what was found; an existing output is
/// left as it was.
#[test]
fn replace_section_errors_leave_the_output_alone() {
    let work = Scratch::new(SUITE, "errors");
    let out = work.write("out.o", b"keep me");
    let payload = work.write("payload", b"new bytes");
    let host = fixture("hip_elf_2arch.o");
    let err =
        offload_err(&["replace-section", &s(&host), "--section", ".text", "--with", &s(&payload), "-o", &s(&out)]);
    assert!(err.contains("hip_elf_2arch.o: at byte 0 (section to replace): expected one of this file's offload sections: .hip_fatbin, found `.text`"), "{err}");
    let err = offload_err(&[
        "replace-section",
        &s(&host),
        "--section",
        ".hip_fatbin",
        "--with",
        &s(&work.path("missing")),
        "-o",
        &s(&out),
    ]);
    assert!(err.contains("missing: cannot read"), "{err}");
    let err = offload_err(&[
        "replace-section",
        &s(&fixture("bundle_bin.bc")),
        "--section",
        ".hip_fatbin",
        "--with",
        &s(&payload),
        "-o",
        &s(&out),
    ]);
    assert!(err.contains("(host file headers)"), "{err}");
    assert_eq!(read(&out), b"keep me");
}

/// `bundle --type=o` refuses host objects it cannot write, saying why, and writes nothing.
#[test]
fn bundle_type_o_refuses_coff_hosts() {
    let work = Scratch::new(SUITE, "refuse");
    let dev = work.write("dev.bin", b"device");
    let out = work.path("out.o");
    let err = offload_err(&[
        "bundle",
        "--type=o",
        "--targets=host-x86_64-pc-windows-msvc,hipv4-amdgcn-amd-amdhsa--gfx906",
        &format!("--input={}", s(&fixture("hip_coff_2arch.obj"))),
        &format!("--input={}", s(&dev)),
        &format!("--output={}", s(&out)),
    ]);
    assert!(
        err.contains("cannot make a bundled object from this host object") && err.contains("found a Coff file"),
        "{err}"
    );
    assert!(!out.exists());
}

/// An input that is no bundle at all: clang-offload-bundler 22 fails for every target unless
/// missing bundles are allowed, and then gives the host target the whole input; so do we.
#[test]
fn unbundling_a_non_bundle_needs_allow_missing_bundles() {
    const TEST: &str = "unbundling_a_non_bundle_needs_allow_missing_bundles";
    let Some(bundler) = tool("clang-offload-bundler", TEST) else { return };
    let work = Scratch::new(SUITE, "not-bundled");
    let input = work.write("plain.bc", b"not a bundle, just bytes\n");
    let targets = "--targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906";
    let input_arg = format!("--input={}", s(&input));
    let outs = |tag: &str| [work.path(&format!("{tag}.host")), work.path(&format!("{tag}.dev"))];
    let [oh, od] = outs("ours");
    let [th, td] = outs("theirs");
    let err = offload_err(&[
        "unbundle",
        "--type=bc",
        targets,
        &input_arg,
        &format!("--output={}", s(&oh)),
        &format!("--output={}", s(&od)),
    ]);
    assert!(err.contains("can't find bundles for"), "{err}");
    let refused = run(
        &bundler,
        &[
            "--unbundle",
            "--type=bc",
            targets,
            &input_arg,
            &format!("--output={}", s(&th)),
            &format!("--output={}", s(&td)),
        ],
    );
    assert!(!refused.ok(), "clang-offload-bundler accepted a non-bundle without --allow-missing-bundles");
    offload_ok(&[
        "unbundle",
        "--type=bc",
        targets,
        &input_arg,
        &format!("--output={}", s(&oh)),
        &format!("--output={}", s(&od)),
        "--allow-missing-bundles",
    ]);
    clang_bundler(
        &bundler,
        &[
            "--unbundle",
            "--type=bc",
            targets,
            &input_arg,
            &format!("--output={}", s(&th)),
            &format!("--output={}", s(&td)),
            "--allow-missing-bundles",
        ],
    );
    assert_eq!((read(&oh), read(&od)), (read(&th), read(&td)));
    assert_eq!(read(&oh), read(&input));
}
