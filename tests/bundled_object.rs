//! Bundled objects (`clang-offload-bundler --type=o` with an ELF host object) written and taken
//! apart by the core, against clang-offload-bundler 22 on host objects built in the test run by
//! clang-22 (several targets, both byte orders, both classes, C++ with COMDAT groups, debug
//! information) and by the system `cc`. Tests that need a tool say so and return when it is
//! missing.

mod common;
use common::{tool, Scratch};
use offload::format::bundle::object::{self as bundled_object, EntryData};
use offload::ids::EntryId;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

const SUITE: &str = "bundled_object";

const TARGETS: [&str; 4] = [
    "host-x86_64-unknown-linux-gnu",
    "hipv4-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "openmp-amdgcn-amd-amdhsa--gfx1030",
];

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// `cc`, when installed.
fn system_cc(test: &str) -> Option<PathBuf> {
    let ok = Command::new("cc").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        println!("skipping {test}: the system `cc` is not installed");
    }
    ok.then(|| PathBuf::from("cc"))
}

const PLAIN_C: &str = "int host_fn(int x) { return x * 2; }\n";

/// C++ with what makes objects interesting to rewrite: COMDAT groups (inline functions and
/// templates), .bss, TLS, constructors, string literals, and (with -g) debug sections full of
/// relocations.
const RICH_CXX: &str = r#"
template <typename T> T twice(T x) { return x + x; }
inline int shared_counter() { static int n; return ++n; }
static int zeroed[64];
thread_local int per_thread = 3;
struct Init { Init() { zeroed[1] = twice(21); } } init;
extern "C" const char *greeting() { return "hello from the host"; }
extern "C" int host_fn(int x) { return twice(x) + shared_counter() + zeroed[x & 63] + per_thread; }
double host_fd(double d) { return twice(d); }
"#;

/// Host objects made by clang for several targets and by the system compiler.
fn host_objects(s: &Scratch, clang: &Path, test: &str) -> Vec<(String, PathBuf)> {
    std::fs::write(s.path("plain.c"), PLAIN_C).unwrap();
    std::fs::write(s.path("rich.cc"), RICH_CXX).unwrap();
    let mut out = Vec::new();
    let builds: [(&str, &[&str]); 8] = [
        ("x86_64_plain", &["--target=x86_64-unknown-linux-gnu", "-O2", "-c", "plain.c"]),
        (
            "x86_64_rich_g",
            &[
                "--target=x86_64-unknown-linux-gnu",
                "-O1",
                "-g",
                "-ffunction-sections",
                "-fdata-sections",
                "-c",
                "rich.cc",
            ],
        ),
        ("i386_rich", &["--target=i386-unknown-linux-gnu", "-O2", "-c", "rich.cc"]),
        ("ppc64_be_rich", &["--target=powerpc64-unknown-linux-gnu", "-O2", "-c", "rich.cc"]),
        ("mips_be_plain", &["--target=mips-unknown-linux-gnu", "-O2", "-c", "plain.c"]),
        ("mips64el_rich", &["--target=mips64el-unknown-linux-gnuabi64", "-O2", "-c", "rich.cc"]),
        ("aarch64_rich_g", &["--target=aarch64-unknown-linux-gnu", "-O2", "-g", "-c", "rich.cc"]),
        ("riscv64_rich", &["--target=riscv64-unknown-linux-gnu", "-O2", "-c", "rich.cc"]),
    ];
    for (name, args) in builds {
        let obj = s.path(&format!("{name}.o"));
        run_ok(Command::new(clang).current_dir(s.dir()).args(args).arg("-o").arg(&obj));
        out.push((name.to_string(), obj));
    }
    if let Some(cc) = system_cc(test) {
        let obj = s.path("gcc_plain_g.o");
        run_ok(Command::new(cc).current_dir(s.dir()).args(["-O2", "-g", "-c", "plain.c", "-o"]).arg(&obj));
        out.push(("gcc_plain_g".into(), obj));
    }
    out
}

/// Device inputs of different sizes, one of them empty.
fn device_inputs(s: &Scratch) -> Vec<PathBuf> {
    let mut noise = common::XorShift(0x2545_f491);
    vec![
        s.write("dev_gfx906.bin", &noise.bytes(4097)),
        s.write("dev_gfx90a.bin", &noise.bytes(3)),
        s.write("dev_gfx1030.bin", &[]),
    ]
}

fn standardized() -> Vec<String> {
    TARGETS.iter().map(|t| EntryId::parse(t).unwrap().standardized()).collect()
}

fn bundle_with_clang(bundler: &Path, host: &Path, devices: &[PathBuf], out: &Path, extra: &[&str]) -> Vec<u8> {
    let mut cmd = Command::new(bundler);
    cmd.arg("--type=o").arg(format!("--targets={}", TARGETS.join(","))).arg(format!("--input={}", host.display()));
    for d in devices {
        cmd.arg(format!("--input={}", d.display()));
    }
    cmd.arg(format!("--output={}", out.display())).args(extra).env_remove("OFFLOAD_BUNDLER_COMPRESS");
    run_ok(&mut cmd);
    std::fs::read(out).unwrap()
}

fn bundle_with_us(host: &[u8], devices: &[Vec<u8>]) -> Vec<u8> {
    let ids = standardized();
    let mut entries: Vec<(&str, EntryData)> = vec![(ids[0].as_str(), EntryData::Host)];
    for (id, d) in ids[1..].iter().zip(devices) {
        entries.push((id.as_str(), EntryData::Device(d)));
    }
    bundled_object::write(host, &entries).unwrap()
}

fn unbundle_with_clang(bundler: &Path, input: &Path, target: &str, out: &Path) -> Vec<u8> {
    run_ok(
        Command::new(bundler)
            .arg("--type=o")
            .arg("--unbundle")
            .arg(format!("--targets={target}"))
            .arg(format!("--input={}", input.display()))
            .arg(format!("--output={}", out.display())),
    );
    std::fs::read(out).unwrap()
}

/// The bundled object we write is byte-identical to clang-offload-bundler's for every host
/// object; clang lists and unbundles ours like its own, and the host object we take out of a
/// bundled object is byte-identical to the one it takes out.
#[test]
fn bundled_objects_match_clang_offload_bundler() {
    const TEST: &str = "bundled_objects_match_clang_offload_bundler";
    let (Some(bundler), Some(clang)) = (tool("clang-offload-bundler", TEST), tool("clang", TEST)) else { return };
    let s = Scratch::new(SUITE, "match");
    let devices = device_inputs(&s);
    let device_bytes: Vec<Vec<u8>> = devices.iter().map(|d| std::fs::read(d).unwrap()).collect();
    let hosts = host_objects(&s, &clang, TEST);
    assert!(hosts.len() >= 8);
    for (name, host) in &hosts {
        let host_bytes = std::fs::read(host).unwrap();
        let theirs = bundle_with_clang(&bundler, host, &devices, &s.path(&format!("{name}.clang.o")), &[]);
        let ours = bundle_with_us(&host_bytes, &device_bytes);
        assert!(ours == theirs, "{name}: our bundled object differs from clang-offload-bundler's ({} vs {} bytes, first difference at byte {:?})", ours.len(), theirs.len(), ours.iter().zip(&theirs).position(|(a, b)| a != b));
        let ours_path = s.write(&format!("{name}.ours.o"), &ours);

        // Listing: the same IDs in the same (section) order.
        let listed = String::from_utf8(run_ok(
            Command::new(&bundler).args(["--list", "--type=o"]).arg(format!("--input={}", ours_path.display())),
        ))
        .unwrap();
        let ids: Vec<String> = bundled_object::entries(&ours).unwrap().into_iter().map(|e| e.id).collect();
        assert_eq!(listed.lines().collect::<Vec<_>>(), ids, "{name}: --list");
        assert_eq!(ids, standardized(), "{name}: entries in --targets order");

        // Unbundling: every device entry is its input; the host entry is the host object
        // without the bundle sections, as clang takes it out.
        for (i, target) in TARGETS.iter().enumerate() {
            let got = unbundle_with_clang(&bundler, &ours_path, target, &s.path("part"));
            if i == 0 {
                assert_eq!(bundled_object::host_object(&ours).unwrap(), got, "{name}: host object");
            } else {
                assert_eq!(got, device_bytes[i - 1], "{name}: {target}");
            }
        }
    }
}

/// clang-offload-bundler 22 ignores `--compress` for bundled objects (it compresses an empty
/// buffer, then llvm-objcopy replaces the output file): a compressed and a plain bundle of the
/// same inputs are the same bytes, which is why our writer never compresses entry sections.
#[test]
fn compress_does_not_change_a_bundled_object() {
    const TEST: &str = "compress_does_not_change_a_bundled_object";
    let (Some(bundler), Some(clang)) = (tool("clang-offload-bundler", TEST), tool("clang", TEST)) else { return };
    let s = Scratch::new(SUITE, "compress");
    let devices = device_inputs(&s);
    std::fs::write(s.path("plain.c"), PLAIN_C).unwrap();
    run_ok(Command::new(&clang).current_dir(s.dir()).args(["-O2", "-c", "plain.c", "-o", "host.o"]));
    let host = s.path("host.o");
    let plain = bundle_with_clang(&bundler, &host, &devices, &s.path("plain.o"), &[]);
    let compressed = bundle_with_clang(&bundler, &host, &devices, &s.path("compressed.o"), &["--compress"]);
    assert_eq!(plain, compressed);
    let device_bytes: Vec<Vec<u8>> = devices.iter().map(|d| std::fs::read(d).unwrap()).collect();
    assert_eq!(bundle_with_us(&std::fs::read(&host).unwrap(), &device_bytes), compressed);
}

/// The host object inside the committed clang-made bundled objects, against the SHA-256 that
/// clang-offload-bundler's `--unbundle` gave when the fixtures were generated (expected.txt).
#[test]
fn host_object_of_fixtures_matches_expected_txt() {
    let expected = String::from_utf8(fixture("expected.txt")).unwrap();
    let mut checked = 0;
    for name in ["bundle_obj_elf.o", "hip_elf_rdc.o"] {
        let section = expected
            .split("=== ")
            .find(|s| s.starts_with(name))
            .unwrap_or_else(|| panic!("{name} not in expected.txt"));
        let line = section
            .lines()
            .find(|l| l.starts_with("unbundle host-"))
            .unwrap_or_else(|| panic!("{name}: no host entry"));
        let [_, _, size, sha] = line.split_whitespace().collect::<Vec<_>>()[..] else { panic!("{line}") };
        let host = bundled_object::host_object(&fixture(name)).unwrap();
        assert_eq!((host.len().to_string(), sha256(&host)), (size.to_string(), sha.to_string()), "{name}");
        checked += 1;
    }
    assert_eq!(checked, 2);
}

/// Entries of the committed bundled objects, in section order, with their bytes.
#[test]
fn entries_of_fixtures_are_listed_in_section_order() {
    let data = fixture("bundle_obj_elf.o");
    let entries = bundled_object::entries(&data).unwrap();
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"]
    );
    assert!(bundled_object::is_host_placeholder(entries[0].data));
    assert_eq!((entries[1].data.len(), entries[2].data.len()), (4752, 5800));
    // COFF bundled objects are read too (clang's driver makes them for -fgpu-rdc on Windows).
    let coff = fixture("hip_coff_rdc.obj");
    let ids: Vec<String> = bundled_object::entries(&coff).unwrap().into_iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        ["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-pc-windows-msvc-"]
    );
}

/// Writing refuses what it cannot make, saying why and where.
#[test]
fn unsupported_hosts_are_refused() {
    let e = bundled_object::write(&fixture("hip_coff_rdc.obj"), &[]).unwrap_err();
    assert_eq!(e.context, "bundled object host");
    assert!(e.found.contains("Coff"), "{e}");
    let e = bundled_object::write(&fixture("libhip_3tu_compressed.so"), &[]).unwrap_err();
    assert_eq!(e.context, "program header count", "{e}");
    let e = bundled_object::host_object(&fixture("hip_coff_rdc.obj")).unwrap_err();
    assert_eq!(e.context, "bundled object host");
}

/// Cutting a bundled object anywhere gives an error, never a panic, and a corrupted one is
/// either refused or rewritten to a file that reads back.
#[test]
fn damaged_bundled_objects_never_panic() {
    let data = fixture("bundle_obj_elf.o");
    for n in (0..data.len()).step_by(7) {
        let _ = bundled_object::host_object(&data[..n]);
        let _ = bundled_object::entries(&data[..n]);
    }
    let mut damaged = data.clone();
    for i in (0..data.len()).step_by(3) {
        let keep = damaged[i];
        damaged[i] = keep.wrapping_add(0x41);
        if let Ok(out) = bundled_object::host_object(&damaged) {
            assert!(
                offload::format::host::elf_rel::RelocatableElf::parse(&out).is_ok(),
                "byte {i}: rewritten object does not read back"
            );
        }
        damaged[i] = keep;
    }
}

/// A bundled object is one bundle in the tree whose entries are its sections; the device target
/// table lists its device entries.
#[test]
fn explored_bundled_object_is_one_bundle_of_sections() {
    use offload::explore::{explore, Options};
    use offload::tree::{NodeKind, Value};
    let data = fixture("bundle_obj_elf.o");
    let tree = explore(&data[..], "bundle_obj_elf.o", &Options::default());
    let bundles: Vec<_> = tree.root.children.iter().filter(|n| n.kind == NodeKind::Bundle).collect();
    assert_eq!(bundles.len(), 1, "{:#?}", tree.root);
    let b = bundles[0];
    assert_eq!(b.get("layout"), Some(&Value::Text("object sections".into())));
    let ids: Vec<&str> = b.children.iter().map(|e| e.text("id").unwrap()).collect();
    assert_eq!(
        ids,
        ["host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"]
    );
    assert!(b.children.iter().all(|e| e.kind == NodeKind::BundleEntry));
    assert_eq!(b.children[0].children[0].text("format"), Some("host placeholder"));
    let targets = offload::report::targets::collect(&tree);
    let ids: Vec<&str> = targets.iter().map(|t| t.target_id.as_str()).collect();
    assert_eq!(ids, ["hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"]);
    assert_eq!(targets[1].features, "xnack+");
}

/// A section that holds a compressed bundle is not itself a device image: the target table lists
/// the entries inside the compressed bundle, marked compressed, once each.
#[test]
fn compressed_bundle_in_an_entry_section_lists_its_inner_targets() {
    use offload::explore::{explore, Options};
    let host = bundled_object::host_object(&fixture("bundle_obj_elf.o")).unwrap();
    let ccob = fixture("ccob_zstd_v3.hipfb");
    let bundled = bundled_object::write(
        &host,
        &[
            ("host-x86_64-unknown-linux-gnu-", EntryData::Host),
            ("hipv4-amdgcn-amd-amdhsa--gfx906", EntryData::Device(&ccob)),
        ],
    )
    .unwrap();
    let tree = explore(&bundled[..], "ccob_in_section.o", &Options::default());
    let targets = offload::report::targets::collect(&tree);
    let got: Vec<(&str, Option<&str>)> =
        targets.iter().map(|t| (t.target_id.as_str(), t.compression.as_deref())).collect();
    assert_eq!(
        got,
        [("hipv4-amdgcn-amd-amdhsa--gfx906", Some("zstd")), ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", Some("zstd"))]
    );
    assert_eq!(tree.root.worst_severity(), None, "{:#?}", tree.root);
}
