//! Replays, on stable Rust, what the fuzz targets in `fuzz/` check: every fixture through every
//! target's properties, then every input a fuzzer ever found (kept in
//! `tests/fuzz_regressions/<target>/`), so a bug found once stays fixed.

mod fuzz_checks;

use std::path::{Path, PathBuf};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The fixtures are the fuzzers' seeds; they must hold every property as they are.
#[test]
fn every_fixture_holds_every_property() {
    let fixtures: Vec<PathBuf> = files_in(&root().join("fixtures"))
        .into_iter()
        .chain(files_in(&root().join("fixtures/nvidia")))
        .chain(files_in(&root().join("fixtures/packages")))
        .chain(
            ["kpack", "kpack/after/.kpack", "kpack/after/lib", "kpack/before/lib"]
                .iter()
                .flat_map(|d| files_in(&root().join("fixtures").join(d))),
        )
        .chain(files_in(&root().join("images")))
        .filter(|p| {
            !matches!(p.extension().and_then(|e| e.to_str()), Some("md" | "sh" | "txt" | "hip" | "h" | "c" | "cu"))
                && !p.ends_with("SHA256SUMS")
        })
        .collect();
    assert!(fixtures.len() >= 50, "only {} fixtures found", fixtures.len());
    for path in &fixtures {
        let data = std::fs::read(path).unwrap();
        for target in fuzz_checks::TARGETS {
            let outcome = std::panic::catch_unwind(|| fuzz_checks::run(target, &data));
            assert!(outcome.is_ok(), "{}: property of target `{target}` broken", path.display());
        }
    }
}

/// Every input a fuzzer found a problem with, replayed through the target that found it.
#[test]
fn every_fuzzer_finding_stays_fixed() {
    let mut replayed = 0;
    let mut failing = Vec::new();
    for target in fuzz_checks::TARGETS {
        for path in files_in(&root().join("fuzz_regressions").join(target)) {
            let data = std::fs::read(&path).unwrap();
            if std::panic::catch_unwind(|| fuzz_checks::run(target, &data)).is_err() {
                failing.push(format!("{} (target `{target}`)", path.display()));
            }
            replayed += 1;
        }
    }
    println!("replayed {replayed} fuzzer findings");
    assert!(failing.is_empty(), "findings that fail again:\n{}", failing.join("\n"));
}
