//! Unbundling and decompressing compressed bundles as a stream (`offload unbundle`, `offload
//! bundle --unbundle`, `offload decompress`): the outputs must be byte-identical to what
//! clang-offload-bundler 22 writes, for zstd and zlib payloads of format versions 2 and 3 made
//! by the reference tool itself (entries of several MiB, so that they span many decoded chunks),
//! and a payload that is corrupt or a hash that does not match must give the error reading the
//! whole bundle gives (same words, same byte offsets) and leave no output, and no temporary
//! file, behind.
//!
//! Memory is not checked here: `make bench` reports it.

mod support;

use offload::format::bundle::compressed::{self, CompressedBundle};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{exec, exec_ok, fixture, ours, s, tool, Scratch, XorShift};

const HOST: &str = "host-x86_64-unknown-linux-gnu-";
const TARGETS: [&str; 4] = [
    HOST,
    "hipv4-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "hipv4-amdgcn-amd-amdhsa--gfx1100",
];

/// Bytes that compress like code: 4 KiB blocks drawn from a small vocabulary, so zstd and zlib
/// find long matches, with a counter in each block so no two blocks are quite alike.
fn image(seed: u32, len: usize) -> Vec<u8> {
    let vocabulary: Vec<Vec<u8>> = (0..32).map(|i| XorShift(seed * 977 + i + 1).bytes(4096)).collect();
    let mut pick = XorShift(seed + 12345);
    let mut out = Vec::with_capacity(len + 4096);
    let mut n = 0u32;
    while out.len() < len {
        let block = &vocabulary[pick.bytes(1)[0] as usize % vocabulary.len()];
        out.extend_from_slice(block);
        out.extend_from_slice(&n.to_le_bytes());
        n += 1;
    }
    out.truncate(len);
    out
}

/// The inputs of one bundle: an empty host entry, as HIP has, and three device images, the
/// first two of several MiB and odd sizes, the last a few bytes.
fn write_images(dir: &Scratch) -> Vec<PathBuf> {
    let sizes = [0usize, 3 * (1 << 20) + 17, (1 << 20) + 5, 7];
    sizes.iter().enumerate().map(|(i, &n)| dir.write(&format!("image{i}"), &image(i as u32, n))).collect()
}

/// clang-offload-bundler's bundle of `images`, compressed (zstd, format `version`) or not.
fn reference_bundle(bundler: &Path, images: &[PathBuf], out: &Path, align: u64, compress: Option<u16>) {
    let mut args = vec![
        "--type=o".to_string(),
        format!("--targets={}", TARGETS.join(",")),
        format!("--output={}", s(out)),
        format!("--bundle-align={align}"),
    ];
    args.extend(images.iter().map(|p| format!("--input={}", s(p))));
    let version = compress.map(|v| v.to_string());
    let mut env = Vec::new();
    if let Some(v) = &version {
        args.push("--compress".into());
        env.push(("COMPRESSED_BUNDLE_FORMAT_VERSION", v.as_str()));
    }
    exec_ok(bundler, &args, &env, None);
}

fn unbundle_args(input: &Path, targets: &[&str], outputs: &[PathBuf]) -> Vec<String> {
    let mut args = vec!["--type=o".to_string(), format!("--input={}", s(input)), "--unbundle".into()];
    args.push(format!("--targets={}", targets.join(",")));
    args.extend(outputs.iter().map(|p| format!("--output={}", s(p))));
    args
}

/// Ours (as `offload unbundle`, and as `offload bundle --unbundle`, the bundler's own command
/// line) and the reference unbundle each target of `input`, one at a time and all at once: the
/// same bytes, which are also the images the bundle was made of when `images` is given.
fn unbundle_like_reference(bundler: &Path, dir: &Scratch, input: &Path, images: Option<&[PathBuf]>) {
    let listed = exec_ok(bundler, &["--type=o".into(), format!("--input={}", s(input)), "--list".into()], &[], None);
    let mut theirs: Vec<&str> = listed.stdout.lines().collect();
    let ours_listed = exec_ok(
        ours(),
        &["unbundle".into(), "--list".into(), "--type=o".into(), format!("--input={}", s(input))],
        &[],
        None,
    );
    let mut mine: Vec<&str> = ours_listed.stdout.lines().collect();
    theirs.sort_unstable();
    mine.sort_unstable();
    assert_eq!(mine, theirs, "{}: --list", input.display());
    for (i, target) in theirs.iter().enumerate() {
        let (reference, mine) = (dir.path(&format!("ref-{i}")), dir.path(&format!("ours-{i}")));
        exec_ok(bundler, &unbundle_args(input, &[target], std::slice::from_ref(&reference)), &[], None);
        let mut args = vec!["unbundle".to_string()];
        args.extend(unbundle_args(input, &[target], std::slice::from_ref(&mine)));
        args.retain(|a| a != "--unbundle");
        exec_ok(ours(), &args, &[], None);
        let expected = std::fs::read(&reference).unwrap();
        assert!(
            std::fs::read(&mine).unwrap() == expected,
            "{}: {target} differs from the reference's",
            input.display()
        );
    }
    // All at once, through the bundler's command line.
    let outputs: Vec<PathBuf> = (0..theirs.len()).map(|i| dir.path(&format!("all-{i}"))).collect();
    let mut args = vec!["bundle".to_string()];
    args.extend(unbundle_args(input, &theirs, &outputs));
    exec_ok(ours(), &args, &[], None);
    for (i, target) in theirs.iter().enumerate() {
        let expected = std::fs::read(dir.path(&format!("ref-{i}"))).unwrap();
        assert!(std::fs::read(&outputs[i]).unwrap() == expected, "{}: {target} (all at once)", input.display());
        if let Some(images) = images {
            let k = TARGETS.iter().position(|t| t == target).expect("a target the bundle was made with");
            assert!(expected == std::fs::read(&images[k]).unwrap(), "{target}: not the image bundled");
        }
    }
}

/// `offload decompress` writes exactly the uncompressed bundle.
fn decompress_like_reference(dir: &Scratch, input: &Path, uncompressed: &Path) {
    let out = dir.path("decompressed");
    exec_ok(ours(), &["decompress".into(), s(input), "-o".into(), s(&out)], &[], None);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(uncompressed).unwrap(), "{}: decompress", input.display());
}

#[test]
fn zstd_bundles_of_the_reference_stream_to_its_outputs() {
    let Some(bundler) = tool("clang-offload-bundler", "zstd_bundles_of_the_reference_stream_to_its_outputs") else {
        return;
    };
    let dir = Scratch::new("streaming", "zstd");
    let images = write_images(&dir);
    for align in [1u64, 4096] {
        let plain = dir.path(&format!("plain-{align}.bundle"));
        reference_bundle(&bundler, &images, &plain, align, None);
        for version in [2u16, 3] {
            let packed = dir.path(&format!("zstd-v{version}-{align}.ccob"));
            reference_bundle(&bundler, &images, &packed, align, Some(version));
            let header = compressed::Header::parse(&std::fs::read(&packed).unwrap()).unwrap();
            assert_eq!((header.version, header.method), (version, compressed::Method::Zstd));
            unbundle_like_reference(&bundler, &dir, &packed, Some(&images));
            decompress_like_reference(&dir, &packed, &plain);
        }
    }
}

/// clang-offload-bundler writes zstd only (it picks zstd when built with it); the zlib bundles
/// are the reference's uncompressed bundle compressed by us with zlib, which the reference then
/// unbundles too, and the zlib fixtures it made when built without zstd.
#[test]
fn zlib_bundles_stream_to_the_references_outputs() {
    let Some(bundler) = tool("clang-offload-bundler", "zlib_bundles_stream_to_the_references_outputs") else {
        return;
    };
    let dir = Scratch::new("streaming", "zlib");
    let images = write_images(&dir);
    let plain = dir.path("plain.bundle");
    reference_bundle(&bundler, &images, &plain, 1, None);
    for version in [2u16, 3] {
        let packed = dir.path(&format!("zlib-v{version}.ccob"));
        let args = ["compress", &s(&plain), "-o", &s(&packed), "--method=zlib", &format!("--format-version={version}")];
        exec_ok(ours(), &args.map(String::from), &[], None);
        unbundle_like_reference(&bundler, &dir, &packed, Some(&images));
        decompress_like_reference(&dir, &packed, &plain);
    }
    for name in ["ccob_zlib_v2.hipfb", "ccob_zlib_v3.hipfb", "ccob_zstd_v2.hipfb", "ccob_zstd_v1_derived.hipfb"] {
        unbundle_like_reference(&bundler, &dir, &fixture(name), None);
    }
}

/// A compressed bundle that is not alone in a regular file (zero padding after it, as in a
/// `.hip_fatbin`; or read from a pipe) is read whole instead of from disk: the same outputs.
#[test]
fn bundles_read_whole_give_the_same_outputs() {
    let Some(bundler) = tool("clang-offload-bundler", "bundles_read_whole_give_the_same_outputs") else {
        return;
    };
    let dir = Scratch::new("streaming", "whole");
    let images = write_images(&dir);
    let packed = dir.path("zstd.ccob");
    reference_bundle(&bundler, &images, &packed, 1, Some(3));
    let mut padded = std::fs::read(&packed).unwrap();
    padded.resize(padded.len().next_multiple_of(4096) + 4096, 0);
    let padded = dir.write("padded.ccob", &padded);
    for (k, target) in TARGETS.iter().enumerate() {
        let out = dir.path(&format!("padded-{k}"));
        let mut args = vec!["unbundle".to_string()];
        args.extend(unbundle_args(&padded, &[target], std::slice::from_ref(&out)));
        exec_ok(ours(), &args, &[], None);
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&images[k]).unwrap(), "padded: {target}");
        let piped = dir.path(&format!("piped-{k}"));
        let mut args = vec!["unbundle".to_string()];
        args.extend(unbundle_args(Path::new("/dev/stdin"), &[target], std::slice::from_ref(&piped)));
        let mut child =
            Command::new(ours()).args(&args).stdin(std::process::Stdio::piped()).spawn().expect("offload runs");
        let bytes = std::fs::read(&packed).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
        assert!(child.wait().unwrap().success(), "piped: {target}");
        feeder.join().unwrap().unwrap();
        assert!(std::fs::read(&piped).unwrap() == std::fs::read(&images[k]).unwrap(), "piped: {target}");
    }
}

/// Bundling copies each input into place instead of holding the bundle: the bundle must still be
/// byte-identical to clang-offload-bundler's, whatever the alignment.
#[test]
fn streamed_bundles_are_the_references() {
    let Some(bundler) = tool("clang-offload-bundler", "streamed_bundles_are_the_references") else {
        return;
    };
    let dir = Scratch::new("streaming", "bundle");
    let images = write_images(&dir);
    for align in [1u64, 3, 8, 4096] {
        let reference = dir.path(&format!("ref-{align}.bundle"));
        reference_bundle(&bundler, &images, &reference, align, None);
        let mine = dir.path(&format!("ours-{align}.bundle"));
        let mut args = vec![
            "bundle".to_string(),
            "--type=o".into(),
            format!("--targets={}", TARGETS.join(",")),
            format!("--output={}", s(&mine)),
            format!("--bundle-align={align}"),
        ];
        args.extend(images.iter().map(|p| format!("--input={}", s(p))));
        exec_ok(ours(), &args, &[], None);
        assert!(std::fs::read(&mine).unwrap() == std::fs::read(&reference).unwrap(), "align {align}: bundles differ");
    }
}

/// The names in `dir`, sorted: what a failed command must leave there is what was there.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The error reading `bytes` (the file at `path`) whole gives, as the CLI prints it: the
/// decoding error of the core's `CompressedBundle::decompress`, else the hash mismatch.
fn whole_read_error(path: &Path, bytes: &[u8]) -> String {
    let cb = CompressedBundle::parse(bytes).expect("a readable header");
    let limit = offload::explore::Options::default().max_decompressed;
    match cb.decompress(limit) {
        Err(e) => format!("offload: error: {}: {e}", path.display()),
        Ok(plain) => {
            let computed = compressed::truncated_md5(&plain);
            assert_ne!(computed, cb.header.hash, "the damage must break the bundle");
            format!(
                "offload: error: {}: {}; nothing written",
                path.display(),
                compressed::hash_mismatch(&cb.header, computed)
            )
        }
    }
}

/// Every streaming command on `bad` fails with `expected` as its only line, and leaves the
/// directory as it was: no output, no temporary file, an existing output untouched.
fn fails_cleanly(dir: &Scratch, bad: &Path, expected: &str) {
    let outputs: Vec<PathBuf> = (0..TARGETS.len()).map(|i| dir.path(&format!("out-{i}"))).collect();
    let kept = dir.write("kept", b"an output from before");
    let before = names(dir.dir());
    // `offload unbundle --unbundle` is accepted, as `offload bundle --unbundle` is.
    let cases: Vec<Vec<String>> = vec![
        vec!["decompress".into(), s(bad), "-o".into(), s(&outputs[0])],
        vec!["decompress".into(), s(bad), "-o".into(), s(&kept)],
        // The first device entry, which has streamed past long before the damage.
        [vec!["unbundle".to_string()], unbundle_args(bad, &TARGETS[1..2], &outputs[..1])].concat(),
        [vec!["bundle".to_string()], unbundle_args(bad, &TARGETS, &outputs)].concat(),
        [vec!["unbundle".to_string()], unbundle_args(bad, &TARGETS[2..3], std::slice::from_ref(&kept))].concat(),
        // A target the bundle does not have: the damage is still what is reported first.
        [vec!["unbundle".to_string()], unbundle_args(bad, &["hipv4-amdgcn-amd-amdhsa--gfx1201"], &outputs[..1])]
            .concat(),
        vec!["unbundle".into(), "--list".into(), "--type=o".into(), format!("--input={}", s(bad))],
    ];
    for args in cases {
        let o = exec(ours(), &args, &[], None);
        assert_eq!(o.code, Some(1), "offload {args:?}: expected a failure, got {}", o.stderr);
        assert_eq!(o.stderr.trim_end(), expected, "offload {args:?}: not the error of reading the bundle whole");
        assert!(o.stdout.is_empty(), "offload {args:?} printed {}", o.stdout);
        assert_eq!(names(dir.dir()), before, "offload {args:?} left files behind");
        assert_eq!(std::fs::read(&kept).unwrap(), b"an output from before", "offload {args:?} touched an output");
    }
}

#[test]
fn damaged_payloads_and_wrong_hashes_leave_nothing_behind() {
    let Some(bundler) = tool("clang-offload-bundler", "damaged_payloads_and_wrong_hashes_leave_nothing_behind") else {
        return;
    };
    let dir = Scratch::new("streaming", "damaged");
    let images = write_images(&dir);
    let zstd = dir.path("zstd.ccob");
    reference_bundle(&bundler, &images, &zstd, 1, Some(3));
    let plain = dir.path("plain.bundle");
    reference_bundle(&bundler, &images, &plain, 1, None);
    let zlib = dir.path("zlib.ccob");
    exec_ok(
        ours(),
        &["compress", &s(&plain), "-o", &s(&zlib), "--method=zlib", "--format-version=2"].map(String::from),
        &[],
        None,
    );
    for (name, good) in [("zstd", std::fs::read(&zstd).unwrap()), ("zlib", std::fs::read(&zlib).unwrap())] {
        let header = compressed::Header::parse(&good).unwrap().size() as usize;
        let mut damaged = Vec::new();
        // The stored hash (its last byte) changed: the payload decodes, the hash does not match.
        let mut hash = good.clone();
        hash[header - 1] ^= 0x01;
        damaged.push(("hash", hash));
        // Bytes near the end of the payload changed: everything before decodes first.
        let mut late = good.clone();
        let at = good.len() - 40;
        late[at..at + 8].iter_mut().for_each(|b| *b ^= 0x5a);
        damaged.push(("late", late));
        // The payload cut short, with the total size (versions 2 and 3 have one) to match.
        let mut short = good[..good.len() - 1000].to_vec();
        let total = short.len() as u64;
        match compressed::Header::parse(&good).unwrap().version {
            2 => short[8..12].copy_from_slice(&(total as u32).to_le_bytes()),
            _ => short[8..16].copy_from_slice(&total.to_le_bytes()),
        }
        damaged.push(("short", short));
        for (what, bytes) in damaged {
            let bad = dir.write(&format!("{name}-{what}.ccob"), &bytes);
            let expected = whole_read_error(&bad, &bytes);
            fails_cleanly(&dir, &bad, &expected);
        }
    }
}
