//! AMDGPU code objects: ELF files with `e_machine` `EM_AMDGPU` (224), read through [`super::elf`].
//!
//! # Header
//!
//! | field | value | meaning |
//! |---|---|---|
//! | `EI_OSABI` (byte 7) | 64 / 65 / 66 | `ELFOSABI_AMDGPU_HSA` / `_PAL` / `_MESA3D` |
//! | `EI_ABIVERSION` (byte 8) | 0, 1, 2, 3, 4 | HSA code object v2, v3, v4, v5, v6 |
//! | `e_flags & 0xff` | `EF_AMDGPU_MACH` | the processor ([`processor_name`]) |
//! | `e_flags & 0x100` | v2, v3: `EF_AMDGPU_FEATURE_XNACK_V3` | xnack on when set |
//! | `e_flags & 0x200` | v2, v3: `EF_AMDGPU_FEATURE_SRAMECC_V3` | sramecc on when set |
//! | `e_flags & 0x300` | v4+: `EF_AMDGPU_FEATURE_XNACK_V4` | 0 unsupported, 0x100 any, 0x200 off, 0x300 on |
//! | `e_flags & 0xc00` | v4+: `EF_AMDGPU_FEATURE_SRAMECC_V4` | 0 unsupported, 0x400 any, 0x800 off, 0xc00 on |
//! | `e_flags >> 24` | v6: `EF_AMDGPU_GENERIC_VERSION` | version of a generic processor (`gfx9-generic`) |
//!
//! # Notes
//!
//! | owner | type | code object | descriptor |
//! |---|---|---|---|
//! | `AMDGPU` | 32 `NT_AMDGPU_METADATA` | v3+ | msgpack map: `amdhsa.version`, `amdhsa.target`, `amdhsa.kernels`, ... (PAL: `amdpal.pipelines`) |
//! | `AMD` | 1 `NT_AMD_HSA_CODE_OBJECT_VERSION` | v2 | `u32` major, `u32` minor |
//! | `AMD` | 3 `NT_AMD_HSA_ISA_VERSION` | v2 | `u16` vendor size, `u16` arch size, `u32` major, minor, stepping, vendor, arch |
//! | `AMD` | 10 `NT_AMD_HSA_METADATA` | v2 | YAML text: not decoded (its kernels are not listed; a note says so) |
//! | `AMD` | 11 `NT_AMD_HSA_ISA_NAME` | v2 | the ISA name as text |
//!
//! # Kernel metadata (`amdhsa.kernels`, one map per kernel)
//!
//! | key | field of the `kernel` node |
//! |---|---|
//! | `.name`, `.symbol` | `name`, `symbol` (the kernel descriptor, `<name>.kd`) |
//! | `.vgpr_count`, `.agpr_count`, `.sgpr_count` | `vgpr_count`, `agpr_count`, `sgpr_count` |
//! | `.group_segment_fixed_size` | `lds_size` (bytes of LDS per work-group) |
//! | `.private_segment_fixed_size` | `scratch_size` (bytes of scratch per work-item) |
//! | `.wavefront_size`, `.max_flat_workgroup_size` | `wavefront_size`, `max_flat_workgroup_size` |
//! | `.kernarg_segment_size`, `.kernarg_segment_align` | `kernarg_size`, `kernarg_align` |
//! | `.uses_dynamic_stack` | `uses_dynamic_stack` |
//! | `.vgpr_spill_count`, `.sgpr_spill_count` | `vgpr_spill_count`, `sgpr_spill_count` |
//! | any other key | its name without the leading `.` |
//! | (computed) | `occupancy`, `max_waves_per_simd`, `occupancy_limited_by`: see [`super::occupancy`] |
//! | `.args` | one `kernel-argument` child per argument, every key a field (`offset`, `size`, `value_kind`, ...) |
//!
//! Every field read from the note carries the span of its msgpack value.

use super::elf::{Elf, Note};
use super::msgpack::{self, Mp, MpValue};
use crate::ids;
use crate::tree::{Node, NodeKind, Severity, Span, Value};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub const EM_AMDGPU: u16 = 224;
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;
pub const EF_AMDGPU_MACH: u32 = 0xff;
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
pub const EF_AMDGPU_GENERIC_VERSION_OFFSET: u32 = 24;
pub const NT_AMDGPU_METADATA: u32 = 32;
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
pub const NT_AMD_HSA_METADATA: u32 = 10;
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;

pub const FORMAT: &str = "AMDGPU code object";

/// A target feature's setting in a code object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The processor does not have the feature.
    Unsupported,
    /// Built to run with the feature on or off (v4+ only).
    Any,
    Off,
    On,
}

impl Setting {
    pub fn as_str(self) -> &'static str {
        match self {
            Setting::Unsupported => "unsupported",
            Setting::Any => "any",
            Setting::Off => "off",
            Setting::On => "on",
        }
    }

    fn v4(bits: u32, unit: u32) -> Setting {
        match bits / unit {
            0 => Setting::Unsupported,
            1 => Setting::Any,
            2 => Setting::Off,
            _ => Setting::On,
        }
    }

    /// A target ID feature suffix: `+`, `-`, or nothing for any/unsupported.
    fn suffix(self) -> Option<char> {
        match self {
            Setting::On => Some('+'),
            Setting::Off => Some('-'),
            _ => None,
        }
    }
}

/// What the ELF header says about the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub mach: u32,
    pub processor: Option<&'static str>,
    pub xnack: Setting,
    pub sramecc: Setting,
    /// HSA code object version (2..6), from the ABI version; `None` for PAL and Mesa objects
    /// and unknown ABI versions.
    pub code_object_version: Option<u32>,
    /// The version of a generic processor (v6 only, non-zero).
    pub generic_version: Option<u32>,
}

impl Header {
    pub fn decode(os_abi: u8, abi_version: u8, flags: u32) -> Header {
        let mach = flags & EF_AMDGPU_MACH;
        let processor = processor_name(mach);
        let code_object_version = match (os_abi, abi_version) {
            (ELFOSABI_AMDGPU_HSA, 0..=4) => Some(abi_version as u32 + 2),
            _ => None,
        };
        let supports =
            |feature: &str| processor.and_then(ids::known_processor).is_some_and(|p| p.features.contains(&feature));
        let (xnack, sramecc) = match code_object_version {
            Some(2 | 3) => {
                let old = |bit: u32, feature: &str| match (flags & bit != 0, supports(feature)) {
                    (true, _) => Setting::On,
                    (false, true) => Setting::Off,
                    (false, false) => Setting::Unsupported,
                };
                (old(EF_AMDGPU_FEATURE_XNACK_V3, "xnack"), old(EF_AMDGPU_FEATURE_SRAMECC_V3, "sramecc"))
            }
            _ => (
                Setting::v4(flags & EF_AMDGPU_FEATURE_XNACK_V4, 0x100),
                Setting::v4(flags & EF_AMDGPU_FEATURE_SRAMECC_V4, 0x400),
            ),
        };
        let generic = flags >> EF_AMDGPU_GENERIC_VERSION_OFFSET;
        let generic_version = (code_object_version.is_some_and(|v| v >= 6) && generic != 0).then_some(generic);
        Header { mach, processor, xnack, sramecc, code_object_version, generic_version }
    }

    /// The target ID the header describes, features in canonical (alphabetical) order:
    /// `gfx90a:xnack+`; `None` for an unknown processor.
    pub fn target_id(&self) -> Option<String> {
        let mut id = String::from(self.processor?);
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(sign) = setting.suffix() {
                id.push(':');
                id.push_str(name);
                id.push(sign);
            }
        }
        Some(id)
    }
}

/// The processor an AMDGPU code object is for, from its `EF_AMDGPU_MACH` value (LLVM 22's
/// `AMDGPU_MACH_LIST`).
pub fn processor_name(mach: u32) -> Option<&'static str> {
    Some(match mach {
        0x20 => "gfx600",
        0x21 => "gfx601",
        0x22 => "gfx700",
        0x23 => "gfx701",
        0x24 => "gfx702",
        0x25 => "gfx703",
        0x26 => "gfx704",
        0x28 => "gfx801",
        0x29 => "gfx802",
        0x2a => "gfx803",
        0x2b => "gfx810",
        0x2c => "gfx900",
        0x2d => "gfx902",
        0x2e => "gfx904",
        0x2f => "gfx906",
        0x30 => "gfx908",
        0x31 => "gfx909",
        0x32 => "gfx90c",
        0x33 => "gfx1010",
        0x34 => "gfx1011",
        0x35 => "gfx1012",
        0x36 => "gfx1030",
        0x37 => "gfx1031",
        0x38 => "gfx1032",
        0x39 => "gfx1033",
        0x3a => "gfx602",
        0x3b => "gfx705",
        0x3c => "gfx805",
        0x3d => "gfx1035",
        0x3e => "gfx1034",
        0x3f => "gfx90a",
        0x40 => "gfx940",
        0x41 => "gfx1100",
        0x42 => "gfx1013",
        0x43 => "gfx1150",
        0x44 => "gfx1103",
        0x45 => "gfx1036",
        0x46 => "gfx1101",
        0x47 => "gfx1102",
        0x48 => "gfx1200",
        0x49 => "gfx1250",
        0x4a => "gfx1151",
        0x4b => "gfx941",
        0x4c => "gfx942",
        0x4e => "gfx1201",
        0x4f => "gfx950",
        0x51 => "gfx9-generic",
        0x52 => "gfx10-1-generic",
        0x53 => "gfx10-3-generic",
        0x54 => "gfx11-generic",
        0x55 => "gfx1152",
        0x58 => "gfx1153",
        0x59 => "gfx12-generic",
        0x5a => "gfx1251",
        0x5f => "gfx9-4-generic",
        _ => return None,
    })
}

/// The label detail of a code object: ` gfx90a`, or the raw flags for an unknown processor.
pub fn label_detail(flags: u32) -> String {
    match processor_name(flags & EF_AMDGPU_MACH) {
        Some(p) => format!(" {p}"),
        None => format!(" (e_flags {flags:#x})"),
    }
}

fn os_abi_name(os_abi: u8) -> String {
    match os_abi {
        ELFOSABI_AMDGPU_HSA => "AMDGPU HSA".into(),
        ELFOSABI_AMDGPU_PAL => "AMDGPU PAL".into(),
        ELFOSABI_AMDGPU_MESA3D => "AMDGPU Mesa 3D".into(),
        other => format!("{other}"),
    }
}

/// Describes a code object: header fields on `node` (the image node, lying at `span`), the
/// notes' contents as fields, and one `kernel` child per kernel of the metadata.
pub fn describe(elf: &Elf<'_>, node: &mut Node, span: Span) {
    let (flags_at, flags_size) = elf.flags_field();
    let flags_span = Some(span.sub(flags_at, flags_size));
    let abi_span = Some(span.sub(8, 1));
    let header = Header::decode(elf.os_abi, elf.abi_version, elf.flags);
    node.field("elf_class", elf.class_name(), Some(span.sub(4, 1)));
    node.field("os_abi", os_abi_name(elf.os_abi), Some(span.sub(7, 1)));
    node.field("abi_version", elf.abi_version as u64, abi_span);
    if let Some(v) = header.code_object_version {
        node.field("code_object_version", v as u64, abi_span);
    } else if elf.os_abi == ELFOSABI_AMDGPU_HSA {
        node.diag(
            Severity::Warning,
            format!("ABI version {} is not a code object version LLVM 22 knows (0 to 4: v2 to v6)", elf.abi_version),
            abi_span,
        );
    }
    node.field("e_flags", elf.flags as u64, flags_span);
    match header.processor {
        Some(p) => node.field("processor", p, flags_span),
        None => node.diag(
            Severity::Warning,
            format!("EF_AMDGPU_MACH {:#x} is not a processor LLVM 22 knows", header.mach),
            flags_span,
        ),
    };
    node.field("xnack", header.xnack.as_str(), flags_span);
    node.field("sramecc", header.sramecc.as_str(), flags_span);
    if let Some(g) = header.generic_version {
        node.field("generic_version", g as u64, flags_span);
    }
    if let Some(id) = header.target_id() {
        node.field("target_id", id, flags_span);
    }
    let (notes, errors) = elf.notes();
    for e in errors {
        node.diag(Severity::Error, format!("notes: {e}"), Some(span.sub(e.offset, 1)));
    }
    let mut metadata = false;
    for note in &notes {
        match (note.owner(), note.note_type) {
            (b"AMDGPU", NT_AMDGPU_METADATA) => {
                metadata = true;
                read_metadata(node, note, span, &header);
            }
            (b"AMD", t) => read_v2_note(node, note, t, span),
            _ => {}
        }
    }
    if !metadata && header.code_object_version.is_some_and(|v| v >= 3) {
        node.diag(Severity::Warning, "no NT_AMDGPU_METADATA note: the kernels cannot be listed", None);
    }
}

fn desc_span(note: &Note<'_>, span: Span, v: &Mp<'_>) -> Span {
    span.sub(note.desc_offset.saturating_add(v.offset), v.size)
}

/// A msgpack value as a field value: integers and booleans as they are, the rest as text.
fn field_value(v: &Mp<'_>) -> Value {
    match v.value {
        MpValue::Uint(n) => Value::Uint(n),
        MpValue::Bool(b) => Value::Bool(b),
        _ => Value::Text(v.scalar_text().unwrap_or_else(|| format!("({})", v.type_name()))),
    }
}

fn read_metadata(node: &mut Node, note: &Note<'_>, span: Span, header: &Header) {
    let whole = span.sub(note.desc_offset, note.desc.len() as u64);
    let root = match msgpack::parse(note.desc) {
        Ok(root) => root,
        Err(e) => {
            let at = span.sub(note.desc_offset.saturating_add(e.offset), 1);
            node.diag(Severity::Error, format!("NT_AMDGPU_METADATA: {e}"), Some(at));
            return;
        }
    };
    if root.size < note.desc.len() as u64 && note.desc[root.size as usize..].iter().any(|&b| b != 0) {
        let rest = span.sub(note.desc_offset + root.size, note.desc.len() as u64 - root.size);
        node.diag(Severity::Warning, "NT_AMDGPU_METADATA: bytes after the msgpack document", Some(rest));
    }
    let MpValue::Map(pairs) = &root.value else {
        node.diag(
            Severity::Error,
            format!("NT_AMDGPU_METADATA: expected a map, found {}", root.type_name()),
            Some(whole),
        );
        return;
    };
    if root.get("amdpal.pipelines").is_some() {
        node.diag(Severity::Note, "PAL metadata (amdpal.pipelines): graphics pipelines are not decoded", Some(whole));
    }
    let mut kernels = None;
    for (k, v) in pairs {
        let at = Some(desc_span(note, span, v));
        match k.as_str() {
            Some("amdhsa.version") => {
                match v.as_array().map(|a| a.iter().map(Mp::as_u64).collect::<Option<Vec<_>>>()) {
                    Some(Some(parts)) if parts.len() == 2 => {
                        node.field("amdhsa_version", format!("{}.{}", parts[0], parts[1]), at);
                    }
                    _ => {
                        node.diag(
                            Severity::Warning,
                            format!("amdhsa.version: expected an array of two integers, found {}", v.type_name()),
                            at,
                        );
                    }
                }
            }
            Some("amdhsa.target") => match v.as_str() {
                Some(t) => {
                    node.field("amdhsa_target", t, at);
                    check_metadata_target(node, t, header, at);
                }
                None => {
                    node.diag(
                        Severity::Warning,
                        format!("amdhsa.target: expected a string, found {}", v.type_name()),
                        at,
                    );
                }
            },
            Some("amdhsa.kernels") => kernels = Some(v),
            Some(other) if v.scalar_text().is_some() => {
                node.field(other.to_string(), field_value(v), at);
            }
            _ => {}
        }
    }
    let Some(kernels) = kernels else {
        if root.get("amdpal.pipelines").is_none() {
            node.diag(Severity::Warning, "NT_AMDGPU_METADATA has no amdhsa.kernels", Some(whole));
        }
        return;
    };
    let Some(list) = kernels.as_array() else {
        let at = desc_span(note, span, kernels);
        node.diag(
            Severity::Error,
            format!("amdhsa.kernels: expected an array, found {}", kernels.type_name()),
            Some(at),
        );
        return;
    };
    node.field("kernels", list.len() as u64, Some(desc_span(note, span, kernels)));
    // Nodes for kernels and arguments: a real kernel's metadata takes hundreds of bytes and an
    // argument's tens, so one node per 32 bytes of note is never reached by a real file; a
    // hostile note of empty maps is held to it.
    let limit = super::MAX_KERNEL_NODES.min((note.desc.len() / 32).max(64));
    let mut budget = limit;
    for (i, k) in list.iter().enumerate() {
        if budget == 0 {
            let message = format!("only the first {i} of {} kernels are shown: with their arguments they reach the limit of {limit} nodes for a {}-byte note (one per 32 bytes)", list.len(), note.desc.len());
            node.diag(Severity::Error, message, Some(desc_span(note, span, k)));
            break;
        }
        let mut kernel = kernel_node(k, i, note, span, budget - 1);
        if let Some(processor) = header.processor {
            add_occupancy(&mut kernel, processor);
        }
        budget = budget.saturating_sub(1 + kernel.children.len());
        kernel.children.shrink_to_fit();
        node.children.push(kernel);
    }
}

/// The metadata's `amdhsa.target` (`amdgcn-amd-amdhsa--gfx90a:xnack+`) against the header.
fn check_metadata_target(node: &mut Node, target: &str, header: &Header, at: Option<Span>) {
    let (Some(id), Some(v)) = (header.target_id(), header.code_object_version) else { return };
    if v < 4 {
        return; // v3 spells features `+xnack`, and has no "any" to compare
    }
    let named = target.rsplit_once("--").map_or(target, |(_, id)| id);
    if named != id {
        node.diag(
            Severity::Warning,
            format!("the metadata's amdhsa.target names {named}, but the ELF header says {id}"),
            at,
        );
    }
}

/// The metadata keys shown first, in this order, and the field names they get.
const KERNEL_KEYS: &[(&str, &str)] = &[
    (".name", "name"),
    (".symbol", "symbol"),
    (".vgpr_count", "vgpr_count"),
    (".agpr_count", "agpr_count"),
    (".sgpr_count", "sgpr_count"),
    (".group_segment_fixed_size", "lds_size"),
    (".private_segment_fixed_size", "scratch_size"),
    (".wavefront_size", "wavefront_size"),
    (".kernarg_segment_size", "kernarg_size"),
    (".kernarg_segment_align", "kernarg_align"),
    (".max_flat_workgroup_size", "max_flat_workgroup_size"),
    (".uses_dynamic_stack", "uses_dynamic_stack"),
    (".vgpr_spill_count", "vgpr_spill_count"),
    (".sgpr_spill_count", "sgpr_spill_count"),
];

/// Metadata keys of code object v3 and later (kernels and their arguments), without their `.`:
/// a field named by one of them borrows the name instead of holding a copy, since a large
/// library has hundreds of thousands of such fields.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "type_name",
    "size",
    "offset",
    "value_kind",
    "value_type",
    "pointee_align",
    "address_space",
    "access",
    "actual_access",
    "is_const",
    "is_restrict",
    "is_volatile",
    "is_pipe",
    "language",
    "language_version",
    "reqd_workgroup_size",
    "workgroup_size_hint",
    "vec_type_hint",
    "device_enqueue_symbol",
    "kind",
    "workgroup_processor_mode",
    "uniform_work_group_size",
    "uses_dynamic_stack",
    "symbol",
];

/// A field name for the metadata key `key` (its `.` dropped), borrowed when it is a known one.
fn key_name(key: &str) -> alloc::borrow::Cow<'static, str> {
    let bare = key.trim_start_matches('.');
    match KNOWN_KEYS.iter().find(|&&k| k == bare) {
        Some(&known) => known.into(),
        None => bare.to_string().into(),
    }
}

/// The `kernel` node of one metadata map, with at most `max_arguments` argument children.
fn kernel_node(k: &Mp<'_>, index: usize, note: &Note<'_>, span: Span, max_arguments: usize) -> Node {
    let at = desc_span(note, span, k);
    let name = k.get(".name").and_then(Mp::as_str);
    let label = match name {
        Some(n) => format!("kernel {n}"),
        None => format!("kernel {index}"),
    };
    let mut node = Node::new(NodeKind::Kernel, label, at);
    let MpValue::Map(pairs) = &k.value else {
        node.diag(
            Severity::Error,
            format!("amdhsa.kernels[{index}]: expected a map, found {}", k.type_name()),
            Some(at),
        );
        return node;
    };
    node.field("index", index as u64, None);
    for &(key, field) in KERNEL_KEYS {
        let Some(v) = k.get(key) else { continue };
        let vat = Some(desc_span(note, span, v));
        let want_text = matches!(key, ".name" | ".symbol");
        let want_bool = key == ".uses_dynamic_stack";
        let ok = match v.value {
            MpValue::Str(_) => want_text && v.as_str().is_some(),
            MpValue::Bool(_) => want_bool,
            MpValue::Uint(_) => !want_text && !want_bool,
            _ => false,
        };
        if ok {
            node.field(field, field_value(v), vat);
        } else {
            let expected = if want_text {
                "a UTF-8 string"
            } else if want_bool {
                "a boolean"
            } else {
                "a non-negative integer"
            };
            node.diag(Severity::Warning, format!("{key}: expected {expected}, found {}", v.type_name()), vat);
        }
    }
    if name.is_none() {
        node.diag(Severity::Warning, "this kernel has no .name", Some(at));
    }
    let mut args = None;
    for (key, v) in pairs {
        let Some(key) = key.as_str() else { continue };
        if key == ".args" {
            args = Some(v);
        } else if !KERNEL_KEYS.iter().any(|(k, _)| *k == key) {
            node.field(key_name(key), field_value(v), Some(desc_span(note, span, v)));
        }
    }
    if let Some(args) = args {
        match args.as_array() {
            Some(list) => {
                node.field("arguments", list.len() as u64, Some(desc_span(note, span, args)));
                node.children
                    .extend(list.iter().take(max_arguments).enumerate().map(|(i, a)| argument_node(a, i, note, span)));
                if list.len() > max_arguments {
                    node.diag(
                        Severity::Error,
                        format!(
                            "only {max_arguments} of {} arguments are shown: the limit of kernel nodes is reached",
                            list.len()
                        ),
                        None,
                    );
                }
            }
            None => {
                let aat = Some(desc_span(note, span, args));
                node.diag(Severity::Warning, format!(".args: expected an array, found {}", args.type_name()), aat);
            }
        }
    }
    node
}

/// The kernel's `occupancy` (waves per SIMD on `processor`, as LLVM computes it), the
/// processor's `max_waves_per_simd`, and what limits it (`occupancy_limited_by`: `VGPRs`,
/// `SGPRs`, `LDS`, `work-group size`, or `none`); nothing when the metadata lacks a register
/// count or wave size, or the processor is not modelled ([`super::occupancy`]).
fn add_occupancy(kernel: &mut Node, processor: &str) {
    let Some(occupancy) = super::occupancy::of_kernel_node(kernel, processor) else { return };
    kernel.field("occupancy", occupancy.waves as u64, None);
    kernel.field("max_waves_per_simd", occupancy.max_waves as u64, None);
    kernel.field("occupancy_limited_by", occupancy.limited_by_text(), None);
}

fn argument_node(a: &Mp<'_>, index: usize, note: &Note<'_>, span: Span) -> Node {
    let at = desc_span(note, span, a);
    let text = |key: &str| a.get(key).and_then(Mp::scalar_text);
    let mut label = format!("argument {index}");
    if let Some(name) = text(".name") {
        label.push_str(&format!(" {name}"));
    }
    if let Some(kind) = text(".value_kind") {
        label.push_str(&format!(": {kind}"));
    }
    if let (Some(size), Some(offset)) = (text(".size"), text(".offset")) {
        label.push_str(&format!(" ({size} bytes at {offset})"));
    }
    let mut node = Node::new(NodeKind::KernelArgument, label, at);
    match &a.value {
        MpValue::Map(pairs) => {
            for (k, v) in pairs {
                if let Some(key) = k.as_str() {
                    node.field(key_name(key), field_value(v), Some(desc_span(note, span, v)));
                }
            }
        }
        _ => {
            node.diag(Severity::Warning, format!(".args[{index}]: expected a map, found {}", a.type_name()), Some(at));
        }
    }
    node
}

/// Code object v2 notes (owner `AMD`).
fn read_v2_note(node: &mut Node, note: &Note<'_>, note_type: u32, span: Span) {
    let at = Some(span.sub(note.desc_offset, note.desc.len() as u64));
    let d = note.desc;
    let u32_at = |i: usize| d.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    match note_type {
        NT_AMD_HSA_CODE_OBJECT_VERSION => match (u32_at(0), u32_at(4)) {
            (Some(major), Some(minor)) => {
                node.field("hsa_code_object_version", format!("{major}.{minor}"), at);
            }
            _ => {
                node.diag(
                    Severity::Warning,
                    format!("NT_AMD_HSA_CODE_OBJECT_VERSION: expected 8 bytes, found {}", d.len()),
                    at,
                );
            }
        },
        NT_AMD_HSA_ISA_VERSION => {
            let sizes = d
                .get(0..4)
                .map(|b| (u16::from_le_bytes([b[0], b[1]]) as usize, u16::from_le_bytes([b[2], b[3]]) as usize));
            let parsed = sizes.and_then(|(vendor, arch)| {
                let names = d.get(16..16 + vendor + arch)?;
                let text = |b: &[u8]| String::from_utf8_lossy(b.strip_suffix(&[0]).unwrap_or(b)).into_owned();
                Some(format!(
                    "{} {} {}.{}.{}",
                    text(&names[..vendor]),
                    text(&names[vendor..]),
                    u32_at(4)?,
                    u32_at(8)?,
                    u32_at(12)?
                ))
            });
            match parsed {
                Some(isa) => node.field("hsa_isa", isa, at),
                None => node.diag(Severity::Warning, "NT_AMD_HSA_ISA_VERSION: its sizes do not fit its descriptor", at),
            };
        }
        NT_AMD_HSA_ISA_NAME => {
            node.field("hsa_isa_name", String::from_utf8_lossy(d.strip_suffix(&[0]).unwrap_or(d)).into_owned(), at);
        }
        NT_AMD_HSA_METADATA => {
            node.diag(
                Severity::Note,
                "code object v2 kernel metadata (NT_AMD_HSA_METADATA, YAML) is not decoded: its kernels are not listed",
                at,
            );
        }
        _ => {}
    }
}

/// Compares a code object's header (on its image node) with the target ID of the entry that
/// carries it (`gfx90a:xnack+`, from a bundle entry ID or an offload binary's `arch`), and adds a
/// diagnostic where they disagree: the runtime picks the entry by its ID and then loads the code
/// object, which must run on that target.
pub fn check_carrier(image: &mut Node, carrier: &str) {
    if carrier.is_empty() || image.text("format") != Some(FORMAT) {
        return;
    }
    let at = image.fields.iter().find(|f| f.name == "e_flags").and_then(|f| f.span);
    let (processor, features) = carrier.split_once(':').unwrap_or((carrier, ""));
    let Some(wanted) = ids::canonical_amdgcn_processor(processor) else { return };
    let Some(have) = image.text("processor").map(String::from) else { return };
    if wanted != have {
        image.diag(
            Severity::Warning,
            format!("the entry's target {carrier} does not fit the image, a code object for {have}: the runtime would load it on a GPU it cannot run on"),
            at,
        );
        return;
    }
    let v4 = matches!(image.get("code_object_version"), Some(Value::Uint(v)) if *v >= 4);
    for feature in ["sramecc", "xnack"] {
        let setting = image.text(feature).unwrap_or("unsupported").to_string();
        let asked = features.split(':').find_map(|f| f.strip_prefix(feature).filter(|s| *s == "+" || *s == "-"));
        let message = match (asked, setting.as_str()) {
            (Some("+"), "on") | (Some("-"), "off") | (None, "any" | "unsupported") => continue,
            (None, "off") if !v4 => continue, // v2/v3 cannot say "any"
            (Some(_), "unsupported") => format!("the entry's target {carrier} does not fit the image: {have} has no {feature}"),
            (Some(sign), "any") => {
                // Runs either way: consistent, only not what a compiler writes for that ID.
                let m = format!("the code object is built for any {feature} setting, the entry that carries it says {feature}{sign}");
                image.diag(Severity::Note, m, at);
                continue;
            }
            (None, s) => format!("the entry's target {carrier} (any {feature} setting) does not fit the image, which needs {feature} {s}: it may be loaded where it cannot run"),
            (Some(sign), s) => format!("the entry's target {carrier} ({feature}{sign}) does not fit the image, which has {feature} {s}"),
        };
        image.diag(Severity::Warning, message, at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_flags_by_code_object_version() {
        // clang-22 --offload-arch=gfx90a: v6, xnack any, sramecc any.
        let h = Header::decode(64, 4, 0x53f);
        assert_eq!(
            (h.processor, h.xnack, h.sramecc, h.code_object_version),
            (Some("gfx90a"), Setting::Any, Setting::Any, Some(6))
        );
        assert_eq!(h.target_id().as_deref(), Some("gfx90a"));
        // gfx906:xnack- at v4 (0x62f).
        let h = Header::decode(64, 2, 0x62f);
        assert_eq!((h.xnack, h.sramecc, h.code_object_version), (Setting::Off, Setting::Any, Some(4)));
        assert_eq!(h.target_id().as_deref(), Some("gfx906:xnack-"));
        let h = Header::decode(64, 3, 0xf3f);
        assert_eq!(h.target_id().as_deref(), Some("gfx90a:sramecc+:xnack+"));
        // gfx1100 has neither feature.
        let h = Header::decode(64, 4, 0x41);
        assert_eq!((h.xnack, h.sramecc), (Setting::Unsupported, Setting::Unsupported));
        // v3: one bit per feature; clear means off where the processor has the feature.
        let h = Header::decode(64, 1, 0x12f);
        assert_eq!((h.xnack, h.sramecc, h.code_object_version), (Setting::On, Setting::Off, Some(3)));
        let h = Header::decode(64, 1, 0x2c);
        assert_eq!((h.xnack, h.sramecc), (Setting::Off, Setting::Unsupported));
        // v6 generic processors carry a version in the top byte.
        let h = Header::decode(64, 4, 0x0100_0051);
        assert_eq!((h.processor, h.generic_version), (Some("gfx9-generic"), Some(1)));
        // PAL objects have no HSA code object version.
        assert_eq!(Header::decode(65, 0, 0x41).code_object_version, None);
        assert_eq!(Header::decode(64, 9, 0x41).code_object_version, None);
    }

    fn image(flags: u32, abi: u8) -> Node {
        let mut n = Node::new(NodeKind::Image, "x", Span::default());
        let h = Header::decode(64, abi, flags);
        n.field("format", FORMAT, None);
        n.field("processor", h.processor.unwrap(), None);
        n.field("code_object_version", h.code_object_version.unwrap() as u64, None);
        n.field("xnack", h.xnack.as_str(), None);
        n.field("sramecc", h.sramecc.as_str(), None);
        n
    }

    fn warnings(flags: u32, abi: u8, carrier: &str) -> Vec<String> {
        let mut n = image(flags, abi);
        check_carrier(&mut n, carrier);
        n.diagnostics.iter().filter(|d| d.severity == Severity::Warning).map(|d| d.message.clone()).collect()
    }

    #[test]
    fn carrier_mismatches() {
        assert!(warnings(0x53f, 4, "gfx90a").is_empty());
        assert!(warnings(0x62f, 4, "gfx906:xnack-").is_empty());
        assert!(warnings(0x73f, 4, "gfx90a:xnack+").is_empty());
        assert!(warnings(0x53f, 4, "gfx90a:xnack+").is_empty(), "any under xnack+ runs: a note only");
        let w = warnings(0x53f, 4, "gfx906");
        assert!(w[0].contains("the entry's target gfx906 does not fit the image, a code object for gfx90a"), "{w:?}");
        let w = warnings(0x73f, 4, "gfx90a");
        assert!(w[0].contains("which needs xnack on"), "{w:?}");
        let w = warnings(0x63f, 4, "gfx90a:xnack+");
        assert!(w[0].contains("(xnack+) does not fit the image, which has xnack off"), "{w:?}");
        let w = warnings(0x41, 4, "gfx1100:xnack+");
        assert!(w[0].contains("gfx1100 has no xnack"), "{w:?}");
        // An alias names the same processor; a non-AMD carrier is not compared.
        assert!(warnings(0x2a, 4, "fiji").is_empty());
        assert!(warnings(0x53f, 4, "sm_80").is_empty());
        // v3 cannot say "any": a clear bit under an entry without features is fine.
        assert!(warnings(0x2f, 1, "gfx906").is_empty());
    }
}
