//! Reading commands over hosts that serve no ranges (scripts/remote_server.py's `/norange/`,
//! `/chunked/`, throttled and stalled): the file arrives whole, front to back, and is explored
//! as it arrives. Every answer equals the answer for the same file read locally, for the
//! package fixtures, the remote tests' wheels, and the same wheels as a writer that cannot seek
//! makes them (data descriptors: sizes only in the central directory; deflated, and stored);
//! members are seen to be explored before the last byte arrived (the server holds the file's
//! last 1 KiB back: the debug log says how much had arrived when each member was done); a
//! download cut short is an error saying how far it got; a cached real wheel (cupy for ROCm
//! 5.0; skipped when not cached) answers as its local copy, members explored as it arrived.
//! Everything stays on 127.0.0.1.

mod support;

use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

use support::remote::{self, answer, make_test_wheels, offload_with, strip_file_names, with_file, Server};
use support::{root, s, Scratch};

const APP: &str = "gpu_app-1.0-py3-none-linux_x86_64.whl";
const DEP: &str = "gpu_dep-1.0-py3-none-linux_x86_64.whl";

/// The test server on the remote tests' wheels (and, in `streamed/`, the same wheels with
/// data descriptors) and the package fixtures.
fn start_server(name: &str) -> Server {
    let files = Scratch::new("remote-stream", name);
    let streamed = files.path("streamed");
    make_test_wheels(&files, &["--streamed".as_ref(), streamed.as_os_str()]);
    for fixture in package_fixtures() {
        std::fs::copy(root().join("tests/fixtures/packages").join(&fixture), files.path(&fixture)).unwrap();
    }
    Server::serve(files, &[])
}

/// The package fixtures (tests/fixtures/packages: zip, wheel, conda, tar, deb), by name.
fn package_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("tests/fixtures/packages"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.ends_with(".sh") || n.ends_with(".txt") || n == "SHA256SUMS"))
        .collect();
    names.sort();
    names
}

/// The commands compared, `{}` standing for the file: a listing (which waits for the central
/// directory) and every image decoded (members explored as they arrive).
const COMMANDS: &[&[&str]] = &[&["list", "--json", "{}"], &["kernels", "--json", "{}"]];

/// Every command of [`COMMANDS`] answers for `url` as for the local copy `local`.
fn same_answers(local: &Path, url: &str) {
    remote::same_answers(COMMANDS, local, url);
}

#[test]
fn files_arriving_whole_answer_as_the_local_files() {
    let server = start_server("answers");
    let mut files: Vec<String> = package_fixtures();
    files.extend([APP, DEP].iter().flat_map(|w| [w.to_string(), format!("streamed/{w}")]));
    files.push(format!("streamed/stored/{APP}"));
    for behaviour in ["norange/", "chunked/"] {
        for file in &files {
            same_answers(&server.local(file), &format!("{}{behaviour}{file}", server.url));
        }
    }
    // Throttled: the reads wait for bytes most of the time.
    for behaviour in ["throttle=4000000/norange/", "throttle=4000000/chunked/"] {
        for file in [APP.to_string(), format!("streamed/{DEP}"), "gpu_libs-1.0-py3-none-linux_x86_64.whl".into()] {
            same_answers(&server.local(&file), &format!("{}{behaviour}{file}", server.url));
        }
    }
}

/// One member explored early, as the debug log says: its name, and the bytes arrived then.
#[derive(Debug)]
struct Explored {
    name: String,
    arrived: u64,
}

/// The members `OFFLOAD_DEBUG=arriving` says were explored early, and how many members the
/// central directory confirmed and left to explore.
fn explored_early(stderr: &str) -> (Vec<Explored>, Option<(u64, u64)>) {
    let mut explored = Vec::new();
    let mut confirmed = None;
    for line in stderr.lines() {
        if let Some((_, rest)) = line.split_once(": explored ") {
            let (name, rest) = rest.split_once(" (stored bytes ").unwrap();
            let arrived = rest.split_once(") with ").unwrap().1.split_once(" of ").unwrap().0;
            explored.push(Explored { name: name.to_string(), arrived: arrived.parse().unwrap() });
        } else if let Some((_, rest)) = line.split_once("the central directory confirms ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            confirmed = Some((words[0].parse().unwrap(), words[4].parse().unwrap()));
        }
    }
    (explored, confirmed)
}

#[test]
fn members_are_explored_before_the_download_ends() {
    let server = start_server("early");
    for (file, libraries) in [
        (APP.to_string(), &["gpu_app/lib/libhip_3tu.so", "gpu_app/lib/hip_kernels.o"][..]),
        (format!("streamed/{APP}"), &["gpu_app/lib/libhip_3tu.so", "gpu_app/lib/hip_kernels.o"][..]),
        (format!("streamed/{DEP}"), &["gpu_dep/lib/libnv_2arch.so"][..]),
    ] {
        let size = std::fs::metadata(server.local(&file)).unwrap().len();
        for behaviour in ["stall=1500/norange/", "stall=1500/chunked/"] {
            let url = format!("{}{behaviour}{file}", server.url);
            let (code, stdout, stderr) =
                offload_with(&with_file(&["kernels", "--json", "{}"], &url), &[("OFFLOAD_DEBUG", "arriving")]);
            assert_eq!(code, 0, "{url}: {stderr}");
            let (explored, confirmed) = explored_early(&stderr);
            let mut names: Vec<&str> = explored.iter().map(|e| e.name.as_str()).collect();
            names.sort_unstable();
            let mut expected = libraries.to_vec();
            expected.sort_unstable();
            assert_eq!(names, expected, "{url}: {stderr}");
            // The server held the last 1024 bytes back: every member was explored before.
            for e in &explored {
                assert!(e.arrived <= size - 1024, "{url}: {} explored with {} of {size} bytes", e.name, e.arrived);
            }
            assert_eq!(confirmed, Some((libraries.len() as u64, 0)), "{url}: {stderr}");
            let mut there: Value = serde_json::from_str(&stdout).unwrap();
            let (_, here) = answer(&with_file(&["kernels", "--json", "{}"], &s(&server.local(&file))));
            strip_file_names(&mut there);
            assert_eq!(there, here, "{url}");
        }
    }
    // Stored members with data descriptors: where the first ends is not known before the
    // central directory says, so nothing is explored early; the directory leaves both
    // libraries to explore then, and the answer is the local file's.
    let file = format!("streamed/stored/{APP}");
    let url = format!("{}stall=300/norange/{file}", server.url);
    let command = with_file(&["kernels", "--json", "{}"], &url);
    let (code, stdout, stderr) = offload_with(&command, &[("OFFLOAD_DEBUG", "arriving")]);
    assert_eq!(code, 0, "{stderr}");
    let (explored, confirmed) = explored_early(&stderr);
    assert!(explored.is_empty(), "{stderr}");
    assert_eq!(confirmed, Some((0, 2)), "{stderr}");
    let mut there: Value = serde_json::from_str(&stdout).unwrap();
    strip_file_names(&mut there);
    assert_eq!(there, answer(&with_file(&["kernels", "--json", "{}"], &s(&server.local(&file)))).1);
    // A listing spends a budget member after member: nothing is explored before the central
    // directory has arrived, and the answer is the local file's.
    let url = format!("{}stall=300/norange/{APP}", server.url);
    let (code, _, stderr) = offload_with(&with_file(&["list", "--json", "{}"], &url), &[("OFFLOAD_DEBUG", "arriving")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(explored_early(&stderr).0.is_empty(), "{stderr}");
}

/// A server that answers every request with `200 OK`, a `Content-Length` of `length` and only
/// the first `sent` bytes of `body`, then closes the connection.
fn cut_short_server(body: Vec<u8>, length: usize, sent: usize) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/cut.whl", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body[..sent]);
        }
    });
    url
}

#[test]
fn a_download_cut_short_says_how_far_it_got() {
    let server = start_server("cut");
    let wheel = std::fs::read(server.local(APP)).unwrap();
    let sent = wheel.len() / 2;
    let url = cut_short_server(wheel.clone(), wheel.len(), sent);
    for command in COMMANDS {
        let (code, _, stderr) = offload_with(&with_file(command, &url), &[]);
        assert_ne!(code, 0, "{command:?}: {stderr}");
        assert!(stderr.contains(&format!("after {sent} bytes")), "{command:?}: {stderr}");
    }
}

#[test]
fn a_real_cached_wheel_is_explored_as_it_arrives() {
    let cached = support::wheels::cache_dir().join("cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl");
    if !cached.exists() {
        println!("skipping: {} is not in the wheel cache (scripts/bench_packages.py fetches it)", cached.display());
        return;
    }
    let server = start_server("real");
    let name = cached.file_name().unwrap().to_str().unwrap();
    std::os::unix::fs::symlink(&cached, server.local(name)).unwrap();
    let size = std::fs::metadata(&cached).unwrap().len();
    for behaviour in ["stall=1000/norange/", "stall=1000/chunked/"] {
        let url = format!("{}{behaviour}{name}", server.url);
        let (code, stdout, stderr) =
            offload_with(&with_file(&["kernels", "--json", "{}"], &url), &[("OFFLOAD_DEBUG", "arriving")]);
        assert_eq!(code, 0, "{stderr}");
        let mut there: Value = serde_json::from_str(&stdout).unwrap();
        strip_file_names(&mut there);
        assert_eq!(there, answer(&with_file(&["kernels", "--json", "{}"], &s(&cached))).1, "{url}");
        let (explored, confirmed) = explored_early(&stderr);
        let before_the_end = explored.iter().filter(|e| e.arrived <= size - 1024).count();
        println!("{url}: {} members explored early, {before_the_end} before the last 1 KiB arrived", explored.len());
        assert!(before_the_end > 0, "{url}: {stderr}");
        assert_eq!(confirmed, Some((explored.len() as u64, 0)), "{url}");
    }
}
