//! Target IDs and bundle entry IDs, read, standardized, compared and checked as
//! clang-offload-bundler 22 does.
//!
//! # Grammar
//!
//! ```text
//! target-id  ::= processor ( ":" feature ( "+" | "-" ) )*
//! entry-id   ::= kind "-" arch "-" vendor "-" os "-" env [ "-" last ]
//! kind       ::= "host" | "openmp" | "hip" | "hipv4"         (what the bundler 22 accepts)
//! last       ::= everything after the fifth '-', dashes included
//! ```
//!
//! How clang-offload-bundler 22 reads an entry ID (all verified against 22.1.8):
//!
//! * It cuts the ID at the first five `-`. Fewer than four `-` is refused ("Targets need to
//!   follow the format ..."). So a 3-field triple is only accepted as `kind-a-v-o-x`, and
//!   `x` becomes the *environment*: `hip-amdgcn-amd-amdhsa-gfx906` has no target ID at all.
//! * `last` is the target ID only when the text before its first `:` is a processor LLVM 22
//!   knows ([`PROCESSORS`]); otherwise it is silently dropped (`…--gfx940` is written `…--`).
//!   A kept target ID is kept verbatim: never validated, never canonicalized.
//! * The triple fields are taken by position; the triple is valid when the arch is known.
//! * It writes `kind-<triple>-<target id>` where `<triple>` is the triple normalized to four
//!   fields (`unknown` filling gaps, see [`normalize_triple`]), except for an `amdhsa` OS,
//!   which gets three fields and an empty environment: `hip-amdgcn-amd-amdhsa--gfx90a`,
//!   `host-x86_64-unknown-linux-gnu-`, `openmp-nvptx64-nvidia-cuda-unknown-sm_70`.
//!
//! # Compatibility (unbundling)
//!
//! A bundle entry (a code object) serves a requested target when ([`compatible`]):
//! the kinds, triples and target-ID texts are equal (triples compared as parsed values), or
//! the kinds are equal or `hip`/`hipv4` (optionally also `openmp` with either), the triples
//! are compatible, both target IDs name the same processor (for `amdgcn` triples it must be
//! a known AMD GPU and the features ones it supports; elsewhere no feature at all) and
//! **every feature the entry sets is set the same way by the request**. A feature the entry
//! leaves out means "any": the entry `gfx90a` serves requests `gfx90a`, `gfx90a:xnack+` and
//! `gfx90a:xnack-`; the entry `gfx90a:xnack+` serves only requests that say `xnack+`.
//!
//! # Composition (bundling)
//!
//! [`check_composition`] lists the documented rules a set of entries breaks, each marked with
//! whether clang-offload-bundler 22 itself refuses to bundle it; [`bundler_error`] gives the
//! exact message the bundler prints. The bundler's own target-ID check compares each ID only
//! with the first one (in byte order) for the same processor and only in one direction, so it
//! misses `gfx906:sramecc+:xnack+` next to `gfx906:xnack+`; we report those too.

use crate::error::{Error, Result};
use crate::tree::{Diagnostic, Node, Severity, Span};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

const TARGET_ID_CONTEXT: &str = "target ID";
const ENTRY_ID_CONTEXT: &str = "bundle entry ID";

// ---------------------------------------------------------------------------------------------
// Target IDs
// ---------------------------------------------------------------------------------------------

/// The value a target ID gives a feature: `+` or `-`. A feature that is absent means "any".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeatureSetting {
    On,
    Off,
}

impl FeatureSetting {
    pub fn sign(self) -> char {
        match self {
            FeatureSetting::On => '+',
            FeatureSetting::Off => '-',
        }
    }

    fn from_sign(c: char) -> Option<Self> {
        match c {
            '+' => Some(FeatureSetting::On),
            '-' => Some(FeatureSetting::Off),
            _ => None,
        }
    }
}

/// A processor and its explicitly set features, in the order written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    pub processor: String,
    pub features: Vec<(String, FeatureSetting)>,
}

/// One `:feature±` as found in the text, with its byte offset.
struct RawFeature<'a> {
    name: &'a str,
    setting: FeatureSetting,
    offset: usize,
}

/// Splits and checks the syntax of a target ID: a processor, then features each ending in a
/// sign, each named once. Offsets in errors are byte offsets in `s`.
fn parse_raw(s: &str) -> Result<(&str, Vec<RawFeature<'_>>)> {
    let (processor, rest) = match s.split_once(':') {
        Some((p, r)) => (p, Some(r)),
        None => (s, None),
    };
    if processor.is_empty() {
        let found = if s.is_empty() { "an empty target ID" } else { "':'" };
        return Err(Error::new(0, TARGET_ID_CONTEXT, "a processor name", found));
    }
    let mut features = Vec::new();
    if let Some(rest) = rest {
        let mut offset = processor.len() + 1;
        for piece in rest.split(':') {
            features.push(parse_feature(piece, offset)?);
            offset += piece.len() + 1;
        }
    }
    check_unique(&features)?;
    Ok((processor, features))
}

fn parse_feature(piece: &str, offset: usize) -> Result<RawFeature<'_>> {
    let expected = "a feature name followed by '+' or '-'";
    let Some(last) = piece.chars().last() else {
        return Err(Error::new(offset as u64, TARGET_ID_CONTEXT, expected, "nothing after ':'"));
    };
    let Some(setting) = FeatureSetting::from_sign(last) else {
        let at = offset + piece.len() - last.len_utf8();
        return Err(Error::new(at as u64, TARGET_ID_CONTEXT, expected, format!("'{piece}' without a sign")));
    };
    let name = &piece[..piece.len() - 1];
    if name.is_empty() {
        return Err(Error::new(offset as u64, TARGET_ID_CONTEXT, expected, format!("only '{last}'")));
    }
    Ok(RawFeature { name, setting, offset })
}

/// Each feature may appear once. Sorting keeps this O(n log n) on hostile input.
fn check_unique(features: &[RawFeature<'_>]) -> Result<()> {
    let mut order: Vec<usize> = (0..features.len()).collect();
    order.sort_by(|&a, &b| features[a].name.cmp(features[b].name).then(a.cmp(&b)));
    let repeat = order.windows(2).filter(|w| features[w[0]].name == features[w[1]].name).map(|w| w[1]).min();
    match repeat {
        None => Ok(()),
        Some(i) => Err(Error::new(
            features[i].offset as u64,
            TARGET_ID_CONTEXT,
            "each feature at most once",
            format!("'{}' a second time", features[i].name),
        )),
    }
}

impl TargetId {
    /// Parses the syntax only (like LLVM's format check): a non-empty processor and features
    /// that each end in `+` or `-` and appear once. Processor and feature names are not
    /// checked; see [`TargetId::parse_amdgpu`] for that. Unlike LLVM this also refuses an
    /// empty feature (`gfx906:`, `gfx906::xnack+`, `gfx906:+`), which LLVM accepts or reads
    /// out of bounds.
    pub fn parse(s: &str) -> Result<TargetId> {
        let (processor, raw) = parse_raw(s)?;
        Ok(TargetId { processor: processor.into(), features: raw.iter().map(|f| (f.name.into(), f.setting)).collect() })
    }

    /// Parses as LLVM's `parseTargetID` does for an `amdgcn` triple, the check clang's driver
    /// applies to `--offload-arch`: the processor must be an AMD GPU LLVM 22 knows (an alias
    /// such as `fiji` becomes its canonical name, `gfx803`) and each feature one it supports.
    pub fn parse_amdgpu(s: &str) -> Result<TargetId> {
        let (processor, raw) = parse_raw(s)?;
        let Some(canonical) = canonical_amdgcn_processor(processor) else {
            return Err(Error::new(
                0,
                TARGET_ID_CONTEXT,
                "an AMD GPU processor LLVM 22 knows",
                format!("'{processor}'"),
            ));
        };
        let supported = amdgcn_features(canonical);
        if let Some(f) = raw.iter().find(|f| !supported.contains(&f.name)) {
            return Err(Error::new(
                f.offset as u64,
                TARGET_ID_CONTEXT,
                format!("a feature {canonical} supports ({})", list_or_none(supported)),
                format!("'{}'", f.name),
            ));
        }
        Ok(TargetId { processor: canonical.into(), features: raw.iter().map(|f| (f.name.into(), f.setting)).collect() })
    }

    /// The setting of `feature`, `None` meaning "any".
    pub fn feature(&self, feature: &str) -> Option<FeatureSetting> {
        self.features.iter().find(|(n, _)| n == feature).map(|&(_, s)| s)
    }

    /// The canonical form: features sorted by name, byte-wise, as LLVM's
    /// `getCanonicalTargetID` orders them (`gfx90a:sramecc-:xnack+`). The processor is kept
    /// as written; [`TargetId::parse_amdgpu`] maps aliases to canonical names.
    pub fn canonical(&self) -> String {
        let mut sorted: Vec<&(String, FeatureSetting)> = self.features.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = self.processor.clone();
        for (name, setting) in sorted {
            out.push(':');
            out.push_str(name);
            out.push(setting.sign());
        }
        out
    }

    /// Whether the features are in canonical (byte-wise sorted) order.
    pub fn is_canonical(&self) -> bool {
        self.features.windows(2).all(|w| w[0].0 < w[1].0)
    }

    /// Whether a code object built for `self` can serve a request for `requested` (LLVM's
    /// `isCompatibleTargetID`): same processor, and every feature `self` sets is set the same
    /// way in `requested`. Features `self` leaves out ("any") accept anything.
    pub fn is_compatible_with(&self, requested: &TargetId) -> bool {
        // A map keeps this linear-logarithmic however many features hostile input lists.
        let wanted: BTreeMap<&str, FeatureSetting> = requested.features.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        self.processor == requested.processor && self.features.iter().all(|(n, s)| wanted.get(n.as_str()) == Some(s))
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        for (name, setting) in &self.features {
            write!(f, ":{name}{}", setting.sign())?;
        }
        Ok(())
    }
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

// ---------------------------------------------------------------------------------------------
// Known processors
// ---------------------------------------------------------------------------------------------

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
const NONE: &[&str] = &[];

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

fn amdgcn_features(canonical: &str) -> &'static [&'static str] {
    known_processor(canonical).map_or(NONE, |p| p.features)
}

// ---------------------------------------------------------------------------------------------
// Triples
// ---------------------------------------------------------------------------------------------

/// How many fields [`normalize_triple`] gives its result (LLVM's `Triple::CanonicalForm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TripleForm {
    /// As many fields as normalization produces.
    Any,
    Three,
    Four,
    Five,
}

/// A target triple taken field by field, by position, as the bundler does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Triple {
    pub arch: String,
    pub vendor: String,
    pub os: String,
    pub environment: String,
}

/// What LLVM makes of each field of a triple; `None` is "unknown".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parsed<'a> {
    arch: Option<&'static str>,
    sub_arch: Option<&'a str>,
    vendor: Option<&'static str>,
    os: Option<&'static str>,
    env: Option<&'static str>,
    format: Option<&'static str>,
}

impl Triple {
    /// The four `-`-separated fields of `s`; the last takes the rest (LLVM's constructor).
    pub fn parse(s: &str) -> Triple {
        let mut it = s.splitn(4, '-');
        let mut next = || it.next().unwrap_or("").to_string();
        Triple { arch: next(), vendor: next(), os: next(), environment: next() }
    }

    fn parsed(&self) -> Parsed<'_> {
        let arch = parse_arch(&self.arch);
        let os = parse_os(&self.os);
        let format = parse_format(&self.environment).or_else(|| Some(default_format(arch, os)));
        Parsed {
            arch,
            sub_arch: sub_arch(&self.arch),
            vendor: parse_vendor(&self.vendor),
            os,
            env: parse_env(&self.environment),
            format,
        }
    }

    /// Whether LLVM 22 knows the architecture, the bundler's test of a valid triple.
    pub fn is_valid(&self) -> bool {
        parse_arch(&self.arch).is_some()
    }

    /// The architecture's canonical name (`amd64` gives `x86_64`), if known.
    pub fn arch_type(&self) -> Option<&'static str> {
        parse_arch(&self.arch)
    }

    pub fn is_amdgcn(&self) -> bool {
        parse_arch(&self.arch) == Some("amdgcn")
    }

    pub fn is_amdhsa(&self) -> bool {
        parse_os(&self.os) == Some("amdhsa")
    }

    /// LLVM's `Triple::isCompatibleWith`: parsed arch, sub-arch, vendor, OS, environment and
    /// object format equal, with the exceptions LLVM makes for arm/thumb, Apple vendors and
    /// the vendor of windows-gnu triples.
    pub fn is_compatible_with(&self, other: &Triple) -> bool {
        let (a, b) = (self.parsed(), other.parsed());
        let ignore_vendor = a.os == Some("windows") && a.env == Some("gnu");
        let vendor_ok = a.vendor == b.vendor || ignore_vendor;
        let apple = a.vendor == Some("apple");
        let arm_thumb = matches!(
            (a.arch, b.arch),
            (Some("thumb"), Some("arm"))
                | (Some("arm"), Some("thumb"))
                | (Some("thumbeb"), Some("armeb"))
                | (Some("armeb"), Some("thumbeb"))
        );
        let arch_ok = arm_thumb || a.arch == b.arch;
        if apple {
            // Apple triples ignore the environment (a version) and the object format.
            return arch_ok && a.sub_arch == b.sub_arch && a.vendor == b.vendor && a.os == b.os;
        }
        arch_ok && a.sub_arch == b.sub_arch && vendor_ok && a.os == b.os && a.env == b.env && a.format == b.format
    }

    /// LLVM's `Triple::normalize` of this triple's text.
    pub fn normalize(&self, form: TripleForm) -> String {
        normalize_triple(&self.to_string(), form)
    }
}

impl fmt::Display for Triple {
    /// The text LLVM's `Triple::str()` gives after building from four fields: always three
    /// dashes, so an empty environment leaves a trailing `-`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}-{}", self.arch, self.vendor, self.os, self.environment)
    }
}

#[rustfmt::skip]
const ARCHES: &[(&[&str], &str)] = &[
    (&["i386", "i486", "i586", "i686", "i786", "i886", "i986"], "i386"),
    (&["amd64", "x86_64", "x86_64h"], "x86_64"),
    (&["powerpc", "powerpcspe", "ppc", "ppc32"], "powerpc"),
    (&["powerpcle", "ppcle", "ppc32le"], "powerpcle"),
    (&["powerpc64", "ppu", "ppc64"], "powerpc64"),
    (&["powerpc64le", "ppc64le"], "powerpc64le"),
    (&["xscale", "arm"], "arm"),
    (&["xscaleeb", "armeb"], "armeb"),
    (&["aarch64", "arm64", "arm64e", "arm64ec"], "aarch64"),
    (&["aarch64_be"], "aarch64_be"),
    (&["aarch64_32", "arm64_32"], "aarch64_32"),
    (&["thumb"], "thumb"),
    (&["thumbeb"], "thumbeb"),
    (&["arc"], "arc"),
    (&["avr"], "avr"),
    (&["m68k"], "m68k"),
    (&["msp430"], "msp430"),
    (&["mips", "mipseb", "mipsallegrex", "mipsisa32r6", "mipsr6"], "mips"),
    (&["mipsel", "mipsallegrexel", "mipsisa32r6el", "mipsr6el"], "mipsel"),
    (&["mips64", "mips64eb", "mipsn32", "mipsisa64r6", "mips64r6", "mipsn32r6"], "mips64"),
    (&["mips64el", "mipsn32el", "mipsisa64r6el", "mips64r6el", "mipsn32r6el"], "mips64el"),
    (&["r600"], "r600"),
    (&["amdgcn"], "amdgcn"),
    (&["riscv32"], "riscv32"),
    (&["riscv64"], "riscv64"),
    (&["riscv32be"], "riscv32be"),
    (&["riscv64be"], "riscv64be"),
    (&["hexagon"], "hexagon"),
    (&["s390x", "systemz"], "s390x"),
    (&["sparc"], "sparc"),
    (&["sparcel"], "sparcel"),
    (&["sparcv9", "sparc64"], "sparcv9"),
    (&["tce"], "tce"),
    (&["tcele"], "tcele"),
    (&["xcore"], "xcore"),
    (&["nvptx"], "nvptx"),
    (&["nvptx64"], "nvptx64"),
    (&["amdil"], "amdil"),
    (&["amdil64"], "amdil64"),
    (&["hsail"], "hsail"),
    (&["hsail64"], "hsail64"),
    (&["spir"], "spir"),
    (&["spir64"], "spir64"),
    (&["spirv", "spirv1.5", "spirv1.6"], "spirv"),
    (&["spirv32"], "spirv32"),
    (&["spirv64"], "spirv64"),
    (&["lanai"], "lanai"),
    (&["renderscript32"], "renderscript32"),
    (&["renderscript64"], "renderscript64"),
    (&["shave"], "shave"),
    (&["ve"], "ve"),
    (&["wasm32"], "wasm32"),
    (&["wasm64"], "wasm64"),
    (&["csky"], "csky"),
    (&["loongarch32"], "loongarch32"),
    (&["loongarch64"], "loongarch64"),
    (&["xtensa"], "xtensa"),
];

/// LLVM's `parseArch`. ARM-family spellings (`armv7a`, `thumbv7em`, `aarch64_be`, ...) are
/// recognised by their shape rather than by LLVM's full ARM architecture table.
fn parse_arch(name: &str) -> Option<&'static str> {
    if let Some((_, canonical)) = ARCHES.iter().find(|(names, _)| names.contains(&name)) {
        return Some(canonical);
    }
    if let Some(v) = name.strip_prefix("spirv32").or_else(|| name.strip_prefix("spirv64")) {
        if is_version(v, "v1.", 0..=6) {
            return Some(if name.starts_with("spirv32") { "spirv32" } else { "spirv64" });
        }
    }
    if name == "dxil" || name.strip_prefix("dxil").is_some_and(|v| is_version(v, "v1.", 0..=9)) {
        return Some("dxil");
    }
    if name.starts_with("kalimba") {
        return Some("kalimba");
    }
    if name.starts_with("bpf") {
        return match name {
            // LLVM picks the host's byte order for plain "bpf"; every host we run on is little-endian.
            "bpf" | "bpf_le" | "bpfel" => Some("bpfel"),
            "bpf_be" | "bpfeb" => Some("bpfeb"),
            _ => None,
        };
    }
    parse_arm_family(name)
}

/// `v1.N` style suffixes with N in `range`.
fn is_version(s: &str, prefix: &str, range: core::ops::RangeInclusive<u8>) -> bool {
    s.strip_prefix(prefix)
        .and_then(|n| n.parse::<u8>().ok().filter(|_| n.len() == 1))
        .is_some_and(|n| range.contains(&n))
}

/// ARM, Thumb and AArch64 names with an architecture version: `armv7a`, `armv8.2a`,
/// `thumbv7em`, `armv7eb`, `aarch64v8`, `aarch64_lfi`.
fn parse_arm_family(name: &str) -> Option<&'static str> {
    let (family, rest) = split_arm_family(name)?;
    if family == "aarch64" && rest == "_lfi" {
        return Some("aarch64");
    }
    let (big, version) = match rest.strip_suffix("eb") {
        Some(v) if family != "aarch64" => (true, v),
        _ => (false, rest),
    };
    let bytes = version.as_bytes();
    if !(bytes.is_empty() || (bytes[0] == b'v' && bytes.get(1).is_some_and(u8::is_ascii_digit))) {
        return None;
    }
    // Thumb exists from v4 on; a v6-M core only runs Thumb.
    if family == "thumb" && (version.starts_with("v2") || version.starts_with("v3")) {
        return None;
    }
    let thumb = family == "thumb" || version == "v6m";
    Some(match (family, thumb, big) {
        ("aarch64", _, _) => "aarch64",
        (_, true, false) => "thumb",
        (_, true, true) => "thumbeb",
        (_, false, false) => "arm",
        (_, false, true) => "armeb",
    })
}

fn split_arm_family(name: &str) -> Option<(&'static str, &str)> {
    for (prefix, family) in [("aarch64", "aarch64"), ("arm64", "aarch64"), ("arm", "arm"), ("thumb", "thumb")] {
        if let Some(rest) = name.strip_prefix(prefix) {
            return Some((family, rest));
        }
    }
    None
}

/// A key standing for LLVM's sub-architecture, compared by [`Triple::is_compatible_with`].
/// For ARM it is the version text (`v7a` and `v7r` are both LLVM's `v7`, which we keep apart
/// only when spelled differently: an approximation).
fn sub_arch(name: &str) -> Option<&str> {
    if name.starts_with("mips") && (name.ends_with("r6") || name.ends_with("r6el")) {
        return Some("r6");
    }
    match name {
        "powerpcspe" => return Some("spe"),
        "arm64e" | "arm64ec" => return Some(name),
        _ => {}
    }
    if name.starts_with("spirv") || name.starts_with("dxil") {
        return name.rfind('v').map(|i| &name[i..]).filter(|v| v.starts_with("v1."));
    }
    if let Some(v) = name.strip_prefix("kalimba") {
        return (!v.is_empty()).then_some(v);
    }
    let (_, rest) = split_arm_family(name)?;
    let rest = rest.strip_suffix("eb").unwrap_or(rest);
    match rest {
        "" => None,
        "v7a" | "v7r" => Some("v7"),
        "v8a" => Some("v8"),
        "v9a" => Some("v9"),
        _ => Some(rest),
    }
}

#[rustfmt::skip]
const VENDORS: &[(&str, &str)] = &[
    ("apple", "apple"), ("pc", "pc"), ("scei", "scei"), ("sie", "scei"), ("fsl", "fsl"),
    ("ibm", "ibm"), ("img", "img"), ("mti", "mti"), ("nvidia", "nvidia"), ("csr", "csr"),
    ("amd", "amd"), ("mesa", "mesa"), ("suse", "suse"), ("oe", "oe"), ("intel", "intel"),
    ("meta", "meta"),
];

fn parse_vendor(name: &str) -> Option<&'static str> {
    VENDORS.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// Prefixes tried in order: the first that starts the field names the OS.
#[rustfmt::skip]
const OSES: &[(&str, &str)] = &[
    ("darwin", "darwin"), ("dragonfly", "dragonfly"), ("freebsd", "freebsd"),
    ("fuchsia", "fuchsia"), ("ios", "ios"), ("kfreebsd", "kfreebsd"), ("linux", "linux"),
    ("lv2", "lv2"), ("macos", "macosx"), ("managarm", "managarm"), ("netbsd", "netbsd"),
    ("openbsd", "openbsd"), ("solaris", "solaris"), ("uefi", "uefi"), ("win32", "windows"),
    ("windows", "windows"), ("zos", "zos"), ("haiku", "haiku"), ("rtems", "rtems"),
    ("aix", "aix"), ("cuda", "cuda"), ("nvcl", "nvcl"), ("amdhsa", "amdhsa"), ("ps4", "ps4"),
    ("ps5", "ps5"), ("elfiamcu", "elfiamcu"), ("tvos", "tvos"), ("watchos", "watchos"),
    ("bridgeos", "bridgeos"), ("driverkit", "driverkit"), ("xros", "xros"),
    ("visionos", "xros"), ("mesa3d", "mesa3d"), ("amdpal", "amdpal"), ("hermit", "hermit"),
    ("hurd", "hurd"), ("wasip1", "wasip1"), ("wasip2", "wasip2"), ("wasip3", "wasip3"),
    ("wasi", "wasi"), ("emscripten", "emscripten"), ("shadermodel", "shadermodel"),
    ("liteos", "liteos"), ("serenity", "serenity"), ("vulkan", "vulkan"),
    ("cheriotrtos", "cheriotrtos"),
];

fn parse_os(name: &str) -> Option<&'static str> {
    OSES.iter().find(|(p, _)| name.starts_with(p)).map(|&(_, o)| o)
}

/// Prefixes tried in order, longer spellings before the shorter ones they start with.
#[rustfmt::skip]
const ENVIRONMENTS: &[&str] = &[
    "eabihf", "eabi", "gnuabin32", "gnuabi64", "gnueabihft64", "gnueabihf", "gnueabit64",
    "gnueabi", "gnuf32", "gnuf64", "gnusf", "gnux32", "gnu_ilp32", "code16", "gnut64", "gnu",
    "android", "muslabin32", "muslabi64", "musleabihf", "musleabi", "muslf32", "muslsf",
    "muslx32", "muslwali", "musl", "msvc", "itanium", "cygnus", "coreclr", "simulator",
    "macabi", "pixel", "vertex", "geometry", "hull", "domain", "compute", "library",
    "raygeneration", "intersection", "anyhit", "closesthit", "miss", "callable", "mesh",
    "amplification", "rootsignature", "opencl", "ohos", "mlibc", "pauthtest", "mtia", "llvm",
];

fn parse_env(name: &str) -> Option<&'static str> {
    ENVIRONMENTS.iter().find(|p| name.starts_with(*p)).copied()
}

/// Object formats named at the end of the environment field (`gnu-elf` style); `xcoff`
/// is tried before `coff` because it ends with it.
fn parse_format(name: &str) -> Option<&'static str> {
    ["xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"].into_iter().find(|f| name.ends_with(f))
}

fn is_darwin(os: Option<&str>) -> bool {
    matches!(os, Some("darwin" | "macosx" | "ios" | "tvos" | "watchos" | "driverkit" | "xros" | "bridgeos"))
}

/// LLVM's `getDefaultFormat`: the object format implied by arch and OS.
fn default_format(arch: Option<&str>, os: Option<&str>) -> &'static str {
    match arch {
        None | Some("aarch64" | "aarch64_32" | "arm" | "thumb" | "i386" | "x86_64") => match os {
            Some("windows" | "uefi") => "coff",
            _ if is_darwin(os) => "macho",
            _ => "elf",
        },
        Some("mipsel") if os == Some("windows") => "coff",
        Some("powerpc" | "powerpc64") if os == Some("aix") => "xcoff",
        Some("powerpc" | "powerpc64") if is_darwin(os) => "macho",
        Some("s390x") if os == Some("zos") => "goff",
        Some("wasm32" | "wasm64") => "wasm",
        Some("spirv" | "spirv32" | "spirv64") => "spirv",
        Some("dxil") => "dxcontainer",
        _ => "elf",
    }
}

/// The fields LLVM has identified while normalizing; every parse attempt overwrites them,
/// failed ones included, exactly as LLVM's loop does.
#[derive(Default)]
struct Found {
    arch: Option<&'static str>,
    vendor: Option<&'static str>,
    os: Option<&'static str>,
    env: Option<&'static str>,
    format: Option<&'static str>,
    cygwin: bool,
    mingw: bool,
}

impl Found {
    /// Tries `comp` for field `pos` (0 arch, 1 vendor, 2 OS, 3 environment).
    fn try_field(&mut self, pos: usize, comp: &str) -> bool {
        match pos {
            0 => {
                self.arch = parse_arch(comp);
                self.arch.is_some()
            }
            1 => {
                self.vendor = parse_vendor(comp);
                self.vendor.is_some()
            }
            2 => {
                self.os = parse_os(comp);
                self.cygwin = comp.starts_with("cygwin");
                self.mingw = comp.starts_with("mingw");
                self.os.is_some() || self.cygwin || self.mingw
            }
            _ => {
                self.env = parse_env(comp);
                if self.env.is_some() {
                    return true;
                }
                self.format = parse_format(comp);
                self.format.is_some()
            }
        }
    }
}

/// LLVM's `Triple::normalize`: moves recognised fields to their places (arch, vendor, OS,
/// environment), fills gaps with `unknown` and applies LLVM's special cases (windows, mingw,
/// cygwin, android, SUSE, DXIL versions). `form` pads or cuts the result to that many fields.
pub fn normalize_triple(s: &str, form: TripleForm) -> String {
    let mut comps: Vec<&str> = s.split('-').collect();
    // First each field in its own place; these stay put. An OS spelled mingw/cygwin and an
    // object format in the environment's place do not count as found yet.
    let mut f = Found {
        arch: comps.first().and_then(|c| parse_arch(c)),
        vendor: comps.get(1).and_then(|c| parse_vendor(c)),
        os: comps.get(2).and_then(|c| parse_os(c)),
        env: comps.get(3).and_then(|c| parse_env(c)),
        format: comps.get(4).and_then(|c| parse_format(c)),
        cygwin: comps.get(2).is_some_and(|c| c.starts_with("cygwin")),
        mingw: comps.get(2).is_some_and(|c| c.starts_with("mingw")),
    };
    let mut fixed = [f.arch.is_some(), f.vendor.is_some(), f.os.is_some(), f.env.is_some()];
    for pos in 0..4 {
        if fixed[pos] {
            continue;
        }
        let candidate = (0..comps.len()).find(|&idx| !(idx < 4 && fixed[idx]) && f.try_field(pos, comps[idx]));
        if let Some(idx) = candidate {
            move_component(&mut comps, &fixed, idx, pos);
            fixed[pos] = true;
        }
    }
    finish_normalize(comps, &fixed, &f, form)
}

/// Moves `comps[idx]` to `pos`, shifting the non-fixed fields in between as LLVM does.
fn move_component(comps: &mut Vec<&str>, fixed: &[bool; 4], mut idx: usize, pos: usize) {
    let is_fixed = |i: usize| i < 4 && fixed[i];
    if pos < idx {
        // Insert at `pos`, pushing what is there to the right until an empty slot takes it.
        let mut current = core::mem::take(&mut comps[idx]);
        let mut i = pos;
        while !current.is_empty() && i < comps.len() {
            while is_fixed(i) {
                i += 1;
            }
            if let Some(slot) = comps.get_mut(i) {
                core::mem::swap(&mut current, slot);
            }
            i += 1;
        }
    } else if pos > idx {
        // Insert empty fields before `idx` until the field reaches `pos`.
        loop {
            let mut current = "";
            let mut i = idx;
            while i < comps.len() {
                core::mem::swap(&mut current, &mut comps[i]);
                if current.is_empty() {
                    break;
                }
                i += 1;
                while is_fixed(i) {
                    i += 1;
                }
            }
            if !current.is_empty() {
                comps.push(current);
            }
            idx += 1;
            while is_fixed(idx) {
                idx += 1;
            }
            if idx >= pos {
                break;
            }
        }
    }
}

fn finish_normalize(comps: Vec<&str>, fixed: &[bool; 4], f: &Found, form: TripleForm) -> String {
    let mut comps: Vec<String> = comps.into_iter().map(String::from).collect();
    // "arm-none-eabi": a lone "none" between arch and environment is the OS.
    if fixed[0] && !fixed[1] && !fixed[2] && fixed[3] && comps.len() > 2 && comps[1] == "none" && comps[2].is_empty() {
        comps.swap(1, 2);
    }
    for c in comps.iter_mut().filter(|c| c.is_empty()) {
        *c = "unknown".into();
    }
    if f.env == Some("android") {
        if let Some(version) = comps.get(3).and_then(|c| c.strip_prefix("androideabi")) {
            comps[3] = format!("android{version}");
        }
    }
    if f.vendor == Some("suse") && f.env == Some("gnueabi") {
        if let Some(c) = comps.get_mut(3) {
            *c = "gnueabihf".into();
        }
    }
    windows_fields(&mut comps, f);
    dxil_fields(&mut comps, f);
    let wanted = match form {
        TripleForm::Any => comps.len(),
        TripleForm::Three => 3,
        TripleForm::Four => 4,
        TripleForm::Five => 5,
    };
    comps.resize(wanted, "unknown".into());
    comps.join("-")
}

fn windows_fields(comps: &mut Vec<String>, f: &Found) {
    let win32 = f.os == Some("windows");
    if win32 {
        comps.resize(4, String::new());
        comps[2] = "windows".into();
        if f.env.is_none() {
            comps[3] = match f.format {
                None | Some("coff") => "msvc".into(),
                Some(other) => other.into(),
            };
        }
    } else if f.mingw {
        comps.resize(4, String::new());
        comps[2] = "windows".into();
        comps[3] = "gnu".into();
    } else if f.cygwin {
        comps.resize(4, String::new());
        comps[2] = "windows".into();
        comps[3] = "cygnus".into();
    }
    if f.mingw || f.cygwin || (win32 && f.env.is_some()) {
        if let Some(format) = f.format.filter(|&x| x != "coff") {
            comps.resize(5, String::new());
            comps[4] = format.into();
        }
    }
}

/// DXIL triples take their DXIL version from the shader model (`shadermodel6.3` gives
/// `dxilv1.3`; `6.x` the latest, 1.9). LLVM 22 aborts on 6.10 and later; we write `dxilv1.0`.
fn dxil_fields(comps: &mut Vec<String>, f: &Found) {
    if comps[0] != "dxil" {
        return;
    }
    comps.truncate(4);
    if f.os != Some("shadermodel") {
        return;
    }
    let model = comps.get(2).and_then(|c| c.strip_prefix("shadermodel")).unwrap_or("");
    let minor = if model == "6.x" {
        Some(9)
    } else {
        model
            .strip_prefix("6.")
            .and_then(|m| m.split('.').next())
            .and_then(|m| m.parse::<u8>().ok())
            .filter(|m| *m <= 9)
    };
    comps[0] = format!("dxilv1.{}", minor.unwrap_or(0));
}

// ---------------------------------------------------------------------------------------------
// Entry IDs
// ---------------------------------------------------------------------------------------------

/// The offload kinds clang-offload-bundler 22 accepts (`cuda`, `sycl` are refused).
pub const OFFLOAD_KINDS: &[&str] = &["host", "openmp", "hip", "hipv4"];

/// A bundle entry ID, taken apart as clang-offload-bundler 22 takes it apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryId {
    pub kind: String,
    pub triple: Triple,
    /// Everything after the fifth `-`, as written; `None` when the ID has only five fields.
    pub last: Option<String>,
    /// Byte offsets of kind, arch, vendor, os, environment and `last` in the parsed text.
    offsets: [usize; 6],
}

impl EntryId {
    /// Splits an entry ID as the bundler does. Fails only where the bundler fails to split
    /// (fewer than four `-`); kinds and triples it would refuse later are reported by
    /// [`EntryId::kind_is_valid`] and [`EntryId::triple_is_valid`].
    pub fn parse(s: &str) -> Result<EntryId> {
        let mut offsets = [0usize; 6];
        let mut fields: Vec<&str> = Vec::with_capacity(6);
        let mut start = 0;
        for (n, piece) in s.splitn(6, '-').enumerate() {
            offsets[n] = start;
            fields.push(piece);
            start += piece.len() + 1;
        }
        if fields.len() < 5 {
            return Err(Error::new(
                s.len() as u64,
                ENTRY_ID_CONTEXT,
                "<offload kind>-<arch>-<vendor>-<os>-<env>[-<target id>] (at least four '-')",
                format!("{} '-' in '{s}'", fields.len() - 1),
            ));
        }
        Ok(EntryId {
            kind: fields[0].into(),
            triple: Triple {
                arch: fields[1].into(),
                vendor: fields[2].into(),
                os: fields[3].into(),
                environment: fields[4].into(),
            },
            last: fields.get(5).map(|l| l.to_string()),
            offsets,
        })
    }

    pub fn is_host(&self) -> bool {
        self.kind == "host"
    }

    /// Whether clang-offload-bundler 22 accepts the offload kind (case-sensitive).
    pub fn kind_is_valid(&self) -> bool {
        OFFLOAD_KINDS.contains(&self.kind.as_str())
    }

    pub fn triple_is_valid(&self) -> bool {
        self.triple.is_valid()
    }

    /// The target ID as the bundler keeps it: the last field when the text before its
    /// first `:` is a processor LLVM 22 knows. Kept verbatim, even when malformed.
    pub fn target_id(&self) -> Option<&str> {
        let last = self.last.as_deref()?;
        let processor = last.split(':').next().unwrap_or("");
        known_processor(processor).map(|_| last)
    }

    /// The last field when the bundler throws it away (unknown processor).
    pub fn ignored_field(&self) -> Option<&str> {
        // An empty last field is what the bundler itself writes after a host triple.
        self.last.as_deref().filter(|l| !l.is_empty() && self.target_id().is_none())
    }

    /// The target ID, parsed (syntax only); `None` when the entry has none.
    pub fn parsed_target_id(&self) -> Option<Result<TargetId>> {
        let at = self.offsets[5] as u64;
        self.target_id().map(|t| TargetId::parse(t).map_err(|e| e.shifted(at)))
    }

    /// The ID clang-offload-bundler 22 writes for this one: `<kind>-<triple>-<target id>`
    /// with a 4-field normalized triple (3 fields and an empty environment for `amdhsa`),
    /// the target ID verbatim or empty. `host-x86_64-unknown-linux-gnu` gives
    /// `host-x86_64-unknown-linux-gnu-`; `hip-amdgcn-amd-amdhsa-gfx906` gives
    /// `hip-amdgcn-amd-amdhsa--` (the processor was read as the environment).
    pub fn standardized(&self) -> String {
        let triple = if self.triple.is_amdhsa() {
            let mut t = self.triple.normalize(TripleForm::Three);
            t.push('-');
            t
        } else {
            self.triple.normalize(TripleForm::Four)
        };
        format!("{}-{}-{}", self.kind, triple, self.target_id().unwrap_or(""))
    }

    /// The triple as written, without a trailing `-` for an empty environment.
    pub fn triple_text(&self) -> String {
        let t = self.triple.to_string();
        match t.strip_suffix('-') {
            Some(short) => short.into(),
            None => t,
        }
    }

    /// `kind-arch-vendor-os-env` as written: the bundler's key for grouping target IDs.
    fn group_key(&self) -> String {
        format!("{}-{}", self.kind, self.triple)
    }
}

/// Whether bundle entry `entry` serves a request for `requested` when unbundling, as
/// clang-offload-bundler 22 decides without `--hip-openmp-compatible`. See the module
/// documentation for the rule and its direction.
pub fn compatible(entry: &EntryId, requested: &EntryId) -> bool {
    compatible_with(entry, requested, false)
}

/// [`compatible`], with `hip_openmp_compatible` standing for `--hip-openmp-compatible`
/// (then `hip*` kinds and `openmp` serve each other).
pub fn compatible_with(entry: &EntryId, requested: &EntryId, hip_openmp_compatible: bool) -> bool {
    let entry_tid = entry.target_id().unwrap_or("");
    let requested_tid = requested.target_id().unwrap_or("");
    if entry.kind == requested.kind && entry.triple.is_compatible_with(&requested.triple) && entry_tid == requested_tid
    {
        return true;
    }
    if !kinds_compatible(&entry.kind, &requested.kind, hip_openmp_compatible)
        || !entry.triple.is_compatible_with(&requested.triple)
    {
        return false;
    }
    let (Some(ours), Some(theirs)) =
        (target_id_for(&entry.triple, entry_tid), target_id_for(&requested.triple, requested_tid))
    else {
        return false;
    };
    ours.processor == theirs.processor
        && ours.features.len() <= theirs.features.len()
        && ours.features.iter().all(|(name, on)| theirs.features.iter().any(|(n, o)| n == name && o == on))
}

fn kinds_compatible(entry: &str, requested: &str, hip_openmp: bool) -> bool {
    let hip = |k: &str| k == "hip" || k == "hipv4";
    if entry == requested || (hip(entry) && hip(requested)) {
        return true;
    }
    // Bytes, not a string slice: a kind may start with a multi-byte character.
    let starts_hip = |k: &str| k.as_bytes().get(..3).is_some_and(|p| p.eq_ignore_ascii_case(b"hip"));
    hip_openmp && ((starts_hip(entry) && requested == "openmp") || (entry == "openmp" && starts_hip(requested)))
}

/// A target ID as LLVM's `parseTargetID` reads it for a triple, quirks included: empty IDs
/// and unknown processors fail; on `amdgcn` the processor is canonicalized and features
/// must be supported; elsewhere any feature fails.
struct LlvmTargetId<'a> {
    processor: &'a str,
    features: Vec<(&'a str, bool)>,
}

fn target_id_for<'a>(triple: &Triple, tid: &'a str) -> Option<LlvmTargetId<'a>> {
    let parsed = llvm_format_parse(tid);
    if !parsed.ok {
        return None;
    }
    let processor = parsed.processor?;
    let (processor, allowed) = if triple.is_amdgcn() {
        let canonical = canonical_amdgcn_processor(processor)?;
        (canonical, amdgcn_features(canonical))
    } else if parse_arch(&triple.arch) == Some("r600") {
        // r600 names (cypress, ...) are never offload architectures, so never kept as IDs.
        return None;
    } else {
        (processor, NONE)
    };
    if processor.is_empty() || parsed.features.iter().any(|(f, _)| !allowed.contains(f)) {
        return None;
    }
    Some(LlvmTargetId { processor, features: parsed.features })
}

/// LLVM's format-only target-ID parse, reproduced with its quirks: an empty ID is a valid
/// empty processor; a trailing `:` adds nothing; `:+` is a feature with an empty name; an
/// empty feature between two colons fails. On failure the features read so far are kept,
/// because the bundler's conflict check goes on using them.
struct LlvmParse<'a> {
    processor: Option<&'a str>,
    features: Vec<(&'a str, bool)>,
    ok: bool,
}

fn llvm_format_parse(tid: &str) -> LlvmParse<'_> {
    let mut out = LlvmParse { processor: None, features: Vec::new(), ok: false };
    if tid.is_empty() {
        out.processor = Some("");
        out.ok = true;
        return out;
    }
    let (processor, mut rest) = tid.split_once(':').unwrap_or((tid, ""));
    if processor.is_empty() {
        return out;
    }
    let mut seen = BTreeSet::new();
    while !rest.is_empty() {
        let (piece, next) = rest.split_once(':').unwrap_or((rest, ""));
        let on = match piece.as_bytes().last() {
            Some(b'+') => true,
            Some(b'-') => false,
            _ => return out,
        };
        let name = &piece[..piece.len() - 1];
        if !seen.insert(name) {
            return out;
        }
        out.features.push((name, on));
        rest = next;
    }
    out.processor = Some(processor);
    out.ok = true;
    out
}

/// The entry of `entries` that serves `requested`: the one with exactly the requested ID (as
/// the bundler writes it), else the first compatible one in the order given. Unparsable IDs
/// are skipped.
///
/// clang-offload-bundler 22 has no exact-match preference: it takes the first compatible
/// entry in the order it reads them, which is file order for text bundles and a hash order
/// for binary bundles. With entries `gfx90a`, `gfx90a:xnack+` and a request for
/// `gfx90a:xnack+` it extracts `gfx90a` (text bundle in that order, and binary bundles in
/// either order), where this function returns `gfx90a:xnack+`.
pub fn find_entry<'a>(entries: &[&'a str], requested: &EntryId, hip_openmp_compatible: bool) -> Option<&'a str> {
    let exact = requested.standardized();
    entries.iter().copied().find(|id| *id == exact).or_else(|| {
        entries
            .iter()
            .copied()
            .find(|id| EntryId::parse(id).is_ok_and(|e| compatible_with(&e, requested, hip_openmp_compatible)))
    })
}

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

/// A composition rule of a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The ID cannot be split into kind, triple and target ID.
    Malformed,
    UnknownOffloadKind,
    UnknownTriple,
    /// The same ID text twice.
    DuplicateTarget,
    /// Different spellings that the bundler writes as the same entry ID.
    DuplicateEntryId,
    /// Not exactly one host entry (allowed when every entry is `hip`/`hipv4`).
    HostCount,
    /// A processor named with a feature in one entry and without it in another.
    ConflictingTargetIds,
    /// A target ID that does not follow the target-ID grammar.
    MalformedTargetId,
}

/// A rule broken by a set of entry IDs. `entries` are indices into the checked list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub entries: Vec<usize>,
    pub message: String,
    /// Whether clang-offload-bundler 22 refuses to bundle because of it.
    pub rejected_by_bundler: bool,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn violation(rule: Rule, entries: Vec<usize>, message: String, rejected_by_bundler: bool) -> Violation {
    Violation { rule, entries, message, rejected_by_bundler }
}

const FORMAT_MESSAGE: &str = "Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.";

/// The error clang-offload-bundler 22 prints when asked to bundle `ids` (in that order), or
/// `None` when it accepts them. Checks run in the bundler's order and the first failure wins.
pub fn bundler_error(ids: &[&str]) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut parsed = Vec::with_capacity(ids.len());
    for id in ids {
        if !seen.insert(*id) {
            return Some("Duplicate targets are not allowed".into());
        }
        let Ok(e) = EntryId::parse(id) else {
            return Some(FORMAT_MESSAGE.into());
        };
        if !e.kind_is_valid() || !e.triple_is_valid() {
            return Some(invalid_target_message(id, &e));
        }
        parsed.push(e);
    }
    for (key, tids) in &bundler_groups(parsed.iter().enumerate()) {
        if let Some((a, b)) = bundler_conflict(tids.keys().copied()) {
            return Some(format!("Cannot bundle inputs with conflicting targets: '{key}-{a}' and '{key}-{b}'"));
        }
    }
    let hosts = parsed.iter().filter(|e| e.is_host()).count();
    let hip_only = parsed.iter().all(|e| e.kind == "hip" || e.kind == "hipv4");
    (hosts != 1 && !hip_only).then(|| format!("expecting exactly one host target but got {hosts}"))
}

fn invalid_target_message(id: &str, e: &EntryId) -> String {
    let mut msg = format!("invalid target '{id}'");
    if !e.kind_is_valid() {
        msg += &format!(", unknown offloading kind '{}'", e.kind);
    }
    if !e.triple_is_valid() {
        msg += &format!(", unknown target triple '{}'", e.triple);
    }
    msg
}

/// The bundler's grouping: by kind and triple *as written*, then target ID text (empty when
/// absent), each with the index of its first entry.
fn bundler_groups<'e>(
    entries: impl Iterator<Item = (usize, &'e EntryId)>,
) -> BTreeMap<String, BTreeMap<&'e str, usize>> {
    let mut groups: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    for (i, e) in entries {
        groups.entry(e.group_key()).or_default().entry(e.target_id().unwrap_or("")).or_insert(i);
    }
    groups
}

/// LLVM 22's `getConflictTargetIDCombination`: in byte order, each ID is compared with the
/// first ID seen for its processor, and conflicts only if it names a feature that one does
/// not. A malformed ID in LLVM dereferences an empty optional; in practice the processor of
/// the previous ID is reused (observed, and reproduced here), with the features read so far.
fn bundler_conflict<'a>(tids: impl Iterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let mut first: BTreeMap<&str, (&str, BTreeSet<&str>)> = BTreeMap::new();
    let mut stale: Option<&str> = None;
    for id in tids {
        let parsed = llvm_format_parse(id);
        let processor = match (parsed.ok, parsed.processor, stale) {
            (true, Some(p), _) => {
                stale = Some(p);
                p
            }
            (false, _, Some(p)) => p,
            // Before any successful parse the value is stack garbage: assume it matches nothing.
            _ => continue,
        };
        let names: BTreeSet<&str> = parsed.features.iter().map(|(n, _)| *n).collect();
        match first.get(processor) {
            None => {
                first.insert(processor, (id, names));
            }
            Some((first_id, first_names)) => {
                if names.iter().any(|n| !first_names.contains(n)) {
                    return Some((first_id, id));
                }
            }
        }
    }
    None
}

/// Every composition rule `ids` breaks, documented rules included, each naming its entries
/// and saying whether clang-offload-bundler 22 refuses the bundle because of it. The list is
/// empty exactly when the bundle follows the documented rules; the bundler refuses it exactly
/// when some violation has `rejected_by_bundler`.
pub fn check_composition(ids: &[&str]) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut entries: Vec<(usize, EntryId)> = Vec::with_capacity(ids.len());
    let mut first_index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, id) in ids.iter().enumerate() {
        if let Some(&j) = first_index.get(id) {
            let msg = format!("entries {j} and {i} are both '{id}'; each entry needs its own ID");
            out.push(violation(Rule::DuplicateTarget, alloc::vec![j, i], msg, true));
            continue;
        }
        first_index.insert(id, i);
        match EntryId::parse(id) {
            Ok(e) => {
                check_entry(i, id, &e, &mut out);
                entries.push((i, e));
            }
            Err(err) => out.push(violation(
                Rule::Malformed,
                alloc::vec![i],
                format!("entry {i} '{id}' is not an entry ID: {err}"),
                true,
            )),
        }
    }
    let valid: Vec<&(usize, EntryId)> =
        entries.iter().filter(|(_, e)| e.kind_is_valid() && e.triple_is_valid()).collect();
    check_same_standardized(ids, &valid, &mut out);
    check_hosts(&valid, &mut out);
    check_conflicts(ids, &valid, &mut out);
    out
}

fn check_entry(i: usize, id: &str, e: &EntryId, out: &mut Vec<Violation>) {
    if !e.kind_is_valid() {
        let msg = format!("entry {i} '{id}': offload kind '{}' is not one of host, openmp, hip, hipv4", e.kind);
        out.push(violation(Rule::UnknownOffloadKind, alloc::vec![i], msg, true));
    }
    if !e.triple_is_valid() {
        let msg = format!("entry {i} '{id}': '{}' is not an architecture LLVM 22 knows", e.triple.arch);
        out.push(violation(Rule::UnknownTriple, alloc::vec![i], msg, true));
    }
    if let Some(Err(err)) = e.parsed_target_id() {
        let msg = format!("entry {i} '{id}': malformed target ID: expected {}, found {}", err.expected, err.found);
        out.push(violation(Rule::MalformedTargetId, alloc::vec![i], msg, false));
    }
}

fn check_same_standardized(ids: &[&str], valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in valid.iter().map(|(i, e)| (*i, e)) {
        let standard = e.standardized();
        if let Some(&j) = first.get(&standard) {
            let msg = format!(
                "entries {j} '{}' and {i} '{}' are both written as '{standard}'; the bundler accepts this and writes two entries with one ID",
                ids[j], ids[i]
            );
            out.push(violation(Rule::DuplicateEntryId, alloc::vec![j, i], msg, false));
        } else {
            first.insert(standard, i);
        }
    }
}

fn check_hosts(valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let hosts: Vec<usize> = valid.iter().filter(|(_, e)| e.is_host()).map(|(i, _)| *i).collect();
    let hip_only = valid.iter().all(|(_, e)| e.kind == "hip" || e.kind == "hipv4");
    if hosts.len() == 1 || (hosts.is_empty() && hip_only) {
        return;
    }
    let msg = if hosts.is_empty() {
        "no host entry; a bundle needs exactly one unless every entry is hip or hipv4".to_string()
    } else {
        let list: Vec<String> = hosts.iter().map(|i| i.to_string()).collect();
        format!("{} host entries (entries {}); a bundle needs exactly one", hosts.len(), list.join(", "))
    };
    out.push(violation(Rule::HostCount, hosts, msg, true));
}

/// The documented rule: for one processor, within one kind and triple, every entry names
/// the same features. Each offending entry is reported against the first for its processor.
fn check_conflicts(ids: &[&str], valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let llvm_groups = bundler_groups(valid.iter().map(|(i, e)| (*i, e)));
    let refused: BTreeMap<&String, (usize, usize)> = llvm_groups
        .iter()
        .filter_map(|(key, tids)| bundler_conflict(tids.keys().copied()).map(|(a, b)| (key, (tids[a], tids[b]))))
        .collect();
    let groups: BTreeMap<usize, String> = valid.iter().map(|(i, e)| (*i, e.group_key())).collect();
    let group_of = |i: usize| groups.get(&i).cloned();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    // (standardized kind-triple, processor) -> (index, feature names) of the first entry.
    let mut first: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    for (i, e) in valid.iter().map(|(i, e)| (*i, e)) {
        let Some(Ok(tid)) = e.parsed_target_id() else { continue };
        let prefix = e.standardized();
        let prefix = prefix.strip_suffix(e.target_id().unwrap_or("")).unwrap_or(&prefix).to_string();
        let mut names: Vec<String> = tid.features.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        match first.get(&(prefix.clone(), tid.processor.clone())) {
            None => {
                first.insert((prefix, tid.processor), (i, names));
            }
            Some((j, first_names)) if *first_names != names => {
                let (j, key_i) = (*j, group_of(i));
                let rejected =
                    key_i.is_some() && key_i == group_of(j) && key_i.as_ref().is_some_and(|k| refused.contains_key(k));
                if rejected {
                    reported.extend(key_i);
                }
                let msg = conflict_message(ids, j, first_names, i, &names, &tid.processor, rejected);
                out.push(violation(Rule::ConflictingTargetIds, alloc::vec![j, i], msg, rejected));
            }
            Some(_) => {}
        }
    }
    // Conflicts only LLVM's reading finds (malformed target IDs): still the bundler's refusal.
    for (key, (a, b)) in refused {
        if !reported.contains(key) {
            let msg = format!(
                "clang-offload-bundler 22 refuses entries {a} '{}' and {b} '{}' as conflicting target IDs",
                ids[a], ids[b]
            );
            out.push(violation(Rule::ConflictingTargetIds, alloc::vec![a, b], msg, true));
        }
    }
}

fn conflict_message(
    ids: &[&str],
    j: usize,
    first: &[String],
    i: usize,
    names: &[String],
    processor: &str,
    rejected: bool,
) -> String {
    let describe = |n: &[String]| {
        if n.is_empty() {
            "no feature".to_string()
        } else {
            n.join(" and ")
        }
    };
    let verdict = if rejected {
        "clang-offload-bundler 22 refuses this bundle"
    } else {
        "clang-offload-bundler 22 does not notice"
    };
    format!(
        "entries {j} '{}' and {i} '{}' set different features for {processor} ({} versus {}): for one processor every entry must set the same features, the others being Any; {verdict}",
        ids[j],
        ids[i],
        describe(first),
        describe(names)
    )
}

// ---------------------------------------------------------------------------------------------
// Diagnostics for the tree
// ---------------------------------------------------------------------------------------------

/// What a reader of entry ID `id` should know: refusals (error), IDs whose target ID is lost
/// or can never be matched (warning), non-canonical target IDs and non-standard spellings
/// (notes and warnings). `span` is where the ID text is, if known; each diagnostic points at
/// the part of the ID it is about.
pub fn entry_id_diagnostics(id: &str, span: Option<Span>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |offset: usize, len: usize| span.map(|s| s.sub(offset as u64, len as u64));
    let e = match EntryId::parse(id) {
        Ok(e) => e,
        Err(err) => {
            let msg = format!("'{id}' is not a bundle entry ID: expected {}, found {}", err.expected, err.found);
            out.push(diagnostic(Severity::Error, msg, span));
            return out;
        }
    };
    let mut push = |severity, message: String, where_: Option<Span>| out.push(diagnostic(severity, message, where_));
    if !e.kind_is_valid() {
        let msg = format!(
            "offload kind '{}' is refused by clang-offload-bundler 22, which accepts host, openmp, hip and hipv4",
            e.kind
        );
        push(Severity::Error, msg, at(e.offsets[0], e.kind.len()));
    }
    if !e.triple_is_valid() {
        let msg = format!(
            "'{}' is not an architecture LLVM 22 knows; clang-offload-bundler 22 refuses this entry",
            e.triple.arch
        );
        push(Severity::Error, msg, at(e.offsets[1], e.triple.arch.len()));
    }
    let env_span = at(e.offsets[4], e.triple.environment.len());
    if let Some(msg) = processor_in_environment(&e) {
        push(Severity::Warning, msg, env_span);
    }
    let last_span = e.last.as_ref().and_then(|l| at(e.offsets[5], l.len()));
    if let Some(ignored) = e.ignored_field() {
        let msg = format!(
            "'{ignored}' does not start with a processor LLVM 22 knows{}; clang-offload-bundler 22 drops it and writes '{}'",
            did_you_mean(ignored.split(':').next().unwrap_or("")),
            e.standardized()
        );
        push(Severity::Warning, msg, last_span);
    }
    for (severity, msg) in target_id_findings(&e) {
        push(severity, msg, last_span);
    }
    let standard = e.standardized();
    if standard != id && e.kind_is_valid() && e.triple_is_valid() {
        push(Severity::Note, format!("clang-offload-bundler 22 writes this ID as '{standard}'"), span);
    }
    out
}

fn diagnostic(severity: Severity, message: String, span: Option<Span>) -> Diagnostic {
    Diagnostic { severity, message, span }
}

/// `hip-amdgcn-amd-amdhsa-gfx906`: five fields, so the processor lands in the environment.
fn processor_in_environment(e: &EntryId) -> Option<String> {
    let env = &e.triple.environment;
    let processor = env.split(':').next().unwrap_or("");
    if e.last.is_some() || known_processor(processor).is_none() {
        return None;
    }
    let triple = format!("{}-{}-{}", e.triple.arch, e.triple.vendor, e.triple.os);
    Some(format!(
        "'{env}' is read as the environment of a 3-field triple, so this entry has no target ID (clang-offload-bundler 22 writes '{}'); write '{}-{triple}--{env}'",
        e.standardized(),
        e.kind
    ))
}

fn did_you_mean(processor: &str) -> String {
    if let Some(p) = PROCESSORS.iter().find(|p| p.name.eq_ignore_ascii_case(processor)) {
        return format!(" (did you mean '{}'?)", p.name);
    }
    if let Some(c) = canonical_amdgcn_processor(processor) {
        return format!(" ('{processor}' is an old name of {c}, which the bundler does not accept)");
    }
    String::new()
}

/// Problems of a kept target ID: malformed, features the processor lacks, a processor for
/// another kind of triple, non-canonical order.
fn target_id_findings(e: &EntryId) -> Vec<(Severity, String)> {
    let mut out = Vec::new();
    let Some(text) = e.target_id() else { return out };
    let tid = match TargetId::parse(text) {
        Ok(t) => t,
        Err(err) => {
            let msg = format!(
                "target ID '{text}' is malformed (expected {}, found {}); the bundler keeps it verbatim but only an identical request finds it",
                err.expected, err.found
            );
            out.push((Severity::Warning, msg));
            return out;
        }
    };
    if let Some(msg) = processor_mismatch(e, &tid) {
        out.push((Severity::Warning, msg));
    }
    if !tid.is_canonical() {
        out.push((
            Severity::Warning,
            format!("target ID '{text}' is not canonical (features in alphabetical order): '{}'", tid.canonical()),
        ));
    }
    out
}

fn processor_mismatch(e: &EntryId, tid: &TargetId) -> Option<String> {
    let p = known_processor(&tid.processor)?;
    let amdgcn = e.triple.is_amdgcn();
    if amdgcn && canonical_amdgcn_processor(p.name).is_none() {
        return Some(format!(
            "'{}' is not an AMD GPU, but the triple is amdgcn; only an identical request finds this entry",
            p.name
        ));
    }
    if !amdgcn && !tid.features.is_empty() {
        return Some(format!(
            "target features are only understood on amdgcn triples; only an identical request finds '{tid}'"
        ));
    }
    let unsupported: Vec<&str> =
        tid.features.iter().map(|(n, _)| n.as_str()).filter(|n| amdgcn && !p.features.contains(n)).collect();
    (!unsupported.is_empty()).then(|| {
        format!(
            "{} has no feature {} (it supports {}); only an identical request finds this entry",
            p.name,
            unsupported.join(", "),
            list_or_none(p.features)
        )
    })
}

/// Adds to a bundle-entry node the fields of its ID (`offload_kind`, `triple`, `target_id`,
/// `processor`, `features`) and the diagnostics of [`entry_id_diagnostics`]. Diagnostics
/// point into the span of the node's `id` field when it has one.
pub fn annotate_entry_id(node: &mut Node, id: &str) {
    let id_span = node.fields.iter().find(|f| f.name == "id").and_then(|f| f.span);
    if let Ok(e) = EntryId::parse(id) {
        node.field("offload_kind", e.kind.as_str(), None);
        node.field("triple", e.triple_text(), None);
        if let Some(tid) = e.target_id() {
            let (processor, features) = tid.split_once(':').unwrap_or((tid, ""));
            node.field("target_id", tid, None);
            node.field("processor", processor, None);
            node.field("features", features, None);
        }
    }
    node.diagnostics.extend(entry_id_diagnostics(id, id_span));
}

#[cfg(test)]
mod tests {
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
        assert!(m.iter().any(|(s, t)| *s == Severity::Error && t.contains("offload kind 'cuda'")), "{m:?}");
        let m = messages("host-bar-unknown-linux-gnu");
        assert!(m.iter().any(|(s, t)| *s == Severity::Error && t.contains("'bar'")), "{m:?}");
        let m = messages("nonsense");
        assert_eq!(m[0].0, Severity::Error);
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
            vec![(
                Severity::Note,
                "clang-offload-bundler 22 writes this ID as 'host-x86_64-unknown-linux-gnu-'".into()
            )]
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
}
