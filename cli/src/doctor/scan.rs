//! What `doctor` reads: the directories of a Python environment (its `sys.path`, asked of the
//! interpreter) or those given, every library file under them, and which installed
//! distribution each belongs to (the files its `*.dist-info/RECORD` lists; name and version
//! from its `METADATA`).

use crate::fail::{Failure, Outcome};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// An installed distribution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    pub name: String,
    pub version: String,
}

/// Every library file found, each once (by its canonical path), with its distribution.
pub struct Found {
    /// (the path as found, the index of its distribution in `distributions`).
    pub libraries: Vec<(PathBuf, Option<usize>)>,
    pub distributions: Vec<Distribution>,
}

/// The directories on the `sys.path` of `python` (an interpreter on PATH or a path to one).
pub fn python_path(python: &str) -> Outcome<Vec<PathBuf>> {
    let output = Command::new(python)
        .args(["-c", "import sys, json; print(json.dumps(sys.path))"])
        .output()
        .map_err(|e| Failure::new(format!("--python {python}: cannot run it: {e}")))?;
    if !output.status.success() {
        return Err(Failure::new(format!(
            "--python {python}: expected its sys.path, found exit status {} ({})",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let paths: Vec<String> = serde_json::from_slice(&output.stdout)
        .map_err(|e| Failure::new(format!("--python {python}: expected sys.path as a JSON list, found {e}")))?;
    Ok(directories(paths.iter().map(PathBuf::from)))
}

/// The directories of `sys.path`: the empty entry (the script's directory) and zip files are
/// not part of the environment.
pub fn directories(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !p.as_os_str().is_empty() && p.is_dir() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Whether a file's name is that of a library or a device code file: shared libraries of
/// every platform (`.so`, `.so.12`, `.dylib`, `.dll`, `.pyd`) and stand-alone device code
/// (`.hsaco`, `.cubin`, `.fatbin`, `.hipfb`). `.kpack` archives are read with the library
/// that names them.
pub fn is_library(name: &str) -> bool {
    const ENDINGS: [&str; 8] = [".so", ".dylib", ".dll", ".pyd", ".hsaco", ".cubin", ".fatbin", ".hipfb"];
    let lower = name.to_ascii_lowercase();
    ENDINGS.iter().any(|e| lower.ends_with(e)) || is_versioned_so(&lower)
}

/// `libcudart.so.12`, `libfoo.so.1.2.3`.
fn is_versioned_so(name: &str) -> bool {
    name.split_once(".so.")
        .is_some_and(|(_, v)| !v.is_empty() && v.split('.').all(|p| p.bytes().all(|b| b.is_ascii_digit())))
}

/// Every library under `roots` (a root may also be a library file itself), and the
/// distributions whose RECORD names them. Directory symbolic links are not followed (they
/// loop); a library reached twice (a symbolic link to it, a root inside another) counts once.
/// Unreadable directories are listed in `problems`.
pub fn find(roots: &[PathBuf], problems: &mut Vec<(String, String)>) -> Found {
    let canonical_roots: HashSet<PathBuf> = roots.iter().filter_map(|r| r.canonicalize().ok()).collect();
    let mut seen = HashSet::new();
    let mut libraries = Vec::new();
    let mut dist_infos = Vec::new();
    for root in roots {
        if root.is_file() {
            if let Ok(c) = root.canonicalize() {
                if seen.insert(c.clone()) {
                    libraries.push((root.clone(), c));
                }
            }
            continue;
        }
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) => {
                    problems.push((dir.display().to_string(), format!("cannot read the directory: {e}")));
                    continue;
                }
            };
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let Ok(kind) = e.file_type() else { continue };
                let name = e.file_name().to_string_lossy().into_owned();
                let path = e.path();
                if kind.is_dir() {
                    if name.ends_with(".dist-info") {
                        dist_infos.push(path);
                    } else if name != "__pycache__" && !is_other_root(&path, root, &canonical_roots) {
                        stack.push(path);
                    }
                } else if is_library(&name) && path.is_file() {
                    // A link to a library is the library: read once, under its first name.
                    if let Ok(c) = path.canonicalize() {
                        if seen.insert(c.clone()) {
                            libraries.push((path, c));
                        }
                    }
                }
            }
        }
    }
    let (distributions, owner) = distributions(&dist_infos);
    let libraries = libraries.into_iter().map(|(path, c)| (path, owner.get(&c).copied())).collect();
    Found { libraries, distributions }
}

/// A directory under `root` that is itself one of the roots: walked as its own root.
fn is_other_root(dir: &Path, root: &Path, roots: &HashSet<PathBuf>) -> bool {
    let Ok(c) = dir.canonicalize() else { return false };
    roots.contains(&c) && root.canonicalize().ok().as_ref() != Some(&c)
}

/// The distributions of the `.dist-info` directories, and which one owns each library file
/// (canonical path) its RECORD lists.
fn distributions(dist_infos: &[PathBuf]) -> (Vec<Distribution>, HashMap<PathBuf, usize>) {
    let mut distributions = Vec::new();
    let mut owner = HashMap::new();
    for info in dist_infos {
        let Ok(record) = std::fs::read_to_string(info.join("RECORD")) else { continue };
        let metadata = std::fs::read_to_string(info.join("METADATA")).unwrap_or_default();
        let index = distributions.len();
        distributions.push(identify(info, &metadata));
        // RECORD paths are relative to the directory holding the .dist-info.
        let base = info.parent().unwrap_or(Path::new(""));
        for line in record.lines() {
            let path = record_path(line);
            let name = path.rsplit('/').next().unwrap_or(path);
            if !is_library(name) {
                continue;
            }
            if let Ok(c) = base.join(path).canonicalize() {
                owner.entry(c).or_insert(index);
            }
        }
    }
    (distributions, owner)
}

/// A distribution's name and version: `Name:` and `Version:` of its METADATA, or else the
/// `.dist-info` directory's name (`name-version.dist-info`).
fn identify(info: &Path, metadata: &str) -> Distribution {
    let header = |key: &str| {
        metadata.lines().take_while(|l| !l.is_empty()).find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string()))
    };
    let stem =
        info.file_name().map(|n| n.to_string_lossy().trim_end_matches(".dist-info").to_string()).unwrap_or_default();
    let (stem_name, stem_version) = stem.split_once('-').unwrap_or((&stem, ""));
    Distribution {
        name: header("Name:").unwrap_or_else(|| stem_name.to_string()),
        version: header("Version:").unwrap_or_else(|| stem_version.to_string()),
    }
}

/// The path of a RECORD line (`path,hash,size`, CSV: a path with a comma is quoted, a quote
/// inside doubled).
fn record_path(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('"') {
        // Doubled quotes inside a quoted path are rare enough that such a path is skipped.
        return rest.split_once("\",").map_or(rest, |(p, _)| p);
    }
    line.split(',').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names() {
        for yes in ["libcudart.so.12", "_core.cpython-311-x86_64-linux-gnu.so", "x.hsaco", "LIB.DLL", "libfoo.so.1.2"] {
            assert!(is_library(yes), "{yes}");
        }
        for no in ["libfoo.so.py", "soname.txt", "x.so.d", "RECORD", "a.kpack"] {
            assert!(!is_library(no), "{no}");
        }
    }

    #[test]
    fn record_lines() {
        assert_eq!(record_path("cupy/_core/core.so,sha256=abc,123"), "cupy/_core/core.so");
        assert_eq!(record_path("\"a,b/x.so\",sha256=abc,1"), "a,b/x.so");
        assert_eq!(record_path("../../bin/offload,,"), "../../bin/offload");
    }

    #[test]
    fn metadata_names_the_distribution_else_the_directory_does() {
        let d = identify(
            Path::new("/x/cupy_rocm_5_0-13.3.0.dist-info"),
            "Metadata-Version: 2.1\nName: cupy-rocm-5-0\nVersion: 13.3.0\n\nName: not this\n",
        );
        assert_eq!(d, Distribution { name: "cupy-rocm-5-0".into(), version: "13.3.0".into() });
        let d = identify(Path::new("/x/foo-1.2.dist-info"), "");
        assert_eq!(d, Distribution { name: "foo".into(), version: "1.2".into() });
    }
}
