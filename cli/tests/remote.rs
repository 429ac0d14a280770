//! Reading commands over HTTP: every behaviour of scripts/remote_server.py (ranges without
//! suffix ranges, CORS-friendly, a redirect to a second origin with expiring signed URLs, gzip
//! unless identity is asked for, no ranges, chunked), each answer compared with the answer for
//! the same file read locally, and what was fetched checked from the server's byte counts: less
//! than the wheel, and no byte of a Python member past the first 4096 bytes of the file (which
//! the explorer reads to tell the format). Everything stays on 127.0.0.1.

mod support;

use offload::format::package::zip;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use support::remote::{self, answer, make_test_wheels, offload, with_file, Server};
use support::{ours, root, s, Scratch};

const APP: &str = "gpu_app-1.0-py3-none-linux_x86_64.whl";
const DEP: &str = "gpu_dep-1.0-py3-none-linux_x86_64.whl";
/// Bytes the explorer reads first to tell what a file is: fetched whatever the file.
const FIRST_READ: u64 = 4096;

/// The test server on the test wheels and two images.
fn start_server(name: &str) -> Server {
    let files = Scratch::new("remote", name);
    make_test_wheels(&files, &[]);
    for image in ["hip_kernels.o", "cuda_kernels_sm80.cubin"] {
        std::fs::copy(root().join("tests/images").join(image), files.path(image)).unwrap();
    }
    Server::serve(files, &[])
}

/// The commands compared, `{}` standing for the file.
const COMMANDS: &[&[&str]] = &[
    &["list", "--json", "{}"],
    &["kernels", "--json", "{}"],
    &["fit", "--json", "--gpu", "gfx90a,sm_80", "{}"],
    &["sizes", "--json", "{}"],
    &["check", "--json", "{}", "--require", "gfx90a"],
];

/// Every command of [`COMMANDS`] answers for `url` as for the local copy `local`.
fn same_answers(local: &Path, url: &str) {
    remote::same_answers(COMMANDS, local, url);
}

#[test]
fn every_host_behaviour_answers_as_the_local_file() {
    let server = start_server("behaviours");
    for behaviour in
        ["", "pypi-files/", "cors/", "redirect/", "gzip/", "norange/", "chunked/", "latency=20/pypi-files/"]
    {
        for file in [APP, DEP, "hip_kernels.o", "cuda_kernels_sm80.cubin"] {
            same_answers(&server.local(file), &format!("{}{behaviour}{file}", server.url));
        }
    }
}

#[test]
fn a_wheel_is_read_without_its_python_members() {
    let server = start_server("python");
    for wheel in [APP, DEP] {
        server.reset();
        let url = format!("{}pypi-files/{wheel}", server.url);
        let (code, _, stderr) = offload(&with_file(&["list", "--json", "{}"], &url));
        assert_eq!(code, 0, "{stderr}");
        let size = std::fs::metadata(server.local(wheel)).unwrap().len();
        let fetched = server.bytes(wheel);
        assert!(fetched < size / 4, "{wheel}: fetched {fetched} of {size} bytes");
        let listing = zip::read(&std::fs::read(server.local(wheel)).unwrap()[..]).unwrap();
        let sent = server.ranges(wheel);
        let mut device_bytes = 0;
        for m in &listing.members {
            let (start, end) = (m.data_offset, m.data_offset + m.stored_size);
            let overlap: u64 = sent.iter().map(|&(a, b)| b.min(end).saturating_sub(a.max(start.max(FIRST_READ)))).sum();
            if m.name.ends_with(".py") || m.name.contains(".dist-info/") {
                assert_eq!(overlap, 0, "{wheel}: {overlap} bytes of {} fetched", m.name);
            } else if m.name.contains("/lib/") {
                device_bytes += m.stored_size;
            }
        }
        // What the aim allows: the device members' stored bytes, the directory, the local
        // headers, the end record and the first read.
        let directory = size - listing.members.iter().map(|m| m.data_end()).max().unwrap();
        let headers: u64 = listing.members.iter().map(|m| m.header.1).sum();
        assert!(
            fetched <= device_bytes + directory + headers + FIRST_READ,
            "{wheel}: fetched {fetched}, device members {device_bytes}, directory {directory}, headers {headers}"
        );
    }
}

#[test]
fn a_raw_object_is_read_by_its_headers_and_offload_sections() {
    let server = start_server("raw");
    // Padding after the object's own bytes that no command may fetch: a library whose
    // sections lie far apart.
    let big = server.local("hip_kernels_padded.o");
    let object = std::fs::read(server.local("hip_kernels.o")).unwrap();
    let objcopy = support::llvm_bin().join("llvm-objcopy");
    let padding = server.local("padding.bin");
    std::fs::write(&padding, vec![0x5a; 8 << 20]).unwrap();
    let made = Command::new(&objcopy)
        .arg("--add-section")
        .arg(format!(".padding={}", s(&padding)))
        .arg(server.local("hip_kernels.o"))
        .arg(&big)
        .status();
    if !made.is_ok_and(|s| s.success()) {
        println!("skipping: {} cannot add a section", objcopy.display());
        return;
    }
    assert!(std::fs::metadata(&big).unwrap().len() > object.len() as u64 + (8 << 20));
    server.reset();
    same_answers(&big, &format!("{}pypi-files/hip_kernels_padded.o", server.url));
    let fetched = server.bytes("hip_kernels_padded.o");
    assert!(fetched < 1 << 20, "fetched {fetched} bytes of an object with 8 MiB of padding");
}

#[test]
fn an_expired_signed_url_is_resolved_again() {
    // Each signed URL serves three requests, then answers 403 as an expired signature does:
    // however fast the read, the wheel takes more, and each URL resolved again from the
    // original serves the retried request (an expiry by time depended on the machine's speed).
    let server = start_server("expiry");
    let url = format!("{}uses=3/redirect/{APP}", server.url);
    let here = answer(&with_file(&["list", "--json", "{}"], &s(&server.local(APP))));
    let there = answer(&with_file(&["list", "--json", "{}"], &url));
    assert_eq!(here, there);
    let expired = server.get("_stats")["expired"].as_u64().unwrap();
    assert!(expired > 0, "no signed URL expired during the read: the test did not test anything");
}

#[test]
fn a_diff_and_a_disassembly_read_urls() {
    let server = start_server("whole");
    let cubin = format!("{}pypi-files/cuda_kernels_sm80.cubin", server.url);
    let local = s(&server.local("cuda_kernels_sm80.cubin"));
    assert_eq!(
        answer(&with_file(&["diff", "--json", "{}", &local], &cubin)),
        answer(&with_file(&["diff", "--json", "{}", &local], &local))
    );
    let code = s(&root().join("tests/images/hip_kernels_gfx90a.co"));
    std::fs::copy(&code, server.local("hip_kernels_gfx90a.co")).unwrap();
    let here = offload(&["disasm".into(), code.clone()]);
    let there = offload(&["disasm".into(), format!("{}norange/hip_kernels_gfx90a.co", server.url)]);
    assert_eq!((here.0, here.1), (there.0, there.1));
}

#[test]
fn hosts_that_fail_are_named_with_what_was_expected() {
    let server = start_server("errors");
    let missing = format!("{}pypi-files/missing.whl", server.url);
    let (code, _, stderr) = offload(&with_file(&["list", "{}"], &missing));
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&missing) && stderr.contains("404 Not Found") && stderr.contains("expected 206"),
        "{stderr}"
    );
    let gzipped = format!("{}gzip-always/{APP}", server.url);
    let (code, _, stderr) = offload(&with_file(&["list", "{}"], &gzipped));
    assert_eq!(code, 1);
    assert!(stderr.contains("Content-Encoding: gzip") && stderr.contains("identity"), "{stderr}");
    let (code, _, stderr) = offload(&with_file(&["list", "{}"], "http://127.0.0.1:9/nothing.whl"));
    assert_eq!(code, 1);
    assert!(stderr.contains("http://127.0.0.1:9/nothing.whl") && stderr.contains("failed"), "{stderr}");
}

#[test]
fn a_real_cached_wheel_is_read_in_part() {
    let cached = support::wheels::cache_dir().join("cupy_cuda12x-13.3.0-cp311-cp311-manylinux2014_x86_64.whl");
    if !cached.exists() {
        println!("skipping: {} is not in the wheel cache (scripts/bench_packages.py fetches it)", cached.display());
        return;
    }
    let server = start_server("real");
    let name = cached.file_name().unwrap().to_str().unwrap();
    std::os::unix::fs::symlink(&cached, server.local(name)).unwrap();
    let url = format!("{}pypi-files/{name}", server.url);
    let here = answer(&with_file(&["list", "--json", "{}"], &s(&cached)));
    let there = answer(&with_file(&["list", "--json", "{}"], &url));
    assert_eq!(here, there);
    let size = std::fs::metadata(&cached).unwrap().len();
    let listing = zip::read(&std::fs::read(&cached).unwrap()[..]).unwrap();
    let python: u64 = listing.members.iter().filter(|m| m.name.ends_with(".py")).map(|m| m.stored_size).sum();
    let fetched = server.bytes(name);
    println!("{name}: fetched {fetched} of {size} bytes ({python} bytes of Python members not fetched)");
    assert!(fetched < size - python, "fetched {fetched} of {size}");
}

#[test]
fn fit_pip_answers_for_a_package_and_its_gpu_dependency() {
    let server = start_server("pip");
    let index = format!("{}simple/", server.url);
    server.reset();
    let args: Vec<String> = ["fit", "--json", "--gpu", "gfx90a,sm_86,sm_61", "--pip", "gpu-app", "--index-url", &index]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let (code, stdout, stderr) = offload(&args);
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    // sm_61 has no image in gpu-dep's CUDA library: the set does not run everywhere.
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(doc["runs"], false);
    assert_eq!(doc["requirements"], serde_json::json!(["gpu-app"]));
    let verdict = |name: &str, gpu: &str| -> String {
        let dist = doc["distributions"].as_array().unwrap().iter().find(|d| d["name"] == name).unwrap();
        let answer = dist["answers"].as_array().unwrap().iter().find(|a| a["gpu"] == gpu).unwrap();
        answer["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(verdict("gpu-app", "gfx90a"), "runs");
    assert_eq!(verdict("gpu-app", "sm_86"), "not-for-this-gpu");
    assert_eq!(verdict("gpu-dep", "sm_86"), "runs");
    assert_eq!(verdict("gpu-dep", "sm_61"), "does-not-run");
    assert_eq!(verdict("gpu-dep", "gfx90a"), "not-for-this-gpu");
    // pip read metadata files only; the wheels were read in part, without their Python.
    for wheel in [APP, DEP] {
        let size = std::fs::metadata(server.local(wheel)).unwrap().len();
        let fetched = server.bytes(wheel);
        assert!(fetched > 0 && fetched < size / 4, "{wheel}: fetched {fetched} of {size}");
        assert!(server.get("_stats")["paths"][format!("{wheel}.metadata")]["agents"]["pip"].as_u64().unwrap_or(0) > 0);
    }
    // doctor --pip answers the same for several requirements, plain-py having no device code.
    let args: Vec<String> =
        ["doctor", "--json", "--gpu", "gfx90a,sm_86,sm_61", "--pip", "gpu-app", "plain-py", "--index-url", &index]
            .iter()
            .map(|a| a.to_string())
            .collect();
    let (code, stdout, stderr) = offload(&args);
    assert_eq!(code, 1, "{stderr}");
    let doctor: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doctor["libraries"]["read"], 3);
    assert_eq!(doctor["libraries"]["with_device_code"], 2);
    assert_eq!(doctor["distributions"], doc["distributions"]);
    // A requirement pip cannot resolve is an error naming it.
    let args: Vec<String> = ["fit", "--gpu", "gfx90a", "--pip", "no-such-package", "--index-url", &index]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let (code, _, stderr) = offload(&args);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-package") && stderr.contains("expected pip to resolve"), "{stderr}");
}

#[test]
fn a_variant_wheel_whose_declared_sm_arch_lacks_code_is_flagged() {
    let server = start_server("variant");
    // Made apart from the index's directory: pip refuses file names with a variant label.
    let variants = Scratch::new("remote", "variant-wheels");
    let made = Command::new("python3")
        .arg(root().join("scripts/make_test_wheels.py"))
        .arg(variants.path("plain"))
        .arg("--variant")
        .arg(variants.dir())
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let name = "gpu_dep-1.0-py3-none-linux_x86_64-sm86sm90.whl";
    std::fs::create_dir_all(server.local("variants")).unwrap();
    std::fs::copy(variants.path(name), server.local(&format!("variants/{name}"))).unwrap();
    let local = s(&variants.path(name));
    let url = format!("{}pypi-files/variants/{name}", server.url);
    for file in [&local, &url] {
        let (_, doc) = answer(&with_file(&["list", "--json", "{}"], file));
        let declared: Vec<(String, Value)> = doc["variant"]["properties"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: no variant in {doc}"))
            .iter()
            .map(|p| (p["value"].as_str().unwrap().to_string(), p["has_code"].clone()))
            .collect();
        let expected = [("86_real", true), ("86_virtual", true), ("90_real", false)];
        assert_eq!(declared, expected.map(|(v, c)| (v.to_string(), Value::Bool(c))), "{file}");
        assert_eq!(doc["variant"]["label"], "sm86sm90");
        let (code, text, _) = offload(&with_file(&["list", "{}"], file));
        assert_eq!(code, 0);
        assert!(
            text.contains("90_real  (NO CODE for it in the wheel)") && text.contains("1 declared target"),
            "{text}"
        );
    }
    // A wheel that is no variant has no `variant` key.
    let (_, doc) = answer(&with_file(&["list", "--json", "{}"], &s(&server.local(DEP))));
    assert!(doc.get("variant").is_none());
}

/// Bytes of `ranges` sent more than once.
fn sent_twice(mut ranges: Vec<(u64, u64)>) -> u64 {
    ranges.sort_unstable();
    let (mut twice, mut reached) = (0, 0);
    for (a, b) in ranges {
        twice += b.min(reached).saturating_sub(a);
        reached = reached.max(b);
    }
    twice
}

/// What the explorer may read of a wheel (`bytes`) read by URL: the first read, the end
/// records and directory, and of each member not named as text its local header and all its
/// stored bytes when it is named as a library, else its first 64 KiB.
fn readable_of(bytes: &[u8]) -> u64 {
    let listing = zip::read(bytes).unwrap();
    let directory = bytes.len() as u64 - listing.members.iter().map(|m| m.data_end()).max().unwrap();
    let members: u64 = listing
        .members
        .iter()
        .filter(|m| m.is_explored(true))
        .map(|m| m.header.1 + if m.name.contains(".so") { m.stored_size } else { m.stored_size.min(64 << 10) })
        .sum();
    FIRST_READ + directory + members
}

#[test]
fn fetching_ahead_fetches_each_byte_once_and_no_more_than_is_read() {
    // 20 ms per answer: the fetchers ahead and the explorer's own reads overlap.
    let server = start_server("ahead");
    let cached = support::wheels::cache_dir().join("cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl");
    let mut wheels = vec![APP.to_string(), DEP.to_string()];
    if cached.exists() {
        let name = cached.file_name().unwrap().to_str().unwrap().to_string();
        std::os::unix::fs::symlink(&cached, server.local(&name)).unwrap();
        wheels.push(name);
    } else {
        println!("skipping the real wheel: {} is not in the wheel cache", cached.display());
    }
    for wheel in &wheels {
        let local = server.local(wheel);
        let bytes = std::fs::read(&local).unwrap();
        // `list` explores members one at a time, `kernels` on every core.
        for command in [&["list", "--json", "{}"][..], &["kernels", "--json", "{}"][..]] {
            server.reset();
            let there = answer(&with_file(command, &format!("{}latency=20/pypi-files/{wheel}", server.url)));
            let fetched = server.bytes(wheel);
            let twice = sent_twice(server.ranges(wheel));
            assert_eq!(answer(&with_file(command, &s(&local))), there, "{command:?} {wheel}");
            assert_eq!(twice, 0, "{command:?} {wheel}: {twice} bytes fetched twice");
            let readable = readable_of(&bytes);
            assert!(
                fetched <= readable,
                "{command:?} {wheel}: fetched {fetched}, the explorer reads at most {readable}"
            );
        }
    }
}

#[test]
fn progress_is_drawn_on_a_terminal_only() {
    let server = start_server("progress");
    // 300 ms per answer: the bar is drawn before the read ends.
    let url = format!("{}latency=300/pypi-files/{DEP}", server.url);
    let size = std::fs::metadata(server.local(DEP)).unwrap().len();
    // `script` gives the command a terminal; its output is what the terminal showed.
    let command = format!("{} list {url} >/dev/null", s(ours()));
    let Ok(shown) = Command::new("script").args(["-qec", &command, "/dev/null"]).output() else {
        println!("skipping: no `script` command to give the CLI a terminal");
        return;
    };
    let terminal = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{terminal}");
    let total = format!("of {}", human(size));
    assert!(terminal.contains(&url) && terminal.contains("fetched") && terminal.contains(&total), "{terminal:?}");
    // Not a terminal: nothing but the answer.
    let (code, _, stderr) = offload(&with_file(&["list", "{}"], &url));
    assert_eq!((code, stderr.as_str()), (0, ""));
}

/// A size as indicatif's `{total_bytes}` prints it (binary units, two decimals).
fn human(size: u64) -> String {
    match size {
        n if n >= 1 << 20 => format!("{:.2} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.2} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// Where a file named so is: its local path, or its URL.
type Place<'p> = &'p dyn Fn(&str) -> String;
/// A command line reading files at a place and writing the file given.
type CommandFor<'c> = &'c dyn Fn(Place<'_>, &str) -> Vec<String>;

#[test]
fn bundle_unbundle_compress_and_decompress_read_urls() {
    let server = start_server("tools");
    let code = root().join("tests/images/hip_kernels_gfx90a.co");
    std::fs::copy(&code, server.local("gfx90a.co")).unwrap();
    let url = |name: &str| format!("{}pypi-files/{name}", server.url);
    let local = |name: &str| s(&server.local(name));
    // Each command run on the local files and on their URLs writes the same bytes.
    let same = |args: CommandFor<'_>, out: &str| {
        let (here, there) = (format!("{out}.here"), format!("{out}.there"));
        for (at, written) in [(&local as Place<'_>, &here), (&url, &there)] {
            let (code, _, stderr) = offload(&args(at, &local(written)));
            assert_eq!(code, 0, "{:?}: {stderr}", args(at, written));
        }
        let (a, b) = (std::fs::read(local(&here)).unwrap(), std::fs::read(local(&there)).unwrap());
        assert!(!a.is_empty() && a == b, "{out}: the URLs' output differs from the local files'");
        std::fs::copy(local(&here), local(out)).unwrap();
    };
    let targets = "--targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a";
    same(
        &|at, out| {
            ["bundle", "--type=o", targets, &format!("--input={}", at("hip_kernels.o"))]
                .iter()
                .map(|a| a.to_string())
                .chain([format!("--input={}", at("gfx90a.co")), format!("--output={out}")])
                .collect()
        },
        "bundled.o",
    );
    same(
        &|at, out| {
            ["unbundle", "--type=o", "--targets=hipv4-amdgcn-amd-amdhsa--gfx90a"]
                .iter()
                .map(|a| a.to_string())
                .chain([format!("--input={}", at("bundled.o")), format!("--output={out}")])
                .collect()
        },
        "unbundled.co",
    );
    assert_eq!(std::fs::read(local("unbundled.co")).unwrap(), std::fs::read(&code).unwrap());
    // A binary bundle (the code object as both entries) compressed, and back.
    same(
        &|at, out| {
            ["bundle", "--type=bc", targets]
                .iter()
                .map(|a| a.to_string())
                .chain([format!("--input={}", at("gfx90a.co")), format!("--input={}", at("gfx90a.co"))])
                .chain([format!("--output={out}")])
                .collect()
        },
        "bundled.bc",
    );
    same(&|at, out| vec!["compress".into(), at("bundled.bc"), "-o".into(), out.into()], "compressed.bc");
    same(&|at, out| vec!["decompress".into(), at("compressed.bc"), "-o".into(), out.into()], "decompressed.bc");
    assert_eq!(std::fs::read(local("decompressed.bc")).unwrap(), std::fs::read(local("bundled.bc")).unwrap());
}
