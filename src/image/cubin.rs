//! CUDA cubins: ELF files with `e_machine` `EM_CUDA` (190), read through [`super::elf`].
//!
//! # Header
//!
//! | `EI_ABIVERSION` | `EI_OSABI` | `e_flags` (as LLVM 22's `getNVPTXCPUName` reads it) |
//! |---|---|---|
//! | 7 (`ELFABIVERSION_CUDA_V1`, toolkits up to 12.x, up to `sm_90`) | 51 | `sm` = bits 0-7; virtual (PTX) arch = bits 16-23; `0x100` unified texture mode, `0x400` 64-bit addresses, `0x800` accelerator features (`sm_90a`) |
//! | 8 (`ELFABIVERSION_CUDA_V2`, `sm_100`+ and every CUDA 13 cubin) | 65 | `sm` = bits 8-15; `0x8` accelerator features (`sm_100a`) |
//!
//! # Functions
//!
//! One `kernel` node per `.text.<function>` section, in section order: the functions `cuobjdump
//! --dump-resource-usage` reports, entry kernels (`__global__`) and device functions alike. The
//! section's `sh_info` low 24 bits are the function's symbol; `st_other & 0x10` is set on entry
//! kernels (field `entry`). Resources, compared with cuobjdump 13.5 on 6,220 functions of the
//! nvJPEG 12 and 13 libraries:
//!
//! | field | cuobjdump | from |
//! |---|---|---|
//! | `registers` | `REG` | `EIATTR_REGCOUNT` in `.nv.info` for the symbol; else `sh_info >> 24` of `.text.<function>` |
//! | `stack_size` | `STACK` | `EIATTR_MIN_STACK_SIZE` in `.nv.info`; else `EIATTR_MAX_STACK_SIZE` (relocatable cubins); else 0 |
//! | `frame_size` | - | `EIATTR_FRAME_SIZE` in `.nv.info` |
//! | `shared_size` | `SHARED` | size of `.nv.shared.<function>` (`SHT_NOBITS`) |
//! | `local_size` | `LOCAL` | size of `.nv.local.<function>` (0 in every cubin compared) |
//! | `constant_size` | `CONSTANT[0]` | size of `.nv.constant0.<function>` (kernel parameters and driver constants) |
//!
//! # `.nv.info` attribute records
//!
//! Each record is `format: u8, attribute: u8`, then by format: `0x01` NVAL (2 padding bytes),
//! `0x02` BVAL (a byte and a padding byte), `0x03` HVAL (`u16`), `0x04` SVAL (`u16` size, then that
//! many bytes). Attribute ids decoded (names as `cuobjdump -elf` prints them; the test checks
//! each against it):
//!
//! | id | name | section | format | value | field |
//! |---|---|---|---|---|---|
//! | `0x05` | `EIATTR_MAX_THREADS` | `.nv.info.<f>` | SVAL | `u32` x, y, z (`__launch_bounds__`) | `max_threads` |
//! | `0x11` | `EIATTR_FRAME_SIZE` | `.nv.info` | SVAL | `u32` symbol, `u32` bytes | `frame_size` |
//! | `0x12` | `EIATTR_MIN_STACK_SIZE` | `.nv.info` | SVAL | `u32` symbol, `u32` bytes | `stack_size` |
//! | `0x17` | `EIATTR_KPARAM_INFO` | `.nv.info.<f>` | SVAL | one record per kernel parameter | `parameters` (count) |
//! | `0x19` | `EIATTR_CBANK_PARAM_SIZE` | `.nv.info.<f>` | HVAL | bytes of parameters | `param_size` |
//! | `0x1b` | `EIATTR_MAXREG_COUNT` | `.nv.info.<f>` | HVAL | register limit | `max_registers` |
//! | `0x23` | `EIATTR_MAX_STACK_SIZE` | `.nv.info` | SVAL | `u32` symbol, `u32` bytes | `stack_size` (fallback) |
//! | `0x2f` | `EIATTR_REGCOUNT` | `.nv.info` | SVAL | `u32` symbol, `u32` registers | `registers` |
//! | `0x37` | `EIATTR_CUDA_API_VERSION` | `.nv.info.<f>` | SVAL | `u32`, 10 x major + minor | `cuda_api_version` |
//! | `0x4c` | `EIATTR_NUM_BARRIERS` | `.nv.info.<f>` | BVAL | named barriers used | `barriers` |
//!
//! The file's common resources (cuobjdump's `Common:` line) are image fields: `global_size`
//! (`.nv.global`) and `constant<N>_size` (`.nv.constant<N>` without a function suffix).

use super::elf::{Elf, Section};
use crate::error::Error;
use crate::tree::{Node, NodeKind, Severity, Span};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub const EM_CUDA: u16 = 190;
pub const FORMAT: &str = "CUDA cubin";
pub const ELFABIVERSION_CUDA_V1: u8 = 7;
pub const ELFABIVERSION_CUDA_V2: u8 = 8;
const STO_ENTRY: u8 = 0x10;

pub const EIATTR_MAX_THREADS: u8 = 0x05;
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
pub const EIATTR_REGCOUNT: u8 = 0x2f;
pub const EIATTR_CUDA_API_VERSION: u8 = 0x37;
pub const EIATTR_NUM_BARRIERS: u8 = 0x4c;

/// The attribute ids this module decodes, with the names `cuobjdump -elf` gives them.
pub const ATTRIBUTE_NAMES: &[(u8, &str)] = &[
    (EIATTR_MAX_THREADS, "EIATTR_MAX_THREADS"),
    (EIATTR_FRAME_SIZE, "EIATTR_FRAME_SIZE"),
    (EIATTR_MIN_STACK_SIZE, "EIATTR_MIN_STACK_SIZE"),
    (EIATTR_KPARAM_INFO, "EIATTR_KPARAM_INFO"),
    (EIATTR_CBANK_PARAM_SIZE, "EIATTR_CBANK_PARAM_SIZE"),
    (EIATTR_MAXREG_COUNT, "EIATTR_MAXREG_COUNT"),
    (EIATTR_MAX_STACK_SIZE, "EIATTR_MAX_STACK_SIZE"),
    (EIATTR_REGCOUNT, "EIATTR_REGCOUNT"),
    (EIATTR_CUDA_API_VERSION, "EIATTR_CUDA_API_VERSION"),
    (EIATTR_NUM_BARRIERS, "EIATTR_NUM_BARRIERS"),
];

/// The architecture a cubin's header names: `sm_80`, `sm_90a`, `sm_120`.
pub fn sm_name(abi_version: u8, flags: u32) -> String {
    let (sm, accelerated) = if abi_version == ELFABIVERSION_CUDA_V1 {
        (flags & 0xff, flags & 0x800 != 0)
    } else {
        ((flags >> 8) & 0xff, flags & 0x8 != 0)
    };
    format!("sm_{sm}{}", if accelerated { "a" } else { "" })
}

/// One `.nv.info` attribute record, with its place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute<'a> {
    pub format: u8,
    pub id: u8,
    /// The record's value bytes: none (NVAL), one (BVAL), two (HVAL) or the SVAL payload.
    pub value: &'a [u8],
    /// Offset of the record in the file.
    pub offset: u64,
    pub size: u64,
}

impl Attribute<'_> {
    fn u32_at(&self, i: usize) -> Option<u32> {
        self.value.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn small(&self) -> Option<u64> {
        match (self.format, self.value) {
            (2, [b]) => Some(*b as u64),
            (3, [a, b]) => Some(u16::from_le_bytes([*a, *b]) as u64),
            _ => None,
        }
    }
}

/// The attribute records of one `.nv.info*` section (lying at `offset` in the file), and the
/// error that stopped the walk, if any.
pub fn attributes(data: &[u8], offset: u64) -> (Vec<Attribute<'_>>, Option<Error>) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let at = offset + pos as u64;
        let Some(&[format, id, a, b]) = data.get(pos..pos + 4) else {
            let found = format!("{} bytes left in the section", data.len() - pos);
            return (out, Some(Error::new(at, "CUDA .nv.info", "a 4-byte attribute record", found)));
        };
        let (value, size) = match format {
            1 => (&data[pos + 2..pos + 2], 4),
            2 => (&data[pos + 2..pos + 3], 4),
            3 => (&data[pos + 2..pos + 4], 4),
            4 => {
                let n = u16::from_le_bytes([a, b]) as usize;
                match data.get(pos + 4..pos + 4 + n) {
                    Some(v) => (v, 4 + n),
                    None => {
                        let found = format!("{n} bytes declared, {} left in the section", data.len() - pos - 4);
                        return (
                            out,
                            Some(Error::new(at + 2, "CUDA .nv.info", "an attribute value within the section", found)),
                        );
                    }
                }
            }
            other => {
                let found = format!("format {other:#x}");
                return (
                    out,
                    Some(Error::new(at, "CUDA .nv.info", "attribute format 1 to 4 (NVAL, BVAL, HVAL, SVAL)", found)),
                );
            }
        };
        out.push(Attribute { format, id, value, offset: at, size: size as u64 });
        pos += size;
    }
    (out, None)
}

/// Describes a cubin on its image node (lying at `span`): header fields, the file's common
/// resources, and one `kernel` child per function.
pub fn describe(elf: &Elf<'_>, node: &mut Node, span: Span) {
    let (flags_at, flags_size) = elf.flags_field();
    let flags_span = Some(span.sub(flags_at, flags_size));
    let sm = sm_name(elf.abi_version, elf.flags);
    node.field("elf_class", elf.class_name(), Some(span.sub(4, 1)));
    node.field("os_abi", elf.os_abi as u64, Some(span.sub(7, 1)));
    node.field("abi_version", elf.abi_version as u64, Some(span.sub(8, 1)));
    node.field("e_flags", elf.flags as u64, flags_span);
    node.field("sm", sm.as_str(), flags_span);
    node.field("target_id", sm.as_str(), flags_span);
    if elf.abi_version == ELFABIVERSION_CUDA_V1 {
        let virtual_sm = (elf.flags >> 16) & 0xff;
        if virtual_sm != 0 {
            node.field("virtual_arch", format!("compute_{virtual_sm}"), flags_span);
        }
        node.field("address_size", if elf.flags & 0x400 != 0 { 64u64 } else { 32 }, flags_span);
    } else if elf.abi_version != ELFABIVERSION_CUDA_V2 {
        node.diag(
            Severity::Note,
            format!("ABI version {} is neither 7 nor 8: the architecture is read as for 8", elf.abi_version),
            Some(span.sub(8, 1)),
        );
    }
    for s in &elf.sections {
        if s.name == ".nv.global" {
            node.field("global_size", s.size, Some(section_span(s, span)));
        } else if let Some(bank) =
            s.name.strip_prefix(".nv.constant").filter(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()))
        {
            node.field(format!("constant{bank}_size"), s.size, Some(section_span(s, span)));
        }
    }

    // Per-symbol resources from the file-wide .nv.info section.
    let mut by_symbol: BTreeMap<u32, BTreeMap<u8, (u32, Span)>> = BTreeMap::new();
    for s in elf.sections.iter().filter(|s| s.name == ".nv.info") {
        for a in section_attributes(s, node, span) {
            if let (4, Some(symbol), Some(value)) = (a.format, a.u32_at(0), a.u32_at(4)) {
                let at = span.sub(a.offset + 8, 4);
                by_symbol.entry(symbol).or_default().entry(a.id).or_insert((value, at));
            }
        }
    }
    // Sections by name (the first of a name), looked up for every function.
    let mut by_name: BTreeMap<&str, &Section<'_>> = BTreeMap::new();
    for s in &elf.sections {
        by_name.entry(s.name).or_insert(s);
    }
    let mut kernels = 0u64;
    // Names are copied into the nodes: held to what the file can hold, as many section
    // headers may name one long string.
    let mut name_budget = (elf.data.len() as u64).saturating_mul(2).saturating_add(1 << 16);
    let functions = elf.sections.iter().filter(|s| s.name.starts_with(".text.")).count();
    for text in elf.sections.iter().filter(|s| s.name.starts_with(".text.")) {
        let name = &text.name[6..];
        if name.len() as u64 > name_budget || kernels as usize >= super::MAX_KERNEL_NODES {
            let message = format!("only {kernels} of {functions} functions are shown: their names or their number pass what the file can hold");
            node.diag(Severity::Error, message, None);
            break;
        }
        name_budget -= name.len() as u64;
        let symbol = text.info & 0xff_ffff;
        let sym = elf.symbols.get(symbol as usize);
        let entry = sym.is_some_and(|s| s.other & STO_ENTRY != 0);
        let label = if entry { format!("kernel {name}") } else { format!("device function {name}") };
        let mut k = Node::new(NodeKind::Kernel, label, section_span(text, span));
        k.field("name", name, None);
        k.field("entry", entry, None);
        k.field("function_kind", if entry { "entry" } else { "device function" }, None);
        let attrs = by_symbol.get(&symbol);
        let get = |id: u8| attrs.and_then(|m| m.get(&id)).copied();
        match get(EIATTR_REGCOUNT) {
            Some((regs, at)) => k.field("registers", regs as u64, Some(at)),
            None => k.field("registers", (text.info >> 24) as u64, None),
        };
        match get(EIATTR_MIN_STACK_SIZE).or(get(EIATTR_MAX_STACK_SIZE)) {
            Some((bytes, at)) => k.field("stack_size", bytes as u64, Some(at)),
            None => k.field("stack_size", 0u64, None),
        };
        if let Some((bytes, at)) = get(EIATTR_FRAME_SIZE) {
            k.field("frame_size", bytes as u64, Some(at));
        }
        for (field, prefix) in
            [("shared_size", ".nv.shared."), ("local_size", ".nv.local."), ("constant_size", ".nv.constant0.")]
        {
            match by_name.get(format!("{prefix}{name}").as_str()) {
                Some(s) => k.field(field, s.size, Some(section_span(s, span))),
                None => k.field(field, 0u64, None),
            };
        }
        if let Some(info) = by_name.get(format!(".nv.info.{name}").as_str()) {
            function_attributes(&mut k, info, span);
        }
        k.field("symbol_index", symbol as u64, None);
        node.children.push(k);
        kernels += 1;
    }
    node.field("kernels", kernels, None);
}

fn section_span(s: &Section<'_>, span: Span) -> Span {
    if s.data.is_some() {
        span.sub(s.offset, s.size)
    } else {
        span.sub(s.offset, 0) // SHT_NOBITS: no bytes in the file
    }
}

/// The records of one `.nv.info*` section; an error in it becomes a diagnostic on `node`.
fn section_attributes<'a>(s: &Section<'a>, node: &mut Node, span: Span) -> Vec<Attribute<'a>> {
    let Some(data) = s.data else {
        node.diag(Severity::Error, format!("section {} lies outside the file", s.name), None);
        return Vec::new();
    };
    let (attrs, error) = attributes(data, s.offset);
    if let Some(e) = error {
        node.diag(Severity::Error, format!("{}: {e}", s.name), Some(span.sub(e.offset, 1)));
    }
    attrs
}

/// The decoded attributes of a function's own `.nv.info.<function>` section.
fn function_attributes(k: &mut Node, info: &Section<'_>, span: Span) {
    let attrs = section_attributes(info, k, span);
    let mut parameters = 0u64;
    let mut parameters_at = None;
    for a in &attrs {
        let at = Some(span.sub(a.offset, a.size));
        match a.id {
            EIATTR_MAX_THREADS => {
                if let (Some(x), Some(y), Some(z)) = (a.u32_at(0), a.u32_at(4), a.u32_at(8)) {
                    k.field("max_threads", format!("{x}, {y}, {z}"), at);
                }
            }
            EIATTR_KPARAM_INFO => {
                parameters += 1;
                parameters_at.get_or_insert(span.sub(a.offset, a.size));
            }
            EIATTR_CBANK_PARAM_SIZE | EIATTR_MAXREG_COUNT | EIATTR_NUM_BARRIERS => {
                let field = match a.id {
                    EIATTR_CBANK_PARAM_SIZE => "param_size",
                    EIATTR_MAXREG_COUNT => "max_registers",
                    _ => "barriers",
                };
                if let Some(v) = a.small() {
                    k.field(field, v, at);
                }
            }
            EIATTR_CUDA_API_VERSION => {
                if let Some(v) = a.u32_at(0) {
                    k.field("cuda_api_version", format!("{}.{}", v / 10, v % 10), at);
                }
            }
            _ => {}
        }
    }
    if parameters > 0 {
        k.field("parameters", parameters, parameters_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_from_both_flag_encodings() {
        assert_eq!(sm_name(7, 0x5a055a), "sm_90");
        assert_eq!(sm_name(7, 0x5a0d5a), "sm_90a");
        assert_eq!(sm_name(7, 0x500532), "sm_50");
        assert_eq!(sm_name(8, 0x6005004), "sm_80");
        assert_eq!(sm_name(8, 0x6006402), "sm_100");
        assert_eq!(sm_name(8, 0x600640a), "sm_100a");
        assert_eq!(sm_name(8, 0x6007802), "sm_120");
    }

    #[test]
    fn attribute_records() {
        let data = [
            0x04, 0x2f, 0x08, 0x00, 0x15, 0, 0, 0, 0x26, 0, 0, 0, // SVAL REGCOUNT sym 0x15 = 38
            0x01, 0x35, 0x00, 0x00, // NVAL
            0x03, 0x19, 0x0c, 0x00, // HVAL CBANK_PARAM_SIZE 12
            0x02, 0x4c, 0x01, 0x00, // BVAL NUM_BARRIERS 1
        ];
        let (attrs, err) = attributes(&data, 100);
        assert!(err.is_none());
        assert_eq!(attrs.len(), 4);
        assert_eq!((attrs[0].u32_at(0), attrs[0].u32_at(4), attrs[0].offset), (Some(0x15), Some(38), 100));
        assert_eq!(attrs[2].small(), Some(12));
        assert_eq!(attrs[3].small(), Some(1));
        // Truncated at every byte: the records before the cut are kept, then an error.
        for n in 1..data.len() {
            let (attrs, err) = attributes(&data[..n], 0);
            let whole = [12, 16, 20, 24].iter().filter(|&&end| end <= n).count();
            assert_eq!(attrs.len(), whole, "{n}");
            assert_eq!(err.is_some(), ![12, 16, 20].contains(&n), "{n}");
        }
        let (_, err) = attributes(&[0x04, 0x2f, 0xff, 0xff, 0], 0);
        assert_eq!(err.unwrap().offset, 2);
        let (_, err) = attributes(&[0x07, 0x2f, 0, 0], 0);
        assert!(err.unwrap().expected.contains("format 1 to 4"));
    }
}
