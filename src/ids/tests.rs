//! Unit tests of target IDs, triples, entry IDs and composition rules.

use super::*;
use alloc::vec;

fn tid(s: &str) -> TargetId {
    TargetId::parse(s).unwrap()
}

fn entry(s: &str) -> EntryId {
    EntryId::parse(s).unwrap()
}

// --- target IDs -----------------------------------------------------------------------

#[test]
fn parses_the_documented_example() {
    // ClangOffloadBundler.rst: "gfx908:sramecc+:xnack-".
    let t = tid("gfx908:sramecc+:xnack-");
    assert_eq!(t.processor, "gfx908");
    assert_eq!(t.features, vec![("sramecc".into(), FeatureSetting::On), ("xnack".into(), FeatureSetting::Off)]);
    assert_eq!(t.feature("xnack"), Some(FeatureSetting::Off));
    assert_eq!(t.feature("tgsplit"), None);
    assert_eq!(t.to_string(), "gfx908:sramecc+:xnack-");
    assert!(t.is_canonical());
}

#[test]
fn canonical_form_sorts_features_alphabetically() {
    let t = tid("gfx90a:xnack+:sramecc-");
    assert!(!t.is_canonical());
    assert_eq!(t.canonical(), "gfx90a:sramecc-:xnack+");
    assert_eq!(t.to_string(), "gfx90a:xnack+:sramecc-");
    assert!(tid("gfx90a").is_canonical());
    assert_eq!(tid("sm_70").canonical(), "sm_70");
}

#[test]
fn target_id_errors_say_where() {
    let cases: &[(&str, u64, &str)] = &[
        ("", 0, "an empty target ID"),
        (":xnack+", 0, "':'"),
        ("gfx906:xnack", 11, "'xnack' without a sign"),
        ("gfx906:xnack+:sramecc+:xnack-", 23, "'xnack' a second time"),
        ("gfx906:", 7, "nothing after ':'"),
        ("gfx906::xnack+", 7, "nothing after ':'"),
        ("gfx906:+", 7, "only '+'"),
    ];
    for &(text, offset, found) in cases {
        let e = TargetId::parse(text).unwrap_err();
        assert_eq!((e.offset, e.found.as_str()), (offset, found), "{text}");
        assert_eq!(e.context, "target ID");
    }
}

#[test]
fn amdgpu_parse_checks_processor_and_features() {
    assert_eq!(TargetId::parse_amdgpu("gfx906:sramecc+:xnack-").unwrap().processor, "gfx906");
    // Aliases become canonical names, as -mcpu=fiji becomes gfx803.
    assert_eq!(TargetId::parse_amdgpu("fiji").unwrap().processor, "gfx803");
    let e = TargetId::parse_amdgpu("gfx1030:xnack+").unwrap_err();
    assert_eq!(e.offset, 8);
    assert_eq!(e.expected, "a feature gfx1030 supports (none)");
    let e = TargetId::parse_amdgpu("gfx900:sramecc-").unwrap_err();
    assert_eq!(e.expected, "a feature gfx900 supports (xnack)");
    assert_eq!(TargetId::parse_amdgpu("gfx940").unwrap_err().found, "'gfx940'");
    assert!(TargetId::parse_amdgpu("sm_70").is_err());
    assert!(TargetId::parse_amdgpu("amdgcnspirv").is_err());
}

#[test]
fn absent_feature_means_any_in_the_code_object_only() {
    // A code object for gfx90a (xnack Any) runs with xnack on or off ...
    assert!(tid("gfx90a").is_compatible_with(&tid("gfx90a:xnack+")));
    assert!(tid("gfx90a").is_compatible_with(&tid("gfx90a:xnack-")));
    assert!(tid("gfx90a").is_compatible_with(&tid("gfx90a")));
    // ... one built with xnack on needs a request that says xnack on.
    assert!(tid("gfx90a:xnack+").is_compatible_with(&tid("gfx90a:xnack+")));
    assert!(tid("gfx90a:xnack+").is_compatible_with(&tid("gfx90a:sramecc-:xnack+")));
    assert!(!tid("gfx90a:xnack+").is_compatible_with(&tid("gfx90a")));
    assert!(!tid("gfx90a:xnack+").is_compatible_with(&tid("gfx90a:xnack-")));
    assert!(!tid("gfx90a").is_compatible_with(&tid("gfx908")));
}

// --- processors -----------------------------------------------------------------------

#[test]
fn processor_table_matches_llvm_22() {
    assert_eq!(PROCESSORS.len(), 91);
    assert_eq!(PROCESSORS.iter().filter(|p| p.name.starts_with("gfx")).count(), 53);
    assert_eq!(PROCESSORS.iter().filter(|p| p.name.starts_with("sm_")).count(), 34);
    for gone in ["gfx940", "gfx941", "gfx1170", "gfx12-5-generic", "sm_120f", "GFX906", "tahiti"] {
        assert!(known_processor(gone).is_none(), "{gone}");
    }
    assert_eq!(known_processor("gfx90a").unwrap().features, &["sramecc", "xnack"]);
    assert_eq!(known_processor("gfx1010").unwrap().features, &["xnack"]);
    assert_eq!(known_processor("sm_90a").unwrap().vendor, ProcessorVendor::Nvidia);
    assert_eq!(canonical_amdgcn_processor("stoney"), Some("gfx810"));
    assert_eq!(canonical_amdgcn_processor("sm_70"), None);
}

// --- triples --------------------------------------------------------------------------

#[test]
fn normalizes_like_llvm() {
    use TripleForm::*;
    let cases: &[(&str, TripleForm, &str)] = &[
        ("x86_64-unknown-linux-gnu", Four, "x86_64-unknown-linux-gnu"),
        ("x86_64-linux-unknown-gnu", Four, "x86_64-unknown-linux-gnu"),
        ("amdgcn-amd-amdhsa-", Three, "amdgcn-amd-amdhsa"),
        ("amdgcn-amd-amdhsa-", Four, "amdgcn-amd-amdhsa-unknown"),
        ("nvptx64-nvidia-cuda-", Four, "nvptx64-nvidia-cuda-unknown"),
        ("nvptx64-nvidia-cuda-sm_70", Four, "nvptx64-nvidia-cuda-sm_70"),
        ("amdgcn-amd--gfx906", Four, "amdgcn-amd-unknown-gfx906"),
        ("x86_64-pc-win32-", Four, "x86_64-pc-windows-msvc"),
        ("x86_64-w64-mingw32-", Four, "x86_64-w64-windows-gnu"),
        ("x86_64-pc-cygwin-", Four, "x86_64-pc-windows-cygnus"),
        ("x86_64-pc-windows-elf", Four, "x86_64-pc-windows-elf"),
        ("armv7a-unknown-linux-androideabi21", Four, "armv7a-unknown-linux-android21"),
        ("arm-suse-linux-gnueabi", Four, "arm-suse-linux-gnueabihf"),
        ("aarch64-none-elf-", Four, "aarch64-unknown-none-elf"),
        ("arm64-apple-darwin-", Four, "arm64-apple-darwin-unknown"),
        ("x86_64---", Four, "x86_64-unknown-unknown-unknown"),
        ("dxil-unknown-shadermodel6.3-compute", Four, "dxilv1.3-unknown-shadermodel6.3-compute"),
        ("dxil-unknown-shadermodel6.x-compute", Four, "dxilv1.9-unknown-shadermodel6.x-compute"),
        ("i386-a-b", Any, "i386-a-b"),
        ("a-b-i386", Any, "i386-a-b"),
        ("pc-a", Any, "unknown-pc-a"),
        ("---", Four, "unknown-unknown-unknown-unknown"),
        ("", Three, "unknown-unknown-unknown"),
    ];
    for &(input, form, want) in cases {
        assert_eq!(normalize_triple(input, form), want, "{input}");
    }
}

#[test]
fn triple_compatibility_compares_parsed_fields() {
    let t = Triple::parse;
    assert!(t("amdgcn-amd-amdhsa-").is_compatible_with(&t("amdgcn-amd-amdhsa-unknown")));
    assert!(t("x86_64-unknown-linux-gnu").is_compatible_with(&t("x86_64-unknown-linux-gnu5")));
    assert!(!t("x86_64-unknown-linux-gnu").is_compatible_with(&t("x86_64-pc-linux-gnu")));
    assert!(!t("amdgcn-amd-amdhsa-").is_compatible_with(&t("amdgcn-amd-amdhsa-gfx906").with_env("gnu")));
    assert!(t("x86_64-w64-windows-gnu").is_compatible_with(&t("x86_64-pc-windows-gnu")));
    assert!(t("thumbv7-unknown-linux-gnueabi").is_compatible_with(&t("armv7-unknown-linux-gnueabi")));
    assert!(t("arm64-apple-macosx-11").is_compatible_with(&t("aarch64-apple-macosx-12")));
    assert!(t("amd64-unknown-freebsd-").is_compatible_with(&t("x86_64-unknown-freebsd14-")));
}

impl Triple {
    fn with_env(mut self, env: &str) -> Triple {
        self.environment = env.into();
        self
    }
}

#[test]
fn knows_the_architectures_the_bundler_accepts() {
    for ok in [
        "x86_64",
        "amd64",
        "i686",
        "aarch64",
        "arm64",
        "armv7a",
        "armv8.2a",
        "thumbv7em",
        "armv7eb",
        "powerpc64le",
        "riscv64",
        "riscv64be",
        "s390x",
        "amdgcn",
        "nvptx64",
        "spirv64",
        "spirv64v1.3",
        "spir64",
        "dxilv1.3",
        "bpf",
        "kalimba3",
        "wasm32",
        "aarch64_lfi",
    ] {
        assert!(parse_arch(ok).is_some(), "{ok}");
    }
    for bad in ["pe", "x86", "x86-64", "thumbv3", "armfoo", "iwmmxt", "AMDGCN", "", "gfx906"] {
        assert!(parse_arch(bad).is_none(), "{bad}");
    }
    assert_eq!(parse_arch("armv6m"), Some("thumb"));
}

// --- entry IDs ------------------------------------------------------------------------

/// Entry IDs and what clang-offload-bundler 22.1.8 wrote for them (see tests/target_id.rs
/// for the same list run against the tool).
const STANDARDIZED: &[(&str, &str)] = &[
    ("host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu-"),
    ("host-x86_64-linux-unknown-gnu", "host-x86_64-unknown-linux-gnu-"),
    ("hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"),
    ("hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"),
    ("hip-amdgcn-amd-amdhsa-unknown-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"),
    ("hip-amdgcn-amd-amdhsa-elf-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-"),
    ("hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--"),
    ("hip-amdgcn-amd-amdhsa--GFX906", "hip-amdgcn-amd-amdhsa--"),
    ("hip-amdgcn-amd-amdhsa--gfx906:xnack", "hip-amdgcn-amd-amdhsa--gfx906:xnack"),
    ("hip-amdgcn-amd-amdpal--gfx906", "hip-amdgcn-amd-amdpal-unknown-gfx906"),
    ("hip-amdgcn-amd--gfx906", "hip-amdgcn-amd-unknown-gfx906-"),
    ("hip-amdgcn-amd-amdhsa5-gfx906", "hip-amdgcn-amd-amdhsa5--"),
    ("openmp-nvptx64-nvidia-cuda-sm_70", "openmp-nvptx64-nvidia-cuda-sm_70-"),
    ("openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70"),
    ("openmp-x86_64-pc-linux-gnu-foo-bar", "openmp-x86_64-pc-linux-gnu-"),
    ("host-x86_64-unknown-linux-gnu--sm_70", "host-x86_64-unknown-linux-gnu-"),
    ("host-x86_64-unknown-linux-gnu-gfx906:xnack+", "host-x86_64-unknown-linux-gnu-gfx906:xnack+"),
    ("hip-spirv64-amd-amdhsa--amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv"),
    ("host-x86_64-w64-mingw32-", "host-x86_64-w64-windows-gnu-"),
];

#[test]
fn standardizes_like_the_bundler() {
    for &(id, want) in STANDARDIZED {
        assert_eq!(entry(id).standardized(), want, "{id}");
    }
}

#[test]
fn splits_at_the_first_five_dashes() {
    let e = entry("openmp-x86_64-pc-linux-gnu-gfx906-bar");
    assert_eq!(e.kind, "openmp");
    assert_eq!(e.triple.to_string(), "x86_64-pc-linux-gnu");
    assert_eq!(e.last.as_deref(), Some("gfx906-bar"));
    assert_eq!(e.target_id(), None);
    assert_eq!(e.ignored_field(), Some("gfx906-bar"));
    let e = entry("hip-amdgcn-amd-amdhsa-gfx906");
    assert_eq!((e.triple.environment.as_str(), e.last.as_deref()), ("gfx906", None));
    let e = entry("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
    assert_eq!(e.target_id(), Some("gfx90a:xnack+"));
    assert_eq!(e.parsed_target_id().unwrap().unwrap().feature("xnack"), Some(FeatureSetting::On));
    assert_eq!(e.triple_text(), "amdgcn-amd-amdhsa");
    let err = entry("hip-amdgcn-amd-amdhsa--gfx906:xnack").parsed_target_id().unwrap().unwrap_err();
    assert_eq!(err.offset, 34);
}

#[test]
fn refuses_what_the_bundler_cannot_split() {
    for bad in [
        "host-x86_64-unknown-linux",
        "host-x86_64-linux-gnu",
        "hip-amdgcn-amd-amdhsa",
        "openmp-amdgcn-amdhsa-gfx906:sramecc+:xnack+",
        "",
        "----"[..3].as_ref(),
    ] {
        let e = EntryId::parse(bad).unwrap_err();
        assert_eq!(e.offset, bad.len() as u64, "{bad}");
        assert_eq!(e.context, "bundle entry ID");
    }
    assert!(EntryId::parse("----").is_ok());
}

#[test]
fn kinds_and_hosts() {
    assert!(entry("host-x86_64-unknown-linux-gnu").is_host());
    assert!(!entry("hip-amdgcn-amd-amdhsa--gfx906").is_host());
    for ok in OFFLOAD_KINDS {
        assert!(entry(&format!("{ok}-x86_64-unknown-linux-gnu")).kind_is_valid());
    }
    for bad in ["cuda", "sycl", "HIP", "", "hipv5"] {
        assert!(!entry(&format!("{bad}-x86_64-unknown-linux-gnu")).kind_is_valid(), "{bad}");
    }
    assert!(!entry("host-bar-unknown-linux-gnu").triple_is_valid());
}

// --- compatibility ----------------------------------------------------------------------

/// (bundle entry, request, found by `clang-offload-bundler --unbundle`) as observed.
const COMPATIBLE: &[(&str, &str, bool)] = &[
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a", false),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", false),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", true),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", true),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", true),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", false),
    ("hip-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", true),
    ("hipv4-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", true),
    ("hip-amdgcn-amd-amdhsa-unknown-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", true),
    ("hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-gfx90a", false),
    ("hip-amdgcn-amd-amdhsa--", "hipv4-amdgcn-amd-amdhsa--", false),
    ("hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa--", true),
    ("openmp-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", false),
    ("hip-amdgcn-amd-amdhsa--gfx90a:foo+", "hip-amdgcn-amd-amdhsa--gfx90a:foo+", true),
    ("hip-amdgcn-amd-amdhsa--gfx90a:foo+", "hipv4-amdgcn-amd-amdhsa--gfx90a:foo+", false),
    ("hip-amdgcn-amd-amdhsa--gfx803", "hipv4-amdgcn-amd-amdhsa--gfx803:xnack+", false),
    ("hip-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack+:xnack+", false),
    ("openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70", true),
    ("openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda--sm_80", false),
    ("hip-nvptx64-nvidia-cuda--sm_70", "hipv4-nvptx64-nvidia-cuda--sm_70", true),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu", true),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-pc-linux-gnu", false),
    ("host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu5", true),
];

#[test]
fn compatibility_matches_unbundling() {
    for &(have, want, found) in COMPATIBLE {
        assert_eq!(compatible(&entry(have), &entry(want)), found, "{have} for {want}");
    }
}

#[test]
fn hip_and_openmp_only_with_the_option() {
    let (omp, hip) = (entry("openmp-amdgcn-amd-amdhsa--gfx90a"), entry("hip-amdgcn-amd-amdhsa--gfx90a"));
    assert!(!compatible(&omp, &hip));
    assert!(compatible_with(&omp, &hip, true));
    assert!(compatible_with(&hip, &omp, true));
    assert!(!compatible_with(&entry("host-amdgcn-amd-amdhsa--gfx90a"), &omp, true));
}

#[test]
fn find_entry_takes_the_first_compatible() {
    let ids = [
        "host-x86_64-unknown-linux-gnu-",
        "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
        "hipv4-amdgcn-amd-amdhsa--gfx90a",
        "not an id",
    ];
    let want = |s: &str| find_entry(&ids, &entry(s), false);
    assert_eq!(want("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"), Some(ids[1]));
    assert_eq!(want("hipv4-amdgcn-amd-amdhsa--gfx90a"), Some(ids[2]));
    assert_eq!(want("hip-amdgcn-amd-amdhsa--gfx90a:xnack-"), Some(ids[2]));
    assert_eq!(want("hip-amdgcn-amd-amdhsa--gfx908"), None);
    assert_eq!(want("host-x86_64-unknown-linux-gnu"), Some(ids[0]));
}

// --- composition ------------------------------------------------------------------------

const FORMAT: &str = "Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.";

/// Target lists and what clang-offload-bundler 22 said when bundling them.
const BUNDLER: &[(&[&str], Option<&str>)] = &[
    (&["host-x86_64-unknown-linux-gnu"], None),
    (&["host-x86_64-unknown-linux"], Some(FORMAT)),
    (&["host-x86_64-unknown-linux-gnu", "openmp-foo-pc-linux-gnu"], Some("invalid target 'openmp-foo-pc-linux-gnu', unknown target triple 'foo-pc-linux-gnu'")),
    (&["host-x86_64-unknown-linux-gnu", "foo-bar-pc-linux-gnu"], Some("invalid target 'foo-bar-pc-linux-gnu', unknown offloading kind 'foo', unknown target triple 'bar-pc-linux-gnu'")),
    (&["cuda-nvptx64-nvidia-cuda--sm_70"], Some("invalid target 'cuda-nvptx64-nvidia-cuda--sm_70', unknown offloading kind 'cuda'")),
    (&["hip----"], Some("invalid target 'hip----', unknown target triple '---'")),
    (&["host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu"], Some("Duplicate targets are not allowed")),
    (&["host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"], Some("expecting exactly one host target but got 2")),
    (&["openmp-nvptx64-nvidia-cuda--sm_70"], Some("expecting exactly one host target but got 0")),
    (&["hip-amdgcn-amd-amdhsa--gfx906"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'")),
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'")),
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906:sramecc+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906:sramecc+' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'")),
    // LLVM 22 misses these two (order-dependent, one-directional check).
    (&["hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc+", "hip-amdgcn-amd-amdhsa--gfx906:xnack-"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack-:sramecc-", "hip-amdgcn-amd-amdhsa--gfx906:sramecc+"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906:sramecc+' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack-:sramecc-'")),
    // Different groups for the bundler: hip and hipv4, "amdhsa-" and "amdhsa-unknown".
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx906:xnack+"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"], None),
    // Malformed target IDs, where LLVM reads an empty optional.
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack", "hip-amdgcn-amd-amdhsa--gfx906"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:zzz"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:xnack+:zz"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+:zz'")),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:+"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and 'hip-amdgcn-amd-amdhsa--gfx906:+'")),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906:"], None),
    (&["hip-amdgcn-amd-amdhsa--gfx906:foo+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"], Some("Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906:foo+' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'")),
    (&["host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu", "foo-x-y-z-w"], Some("Duplicate targets are not allowed")),
    (&["foo-x-y-z-w", "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu"], Some("invalid target 'foo-x-y-z-w', unknown offloading kind 'foo', unknown target triple 'x-y-z-w'")),
    (&["hip-amdgcn-amd-amdhsa--gfx906", "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"], Some("expecting exactly one host target but got 2")),
];

#[test]
fn reproduces_the_bundler_messages() {
    for &(ids, want) in BUNDLER {
        assert_eq!(bundler_error(ids).as_deref(), want, "{ids:?}");
    }
}

#[test]
fn composition_flags_exactly_what_the_bundler_refuses() {
    for &(ids, want) in BUNDLER {
        let violations = check_composition(ids);
        assert_eq!(violations.iter().any(|v| v.rejected_by_bundler), want.is_some(), "{ids:?}: {violations:?}");
    }
}

#[test]
fn composition_reports_documented_rules_the_bundler_misses() {
    let ids = ["hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"];
    let v = check_composition(&ids);
    assert_eq!(v.len(), 1);
    assert_eq!(
        (v[0].rule, v[0].entries.clone(), v[0].rejected_by_bundler),
        (Rule::ConflictingTargetIds, vec![0, 1], false)
    );
    assert!(v[0].message.contains("'hip-amdgcn-amd-amdhsa--gfx906:xnack+'"), "{}", v[0]);
    assert!(v[0].message.contains("sramecc and xnack versus xnack"), "{}", v[0]);

    // Same entry after standardizing: accepted by the bundler, which writes two entries with one name.
    let ids = ["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"];
    let v = check_composition(&ids);
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].rule, v[0].rejected_by_bundler), (Rule::DuplicateEntryId, false));

    // Documented rule across spellings of one triple.
    let ids = ["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+"];
    assert_eq!(check_composition(&ids)[0].rule, Rule::ConflictingTargetIds);

    let ids = ["hip-amdgcn-amd-amdhsa--gfx906:xnack"];
    assert_eq!(check_composition(&ids)[0].rule, Rule::MalformedTargetId);
}

#[test]
fn valid_bundles_have_no_violations() {
    let ids = [
        "host-x86_64-unknown-linux-gnu-",
        "hipv4-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+",
        "hipv4-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
        "hipv4-amdgcn-amd-amdhsa--gfx90a",
        "hipv4-amdgcn-amd-amdhsa--gfx1100",
    ];
    assert_eq!(check_composition(&ids), vec![]);
    assert_eq!(check_composition(&ids[1..]), vec![]);
    assert_eq!(check_composition(&[]), vec![]);
}

#[test]
fn host_rule() {
    let v = check_composition(&["openmp-amdgcn-amd-amdhsa--gfx906"]);
    assert_eq!((v[0].rule, v[0].rejected_by_bundler), (Rule::HostCount, true));
    let v = check_composition(&[
        "host-x86_64-unknown-linux-gnu",
        "host-x86_64-pc-linux-gnu",
        "hip-amdgcn-amd-amdhsa--gfx906",
    ]);
    assert_eq!((v[0].rule, v[0].entries.clone()), (Rule::HostCount, vec![0, 1]));
}

// --- diagnostics ------------------------------------------------------------------------

fn messages(id: &str) -> Vec<(Severity, String)> {
    entry_id_diagnostics(id, None).into_iter().map(|d| (d.severity, d.message)).collect()
}

#[test]
fn diagnoses_non_canonical_target_ids() {
    let m = messages("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].0, Severity::Warning);
    assert!(m[0].1.contains("'gfx90a:sramecc-:xnack+'"), "{m:?}");
    assert_eq!(messages("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"), vec![]);
}

#[test]
fn diagnoses_unknown_processors_and_kinds() {
    let m = messages("hip-amdgcn-amd-amdhsa--GFX906");
    assert!(
        m.iter().any(|(s, t)| *s == Severity::Warning
            && t.contains("did you mean 'gfx906'")
            && t.contains("writes 'hip-amdgcn-amd-amdhsa--'")),
        "{m:?}"
    );
    let m = messages("hip-amdgcn-amd-amdhsa--fiji");
    assert!(m.iter().any(|(_, t)| t.contains("old name of gfx803")), "{m:?}");
    let m = messages("cuda-nvptx64-nvidia-cuda--sm_70");
    assert!(
        m.iter().any(|(s, t)| *s == Severity::Note && t.contains("offload kind 'cuda' is read as written")),
        "{m:?}"
    );
    let m = messages("host-bar-unknown-linux-gnu");
    assert!(m.iter().any(|(s, t)| *s == Severity::Warning && t.contains("'bar'")), "{m:?}");
    let m = messages("nonsense");
    assert_eq!(m[0].0, Severity::Note);
}

#[test]
fn ids_the_bundler_reads_but_would_not_write_are_notes_never_errors() {
    let m = messages("host-x86_64-unknown-linux");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].0, Severity::Note);
    assert!(m[0]
        .1
        .starts_with("'host-x86_64-unknown-linux' is read as offload kind 'host', triple 'x86_64-unknown-linux':"));
    let m = messages("sycl-spir64_gen");
    assert_eq!(m[0].0, Severity::Note);
    assert!(m[0].1.contains("offload kind 'sycl', triple 'spir64_gen'"), "{m:?}");
    for id in ["", "-", "hip", "a-b:c", "sycl-spir64-unknown-unknown"] {
        assert!(messages(id).iter().all(|(s, _)| *s != Severity::Error), "{id}");
    }
}

#[test]
fn ids_are_read_as_llvm_reads_them() {
    let r = ReadEntryId::new("hip-amdgcn-amdhsa-gfx906:xnack+");
    assert_eq!((r.kind, r.triple, r.target_id), ("hip", "amdgcn-amdhsa", Some("gfx906:xnack+")));
    let r = ReadEntryId::new("host-x86_64-unknown-linux");
    assert_eq!((r.kind, r.triple, r.target_id), ("host", "x86_64-unknown-linux", None));
    let r = ReadEntryId::new("sycl-spir64");
    assert_eq!((r.kind, r.triple, r.target_id), ("sycl", "spir64", None));
    let r = ReadEntryId::new("nonsense");
    assert_eq!((r.kind, r.triple, r.target_id), ("nonsense", "", None));
}

#[test]
fn a_read_bundle_reports_only_rules_across_entries() {
    let v = composition_on_read(&["sycl-spir64", "cuda-nvptx64-nvidia-cuda--sm_70"]);
    assert_eq!(v, vec![]);
    let v = composition_on_read(&["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"]);
    assert_eq!(v[0].rule, Rule::DuplicateTarget);
}

#[test]
fn diagnoses_lost_and_unmatchable_target_ids() {
    let m = messages("hip-amdgcn-amd-amdhsa-gfx906");
    assert!(m.iter().any(|(_, t)| t.contains("write 'hip-amdgcn-amd-amdhsa--gfx906'")), "{m:?}");
    let m = messages("hip-amdgcn-amd-amdhsa--gfx1030:xnack+");
    assert!(m.iter().any(|(_, t)| t.contains("gfx1030 has no feature xnack")), "{m:?}");
    let m = messages("hip-amdgcn-amd-amdhsa--sm_70");
    assert!(m.iter().any(|(_, t)| t.contains("not an AMD GPU")), "{m:?}");
    let m = messages("hip-amdgcn-amd-amdhsa--gfx906:xnack");
    assert!(m.iter().any(|(_, t)| t.contains("malformed")), "{m:?}");
    let m = messages("host-x86_64-unknown-linux-gnu");
    assert_eq!(
        m,
        vec![(Severity::Note, "clang-offload-bundler 22 writes this ID as 'host-x86_64-unknown-linux-gnu-'".into())]
    );
}

#[test]
fn standardized_ids_draw_no_diagnostics() {
    for id in ["host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"] {
        assert_eq!(messages(id), vec![], "{id}");
    }
}

#[test]
fn diagnostics_point_into_the_id() {
    // The span of the ID's bytes: 45 of them at offset 100.
    let span = Span::new(0, 100, 45);
    let d = entry_id_diagnostics("hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", Some(span));
    assert_eq!(d[0].span, Some(Span::new(0, 123, 22)));
    let d = entry_id_diagnostics("cuda-nvptx64-nvidia-cuda--sm_70", Some(span));
    assert_eq!(d[0].span, Some(Span::new(0, 100, 4)));
}

#[test]
fn annotates_nodes() {
    use crate::tree::{NodeKind, Value};
    let mut node = Node::new(NodeKind::BundleEntry, "e", Span::default());
    node.editable("id", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", Some(Span::new(0, 60, 38)));
    annotate_entry_id(&mut node, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
    assert_eq!(node.text("offload_kind"), Some("hipv4"));
    assert_eq!(node.text("triple"), Some("amdgcn-amd-amdhsa"));
    assert_eq!(node.text("processor"), Some("gfx90a"));
    assert_eq!(node.get("features"), Some(&Value::Text("xnack+".into())));
    assert!(node.diagnostics.is_empty());
}

// --- robustness ---------------------------------------------------------------------------

#[test]
fn never_panics_on_odd_input() {
    let odd = [
        "",
        "-",
        "-----",
        "------",
        "::",
        ":+:-",
        "é-ü-ñ-ø-å-gfx906:é+",
        "hip-amdgcn-amd-amdhsa--gfx906:é",
        "a-b-c-d-e-f-g-h",
        "hip-armv7eb-x-y-z",
        "host-dxil-unknown-shadermodel6.99-x",
        "host-dxil-unknown-shadermodel6.10-compute",
    ];
    for s in odd {
        let _ = TargetId::parse(s);
        let _ = TargetId::parse_amdgpu(s);
        let _ = normalize_triple(s, TripleForm::Four);
        let _ = entry_id_diagnostics(s, Some(Span::new(0, 0, s.len() as u64)));
        if let Ok(e) = EntryId::parse(s) {
            let _ = e.standardized();
            let _ = compatible_with(&e, &e, true);
        }
    }
    let _ = check_composition(&odd);
    let _ = bundler_error(&odd);
    // Many features: duplicate detection stays fast.
    let mut long = String::from("gfx906");
    for i in 0..20000 {
        long += &format!(":f{i}+");
    }
    let many = TargetId::parse(&long).unwrap();
    assert!(many.is_compatible_with(&many));
    let ids = [format!("hip-amdgcn-amd-amdhsa--{long}"), format!("hip-amdgcn-amd-amdhsa--{long}:g+")];
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    assert!(bundler_error(&ids).is_some());
    assert_eq!(check_composition(&ids).len(), 1);
    long += ":f7+";
    assert_eq!(TargetId::parse(&long).unwrap_err().found, "'f7' a second time");
}
