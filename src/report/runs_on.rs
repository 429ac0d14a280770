//! "Runs on": which GPUs an explored file can run on, one line per distinct target, grouped by
//! vendor, and the answer to "is gfx1201 in here?" / "sm_89?".
//!
//! A line gathers every device image built for one target, however many bundles, offload
//! binaries or fatbins carry it (a library of 27 translation units has 27 `gfx90a` images, one
//! line). Targets are named as people ask for them:
//!
//! | images | line | example |
//! |---|---|---|
//! | AMD GPU (`amdgcn` triple) | target ID in canonical form | `gfx90a:xnack+`, `gfx11-generic` |
//! | AMD SPIR-V (`spirv64-amd-amdhsa`) | processor | `amdgcnspirv` |
//! | NVIDIA cubin, or bitcode for an `sm_NN` | `sm_NN` | `sm_80`, `sm_90a` |
//! | NVIDIA PTX | `compute_NN` | `compute_80` |
//! | anything else | triple (and processor, when one is named) | `spirv64-unknown-unknown`, `x86_64-unknown-linux-gnu` |
//!
//! # Who runs what ([`query`])
//!
//! * AMD (LLVM's target-ID rules, `isCompatibleTargetID`): an image serves a GPU of the same
//!   processor when every feature the image sets (`xnack+`, `sramecc-`) is set the same way on
//!   the GPU; a feature the image leaves out accepts either setting. A question that leaves a
//!   feature out gets "compatible when xnack is on". A generic target (`gfx11-generic`) serves
//!   each processor of its family ([`crate::ids::AMDGPU_GENERIC_FAMILIES`]).
//! * NVIDIA cubins: a cubin for `sm_XY` runs on GPUs of the same major version `X` and a minor
//!   version at least `Y` (`sm_80` runs on `sm_86`, not on `sm_90`); an arch-specific cubin
//!   (`sm_90a`) runs only on that GPU (`sm_90`); a family-specific one (`sm_100f`) like a plain
//!   cubin.
//! * NVIDIA PTX: the driver compiles `compute_XY` at load time for any GPU `sm_XY` or newer;
//!   arch-specific PTX (`compute_90a`) only for that GPU, family-specific (`compute_100f`) only
//!   for its family (same major version).

use crate::ids::{generic_family_of, generic_members, ProcessorVendor, TargetId, PROCESSORS};
use crate::report::targets::{self, target_name, vendor_of, Target, Vendor};
use crate::tree::{Node, NodeKind, Tree};
use crate::util::sort;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// How a line's images reach a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reach {
    /// Machine code for the named GPU (an AMDGPU code object, a cubin).
    Native,
    /// One code object for a family of AMD GPUs (`gfx11-generic`).
    Generic,
    /// PTX, compiled by the NVIDIA driver at load time.
    Ptx,
    /// SPIR-V, compiled for the GPU at load time by its runtime.
    SpirV,
    /// LLVM bitcode: linked into machine code at device link time (`-fgpu-rdc`, LTO), never
    /// loaded as it is.
    Bitcode,
    /// Anything else (a host CPU image, an unknown format).
    Other,
}

/// One distinct target of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunsOnLine {
    pub vendor: Vendor,
    /// The target as people name it (see the module's table): `gfx90a:xnack+`, `sm_80`.
    pub target: String,
    /// How many device images are built for it.
    pub images: usize,
    /// Their total size, decompressed.
    pub bytes: u64,
    pub reach: Reach,
    /// The image formats found (`AMDGPU code object`, `CUDA cubin`, `PTX`...), in first-seen
    /// order; empty when no image was decoded (a compressed bundle only listed).
    pub formats: Vec<String>,
    /// The entry IDs that carry it, as the file writes them, in first-seen order.
    pub entry_ids: Vec<String>,
    /// The GPUs LLVM 22 knows that the images run on: the family of a generic target, the
    /// later minor versions a cubin runs on, the GPUs PTX is compiled for. Empty when the line
    /// serves only itself or no GPU.
    pub runs_on: Vec<String>,
    /// Where the target is reached only as PTX, through a generic target, or not loaded as it
    /// is: one sentence saying so.
    pub note: Option<String>,
}

/// Every distinct target of a file, grouped by vendor (AMD, NVIDIA, other).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunsOn {
    pub lines: Vec<RunsOnLine>,
}

/// How a question about a GPU is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Verdict {
    /// An image built for exactly the target asked about.
    Exact,
    /// No exact image, but one that runs there (target-ID rules, a generic target, a cubin of
    /// an earlier minor version, PTX).
    Compatible,
    /// Nothing here runs there.
    Absent,
}

/// The answer to "is `query` in here?".
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Answer {
    pub query: String,
    pub verdict: Verdict,
    /// The lines that serve it, best first.
    pub targets: Vec<String>,
    /// One sentence saying why.
    pub reason: String,
}

/// The "runs on" lines of an explored file.
pub fn summarize(tree: &Tree) -> RunsOn {
    summarize_images(tree, &targets::collect(tree))
}

/// The "runs on" lines of some of an explored file's images (one container's, one library's):
/// what [`crate::report::fit`] asks [`query`] about.
pub fn summarize_images(tree: &Tree, images: &[Target]) -> RunsOn {
    from_images(images.iter().map(|t| (t, image_format(tree, t))))
}

/// The images of the subtree under `root` (a package member's node, explored on its own), each
/// with the format of its decoded image, if any: what [`summarize_found`] takes, gathered from
/// the parts of a file explored one by one. `file` names the file, as [`targets::collect`]
/// names it from the tree's first space.
pub fn found_under(root: &Node, file: &str) -> Vec<(Target, Option<String>)> {
    let images = targets::collect_under(root, file);
    images
        .into_iter()
        .map(|t| {
            let f = path_node(root, &t.path).and_then(first_image_format);
            (t, f)
        })
        .collect()
}

fn path_node<'n>(root: &'n Node, path: &[usize]) -> Option<&'n Node> {
    path.iter().try_fold(root, |n, &i| n.children.get(i))
}

/// The "runs on" lines of images gathered with [`found_under`] from several subtrees (the
/// members of a package as each is explored): what a page shows before the whole is read.
pub fn summarize_found(images: &[(Target, Option<String>)]) -> RunsOn {
    from_images(images.iter().map(|(t, f)| (t, f.clone())))
}

/// The lines of these images, each with the format of its decoded image, if any.
fn from_images<'t>(images: impl Iterator<Item = (&'t Target, Option<String>)>) -> RunsOn {
    let mut lines: Vec<RunsOnLine> = Vec::new();
    for (t, format) in images {
        let name = target_name(t);
        let at = match lines.iter().position(|l| l.target == name) {
            Some(i) => i,
            None => {
                lines.push(new_line(t, name));
                lines.len() - 1
            }
        };
        let line = &mut lines[at];
        line.images += 1;
        line.bytes = line.bytes.saturating_add(t.image_size);
        if let Some(f) = format {
            if !line.formats.contains(&f) {
                line.formats.push(f);
            }
        }
        if !line.entry_ids.contains(&t.target_id) {
            line.entry_ids.push(t.target_id.clone());
        }
    }
    for line in &mut lines {
        line.reach = reach_of(line);
        line.runs_on = served_gpus(line);
    }
    let cubins: BTreeSet<String> = lines
        .iter()
        .filter(|l| l.vendor == Vendor::Nvidia && l.reach == Reach::Native)
        .map(|l| l.target.clone())
        .collect();
    for line in &mut lines {
        line.note = note_for(line, &cubins);
    }
    sort::sort_by_key(&mut lines, order_key);
    RunsOn { lines }
}

fn new_line(t: &Target, target: String) -> RunsOnLine {
    RunsOnLine {
        vendor: vendor_of(t),
        target,
        images: 0,
        bytes: 0,
        reach: Reach::Other,
        formats: Vec::new(),
        entry_ids: Vec::new(),
        runs_on: Vec::new(),
        note: None,
    }
}

/// The `format` of the first image node at or below the target's entry.
fn image_format(tree: &Tree, t: &Target) -> Option<String> {
    tree.node_at(&t.path).and_then(first_image_format)
}

/// The `format` of the first image node at or below `entry`.
fn first_image_format(entry: &Node) -> Option<String> {
    fn first_image(node: &Node) -> Option<&Node> {
        if node.kind == NodeKind::Image {
            return Some(node);
        }
        node.children.iter().find_map(first_image)
    }
    first_image(entry).and_then(|i| i.text("format")).map(String::from)
}

fn reach_of(line: &RunsOnLine) -> Reach {
    let has = |f: &str| line.formats.iter().any(|x| x == f);
    if line.target.starts_with("compute_") || has("PTX") && line.formats.len() == 1 {
        return Reach::Ptx;
    }
    if has("SPIR-V module") || line.target == "amdgcnspirv" {
        return Reach::SpirV;
    }
    if has("LLVM bitcode") && !has("AMDGPU code object") && !has("CUDA cubin") {
        return Reach::Bitcode;
    }
    let processor = line.target.split(':').next().unwrap_or("");
    if line.vendor == Vendor::Amd && !generic_members(processor).is_empty() {
        return Reach::Generic;
    }
    if line.vendor == Vendor::Other {
        return Reach::Other;
    }
    Reach::Native
}

/// The GPUs LLVM 22 knows that a line runs on, other than the one it names.
fn served_gpus(line: &RunsOnLine) -> Vec<String> {
    let processor = line.target.split(':').next().unwrap_or("");
    match (line.vendor, line.reach) {
        (Vendor::Amd, Reach::Generic) => generic_members(processor).iter().map(|s| s.to_string()).collect(),
        (Vendor::Nvidia, Reach::Native | Reach::Ptx) => {
            let Some(arch) = NvArch::parse(&line.target) else { return Vec::new() };
            let ptx = line.reach == Reach::Ptx;
            nvidia_gpus()
                .filter(|gpu| if ptx { arch.ptx_runs_on(*gpu) } else { arch.cubin_runs_on(*gpu) })
                .map(|g| format!("sm_{g}"))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The NVIDIA GPUs LLVM 22 knows, as compute capability numbers (`86` for `sm_86`).
fn nvidia_gpus() -> impl Iterator<Item = u32> {
    PROCESSORS
        .iter()
        .filter(|p| p.vendor == ProcessorVendor::Nvidia)
        .filter_map(|p| NvArch::parse(p.name))
        .filter(|a| a.suffix.is_none())
        .map(|a| a.number)
}

fn note_for(line: &RunsOnLine, cubins: &BTreeSet<String>) -> Option<String> {
    let processor = line.target.split(':').next().unwrap_or("");
    match line.reach {
        Reach::Generic => Some(format!(
            "generic target: one code object runs on {} (ROCm 6.1 or later)",
            generic_members(processor).join(", ")
        )),
        Reach::Ptx => {
            let arch = NvArch::parse(&line.target)?;
            let cubin = format!("sm_{}{}", arch.number, arch.suffix.map(String::from).unwrap_or_default());
            let only = if cubins.contains(&cubin) { "PTX" } else { "only as PTX (no cubin for it)" };
            Some(format!("{only}: the driver compiles it at load time for {}", arch.ptx_reach()))
        }
        Reach::SpirV => Some("SPIR-V: compiled for the GPU at load time by its runtime".into()),
        Reach::Bitcode => {
            Some("LLVM bitcode: linked into machine code at device link time, not loaded as it is".into())
        }
        Reach::Native if line.vendor == Vendor::Nvidia => {
            let arch = NvArch::parse(&line.target)?;
            (arch.suffix == Some('a')).then(|| format!("arch-specific: runs only on sm_{}", arch.number))
        }
        _ => None,
    }
}

/// Vendor, then the processor's place in LLVM's table (generations in order), then cubins
/// before PTX of the same number, then the name.
fn order_key(line: &RunsOnLine) -> (Vendor, usize, u32, bool, String) {
    let processor = line.target.split(':').next().unwrap_or("");
    let nv = NvArch::parse(&line.target);
    let rank = match nv {
        Some(_) => 0,
        None => PROCESSORS.iter().position(|p| p.name == processor).unwrap_or(usize::MAX),
    };
    (line.vendor, rank, nv.map_or(0, |a| a.number), line.reach == Reach::Ptx, line.target.clone())
}

/// An NVIDIA architecture: `sm_90a` is number 90, suffix `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NvArch {
    number: u32,
    /// `a` (arch-specific) or `f` (family-specific).
    suffix: Option<char>,
}

impl NvArch {
    /// `sm_NN`, `compute_NN`, with an optional `a` or `f`.
    fn parse(name: &str) -> Option<NvArch> {
        let rest = name.strip_prefix("sm_").or_else(|| name.strip_prefix("compute_"))?;
        let (digits, suffix) = match rest.char_indices().last()? {
            (i, c @ ('a' | 'f')) => (&rest[..i], Some(c)),
            _ => (rest, None),
        };
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(NvArch { number: digits.parse().ok()?, suffix })
    }

    fn major(self) -> u32 {
        self.number / 10
    }

    fn minor(self) -> u32 {
        self.number % 10
    }

    /// Whether a cubin for `self` runs on the GPU `sm_<gpu>`.
    fn cubin_runs_on(self, gpu: u32) -> bool {
        match self.suffix {
            Some('a') => gpu == self.number,
            _ => gpu / 10 == self.major() && gpu % 10 >= self.minor(),
        }
    }

    /// Whether the driver compiles PTX for `self` for the GPU `sm_<gpu>`.
    fn ptx_runs_on(self, gpu: u32) -> bool {
        match self.suffix {
            Some('a') => gpu == self.number,
            Some(_) => gpu / 10 == self.major() && gpu % 10 >= self.minor(),
            None => gpu >= self.number,
        }
    }

    /// Which GPUs PTX for `self` is compiled for, in words.
    fn ptx_reach(self) -> String {
        match self.suffix {
            Some('a') => format!("sm_{} only (arch-specific PTX)", self.number),
            Some(_) => format!("sm_{} and later GPUs of the same family (sm_{}x)", self.number, self.major()),
            None => format!("sm_{} and every newer GPU", self.number),
        }
    }
}

/// The GPUs a user can ask about: every AMD GPU LLVM 22 knows, plain and in each xnack/sramecc
/// mode it has (`gfx90a`, `gfx90a:sramecc+:xnack-`, ...), then every NVIDIA GPU architecture
/// (`sm_89`). Generic targets, `amdgcnspirv` and the arch- or family-specific names (`sm_90a`)
/// name code, not a GPU, so they are left out.
pub fn gpu_choices() -> Vec<String> {
    let is_gpu = |name: &str| !name.ends_with("-generic") && name.starts_with("gfx");
    let mut out = Vec::new();
    for p in PROCESSORS.iter().filter(|p| p.vendor == ProcessorVendor::Amd && is_gpu(p.name)) {
        out.push(p.name.to_string());
        // Every +/- combination of the features, in canonical (alphabetical) order.
        for mask in 0..(1u32 << p.features.len()) {
            let modes: Vec<String> = p
                .features
                .iter()
                .enumerate()
                .map(|(i, f)| format!("{f}{}", if mask & (1 << i) != 0 { '+' } else { '-' }))
                .collect();
            if !modes.is_empty() {
                out.push(format!("{}:{}", p.name, modes.join(":")));
            }
        }
    }
    let nvidia = PROCESSORS.iter().filter(|p| p.vendor == ProcessorVendor::Nvidia && !p.name.ends_with('a'));
    out.extend(nvidia.map(|p| p.name.to_string()));
    out
}

/// Answers "is `question` in here?": a target ID (`gfx1201`, `gfx90a:xnack+`, an alias such as
/// `fiji`), an NVIDIA GPU (`sm_89`, `compute_80`), or any line's name.
pub fn query(runs_on: &RunsOn, question: &str) -> Answer {
    let asked = question.trim().to_ascii_lowercase();
    let answer = |verdict, targets: Vec<String>, reason: String| Answer {
        query: question.trim().to_string(),
        verdict,
        targets,
        reason,
    };
    if asked.is_empty() {
        return answer(Verdict::Absent, Vec::new(), "no target was asked about".into());
    }
    if let Some(line) = runs_on.lines.iter().find(|l| l.target.to_ascii_lowercase() == asked) {
        let note = line.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
        let reason = format!("{} is here: {}{note}", line.target, images_phrase(line));
        return answer(Verdict::Exact, alloc::vec![line.target.clone()], reason);
    }
    let (verdict, targets, reason) = if let Some(arch) = NvArch::parse(&asked) {
        nvidia_answer(runs_on, arch)
    } else if looks_amd(&asked) {
        amd_answer(runs_on, &asked)
    } else {
        other_answer(runs_on, &asked)
    };
    answer(verdict, targets, reason)
}

fn images_phrase(line: &RunsOnLine) -> String {
    let images = if line.images == 1 { "1 image".to_string() } else { format!("{} images", line.images) };
    format!("{images}, {} bytes", line.bytes)
}

fn looks_amd(asked: &str) -> bool {
    let processor = asked.split(':').next().unwrap_or("");
    processor.starts_with("gfx") || crate::ids::canonical_amdgcn_processor(processor).is_some()
}

/// The names of `lines` that `keep` accepts, comma separated, or "none".
fn names_of<'l>(lines: impl Iterator<Item = &'l RunsOnLine>) -> String {
    let names: Vec<&str> = lines.map(|l| l.target.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// How an AMD line relates to the GPU asked about.
enum AmdMatch {
    /// Runs there; `conditions` are the features the image sets that the question left open.
    Runs {
        via_generic: bool,
        conditions: Vec<(String, bool)>,
    },
    /// Same processor (or family), but a feature is set the other way.
    Conflict {
        feature: String,
        image_on: bool,
    },
    Unrelated,
}

fn amd_match(line: &RunsOnLine, asked: &TargetId) -> AmdMatch {
    let Ok(image) = TargetId::parse(&line.target) else { return AmdMatch::Unrelated };
    let via_generic = generic_members(&image.processor).contains(&asked.processor.as_str());
    if image.processor != asked.processor && !via_generic {
        return AmdMatch::Unrelated;
    }
    let mut conditions = Vec::new();
    for (feature, setting) in &image.features {
        let image_on = *setting == crate::ids::FeatureSetting::On;
        match asked.feature(feature) {
            Some(s) if s == *setting => {}
            Some(_) => return AmdMatch::Conflict { feature: feature.clone(), image_on },
            None => conditions.push((feature.clone(), image_on)),
        }
    }
    AmdMatch::Runs { via_generic, conditions }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// A line that runs on the GPU asked about: whether through a generic target, and the
/// feature settings it needs that the question left open.
type Serving<'l> = (&'l RunsOnLine, bool, &'l Vec<(String, bool)>);

fn amd_answer(runs_on: &RunsOn, asked: &str) -> (Verdict, Vec<String>, String) {
    let parsed = TargetId::parse_amdgpu(asked).or_else(|_| TargetId::parse(asked));
    let asked = match parsed {
        Ok(id) => id,
        Err(e) => {
            return (
                Verdict::Absent,
                Vec::new(),
                format!("'{asked}' is not a target ID: expected {}, found {}", e.expected, e.found),
            )
        }
    };
    let amd = || runs_on.lines.iter().filter(|l| l.vendor == Vendor::Amd);
    // An alias (`fiji`) or a reordered ID may name a line exactly once made canonical.
    if let Some(line) = amd().find(|l| l.target == asked.canonical()) {
        return (
            Verdict::Exact,
            alloc::vec![line.target.clone()],
            format!("{} is here: {}", line.target, images_phrase(line)),
        );
    }
    let matches: Vec<(&RunsOnLine, AmdMatch)> = amd().map(|l| (l, amd_match(l, &asked))).collect();
    // Best first: unconditional before conditional, own processor before a generic target.
    let mut runs: Vec<Serving<'_>> = matches
        .iter()
        .filter_map(|(l, m)| match m {
            AmdMatch::Runs { via_generic, conditions } => Some((*l, *via_generic, conditions)),
            _ => None,
        })
        .collect();
    sort::sort_by_key(&mut runs, |(_, generic, conditions)| (!conditions.is_empty(), *generic));
    let wanted = asked.canonical();
    if let Some(&(line, via_generic, conditions)) = runs.first() {
        let targets = runs.iter().map(|(l, _, _)| l.target.clone()).collect();
        let how = if via_generic {
            format!(
                "the generic target {} runs on {}",
                line.target,
                generic_members(line.target.split(':').next().unwrap_or("")).join(", ")
            )
        } else if line.target.contains(':') {
            format!("{} runs on {wanted}", line.target)
        } else {
            format!("{} leaves its features open, so it runs on {wanted} whatever their settings", line.target)
        };
        let when = if conditions.is_empty() {
            String::new()
        } else {
            let c: Vec<String> = conditions.iter().map(|(f, on)| format!("{f} is {}", on_off(*on))).collect();
            format!(", but only when {}", c.join(" and "))
        };
        return (Verdict::Compatible, targets, format!("no image for {wanted} itself; {how}{when}"));
    }
    let conflict = matches.iter().find_map(|(l, m)| match m {
        AmdMatch::Conflict { feature, image_on } => Some((l, feature, image_on)),
        _ => None,
    });
    let reason = match conflict {
        Some((line, feature, image_on)) => format!(
            "{} is here but needs {feature} {}, and {wanted} asks for {feature} {}",
            line.target,
            on_off(*image_on),
            on_off(!*image_on)
        ),
        None => {
            let family =
                generic_family_of(&asked.processor).map(|g| format!(" or its generic target {g}")).unwrap_or_default();
            format!("no image for {}{family}; AMD targets here: {}", asked.processor, names_of(amd()))
        }
    };
    (Verdict::Absent, Vec::new(), reason)
}

fn nvidia_answer(runs_on: &RunsOn, asked: NvArch) -> (Verdict, Vec<String>, String) {
    let gpu = asked.number;
    let nv = || runs_on.lines.iter().filter(|l| l.vendor == Vendor::Nvidia);
    let parsed = || nv().filter_map(|l| NvArch::parse(&l.target).map(|a| (l, a)));
    // Prefer the newest cubin that runs (the closest to the GPU), then the newest PTX.
    let mut cubins: Vec<(&RunsOnLine, NvArch)> =
        parsed().filter(|(l, a)| l.reach != Reach::Ptx && l.reach != Reach::Bitcode && a.cubin_runs_on(gpu)).collect();
    sort::sort_by_key(&mut cubins, |(_, a)| core::cmp::Reverse(a.number));
    if let Some(&(line, arch)) = cubins.first() {
        let why = match arch.suffix {
            Some('a') => format!("the arch-specific {} cubin runs on sm_{gpu} only", line.target),
            _ if arch.number == gpu => format!("the {} cubin is built for sm_{gpu}", line.target),
            _ => format!(
                "the {} cubin runs on sm_{gpu}: same major version ({}), lower minor version",
                line.target,
                arch.major()
            ),
        };
        return (Verdict::Compatible, cubins.iter().map(|(l, _)| l.target.clone()).collect(), why);
    }
    let mut ptx: Vec<(&RunsOnLine, NvArch)> =
        parsed().filter(|(l, a)| l.reach == Reach::Ptx && a.ptx_runs_on(gpu)).collect();
    sort::sort_by_key(&mut ptx, |(_, a)| core::cmp::Reverse(a.number));
    if let Some(&(line, _)) = ptx.first() {
        let why = format!(
            "no cubin runs on sm_{gpu}, but the driver compiles the {} PTX for it at load time (slower first start)",
            line.target
        );
        return (Verdict::Compatible, ptx.iter().map(|(l, _)| l.target.clone()).collect(), why);
    }
    let reason = format!(
        "no cubin for sm_{}x at or below sm_{gpu} and no PTX at or below compute_{gpu}; NVIDIA targets here: {}",
        asked.major(),
        names_of(nv())
    );
    (Verdict::Absent, Vec::new(), reason)
}

fn other_answer(runs_on: &RunsOn, asked: &str) -> (Verdict, Vec<String>, String) {
    // A triple's architecture (`spirv64`) names every line of that architecture.
    let prefix = format!("{asked}-");
    let found: Vec<String> = runs_on
        .lines
        .iter()
        .filter(|l| l.target.to_ascii_lowercase().starts_with(&prefix))
        .map(|l| l.target.clone())
        .collect();
    if !found.is_empty() {
        let reason = format!("images for {asked} are here: {}", found.join(", "));
        return (Verdict::Exact, found, reason);
    }
    let reason = format!(
        "'{asked}' is neither an AMD GPU (gfx…), nor an NVIDIA GPU (sm_NN, compute_NN), nor a target here; targets here: {}",
        names_of(runs_on.lines.iter())
    );
    (Verdict::Absent, Vec::new(), reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Span;
    use alloc::vec;

    /// A device image as `targets::collect` reports it.
    fn image(triple: &str, processor: &str, features: &str, size: u64) -> Target {
        let id = if features.is_empty() { processor.to_string() } else { format!("{processor}:{features}") };
        Target {
            target_id: format!("hipv4-{triple}--{id}"),
            offload_kind: "hipv4".into(),
            triple: triple.into(),
            processor: processor.into(),
            features: features.into(),
            image_size: size,
            stored_size: Some(size),
            compression: None,
            span: Span::default(),
            chain: Vec::new(),
            member: None,
            parts: Vec::new(),
            file_name: None,
            path: Vec::new(),
        }
    }

    fn amd(target: &str) -> (Target, Option<String>) {
        let (p, f) = target.split_once(':').unwrap_or((target, ""));
        (image("amdgcn-amd-amdhsa", p, f, 100), Some("AMDGPU code object".into()))
    }

    /// A cubin (`sm_80`) or PTX (`compute_80`) of an NVIDIA fatbin.
    fn nv(name: &str) -> (Target, Option<String>) {
        let ptx = name.starts_with("compute_");
        let arch = name.replacen("compute_", "sm_", 1);
        let mut t = image("nvptx64-nvidia-cuda", &arch, "", 10);
        t.target_id = if ptx { format!("{name} PTX") } else { format!("{name} cubin") };
        t.file_name = Some(format!("x.1.{arch}.{}", if ptx { "ptx" } else { "cubin" }));
        (t, Some(if ptx { "PTX" } else { "CUDA cubin" }.into()))
    }

    fn file(images: &[(Target, Option<String>)]) -> RunsOn {
        from_images(images.iter().map(|(t, f)| (t, f.clone())))
    }

    fn ask(images: &[(Target, Option<String>)], q: &str) -> Answer {
        query(&file(images), q)
    }

    #[test]
    fn one_line_per_target_grouped_by_vendor_in_generation_order() {
        let mut images = vec![amd("gfx90a"), amd("gfx1100"), amd("gfx90a"), nv("sm_80"), amd("gfx906:xnack-")];
        images.push((image("spirv64-unknown-unknown", "generic", "", 7), Some("SPIR-V module".into())));
        images.push(amd("gfx90a:xnack+:sramecc-"));
        let r = file(&images);
        let names: Vec<&str> = r.lines.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(
            names,
            ["gfx906:xnack-", "gfx90a", "gfx90a:sramecc-:xnack+", "gfx1100", "sm_80", "spirv64-unknown-unknown"]
        );
        let gfx90a = &r.lines[1];
        assert_eq!((gfx90a.images, gfx90a.bytes, gfx90a.reach), (2, 200, Reach::Native));
        assert_eq!(r.lines[4].vendor, Vendor::Nvidia);
        assert_eq!(r.lines[5].vendor, Vendor::Other);
        assert_eq!(r.lines[5].reach, Reach::SpirV);
    }

    #[test]
    fn generic_target_says_which_processors_it_runs_on() {
        let r = file(&[amd("gfx11-generic")]);
        assert_eq!(r.lines[0].reach, Reach::Generic);
        assert_eq!(
            r.lines[0].runs_on,
            ["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"]
        );
        assert!(r.lines[0].note.as_deref().unwrap().contains("gfx1100, gfx1101, gfx1102, gfx1103, gfx1150"));
    }

    #[test]
    fn ptx_only_targets_are_noted() {
        let r = file(&[nv("sm_80"), nv("compute_80"), nv("compute_90")]);
        let note = |t: &str| r.lines.iter().find(|l| l.target == t).unwrap().note.clone().unwrap();
        assert_eq!(
            note("compute_90"),
            "only as PTX (no cubin for it): the driver compiles it at load time for sm_90 and every newer GPU"
        );
        assert!(note("compute_80").starts_with("PTX: "));
        let sm80 = r.lines.iter().find(|l| l.target == "sm_80").unwrap();
        assert_eq!(sm80.runs_on, ["sm_80", "sm_86", "sm_87", "sm_88", "sm_89"]);
    }

    #[test]
    fn exact_target_is_found() {
        let a = ask(&[amd("gfx1201"), amd("gfx90a")], "gfx1201");
        assert_eq!((a.verdict, a.targets.as_slice()), (Verdict::Exact, ["gfx1201".to_string()].as_slice()));
        let a = ask(&[nv("sm_89")], "SM_89");
        assert_eq!(a.verdict, Verdict::Exact);
        // An alias names its canonical processor.
        assert_eq!(ask(&[amd("gfx803")], "fiji").verdict, Verdict::Exact);
        // Features in another order name the same target ID.
        assert_eq!(ask(&[amd("gfx90a:sramecc+:xnack-")], "gfx90a:xnack-:sramecc+").verdict, Verdict::Exact);
    }

    #[test]
    fn feature_left_out_by_the_image_means_any_setting() {
        let a = ask(&[amd("gfx90a")], "gfx90a:xnack+");
        assert_eq!(a.verdict, Verdict::Compatible);
        assert_eq!(a.reason, "no image for gfx90a:xnack+ itself; gfx90a leaves its features open, so it runs on gfx90a:xnack+ whatever their settings");
    }

    #[test]
    fn feature_set_by_the_image_and_left_out_by_the_question_is_a_condition() {
        let a = ask(&[amd("gfx90a:xnack+")], "gfx90a");
        assert_eq!(a.verdict, Verdict::Compatible);
        assert!(a.reason.ends_with("gfx90a:xnack+ runs on gfx90a, but only when xnack is on"), "{}", a.reason);
    }

    #[test]
    fn feature_set_the_other_way_is_absent() {
        let a = ask(&[amd("gfx90a:xnack+")], "gfx90a:xnack-");
        assert_eq!(a.verdict, Verdict::Absent);
        assert_eq!(a.reason, "gfx90a:xnack+ is here but needs xnack on, and gfx90a:xnack- asks for xnack off");
    }

    #[test]
    fn generic_target_serves_its_family() {
        let a = ask(&[amd("gfx11-generic"), amd("gfx90a")], "gfx1101");
        assert_eq!((a.verdict, a.targets.clone()), (Verdict::Compatible, vec!["gfx11-generic".to_string()]));
        assert!(a.reason.contains("the generic target gfx11-generic runs on gfx1100, gfx1101"), "{}", a.reason);
        // gfx1201 is in gfx12-generic, not gfx11-generic.
        let a = ask(&[amd("gfx11-generic")], "gfx1201");
        assert_eq!(a.verdict, Verdict::Absent);
        assert_eq!(
            a.reason,
            "no image for gfx1201 or its generic target gfx12-generic; AMD targets here: gfx11-generic"
        );
    }

    #[test]
    fn own_processor_is_preferred_to_a_generic_target() {
        let a = ask(&[amd("gfx9-generic"), amd("gfx906")], "gfx906:xnack-");
        assert_eq!(a.targets, ["gfx906", "gfx9-generic"]);
    }

    #[test]
    fn cubin_of_same_major_and_lower_minor_runs() {
        let a = ask(&[nv("sm_80"), nv("sm_86")], "sm_89");
        assert_eq!(a.verdict, Verdict::Compatible);
        assert_eq!(a.targets, ["sm_86", "sm_80"]);
        assert_eq!(a.reason, "the sm_86 cubin runs on sm_89: same major version (8), lower minor version");
        // A higher minor does not run, nor does another major.
        assert_eq!(ask(&[nv("sm_86")], "sm_80").verdict, Verdict::Absent);
        assert_eq!(ask(&[nv("sm_80")], "sm_90").verdict, Verdict::Absent);
    }

    #[test]
    fn arch_specific_cubin_runs_only_on_its_gpu() {
        let a = ask(&[nv("sm_90a")], "sm_90");
        assert_eq!(a.verdict, Verdict::Compatible);
        assert_eq!(a.reason, "the arch-specific sm_90a cubin runs on sm_90 only");
        // Not on a later GPU of the same major version either (none exists for 9; use 10).
        assert_eq!(ask(&[nv("sm_100a")], "sm_103").verdict, Verdict::Absent);
        // Every GPU offered to pick from is one the rules answer for.
        let choices = gpu_choices();
        for gpu in ["gfx90a", "gfx90a:sramecc+:xnack-", "gfx1201", "gfx900:xnack+", "sm_89", "sm_120"] {
            assert!(choices.iter().any(|c| c == gpu), "{gpu} offered");
        }
        for code in ["gfx11-generic", "sm_90a", "amdgcnspirv", "generic", "gfx1100:xnack+"] {
            assert!(!choices.iter().any(|c| c == code), "{code} is not a GPU mode");
        }

        assert_eq!(ask(&[nv("sm_100")], "sm_103").verdict, Verdict::Compatible);
    }

    #[test]
    fn ptx_is_compiled_for_any_newer_gpu() {
        let a = ask(&[nv("compute_80"), nv("sm_75")], "sm_120");
        assert_eq!((a.verdict, a.targets.clone()), (Verdict::Compatible, vec!["compute_80".to_string()]));
        assert!(a.reason.contains("the driver compiles the compute_80 PTX for it at load time"), "{}", a.reason);
        assert_eq!(ask(&[nv("compute_90")], "sm_89").verdict, Verdict::Absent);
        // Arch-specific PTX only for its own GPU.
        assert_eq!(ask(&[nv("compute_90a")], "sm_100").verdict, Verdict::Absent);
    }

    #[test]
    fn absent_says_what_is_here() {
        let a = ask(&[nv("sm_90"), amd("gfx90a")], "sm_89");
        assert_eq!(a.verdict, Verdict::Absent);
        assert_eq!(
            a.reason,
            "no cubin for sm_8x at or below sm_89 and no PTX at or below compute_89; NVIDIA targets here: sm_90"
        );
        let a = ask(&[amd("gfx90a")], "rtx5090");
        assert_eq!(a.verdict, Verdict::Absent);
        assert!(a.reason.starts_with("'rtx5090' is neither"), "{}", a.reason);
        assert!(ask(&[amd("gfx90a")], "gfx90a:xnack").reason.contains("is not a target ID"));
    }

    #[test]
    fn triple_architecture_names_its_lines() {
        let images = [(image("spirv64-unknown-unknown", "generic", "", 7), Some("SPIR-V module".into()))];
        let a = ask(&images, "spirv64");
        assert_eq!((a.verdict, a.targets.clone()), (Verdict::Exact, vec!["spirv64-unknown-unknown".to_string()]));
    }

    #[cfg(feature = "std")]
    #[test]
    fn real_hip_object_runs_on_its_two_targets() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hip_elf_2arch.o");
        let data = std::fs::read(path).unwrap();
        let tree = crate::explore::explore(&data[..], "hip_elf_2arch.o", &Default::default());
        let r = summarize(&tree);
        let lines: Vec<(&str, usize, Reach)> = r.lines.iter().map(|l| (l.target.as_str(), l.images, l.reach)).collect();
        assert_eq!(lines, [("gfx906:xnack-", 1, Reach::Native), ("gfx90a", 1, Reach::Native)]);
        assert_eq!(r.lines[0].entry_ids, ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"]);
        assert_eq!(r.lines[0].formats, ["AMDGPU code object"]);
        assert_eq!(query(&r, "gfx906").verdict, Verdict::Compatible);
    }
}
