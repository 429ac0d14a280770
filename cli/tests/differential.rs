//! Differential suite: seeded random cases built by both our CLI and the LLVM 22 tools, compared.
//!
//! Every run prints its seed; replay a failure with `OFFLOAD_DIFF_SEED=<seed>`. The number of
//! cases is `OFFLOAD_DIFF_CASES` (default 240). When the LLVM tools are not installed the suite
//! says so and fails, unless `OFFLOAD_DIFF_ALLOW_SKIP=1`: `make test` installs them.

mod support;

use offload::ids::{self, EntryId};
use std::path::{Path, PathBuf};
use support::common::{clock_seed, seed};
use support::{exec, llvm_bin, ours, Out, XorShift};

const HOSTS: &[&str] = &["host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-", "host-x86_64-pc-linux-gnu"];
const DEVICES: &[&str] = &[
    "hipv4-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-",
    "hip-amdgcn-amd-amdhsa--gfx1030",
    "hip-amdgcn-amd-amdhsa-gfx908",
    "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-",
    "hipv4-amdgcn-amd-amdhsa--gfx1100",
    "openmp-amdgcn-amd-amdhsa--gfx90a",
    "openmp-nvptx64-nvidia-cuda--sm_70",
    "openmp-x86_64-unknown-linux-gnu",
    "hipv4-amdgcn-amd-amdhsa--gfx90a",
    "hipv4-spirv64-amd-amdhsa--amdgcnspirv",
];
const TEXT_TYPES: &[&str] = &["i", "ii", "cui", "hipi", "d", "ll", "s"];
const BINARY_TYPES: &[&str] = &["bc", "o", "gch", "ast"];
const ALIGNS: &[u64] = &[1, 1, 2, 8, 16, 64, 4096, 3, 100];

fn random_content(rng: &mut XorShift, text: bool) -> Vec<u8> {
    let len = match rng.below(4) {
        0 => 0,
        1 => rng.below(16),
        2 => rng.below(2000),
        _ => rng.below(70_000),
    };
    if text {
        let words = ["define", "void", "@kernel", "ret", "%x", "=", "add", "i32", "\n", "; note", "#include", "//"];
        let mut s = String::new();
        while s.len() < len {
            let word: &str = rng.pick::<&str>(&words);
            s.push_str(word);
            s.push(' ');
        }
        s.into_bytes()
    } else {
        rng.bytes(len)
    }
}

/// The targets of one case: usually one host and distinct devices, sometimes a rule breaker.
fn random_targets(rng: &mut XorShift) -> Vec<String> {
    let mut targets = Vec::new();
    if rng.chance(85) {
        targets.push(rng.pick(HOSTS).to_string());
    }
    let devices = 1 + rng.below(4);
    for _ in 0..devices {
        let d = rng.pick(DEVICES).to_string();
        if !targets.contains(&d) || rng.chance(5) {
            targets.push(d);
        }
    }
    if rng.chance(30) {
        let i = rng.below(targets.len());
        let j = rng.below(targets.len());
        targets.swap(i, j);
    }
    targets
}

/// Whether the reference tool died by a signal; if so, says so for `what` (clang-offload-bundler
/// 22.1.8 dies by SIGSEGV on some machines on inputs it handles on others).
fn crashed(run: &Out, case: &Case, what: &str) -> bool {
    if let Some(signal) = run.signal {
        println!(
            "differential case {}: {what}: the reference tool died by signal {signal}, no answer to compare",
            case.n
        );
    }
    run.signal.is_some()
}

fn run(tool: &Path, args: &[String], env: &[(&str, &str)]) -> Out {
    exec(tool, args, env, None)
}

/// The bytes a tool wrote; none when it wrote nothing.
fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_default()
}

struct Case<'a> {
    dir: &'a Path,
    n: usize,
    seed: u32,
}

impl Case<'_> {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("c{}-{name}", self.n))
    }
    fn fail(&self, what: &str) -> ! {
        panic!("differential case {} failed (replay with OFFLOAD_DIFF_SEED={}): {what}", self.n, self.seed)
    }
}

/// One bundling case: both tools bundle the same inputs; the outputs must be byte-identical (or
/// both tools must refuse); then both unbundle every target and must agree.
fn bundle_case(rng: &mut XorShift, case: &Case, bundler: &Path) -> &'static str {
    let text = rng.chance(40);
    let file_type = if text { *rng.pick(TEXT_TYPES) } else { *rng.pick(BINARY_TYPES) };
    let targets = random_targets(rng);
    let mut common = vec![format!("--type={file_type}"), format!("--targets={}", targets.join(","))];
    for (i, _) in targets.iter().enumerate() {
        let p = case.path(&format!("in{i}"));
        std::fs::write(&p, random_content(rng, text)).unwrap();
        common.push(format!("--input={}", p.display()));
    }
    if !text && rng.chance(50) {
        common.push(format!("--bundle-align={}", rng.pick(ALIGNS)));
    }
    let theirs_out = case.path("theirs");
    let ours_out = case.path("ours");
    let mut a = common.clone();
    a.push(format!("--output={}", theirs_out.display()));
    let t = run(bundler, &a, &[]);
    if crashed(&t, case, &format!("bundling {targets:?} as {file_type}")) {
        return "no answer: clang-offload-bundler died by a signal";
    }
    let mut b = vec!["bundle".to_string()];
    b.extend(common.iter().cloned());
    b.push(format!("--output={}", ours_out.display()));
    let o = run(ours(), &b, &[]);
    if t.ok() != o.ok() {
        case.fail(&format!(
            "bundling {targets:?} as {file_type}: clang-offload-bundler ok={} ({}), offload ok={} ({})",
            t.ok(),
            t.stderr.trim(),
            o.ok(),
            o.stderr.trim()
        ));
    }
    if !t.ok() {
        return "bundle refused by both";
    }
    if read(&theirs_out) != read(&ours_out) {
        case.fail(&format!(
            "bundling {targets:?} as {file_type}: outputs differ ({} vs {} bytes)",
            read(&theirs_out).len(),
            read(&ours_out).len()
        ));
    }
    let contents: Vec<Vec<u8>> = (0..targets.len()).map(|i| read(&case.path(&format!("in{i}")))).collect();
    unbundle_both(rng, case, bundler, &ours_out, file_type, &targets, &contents);
    "bundle byte-identical"
}

/// The indices of the entries of a bundle made from `targets` that can serve `requested`.
fn compatible_entries(targets: &[String], requested: &str) -> Vec<usize> {
    let Ok(req) = EntryId::parse(requested) else { return Vec::new() };
    targets
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            EntryId::parse(t).is_ok_and(|e| ids::compatible(&EntryId::parse(&e.standardized()).unwrap_or(e), &req))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Both tools unbundle every target of `bundle`; the extracted bytes must be equal. Where
/// several entries can serve a request, clang-offload-bundler picks one in hash order, so its
/// pick must only be one of them.
fn unbundle_both(
    rng: &mut XorShift,
    case: &Case,
    bundler: &Path,
    bundle: &Path,
    file_type: &str,
    targets: &[String],
    contents: &[Vec<u8>],
) {
    let mut wanted: Vec<String> = targets.to_vec();
    if rng.chance(30) {
        wanted.push("hipv4-amdgcn-amd-amdhsa--gfx1201".into());
    }
    for (i, t) in wanted.iter().enumerate() {
        let theirs = case.path(&format!("u{i}-theirs"));
        let ours_p = case.path(&format!("u{i}-ours"));
        let args = |out: &Path| {
            vec![
                format!("--type={file_type}"),
                format!("--targets={t}"),
                format!("--input={}", bundle.display()),
                format!("--output={}", out.display()),
                "--unbundle".to_string(),
                "--allow-missing-bundles".to_string(),
            ]
        };
        let r1 = run(bundler, &args(&theirs), &[]);
        if crashed(&r1, case, &format!("unbundling {t} from {targets:?}")) {
            continue;
        }
        let mut ob = vec!["unbundle".to_string()];
        ob.extend(args(&ours_p));
        let r2 = run(ours(), &ob, &[]);
        let candidates = compatible_entries(targets, t);
        if candidates.len() > 1 && r1.ok() && r2.ok() {
            let theirs_one_of = candidates.iter().any(|&c| contents[c] == read(&theirs));
            let ours_one_of = candidates.iter().any(|&c| contents[c] == read(&ours_p));
            if !theirs_one_of || !ours_one_of {
                case.fail(&format!(
                    "unbundling {t} (served by several entries) from {targets:?}: a result is none of them"
                ));
            }
            continue;
        }
        if r1.ok() != r2.ok() || read(&theirs) != read(&ours_p) {
            case.fail(&format!(
                "unbundling {t} from {targets:?} ({file_type}): clang ok={} {} bytes ({}), offload ok={} {} bytes ({})",
                r1.ok(),
                read(&theirs).len(),
                r1.stderr.trim(),
                r2.ok(),
                read(&ours_p).len(),
                r2.stderr.trim()
            ));
        }
    }
}

/// We compress; clang-offload-bundler must list and unbundle our output to the original bytes.
fn compressed_case(rng: &mut XorShift, case: &Case, bundler: &Path) -> &'static str {
    let file_type = *rng.pick(&["bc", "o", "ll", "s"]);
    let text = file_type == "ll" || file_type == "s";
    let mut targets = vec![HOSTS[0].to_string()];
    for d in [
        "hipv4-amdgcn-amd-amdhsa--gfx906",
        "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
        "hipv4-amdgcn-amd-amdhsa--gfx1100",
    ] {
        if rng.chance(70) {
            targets.push(d.into());
        }
    }
    let mut args =
        vec!["bundle".to_string(), format!("--type={file_type}"), format!("--targets={}", targets.join(","))];
    let mut contents = Vec::new();
    for i in 0..targets.len() {
        let p = case.path(&format!("cin{i}"));
        let c = random_content(rng, text);
        std::fs::write(&p, &c).unwrap();
        contents.push(c);
        args.push(format!("--input={}", p.display()));
    }
    let method = *rng.pick(&["zstd", "zlib"]);
    let version = *rng.pick(&["2", "3"]);
    let out = case.path("compressed");
    args.extend([
        "--compress".to_string(),
        format!("--compression-method={method}"),
        format!("--output={}", out.display()),
    ]);
    if rng.chance(50) {
        args.push(format!("--compression-level={}", if method == "zstd" { 1 + rng.below(19) } else { rng.below(10) }));
    }
    let r = run(ours(), &args, &[("COMPRESSED_BUNDLE_FORMAT_VERSION", version)]);
    if !r.ok() {
        case.fail(&format!("offload bundle --compress failed: {}", r.stderr));
    }
    let listed =
        run(bundler, &[format!("--type={file_type}"), format!("--input={}", out.display()), "--list".into()], &[]);
    let mut ids: Vec<String> = listed.stdout.lines().map(String::from).collect();
    ids.sort();
    let mut expected: Vec<String> =
        targets.iter().map(|t| if t.starts_with("host-") { format!("{t}-") } else { t.clone() }).collect();
    expected.sort();
    if !listed.ok() || ids != expected {
        case.fail(&format!(
            "clang-offload-bundler --list of our {method} v{version} bundle: {ids:?}, expected {expected:?} ({})",
            listed.stderr
        ));
    }
    for (i, t) in targets.iter().enumerate() {
        let p = case.path(&format!("cout{i}"));
        let r = run(
            bundler,
            &[
                format!("--type={file_type}"),
                format!("--targets={t}"),
                format!("--input={}", out.display()),
                format!("--output={}", p.display()),
                "--unbundle".into(),
            ],
            &[],
        );
        if crashed(&r, case, &format!("unbundling {t} from our {method} v{version} bundle")) {
            continue;
        }
        if !r.ok() || read(&p) != contents[i] {
            case.fail(&format!(
                "clang-offload-bundler unbundled {t} from our {method} v{version} bundle wrongly: ok={} ({})",
                r.ok(),
                r.stderr.trim()
            ));
        }
    }
    "compressed accepted by clang"
}

/// Both tools package the same images; the offload binaries must be byte-identical.
fn package_case(rng: &mut XorShift, case: &Case, packager: &Path) -> &'static str {
    let images = 1 + rng.below(3);
    let mut args = Vec::new();
    let exts = ["o", "bc", "cubin", "fatbin", "s", "spv", "bin"];
    for i in 0..images {
        let p = case.path(&format!("img{i}.{}", rng.pick(&exts)));
        std::fs::write(&p, random_content(rng, false)).unwrap();
        let triple =
            *rng.pick(&["amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "spirv64-intel", "x86_64-unknown-linux-gnu"]);
        let arch = *rng.pick(&["gfx90a", "gfx90a:xnack+", "sm_80", "generic", ""]);
        let mut spec = format!("file={},triple={triple}", p.display());
        if !arch.is_empty() {
            spec.push_str(&format!(",arch={arch}"));
        }
        if rng.chance(70) {
            spec.push_str(&format!(",kind={}", rng.pick(&["openmp", "cuda", "hip", "sycl"])));
        }
        for k in 0..rng.below(4) {
            let key = *rng.pick(&["feature", "a", "ab", "cab", "version", "x"]);
            spec.push_str(&format!(",{key}{k}=v{}", rng.below(1000)));
        }
        args.push(format!("--image={spec}"));
    }
    let theirs = case.path("pkg-theirs");
    let ours_p = case.path("pkg-ours");
    let mut a = args.clone();
    a.extend(["-o".to_string(), theirs.display().to_string()]);
    let t = run(packager, &a, &[]);
    if crashed(&t, case, &format!("packaging {args:?}")) {
        return "no answer: llvm-offload-binary died by a signal";
    }
    let mut b = vec!["package".to_string(), "-o".to_string(), ours_p.display().to_string()];
    b.extend(args.iter().cloned());
    let o = run(ours(), &b, &[]);
    if t.ok() != o.ok() || read(&theirs) != read(&ours_p) {
        case.fail(&format!(
            "packaging {args:?}: llvm-offload-binary ok={} {} bytes ({}), offload ok={} {} bytes ({})",
            t.ok(),
            read(&theirs).len(),
            t.stderr.trim(),
            o.ok(),
            read(&ours_p).len(),
            o.stderr.trim()
        ));
    }
    "package byte-identical"
}

#[test]
fn differential_against_llvm_22() {
    let bin = llvm_bin();
    let bundler = bin.join("clang-offload-bundler");
    let packager = bin.join("llvm-offload-binary");
    if !bundler.exists() || !packager.exists() {
        if std::env::var("OFFLOAD_DIFF_ALLOW_SKIP").as_deref() == Ok("1") {
            eprintln!("differential suite skipped: {} not installed", bundler.display());
            return;
        }
        panic!("differential suite needs {} and {} (run `make deps`)", bundler.display(), packager.display());
    }
    let seed = seed("OFFLOAD_DIFF_SEED", clock_seed());
    let cases: usize = std::env::var("OFFLOAD_DIFF_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(240);
    println!("differential suite: seed {seed}, {cases} cases (replay with OFFLOAD_DIFF_SEED={seed})");
    let dir = std::env::temp_dir().join(format!("offload-diff-{seed}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = XorShift(seed);
    let mut tally: std::collections::BTreeMap<&str, usize> = Default::default();
    for n in 0..cases {
        let case = Case { dir: &dir, n, seed };
        let outcome = match rng.below(10) {
            0..=4 => bundle_case(&mut rng, &case, &bundler),
            5..=6 => compressed_case(&mut rng, &case, &bundler),
            _ => package_case(&mut rng, &case, &packager),
        };
        *tally.entry(outcome).or_default() += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("differential suite: {cases} cases passed: {tally:?}");
    assert_eq!(tally.values().sum::<usize>(), cases);
}
