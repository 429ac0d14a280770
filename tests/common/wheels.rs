//! Real packages from PyPI for the differential tests: pinned wheels downloaded once with
//! `pip download --no-deps --only-binary=:all:` (as scripts/lib.sh's `pip_download` does) into a
//! cache ($OFFLOAD_WHEEL_CACHE, else ~/.cache/offload-explorer/wheels), and unpacked there once.
//! A wheel pip cannot get (offline) is `None`, with the reason printed, and its test skips.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn cache_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("OFFLOAD_WHEEL_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| "/tmp".into());
    Path::new(&home).join(".cache/offload-explorer/wheels")
}

/// The wheel file for `requirement` (`name==version`) in the cache, downloaded first (for
/// CPython 3.11 on x86-64 Linux) if it is not there; `None` (with the reason printed) when pip
/// cannot get it.
pub fn wheel_file(requirement: &str) -> Option<PathBuf> {
    let platform = ["--python-version", "3.11", "--implementation", "cp"];
    let platform =
        platform.iter().chain(&["--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_28_x86_64"]);
    download(requirement, &cache_dir(), &platform.copied().collect::<Vec<_>>())
}

/// The wheel file for `requirement` (`name==version`) in `dir`, found there or downloaded into
/// it by `pip download --no-deps --only-binary=:all:` with `pip_args` added; `None` (with the
/// reason printed) when pip cannot get it.
pub fn download(requirement: &str, dir: &Path, pip_args: &[&str]) -> Option<PathBuf> {
    fs::create_dir_all(dir).ok()?;
    let (name, version) = requirement.split_once("==").expect("pinned requirement");
    let prefix = format!("{}-{version}-", name.replace('-', "_"));
    let find = || {
        fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| {
            let file = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
            file.starts_with(&prefix) && file.ends_with(".whl")
        })
    };
    if let Some(found) = find() {
        return Some(found);
    }
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"])
        .args(pip_args)
        .arg("--dest")
        .arg(dir)
        .arg(requirement)
        .status();
    match status {
        Ok(s) if s.success() => find(),
        other => {
            println!("skipping {requirement}: pip download failed ({other:?}); offline?");
            None
        }
    }
}

/// Unpacks `members` of `wheel` (a zip), or all of it when `members` is empty, into `dir`;
/// whether that worked.
pub fn unzip(wheel: &Path, dir: &Path, members: &[&str]) -> bool {
    // Python's zipfile, which every machine with pip has: `unzip` may not be installed.
    const SCRIPT: &str = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z:\n    \
                          z.extractall(sys.argv[2], sys.argv[3:] or None)\n";
    Command::new("python3").args(["-c", SCRIPT]).arg(wheel).arg(dir).args(members).status().is_ok_and(|s| s.success())
}

/// Unpacks `wheel` into the cache, once.
pub fn unpacked(wheel: &Path) -> PathBuf {
    let dir = wheel.with_extension("unpacked");
    if !dir.join(".complete").exists() {
        let _ = fs::remove_dir_all(&dir);
        assert!(unzip(wheel, &dir, &[]), "cannot unpack {}", wheel.display());
        fs::write(dir.join(".complete"), b"").unwrap();
    }
    dir
}
