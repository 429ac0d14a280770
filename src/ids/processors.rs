//! The processors LLVM 22 knows, with the features each AMD GPU supports, and their aliases.

/// Who makes a processor named in [`PROCESSORS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessorVendor {
    Amd,
    Nvidia,
    Intel,
    /// `generic`: no particular processor.
    Generic,
}

/// A processor name LLVM 22 knows as an offload architecture (`StringToOffloadArch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Processor {
    pub name: &'static str,
    pub vendor: ProcessorVendor,
    /// Target-ID features it accepts, in canonical order (AMD GPUs only: `sramecc`, `xnack`).
    pub features: &'static [&'static str],
}

const XS: &[&str] = &["sramecc", "xnack"];
const X: &[&str] = &["xnack"];
pub(super) const NONE: &[&str] = &[];

const fn amd(name: &'static str, features: &'static [&'static str]) -> Processor {
    Processor { name, vendor: ProcessorVendor::Amd, features }
}
const fn nv(name: &'static str) -> Processor {
    Processor { name, vendor: ProcessorVendor::Nvidia, features: NONE }
}

/// The 91 names LLVM 22's `StringToOffloadArch` accepts, found by asking
/// clang-offload-bundler 22.1.8 about every `sm_*`/`gfx*` spelling; features found by
/// asking clang 22 to compile for `<name>:xnack+` and `<name>:sramecc+`.
/// Not known to LLVM 22 although plausible: gfx940, gfx941, gfx1170, gfx12-5-generic, sm_120f.
#[rustfmt::skip]
pub static PROCESSORS: &[Processor] = &[
    nv("sm_20"), nv("sm_21"), nv("sm_30"), nv("sm_32"), nv("sm_35"), nv("sm_37"),
    nv("sm_50"), nv("sm_52"), nv("sm_53"), nv("sm_60"), nv("sm_61"), nv("sm_62"),
    nv("sm_70"), nv("sm_72"), nv("sm_75"), nv("sm_80"), nv("sm_86"), nv("sm_87"),
    nv("sm_88"), nv("sm_89"), nv("sm_90"), nv("sm_90a"), nv("sm_100"), nv("sm_100a"),
    nv("sm_101"), nv("sm_101a"), nv("sm_103"), nv("sm_103a"), nv("sm_110"), nv("sm_110a"),
    nv("sm_120"), nv("sm_120a"), nv("sm_121"), nv("sm_121a"),
    amd("gfx600", NONE), amd("gfx601", NONE), amd("gfx602", NONE),
    amd("gfx700", NONE), amd("gfx701", NONE), amd("gfx702", NONE), amd("gfx703", NONE),
    amd("gfx704", NONE), amd("gfx705", NONE),
    amd("gfx801", X), amd("gfx802", NONE), amd("gfx803", NONE), amd("gfx805", NONE),
    amd("gfx810", X),
    amd("gfx9-generic", X), amd("gfx900", X), amd("gfx902", X), amd("gfx904", X),
    amd("gfx906", XS), amd("gfx908", XS), amd("gfx909", X), amd("gfx90a", XS),
    amd("gfx90c", X), amd("gfx9-4-generic", XS), amd("gfx942", XS), amd("gfx950", XS),
    amd("gfx10-1-generic", X), amd("gfx1010", X), amd("gfx1011", X), amd("gfx1012", X),
    amd("gfx1013", X),
    amd("gfx10-3-generic", NONE), amd("gfx1030", NONE), amd("gfx1031", NONE),
    amd("gfx1032", NONE), amd("gfx1033", NONE), amd("gfx1034", NONE), amd("gfx1035", NONE),
    amd("gfx1036", NONE),
    amd("gfx11-generic", NONE), amd("gfx1100", NONE), amd("gfx1101", NONE),
    amd("gfx1102", NONE), amd("gfx1103", NONE), amd("gfx1150", NONE), amd("gfx1151", NONE),
    amd("gfx1152", NONE), amd("gfx1153", NONE),
    amd("gfx12-generic", NONE), amd("gfx1200", NONE), amd("gfx1201", NONE),
    amd("gfx1250", NONE), amd("gfx1251", NONE),
    // SPIR-V for AMD GPUs: used with spirv64-amd-amdhsa, not an amdgcn processor.
    amd("amdgcnspirv", NONE),
    Processor { name: "graniterapids", vendor: ProcessorVendor::Intel, features: NONE },
    Processor { name: "bmg_g21", vendor: ProcessorVendor::Intel, features: NONE },
    Processor { name: "generic", vendor: ProcessorVendor::Generic, features: NONE },
];

/// Old AMD GPU names LLVM 22 still accepts for `amdgcn` (`-mcpu`, `--offload-arch`), with
/// their canonical names. The bundler does not know them: it drops them from entry IDs.
#[rustfmt::skip]
pub static AMDGPU_ALIASES: &[(&str, &str)] = &[
    ("tahiti", "gfx600"), ("pitcairn", "gfx601"), ("verde", "gfx601"), ("hainan", "gfx602"),
    ("oland", "gfx602"), ("kaveri", "gfx700"), ("hawaii", "gfx701"), ("kabini", "gfx703"),
    ("mullins", "gfx703"), ("bonaire", "gfx704"), ("carrizo", "gfx801"), ("iceland", "gfx802"),
    ("tonga", "gfx802"), ("fiji", "gfx803"), ("polaris10", "gfx803"), ("polaris11", "gfx803"),
    ("tongapro", "gfx805"), ("stoney", "gfx810"),
];

/// The processor named exactly `name` (names are case-sensitive), if LLVM 22 knows it.
pub fn known_processor(name: &str) -> Option<&'static Processor> {
    PROCESSORS.iter().find(|p| p.name == name)
}

/// The canonical `amdgcn` processor for a name or alias (LLVM's `getCanonicalArchName`).
pub fn canonical_amdgcn_processor(name: &str) -> Option<&'static str> {
    if let Some(p) = known_processor(name) {
        return (p.vendor == ProcessorVendor::Amd && p.name != "amdgcnspirv").then_some(p.name);
    }
    AMDGPU_ALIASES.iter().find(|(alias, _)| *alias == name).map(|&(_, c)| c)
}

pub(super) fn amdgcn_features(canonical: &str) -> &'static [&'static str] {
    known_processor(canonical).map_or(NONE, |p| p.features)
}

/// LLVM's generic AMD GPU targets and the processors each one runs on: the table "AMDGPU
/// Generic Processors" of LLVM 22's `AMDGPUUsage.rst` (`llvm/docs/AMDGPUUsage.rst`), which
/// matches `TargetParser`'s generic entries. gfx940 and gfx941, which older LLVM listed under
/// gfx9-4-generic, are gone from LLVM 22. The ROCm runtime also requires the code object's
/// generic version to be at least the one each processor joined the family at; every
/// processor listed here joined at version 1.
#[rustfmt::skip]
pub static AMDGPU_GENERIC_FAMILIES: &[(&str, &[&str])] = &[
    ("gfx9-generic", &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"]),
    ("gfx9-4-generic", &["gfx942", "gfx950"]),
    ("gfx10-1-generic", &["gfx1010", "gfx1011", "gfx1012", "gfx1013"]),
    ("gfx10-3-generic", &["gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"]),
    ("gfx11-generic", &["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"]),
    ("gfx12-generic", &["gfx1200", "gfx1201"]),
];

/// The processors a generic AMD GPU target runs on; empty for any other name.
pub fn generic_members(generic: &str) -> &'static [&'static str] {
    AMDGPU_GENERIC_FAMILIES.iter().find(|(g, _)| *g == generic).map_or(NONE, |&(_, members)| members)
}

/// The generic target whose code objects run on `processor`, if it belongs to a family.
pub fn generic_family_of(processor: &str) -> Option<&'static str> {
    AMDGPU_GENERIC_FAMILIES.iter().find(|(_, members)| members.contains(&processor)).map(|&(g, _)| g)
}
