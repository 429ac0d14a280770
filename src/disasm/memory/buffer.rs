//! MUBUF and MTBUF (typed buffer), two dwords; GFX12 VBUFFER (both), three dwords.
//!
//! | dword | GFX8, GFX9 | GFX10 | GFX11 |
//! |---|---|---|---|
//! | 0 | `OFFSET` 11:0, `OFFEN` 12, `IDXEN` 13, `GLC` 14 | same, `DLC` 15 | `OFFSET` 11:0, `SLC` 12, `DLC` 13, `GLC` 14 |
//! | 0 | MUBUF: gfx940 `SC1` 15, `LDS` 16, `SLC` 17, `OP` 24:18 | `LDS` 16, `OP` 25:18 | `OP` 25:18 |
//! | 0 | MTBUF: `OP` 18:15, `DFMT` 22:19, `NFMT` 25:23 | `OP` 18:16, `FORMAT` 25:19 | `OP` 18:15, `FORMAT` 25:19 |
//! | 1 | `VADDR` 7:0, `VDATA` 15:8, `SRSRC` 20:16 (×4), `SOFFSET` 31:24 | same | same |
//! | 1 | MTBUF `SLC` 22; `TFE` 23 (gfx90a+: `ACC`) | MTBUF `OP` bit 3 at 21; `SLC` 22, `TFE` 23 | `TFE` 21, `OFFEN` 22, `IDXEN` 23 |
//!
//! GFX12 VBUFFER: dword 0 `SOFFSET` 6:0, `NV` 7, `OP` 21:14 (typed buffer from 128), `TFE` 22;
//! dword 1 `VDATA` 7:0, `SRSRC` 15:9, `SCOPE` 19:18, `TH` 22:20, `FORMAT` 29:23, `OFFEN` 30,
//! `IDXEN` 31; dword 2 `VADDR` 7:0, `OFFSET` 31:8.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::flat::cache_policy;
use super::{
    address, bits, data_register, data_role, done_with, has_agpr_data, has_sc_bits, join, lookup, push_vector,
    scalar_operand, tables, vector, Op, Scalar,
};
use crate::disasm::operands::{File, RegisterOperands, Role};
use crate::disasm::{Class, Decoded, Generation, Isa, Words};

const LDS_ALLOWED: u32 = 16;
const LDS_DROPS_VDATA: u32 = 17;
const ACC_ALLOWED: u32 = 18;
/// A cache operation without operands (`buffer_wbinvl1`, `buffer_gl0_inv`, `buffer_wbl2`…).
const BARE: u32 = 19;
const GLC_ALLOWED: u32 = 20;
const GLC_PRINTED: u32 = 21;
/// Bit 15: `sc1` (gfx940), `scc` (gfx90a) or `dlc` (GFX10).
const BIT15_ALLOWED: u32 = 22;
const BIT15_PRINTED: u32 = 23;

/// The fields of one instruction, gathered from its layout.
#[derive(Default)]
struct Fields {
    offset: u32,
    offen: bool,
    idxen: bool,
    vaddr: u32,
    vdata: u32,
    /// The first SGPR of the resource descriptor.
    srsrc: u32,
    soffset: u32,
    tfe: bool,
    lds: bool,
    agpr: bool,
    /// The typed-buffer format, already named (`format:[…]`), or empty.
    format: String,
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let generation = isa.generation();
    let typed = first >> 26 == 0x3A;
    let (op, code) = opcode(isa, typed, first, second)?;
    if op.flag(BARE) {
        return bare(isa, op, first, second);
    }
    let (glc, slc, dlc) = match generation {
        Generation::Gfx11 => (bits(first, 14, 1), bits(first, 12, 1), bits(first, 13, 1)),
        Generation::Gfx10 => (bits(first, 14, 1), bits(second, 22, 1), bits(first, 15, 1)),
        _ if typed => (bits(first, 14, 1), bits(second, 22, 1), 0),
        _ => (bits(first, 14, 1), bits(first, 17, 1), 0),
    };
    let gfx11 = generation == Generation::Gfx11;
    let acc_bit = bits(second, 23, 1) != 0;
    // GFX9 bit 55: `tfe`, on gfx90a and later `acc`.
    let agpr = has_agpr_data(isa) && acc_bit;
    if agpr && !op.flag(ACC_ALLOWED) {
        return None;
    }
    let lds = !typed && generation <= Generation::Gfx10 && bits(first, 16, 1) != 0;
    // Atomics and typed buffers have no `tfe` (GFX9 and GFX10 bit 55, GFX11 bit 53).
    let tfe_bit = match generation {
        Generation::Gfx8 | Generation::Gfx9 => acc_bit && !has_agpr_data(isa),
        Generation::Gfx11 => bits(second, 21, 1) != 0,
        _ => acc_bit,
    };
    if tfe_bit && (op.1.contains("_atomic_") || typed) {
        return None;
    }
    if !typed && op.1.contains("_atomic_") && atomic_bit_missing(isa, op.1, first) {
        return None;
    }
    // A load into LDS writes no VGPR or AGPR: with the `acc` bit (gfx90a and later) it is rejected.
    if lds && (!op.flag(LDS_ALLOWED) || tfe_bit || agpr) {
        return None;
    }
    let fields = Fields {
        offset: bits(first, 0, 12),
        offen: if gfx11 { bits(second, 22, 1) } else { bits(first, 12, 1) } != 0,
        idxen: if gfx11 { bits(second, 23, 1) } else { bits(first, 13, 1) } != 0,
        vaddr: bits(second, 0, 8),
        vdata: bits(second, 8, 8),
        srsrc: bits(second, 16, 5),
        soffset: bits(second, 24, 8),
        tfe: match generation {
            Generation::Gfx11 => bits(second, 21, 1) != 0,
            Generation::Gfx10 => acc_bit,
            _ => acc_bit && !has_agpr_data(isa),
        },
        lds,
        agpr,
        format: if typed { format(isa, first) } else { String::new() },
    };
    let _ = code;
    let mut registers = RegisterOperands::default();
    let role = data_role(op.1, glc != 0, fields.lds);
    let mut text = join(op.1, &operands(isa, op, &fields, typed, role, &mut registers)?);
    modifiers(&mut text, &fields);
    if has_sc_bits(isa) {
        flag(&mut text, glc != 0, "sc0");
        flag(&mut text, slc != 0, "nt");
        let sc1 = if typed { bits(second, 21, 1) } else { bits(first, 15, 1) };
        flag(&mut text, sc1 != 0, "sc1");
    } else {
        flag(&mut text, glc != 0, "glc");
        flag(&mut text, slc != 0, "slc");
        flag(&mut text, dlc != 0, "dlc");
        let scc = if typed { bits(second, 21, 1) } else { bits(first, 15, 1) };
        flag(&mut text, isa == Isa::Gfx90a && scc != 0, "scc");
    }
    flag(&mut text, fields.lds, "lds");
    flag(&mut text, fields.tfe, "tfe");
    done_with(text, 2, Class::VectorMemory, registers)
}

/// Whether a buffer atomic's word sets a cache bit its instruction does not have, which
/// llvm-objdump rejects (llvm-mc drops the modifier when it encodes one, or refuses it):
/// GFX10's atomics have no `dlc` (bit 15); gfx90a's floating-point atomics no `scc` (bit 15);
/// gfx908's floating-point atomics return nothing, so no `glc` (bit 14).
fn atomic_bit_missing(isa: Isa, name: &str, first: u32) -> bool {
    let float = name.ends_with("_f16") || name.ends_with("_f32") || name.ends_with("_f64");
    match isa {
        Isa::Gfx1010 | Isa::Gfx1030 => bits(first, 15, 1) != 0,
        Isa::Gfx90a => float && bits(first, 15, 1) != 0,
        Isa::Gfx908 => float && bits(first, 14, 1) != 0,
        _ => false,
    }
}

/// A cache operation: llvm-mc ignores the operand fields and `slc`, rejects `offen`, `idxen`,
/// `lds` and bit 55 (`tfe`/`acc`), and takes `glc` and bit 15 only where the opcode has them.
fn bare(isa: Isa, op: &Op, first: u32, second: u32) -> Option<Decoded> {
    let gfx11 = isa.generation() == Generation::Gfx11;
    let (offen, idxen, tfe) = if gfx11 {
        (bits(second, 22, 1), bits(second, 23, 1), bits(second, 21, 1))
    } else {
        (bits(first, 12, 1), bits(first, 13, 1), bits(second, 23, 1))
    };
    // GFX11 has no `lds` bit; its `dlc` (bit 13) is rejected here.
    let lds = if gfx11 { bits(first, 13, 1) } else { bits(first, 16, 1) };
    let glc = bits(first, 14, 1) != 0;
    let high = !gfx11 && bits(first, 15, 1) != 0;
    if offen | idxen | tfe | lds != 0 || (glc && !op.flag(GLC_ALLOWED)) || (high && !op.flag(BIT15_ALLOWED)) {
        return None;
    }
    let mut text = String::from(op.1);
    let (glc_name, high_name) = if has_sc_bits(isa) { ("sc0", "sc1") } else { ("glc", "dlc") };
    flag(&mut text, glc && op.flag(GLC_PRINTED), glc_name);
    flag(&mut text, high && op.flag(BIT15_PRINTED), high_name);
    done_with(text, 2, Class::VectorMemory, RegisterOperands::default())
}

/// The opcode entry: MUBUF and MTBUF have their own tables and opcode bits per generation.
fn opcode(isa: Isa, typed: bool, first: u32, second: u32) -> Option<(&'static Op, u32)> {
    let code = match (typed, isa.generation()) {
        (false, Generation::Gfx8 | Generation::Gfx9) => bits(first, 18, 7),
        (false, _) => bits(first, 18, 8),
        (true, Generation::Gfx10) => bits(first, 16, 3) | bits(second, 21, 1) << 3,
        (true, _) => bits(first, 15, 4),
    };
    let table = if typed { tables::mtbuf(isa) } else { tables::mubuf(isa) };
    lookup(table, code).map(|op| (op, code))
}

/// The typed-buffer format of an MTBUF word, as llvm-mc prints it (empty for the default).
fn format(isa: Isa, first: u32) -> String {
    match isa.generation() {
        Generation::Gfx8 | Generation::Gfx9 => {
            let dfmt = tables::DATA_FORMATS.get(bits(first, 19, 4) as usize).copied().unwrap_or("");
            let nfmt = tables::NUMBER_FORMATS.get(bits(first, 23, 3) as usize).copied().unwrap_or("");
            match (dfmt.is_empty(), nfmt.is_empty()) {
                (true, true) => String::new(),
                (false, true) => format!(" format:[{dfmt}]"),
                (true, false) => format!(" format:[{nfmt}]"),
                (false, false) => format!(" format:[{dfmt},{nfmt}]"),
            }
        }
        Generation::Gfx10 => unified_format(tables::FORMATS_GFX10, bits(first, 19, 7)),
        _ => unified_format(tables::FORMATS_GFX11, bits(first, 19, 7)),
    }
}

fn unified_format(names: &[&str], value: u32) -> String {
    match names.get(value as usize).copied() {
        Some("") => String::new(),
        Some(name) if name.starts_with(|c: char| c.is_ascii_digit()) => format!(" format:{name}"),
        Some(name) => format!(" format:[{name}]"),
        None => format!(" format:{value}"),
    }
}

/// `vdata, vaddr, srsrc, soffset`, as far as the opcode has them. A typed buffer's address pair
/// takes any VGPR (llvm-objdump 22 names no aligned class for it, unlike MUBUF's on gfx90a+).
/// The register operands (`VDATA`, `VADDR`, `SRSRC`, `SOFFSET`), added to `registers`: `VDATA`
/// with role `data`, the rest read.
fn operands(
    isa: Isa,
    op: &Op,
    f: &Fields,
    typed: bool,
    data: Role,
    registers: &mut RegisterOperands,
) -> Option<Vec<String>> {
    let generation = isa.generation();
    let mut out = Vec::new();
    let width = op.nibble(0);
    if width == 0 {
        return Some(out);
    }
    if !(f.lds && op.flag(LDS_DROPS_VDATA)) {
        out.push(data_register(isa, f.agpr, f.vdata, width + u32::from(f.tfe), true)?);
        push_vector(registers, f.agpr, f.vdata, width + u32::from(f.tfe), data);
    }
    let vaddr = match (f.idxen, f.offen) {
        (true, true) => 2,
        (false, false) => 0,
        _ => 1,
    };
    out.push(match vaddr {
        2 if typed => vector(false, f.vaddr, 2)?,
        0 => String::from("off"),
        n => address(isa, f.vaddr, n)?,
    });
    if vaddr > 0 {
        registers.push_vector(File::Vgpr, f.vaddr, vaddr, Role::Read);
    }
    out.push(scalar_operand(isa, Scalar::Srsrc, f.srsrc)?);
    // GFX12 names the first SGPR (one off its alignment is read from the multiple of 4 below,
    // and warned of); earlier generations count by four.
    let srsrc = if generation == Generation::Gfx12 { f.srsrc } else { f.srsrc * 4 };
    registers.push_scalar(generation, srsrc, 4, Role::Read);
    out.push(scalar_operand(isa, Scalar::Soffset, f.soffset)?);
    registers.push_scalar(generation, f.soffset, 1, Role::Read);
    Some(out)
}

/// `format:`, `idxen`, `offen`, `offset:`.
fn modifiers(text: &mut String, f: &Fields) {
    text.push_str(&f.format);
    flag(text, f.idxen, "idxen");
    flag(text, f.offen, "offen");
    if f.offset != 0 {
        text.push_str(&format!(" offset:{}", f.offset));
    }
}

fn flag(text: &mut String, set: bool, name: &str) {
    if set {
        text.push(' ');
        text.push_str(name);
    }
}

pub(super) fn decode_gfx12(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let third = words.get(2)?;
    let op = lookup(tables::mubuf(isa), bits(first, 14, 8))?;
    let typed = op.1.starts_with("tbuffer");
    // Dword 1 bits 16-17 are reserved, the offset is 23 bits, and atomics have no `tfe`.
    let tfe = bits(first, 22, 1) != 0;
    if bits(second, 16, 2) != 0 || bits(third, 31, 1) != 0 || (tfe && (typed || op.1.contains("_atomic_"))) {
        return None;
    }
    let fields = Fields {
        offset: bits(third, 8, 24),
        offen: bits(second, 30, 1) != 0,
        idxen: bits(second, 31, 1) != 0,
        vaddr: bits(third, 0, 8),
        vdata: bits(second, 0, 8),
        srsrc: bits(second, 9, 7),
        soffset: bits(first, 0, 7),
        tfe: bits(first, 22, 1) != 0,
        format: if typed { unified_format(tables::FORMATS_GFX12, bits(second, 23, 7)) } else { String::new() },
        ..Fields::default()
    };
    let mut registers = RegisterOperands::default();
    let th = bits(second, 20, 3);
    let role = data_role(op.1, th & 1 != 0, false);
    let mut text = join(op.1, &operands(isa, op, &fields, typed, role, &mut registers)?);
    modifiers(&mut text, &fields);
    cache_policy(&mut text, op.1, bits(second, 20, 3), bits(second, 18, 2));
    flag(&mut text, bits(first, 7, 1) != 0, "nv");
    flag(&mut text, fields.tfe, "tfe");
    done_with(text, 3, Class::VectorMemory, registers)
}
