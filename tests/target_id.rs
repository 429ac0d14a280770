//! Entry IDs against clang-offload-bundler 22: what it writes for each spelling, which it
//! refuses and with what message, and which entry `--unbundle` picks for a request.
//!
//! The tool is found through `OFFLOAD_BUNDLER`, then the usual install paths. Without it the
//! tests print why and pass; with it every case is run and compared, none is skipped.
//!
//! A run that dies by a signal gave no answer: clang-offload-bundler 22.1.8 dies by SIGSEGV in
//! `getConflictTargetIDCombination` on target IDs with a feature lacking `+`/`-` on some machines
//! and not on others. Such a case is reported and compared with the answer the bundler gave on a
//! machine where it did not crash, recorded in `tests/bundler-answers/` (rewrite them
//! with `OFFLOAD_RECORD_BUNDLER_ANSWERS=1 cargo test --test target_id` where the bundler runs
//! clean). `answers_hold_when_the_bundler_crashes` proves the fallback with a bundler that
//! crashes on exactly those IDs.

use offload::ids::{bundler_error, check_composition, compatible, compatible_with, find_entry, EntryId};
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const HOST: &str = "host-x86_64-unknown-linux-gnu";

fn bundler() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("OFFLOAD_BUNDLER").map(PathBuf::from).into_iter().collect();
    candidates.push("/usr/lib/llvm-22/bin/clang-offload-bundler".into());
    candidates.push("clang-offload-bundler-22".into());
    candidates.push("clang-offload-bundler".into());
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("version 22."))
    })
}

macro_rules! require_bundler {
    () => {
        match bundler() {
            Some(b) => b,
            None => {
                eprintln!("skipped: clang-offload-bundler 22 not found (set OFFLOAD_BUNDLER to its path)");
                return;
            }
        }
    };
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("offload-target-id-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The bundler's message without its `<program path>: error: ` prefix.
fn error_text(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    text.split_once(": error: ").map_or(text, |(_, message)| message).to_string()
}

/// Runs the bundler; `Err(signal)` when it died by a signal and so gave no answer.
fn run(cmd: &mut Command) -> Result<Output, i32> {
    let out = cmd.output().unwrap();
    match out.status.signal() {
        Some(signal) => Err(signal),
        None => Ok(out),
    }
}

/// A signal's number and name, for the report.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "",
    };
    format!("signal {signal} {name}").trim_end().to_string()
}

/// Where the answers recorded for one test live.
fn recorded_path(test: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bundler-answers").join(format!("{test}.txt"))
}

/// The answers recorded for one test: `case<TAB>answer` lines.
fn recorded(test: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(recorded_path(test)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(case, answer)| (case.to_string(), answer.to_string()))
        .collect()
}

/// The bundler's answers in one test: what it said for each case, falling back on the recorded
/// answer for a case where it died by a signal.
struct Answers {
    test: &'static str,
    recorded: BTreeMap<String, String>,
    given: BTreeMap<String, String>,
    crashed: Vec<String>,
}

impl Answers {
    fn new(test: &'static str) -> Answers {
        Answers { test, recorded: recorded(test), given: BTreeMap::new(), crashed: Vec::new() }
    }

    /// The bundler's answer for `case`, or the recorded one if it died by a signal.
    fn get(&mut self, case: &str, answer: Result<String, i32>) -> String {
        match answer {
            Ok(answer) => {
                self.given.insert(case.to_string(), answer.clone());
                answer
            }
            Err(signal) => {
                let recorded = self.recorded.get(case).unwrap_or_else(|| {
                    panic!(
                        "{}: clang-offload-bundler died by {} on {case} and no answer is recorded for it in {}",
                        self.test,
                        signal_name(signal),
                        recorded_path(self.test).display()
                    )
                });
                println!(
                    "{case}: clang-offload-bundler died by {}; compared with the recorded answer",
                    signal_name(signal)
                );
                self.crashed.push(case.to_string());
                recorded.clone()
            }
        }
    }

    /// With `OFFLOAD_RECORD_BUNDLER_ANSWERS` set and every case answered, writes them down.
    fn finish(self) -> Vec<String> {
        if std::env::var_os("OFFLOAD_RECORD_BUNDLER_ANSWERS").is_some() {
            assert!(self.crashed.is_empty(), "not recording: the bundler crashed on {:?}", self.crashed);
            let mut text = String::from(
                "# clang-offload-bundler 22's answers, recorded by tests/target_id.rs (see its doc comment)\n",
            );
            for (case, answer) in &self.given {
                text += &format!("{case}\t{answer}\n");
            }
            std::fs::create_dir_all(recorded_path(self.test).parent().unwrap()).unwrap();
            std::fs::write(recorded_path(self.test), text).unwrap();
        }
        self.crashed
    }
}

/// Bundles one small input per ID (`--type=bc`) and returns the IDs written in the header,
/// or the bundler's error message; `Err(signal)` if it died by a signal.
fn bundle(tool: &Path, ids: &[&str]) -> Result<Result<Vec<String>, String>, i32> {
    let dir = Scratch::new();
    let mut cmd = Command::new(tool);
    cmd.arg("--type=bc")
        .arg(format!("--targets={}", ids.join(",")))
        .arg(format!("--output={}", dir.path("out").display()));
    for (i, _) in ids.iter().enumerate() {
        let input = dir.path(&format!("in{i}"));
        std::fs::write(&input, format!("<{i}>")).unwrap();
        cmd.arg(format!("--input={}", input.display()));
    }
    let out = run(&mut cmd)?;
    if !out.status.success() {
        return Ok(Err(error_text(&out.stderr)));
    }
    Ok(Ok(header_ids(&std::fs::read(dir.path("out")).unwrap())))
}

/// A bundling answer as one line: `wrote <ids>` or `refused: <message>`.
fn bundle_answer(answer: &Result<Vec<String>, String>) -> String {
    match answer {
        Ok(ids) => format!("wrote {}", ids.join(",")),
        Err(message) => format!("refused: {message}"),
    }
}

fn header_ids(d: &[u8]) -> Vec<String> {
    let u64_at = |p: usize| u64::from_le_bytes(d[p..p + 8].try_into().unwrap()) as usize;
    assert_eq!(&d[..24], b"__CLANG_OFFLOAD_BUNDLE__");
    let mut p = 32;
    (0..u64_at(24))
        .map(|_| {
            let len = u64_at(p + 16);
            let id = String::from_utf8(d[p + 24..p + 24 + len].to_vec()).unwrap();
            p += 24 + len;
            id
        })
        .collect()
}

/// A binary bundle with one entry per ID, each holding `<id>`.
fn binary_bundle(ids: &[&str]) -> Vec<u8> {
    let header: usize = 32 + ids.iter().map(|i| 24 + i.len()).sum::<usize>();
    let mut out = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    out.extend((ids.len() as u64).to_le_bytes());
    let mut offset = header;
    for id in ids {
        let size = id.len() + 2;
        for v in [offset, size, id.len()] {
            out.extend((v as u64).to_le_bytes());
        }
        out.extend(id.as_bytes());
        offset += size;
    }
    for id in ids {
        out.extend(format!("<{id}>").as_bytes());
    }
    out
}

/// A `.ll` text bundle, entries in the order given.
fn text_bundle(ids: &[&str]) -> Vec<u8> {
    let mut s = String::from("; host text\n");
    for id in ids {
        s += &format!("\n; __CLANG_OFFLOAD_BUNDLE____START__ {id}\n<{id}>\n; __CLANG_OFFLOAD_BUNDLE____END__ {id}\n");
    }
    s.into_bytes()
}

/// Runs `--unbundle --allow-missing-bundles` for one request and returns the ID of the entry
/// whose contents were extracted, if any, as `extracted <id>` or `nothing`; `Err(signal)` if the
/// bundler died by a signal.
fn unbundle(
    tool: &Path,
    file_type: &str,
    bundle: &[u8],
    ids: &[&str],
    request: &str,
    extra: &[&str],
) -> Result<String, i32> {
    let dir = Scratch::new();
    let (input, output) = (dir.path("bundle"), dir.path("out"));
    std::fs::write(&input, bundle).unwrap();
    let out = run(Command::new(tool)
        .args([format!("--type={file_type}"), "--unbundle".into(), "--allow-missing-bundles".into()])
        .arg(format!("--input={}", input.display()))
        .arg(format!("--targets={request}"))
        .arg(format!("--output={}", output.display()))
        .args(extra))?;
    assert!(out.status.success(), "{request}: {}", error_text(&out.stderr));
    let got = std::fs::read(&output).unwrap();
    Ok(match ids.iter().find(|id| got == format!("<{id}>").as_bytes()) {
        Some(id) => format!("extracted {id}"),
        None => "nothing".to_string(),
    })
}

/// The entry an `unbundle` answer names.
fn extracted(answer: &str) -> Option<&str> {
    answer.strip_prefix("extracted ")
}

/// Entry ID spellings, each bundled alone (with a host entry where the bundler needs one).
const SPELLINGS: &[&str] = &[
    "host-x86_64-unknown-linux-gnu",
    "host-x86_64-unknown-linux-gnu-",
    "host-x86_64-pc-linux-gnu",
    "host-x86_64-linux-unknown-gnu",
    "host-x86_64-unknown-linux",
    "host-x86_64-linux-gnu",
    "host-linux-x86_64-unknown-gnu",
    "host-bar-unknown-linux-gnu",
    "host-x86_64-pc-win32-",
    "host-x86_64-w64-mingw32-",
    "host-x86_64-pc-cygwin-",
    "host-x86_64-pc-windows-elf",
    "host-i686-pc-windows-msvc",
    "host-aarch64-unknown-linux-android21",
    "host-armv7a-unknown-linux-androideabi21",
    "host-arm-suse-linux-gnueabi",
    "host-arm64-apple-darwin-",
    "host-aarch64-none-elf-",
    "host-x86_64---",
    "host-powerpc64le-unknown-linux-gnu",
    "host-armv8.2a-unknown-linux-gnu",
    "host-thumbv7em-none-eabi-",
    "host-dxil-unknown-shadermodel6.3-compute",
    "host-x86_64-unknown-linux-gnu-gfx906:xnack+",
    "host-x86_64-unknown-linux-gnu--sm_70",
    "hip-amdgcn-amd-amdhsa-gfx906",
    "hip-amdgcn-amd-amdhsa--gfx906",
    "hip-amdgcn-amd-amdhsa-unknown-gfx90a",
    "hip-amdgcn-amd-amdhsa-elf-gfx906",
    "hip-amdgcn-amd-amdhsa-gnu-gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-",
    "hip-amdgcn-amd-amdhsa--gfx906:xnack",
    "hip-amdgcn-amd-amdhsa--gfx906:",
    "hip-amdgcn-amd-amdhsa--gfx906::xnack+",
    "hip-amdgcn-amd-amdhsa--gfx906:foo+",
    "hip-amdgcn-amd-amdhsa--gfx940",
    "hip-amdgcn-amd-amdhsa--GFX906",
    "hip-amdgcn-amd-amdhsa--fiji",
    "hip-amdgcn-amd-amdhsa--:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx12-generic",
    "hip-amdgcn-amd-amdhsa--gfx1251",
    "hip-amdgcn-amd-amdhsa--sm_90a",
    "hip-amdgcn-amd-amdhsa-",
    "hip-amdgcn-amd-amdhsa",
    "hip-amdgcn-amd-amdpal--gfx906",
    "hip-amdgcn-amd--gfx906",
    "hip-amdgcn-amd-amdhsa5-gfx906",
    "hip-amdgcn-AMD-amdhsa--gfx906",
    "hip-AMDGCN-amd-amdhsa--gfx906",
    "HIP-amdgcn-amd-amdhsa--gfx906",
    "hip-spirv64-amd-amdhsa--amdgcnspirv",
    "hip----",
    "openmp-amdgcn-amd-amdhsa--gfx906",
    "openmp-amdgcn-amd-amdhsa-gfx906",
    "openmp-amdgcn-amdhsa-gfx906:sramecc+:xnack+",
    "openmp-nvptx64-nvidia-cuda-sm_70",
    "openmp-nvptx64-nvidia-cuda--sm_70",
    "openmp-nvptx64-nvidia-cuda--sm_120f",
    "openmp-x86_64-pc-linux-gnu-foo-bar",
    "openmp-x86_64-pc-linux-gnu-sm_70",
    "cuda-nvptx64-nvidia-cuda--sm_70",
    "sycl-spir64-unknown-unknown-",
    "-amdgcn-amd-amdhsa--gfx906",
];

fn with_host(id: &str) -> Vec<&str> {
    let alone = id.starts_with("host-") || id.starts_with("hip-") || id.starts_with("hipv4-");
    if alone {
        vec![id]
    } else {
        vec![HOST, id]
    }
}

#[test]
fn standardized_ids_and_refusals_match_the_bundler() {
    let tool = require_bundler!();
    check_spellings(&tool);
}

/// Each spelling bundled: the IDs written are our standardized IDs, a refusal is our message.
/// Returns the cases where the bundler crashed.
fn check_spellings(tool: &Path) -> Vec<String> {
    let mut answers = Answers::new("spellings");
    let (mut accepted, mut refused) = (0, 0);
    for spelling in SPELLINGS {
        let ids = with_host(spelling);
        let ours = bundler_error(&ids);
        let theirs = answers.get(spelling, bundle(tool, &ids).map(|a| bundle_answer(&a)));
        match theirs.strip_prefix("refused: ") {
            Some(message) => {
                refused += 1;
                assert_eq!(ours.as_deref(), Some(message), "{spelling}");
            }
            None => {
                accepted += 1;
                assert_eq!(ours, None, "{spelling}: the bundler accepted it");
                let standardized: Vec<String> = ids.iter().map(|i| EntryId::parse(i).unwrap().standardized()).collect();
                assert_eq!(format!("wrote {}", standardized.join(",")), theirs, "{spelling}");
            }
        }
        println!("{spelling:48} -> {theirs}");
    }
    assert!(accepted >= 40 && refused >= 8, "{accepted} accepted, {refused} refused");
    answers.finish()
}

/// Target lists whose composition the bundler checks.
const COMPOSITIONS: &[&[&str]] = &[
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:sramecc+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack-:sramecc-", "hip-amdgcn-amd-amdhsa--gfx906:sramecc+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc+", "hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx908:xnack+"],
    &[
        "hip-amdgcn-amd-amdhsa--gfx908",
        "hip-amdgcn-amd-amdhsa--gfx906:xnack+",
        "hip-amdgcn-amd-amdhsa--gfx906:sramecc+",
        "hip-amdgcn-amd-amdhsa--gfx908:xnack-",
    ],
    &["hip-amdgcn-amd-amdhsa--gfx906:foo+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack", "hip-amdgcn-amd-amdhsa--gfx906"],
    &["hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:zzz"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:xnack+:zz"],
    &["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:+"],
    &["hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa--foo"],
    &[HOST, "openmp-amdgcn-amd-amdhsa--gfx906", "openmp-amdgcn-amd-amdhsa--gfx906:xnack+"],
    &[
        HOST,
        "openmp-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+",
        "openmp-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
        "openmp-nvptx64-nvidia-cuda--sm_70",
    ],
    &[HOST, HOST, "foo-x-y-z-w"],
    &["foo-x-y-z-w", HOST, HOST],
    &[HOST, "host-x86_64-unknown-linux-gnu-"],
    &["hip-amdgcn-amd-amdhsa--gfx906", HOST],
    &["openmp-amdgcn-amd-amdhsa--gfx906"],
];

#[test]
fn composition_checks_match_the_bundler() {
    let tool = require_bundler!();
    check_compositions(&tool);
}

/// Each target list bundled: refused exactly when we refuse it, with our message.
fn check_compositions(tool: &Path) -> Vec<String> {
    let mut answers = Answers::new("compositions");
    let mut refused = 0;
    for ids in COMPOSITIONS {
        let theirs = answers.get(&ids.join(","), bundle(tool, ids).map(|a| bundle_answer(&a)));
        let theirs = theirs.strip_prefix("refused: ").map(str::to_string);
        refused += usize::from(theirs.is_some());
        assert_eq!(bundler_error(ids), theirs, "{ids:?}");
        let violations = check_composition(ids);
        assert_eq!(violations.iter().any(|v| v.rejected_by_bundler), theirs.is_some(), "{ids:?}: {violations:?}");
    }
    assert!(refused >= 8 && refused < COMPOSITIONS.len(), "{refused} refused");
    answers.finish()
}

/// (bundle entry, request): does `--unbundle` extract the entry?
const PAIRS: &[(&str, &str)] = &[
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"),
    ("hip-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
    ("hip-amdgcn-amd-amdhsa-unknown-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
    ("hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-gfx90a"),
    ("hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx908"),
    ("hip-amdgcn-amd-amdhsa--", "hipv4-amdgcn-amd-amdhsa--"),
    ("hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa--"),
    ("openmp-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
    ("hip-amdgcn-amd-amdhsa--gfx90a:foo+", "hip-amdgcn-amd-amdhsa--gfx90a:foo+"),
    ("hip-amdgcn-amd-amdhsa--gfx90a:foo+", "hipv4-amdgcn-amd-amdhsa--gfx90a:foo+"),
    ("hip-amdgcn-amd-amdhsa--gfx803", "hipv4-amdgcn-amd-amdhsa--gfx803:xnack+"),
    ("hip-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1030"),
    ("hip-amdgcn-amd-amdhsa--gfx9-generic", "hipv4-amdgcn-amd-amdhsa--gfx9-generic:xnack-"),
    ("hip-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack+:xnack+"),
    ("openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70"),
    ("openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda--sm_80"),
    ("hip-nvptx64-nvidia-cuda--sm_70", "hipv4-nvptx64-nvidia-cuda--sm_70"),
    ("openmp-nvptx64-nvidia-cuda--sm_70:foo+", "openmp-nvptx64-nvidia-cuda--sm_70:foo+"),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu"),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-pc-linux-gnu"),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu5"),
];

#[test]
fn compatibility_matches_unbundle() {
    let tool = require_bundler!();
    check_compatibility(&tool);
}

/// Each (entry, request) pair unbundled: extracted exactly when we call them compatible.
fn check_compatibility(tool: &Path) -> Vec<String> {
    let mut answers = Answers::new("compatibility");
    let mut found = 0;
    for &(have, want) in PAIRS {
        let case = format!("{have} for {want}");
        let theirs = answers.get(&case, unbundle(tool, "bc", &binary_bundle(&[have]), &[have], want, &[]));
        let theirs = extracted(&theirs).is_some();
        let ours = compatible(&EntryId::parse(have).unwrap(), &EntryId::parse(want).unwrap());
        assert_eq!(ours, theirs, "entry {have}, request {want}");
        found += usize::from(theirs);
        println!("{have:48} for {want:48}: {}", if theirs { "extracted" } else { "not found" });
    }
    assert!(found >= 10 && found < PAIRS.len(), "{found} found");
    answers.finish()
}

#[test]
fn hip_openmp_option_matches_unbundle() {
    let tool = require_bundler!();
    check_hip_openmp_option(&tool);
}

fn check_hip_openmp_option(tool: &Path) -> Vec<String> {
    let mut answers = Answers::new("hip-openmp-compatible");
    for (have, want) in [
        ("openmp-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", "openmp-amdgcn-amd-amdhsa--gfx90a"),
    ] {
        let case = format!("{have} for {want}");
        let bundle = binary_bundle(&[have]);
        let theirs = answers.get(&case, unbundle(tool, "bc", &bundle, &[have], want, &["--hip-openmp-compatible"]));
        assert_eq!(extracted(&theirs), Some(have), "{have} for {want}");
        assert!(compatible_with(&EntryId::parse(have).unwrap(), &EntryId::parse(want).unwrap(), true));
    }
    answers.finish()
}

/// With several compatible entries the bundler takes the first compatible one it reads: file
/// order in a text bundle. `find_entry` differs on purpose in one case: an entry with exactly
/// the requested (standardized) ID wins wherever it is.
#[test]
fn first_compatible_entry_wins_in_text_bundles() {
    let tool = require_bundler!();
    check_first_compatible_entry(&tool);
}

fn check_first_compatible_entry(tool: &Path) -> Vec<String> {
    let mut answers = Answers::new("first-compatible");
    let plain = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    let xnack = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
    let requests =
        [xnack, plain, "hip-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"];
    let mut differs = 0;
    for order in [[xnack, plain], [plain, xnack]] {
        for request in requests {
            let case = format!("{} for {request}", order.join(","));
            let theirs = answers.get(&case, unbundle(tool, "ll", &text_bundle(&order), &order, request, &[]));
            let theirs = extracted(&theirs);
            let requested = EntryId::parse(request).unwrap();
            let first = order.iter().copied().find(|e| compatible(&EntryId::parse(e).unwrap(), &requested));
            assert_eq!(first, theirs, "entries {order:?}, request {request}");
            let exact = order.iter().copied().find(|e| *e == requested.standardized());
            let ours = find_entry(&order, &requested, false);
            assert_eq!(ours, exact.or(first), "entries {order:?}, request {request}");
            differs += usize::from(ours != first);
        }
    }
    assert_eq!(differs, 1, "find_entry departs from the bundler only for [gfx90a, gfx90a:xnack+] asked for xnack+");
    answers.finish()
}

/// A clang-offload-bundler that dies by SIGSEGV, as 22.1.8 does on some machines, whenever a
/// target ID in `--targets` has a feature without `+`/`-`; otherwise it runs the real one.
const CRASHING_BUNDLER: &str = r#"#!/bin/sh
for arg in "$@"; do
  case "$arg" in
    --targets=*|-targets=*)
      if printf '%s\n' "${arg#*=}" | tr ',' '\n' |
         awk -F: '{ for (i = 2; i <= NF; i++) if ($i !~ /[+-]$/) bad = 1 } END { exit !bad }'; then
        kill -SEGV $$
      fi ;;
  esac
done
exec '@REAL@' "$@"
"#;

/// Every check above holds against a bundler that crashes: the crashed cases are named and
/// compared with the recorded answers, never taken as refusals.
#[test]
fn answers_hold_when_the_bundler_crashes() {
    let tool = require_bundler!();
    if std::env::var_os("OFFLOAD_RECORD_BUNDLER_ANSWERS").is_some() {
        return;
    }
    let dir = Scratch::new();
    let crashing = dir.path("clang-offload-bundler");
    std::fs::write(&crashing, CRASHING_BUNDLER.replace("@REAL@", &tool.display().to_string())).unwrap();
    std::fs::set_permissions(&crashing, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let crashed = [
        check_spellings(&crashing),
        check_compositions(&crashing),
        check_compatibility(&crashing),
        check_hip_openmp_option(&crashing),
        check_first_compatible_entry(&crashing),
    ]
    .concat();
    assert!(crashed.iter().any(|c| c == "hip-amdgcn-amd-amdhsa--gfx906:xnack"), "crashed on {crashed:?}");
    assert!(crashed.len() >= 5, "crashed on {crashed:?}");
}
