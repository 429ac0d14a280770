//! Target triples as LLVM's `Triple` reads and normalizes them.

use super::*;

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
pub(super) fn parse_arch(name: &str) -> Option<&'static str> {
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
