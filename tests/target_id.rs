//! Entry IDs against clang-offload-bundler 22: what it writes for each spelling, which it
//! refuses and with what message, and which entry `--unbundle` picks for a request.
//!
//! The tool is found through `OFFLOAD_BUNDLER`, then the usual install paths. Without it the
//! tests print why and pass; with it every case is run and compared, none is skipped.

use offload::target_id::{bundler_error, check_composition, compatible, compatible_with, find_entry, EntryId};
use std::path::{Path, PathBuf};
use std::process::Command;
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

fn error_text(tool: &Path, stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let prefix = format!("{}: error: ", tool.display());
    text.trim().trim_start_matches(prefix.as_str()).to_string()
}

/// Bundles one small input per ID (`--type=bc`) and returns the IDs written in the header,
/// or the bundler's error message.
fn bundle(tool: &Path, ids: &[&str]) -> Result<Vec<String>, String> {
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
    let out = cmd.output().unwrap();
    if !out.status.success() {
        return Err(error_text(tool, &out.stderr));
    }
    Ok(header_ids(&std::fs::read(dir.path("out")).unwrap()))
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
/// whose contents were extracted, if any.
fn unbundle(
    tool: &Path,
    file_type: &str,
    bundle: &[u8],
    ids: &[&str],
    request: &str,
    extra: &[&str],
) -> Option<String> {
    let dir = Scratch::new();
    let (input, output) = (dir.path("bundle"), dir.path("out"));
    std::fs::write(&input, bundle).unwrap();
    let out = Command::new(tool)
        .args([format!("--type={file_type}"), "--unbundle".into(), "--allow-missing-bundles".into()])
        .arg(format!("--input={}", input.display()))
        .arg(format!("--targets={request}"))
        .arg(format!("--output={}", output.display()))
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{request}: {}", error_text(tool, &out.stderr));
    let got = std::fs::read(&output).unwrap();
    ids.iter().find(|id| got == format!("<{id}>").as_bytes()).map(|id| id.to_string())
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
    let (mut accepted, mut refused) = (0, 0);
    for spelling in SPELLINGS {
        let ids = with_host(spelling);
        let ours = bundler_error(&ids);
        match bundle(&tool, &ids) {
            Ok(written) => {
                accepted += 1;
                assert_eq!(ours, None, "{spelling}: the bundler accepted it");
                let standardized: Vec<String> = ids.iter().map(|i| EntryId::parse(i).unwrap().standardized()).collect();
                assert_eq!(standardized, written, "{spelling}");
                println!("{spelling:48} -> {}", written.last().unwrap());
            }
            Err(message) => {
                refused += 1;
                assert_eq!(ours.as_deref(), Some(message.as_str()), "{spelling}");
                println!("{spelling:48} refused: {message}");
            }
        }
    }
    assert!(accepted >= 40 && refused >= 8, "{accepted} accepted, {refused} refused");
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
    let mut refused = 0;
    for ids in COMPOSITIONS {
        let theirs = bundle(&tool, ids).err();
        refused += usize::from(theirs.is_some());
        assert_eq!(bundler_error(ids), theirs, "{ids:?}");
        let violations = check_composition(ids);
        assert_eq!(violations.iter().any(|v| v.rejected_by_bundler), theirs.is_some(), "{ids:?}: {violations:?}");
    }
    assert!(refused >= 8 && refused < COMPOSITIONS.len(), "{refused} refused");
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
    let mut found = 0;
    for &(have, want) in PAIRS {
        let theirs = unbundle(&tool, "bc", &binary_bundle(&[have]), &[have], want, &[]).is_some();
        let ours = compatible(&EntryId::parse(have).unwrap(), &EntryId::parse(want).unwrap());
        assert_eq!(ours, theirs, "entry {have}, request {want}");
        found += usize::from(theirs);
        println!("{have:48} for {want:48}: {}", if theirs { "extracted" } else { "not found" });
    }
    assert!(found >= 10 && found < PAIRS.len(), "{found} found");
}

#[test]
fn hip_openmp_option_matches_unbundle() {
    let tool = require_bundler!();
    for (have, want) in [
        ("openmp-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", "openmp-amdgcn-amd-amdhsa--gfx90a"),
    ] {
        let theirs =
            unbundle(&tool, "bc", &binary_bundle(&[have]), &[have], want, &["--hip-openmp-compatible"]).is_some();
        assert!(theirs, "{have} for {want}");
        assert!(compatible_with(&EntryId::parse(have).unwrap(), &EntryId::parse(want).unwrap(), true));
    }
}

/// With several compatible entries the bundler takes the first compatible one it reads: file
/// order in a text bundle. `find_entry` differs on purpose in one case: an entry with exactly
/// the requested (standardized) ID wins wherever it is.
#[test]
fn first_compatible_entry_wins_in_text_bundles() {
    let tool = require_bundler!();
    let plain = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    let xnack = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
    let requests = [xnack, plain, "hip-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"];
    let mut differs = 0;
    for order in [[xnack, plain], [plain, xnack]] {
        for request in requests {
            let theirs = unbundle(&tool, "ll", &text_bundle(&order), &order, request, &[]);
            let requested = EntryId::parse(request).unwrap();
            let first = order.iter().copied().find(|e| compatible(&EntryId::parse(e).unwrap(), &requested));
            assert_eq!(first, theirs.as_deref(), "entries {order:?}, request {request}");
            let exact = order.iter().copied().find(|e| *e == requested.standardized());
            let ours = find_entry(&order, &requested, false);
            assert_eq!(ours, exact.or(first), "entries {order:?}, request {request}");
            differs += usize::from(ours != first);
        }
    }
    assert_eq!(differs, 1, "find_entry departs from the bundler only for [gfx90a, gfx90a:xnack+] asked for xnack+");
}
