//! FLAT, GLOBAL and SCRATCH: two dwords on GFX9-GFX11, three on GFX12 (VFLAT, VGLOBAL,
//! VSCRATCH).
//!
//! | dword | GFX8, GFX9 | GFX10 | GFX11 |
//! |---|---|---|---|
//! | 0 | `OFFSET` 12:0 (13 bits) | `OFFSET` 11:0, `DLC` 12 | `OFFSET` 12:0, `DLC` 13 |
//! | 0 | `LDS` 13, `SEG` 15:14, `GLC` (`sc0`) 16, `SLC` (`nt`) 17 | same | `GLC` 14, `SLC` 15, `SEG` 17:16 |
//! | 0 | `OP` 24:18, gfx940 `SC1` 25 | `OP` 24:18 | `OP` 24:18 |
//! | 1 | `ADDR` 7:0, `DATA` 15:8, `SADDR` 22:16, `ACC`/`NV` 23, `VDST` 31:24 | same | `SVE` 23 |
//!
//! GFX12: dword 0 `SADDR` 6:0, `NV` 7, `OP` 20:14, `SEG` 25:24; dword 1 `VDST` 7:0,
//! `SCALE_OFFSET` 16, `SVE` 17, `SCOPE` 19:18, `TH` 22:20, `DATA` 30:23; dword 2 `ADDR` 7:0,
//! `OFFSET` 31:8 (signed).
//!
//! GFX8 has flat instructions only: llvm-mc reads its words as GFX9's, with no scratch or global
//! opcodes. `SEG` is 0 for flat, 1 for scratch, 2 for global. A global or scratch address is a VGPR
//! offset from the SGPR base `SADDR`, or a 64-bit VGPR address (global) / no VGPR (scratch) when
//! `SADDR` is `off` (127, GFX11+ 124).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{
    address, bits, data_register, done_with, has_agpr_data, has_sc_bits, join, loaded, lookup, push_vector,
    scalar_operand, tables, vector, Op, Scalar,
};
use crate::disasm::operands::{RegisterOperands, Role};
use crate::disasm::{Class, Decoded, Generation, Isa, Words};

const ACC_ALLOWED: u32 = 17;
const LDS_ALLOWED: u32 = 18;

/// Which address space an instruction reads: the `SEG` field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Segment {
    Flat,
    Scratch,
    Global,
}

impl Segment {
    fn from_field(value: u32) -> Option<Segment> {
        match value {
            0 => Some(Segment::Flat),
            1 => Some(Segment::Scratch),
            2 => Some(Segment::Global),
            _ => None,
        }
    }

    fn table(self, isa: Isa) -> &'static [Op] {
        match self {
            Segment::Flat => tables::flat(isa),
            Segment::Scratch => tables::scratch(isa),
            Segment::Global => tables::global(isa),
        }
    }
}

/// The fields of one instruction, gathered from either layout.
struct Fields {
    segment: Segment,
    offset: i64,
    addr: u32,
    data: u32,
    saddr: u32,
    vdst: u32,
    /// Whether the atomic returns the old value (`glc`, `sc0`, GFX12 `th:TH_ATOMIC_RETURN`).
    returns: bool,
    /// GFX11+: scratch with a VGPR offset.
    sve: bool,
    agpr: bool,
    /// GFX9/GFX10 `lds`: the data goes to LDS, so there is no `vdst`.
    lds: bool,
}

/// The scalar field value of `exec`.
const EXEC: u32 = 126;

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let generation = isa.generation();
    let (segment, glc, slc, dlc, lds, offset) = match generation {
        // GFX8 reads as GFX9 with flat instructions only.
        Generation::Gfx8 | Generation::Gfx9 => {
            (bits(first, 14, 2), bits(first, 16, 1), bits(first, 17, 1), 0, bits(first, 13, 1), 13)
        }
        Generation::Gfx10 => {
            (bits(first, 14, 2), bits(first, 16, 1), bits(first, 17, 1), bits(first, 12, 1), bits(first, 13, 1), 12)
        }
        _ => (bits(first, 16, 2), bits(first, 14, 1), bits(first, 15, 1), bits(first, 13, 1), 0, 13),
    };
    let segment = Segment::from_field(segment)?;
    let op = lookup(segment.table(isa), bits(first, 18, 7))?;
    let raw_offset = bits(first, 0, offset);
    let offset = match segment {
        Segment::Flat => i64::from(raw_offset),
        _ => sign_extend(raw_offset, offset),
    };
    // GFX11 has a VGPR-offset (SVE) form for scratch only; llvm-mc takes no `nv` on GFX10.
    let sve_elsewhere = generation == Generation::Gfx11 && segment != Segment::Scratch;
    let nv_on_gfx10 = generation == Generation::Gfx10;
    if (sve_elsewhere || nv_on_gfx10) && bits(second, 23, 1) != 0 {
        return None;
    }
    let acc_bit = bits(second, 23, 1) != 0;
    // gfx940 reads bit 13 as SVE for scratch (a VGPR offset) and has no `lds` bit.
    let sve940 = has_sc_bits(isa) && lds != 0;
    let lds = if has_sc_bits(isa) { 0 } else { lds };
    if sve940 && segment != Segment::Scratch {
        return None;
    }
    if lds != 0 && !op.flag(LDS_ALLOWED) {
        return None;
    }
    let fields = Fields {
        segment,
        offset,
        addr: bits(second, 0, 8),
        data: bits(second, 8, 8),
        saddr: bits(second, 16, 7),
        vdst: bits(second, 24, 8),
        returns: glc != 0,
        sve: (generation == Generation::Gfx11 && acc_bit) || sve940,
        agpr: generation <= Generation::Gfx9 && acc_bit,
        lds: lds != 0,
    };
    if fields.agpr && (fields.lds || !op.flag(ACC_ALLOWED)) {
        return None;
    }
    // Before gfx90a a global atomic that returns takes no AGPRs (a flat one prints them).
    let atomic = op.1.contains("_atomic_");
    if fields.agpr && fields.returns && atomic && segment == Segment::Global && !has_agpr_data(isa) {
        return None;
    }
    // gfx90a takes no `scc` on floating-point atomics, and gfx908's (which return nothing) take
    // neither bit 25 nor `glc`, as with their buffer forms.
    let float_atomic = op.1.contains("_atomic_") && ["f16", "f32", "f64"].iter().any(|t| op.1.contains(t));
    if matches!(isa, Isa::Gfx90a | Isa::Gfx908) && float_atomic && bits(first, 25, 1) != 0 {
        return None;
    }
    if isa == Isa::Gfx908 && float_atomic && glc != 0 {
        return None;
    }
    // gfx940's global atomics that return into AGPRs: llvm has no `add_f32` nor `pk_add_f16` of
    // that form (`pk_add_bf16` it has), and its f64 ones take no `sc1`.
    if has_sc_bits(isa) && segment == Segment::Global && fields.agpr && fields.returns && float_atomic {
        let lacking = ["global_atomic_add_f32", "global_atomic_pk_add_f16"].contains(&op.1);
        if lacking || (op.1.contains("_f64") && bits(first, 25, 1) != 0) {
            return None;
        }
    }
    let mut registers = RegisterOperands::default();
    let mut text = join(op.1, &operands(isa, op, &fields, &mut registers)?);
    if offset_printed(op, &fields) {
        text.push_str(&format!(" offset:{}", fields.offset));
    }
    if has_sc_bits(isa) {
        flag(&mut text, glc != 0, "sc0");
        flag(&mut text, slc != 0, "nt");
        flag(&mut text, bits(first, 25, 1) != 0, "sc1");
    } else {
        flag(&mut text, glc != 0, "glc");
        flag(&mut text, slc != 0, "slc");
        flag(&mut text, dlc != 0, "dlc");
        flag(&mut text, isa == Isa::Gfx90a && bits(first, 25, 1) != 0, "scc");
    }
    flag(&mut text, lds != 0, "lds");
    done_with(text, 2, Class::VectorMemory, registers)
}

pub(super) fn decode_gfx12(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let third = words.get(2)?;
    let segment = Segment::from_field(bits(first, 24, 2))?;
    let op = lookup(segment.table(isa), bits(first, 14, 7))?;
    // Bit 21 is reserved, and only scratch has a VGPR-offset (SVE) form.
    if bits(first, 21, 1) != 0 || (segment != Segment::Scratch && bits(second, 17, 1) != 0) {
        return None;
    }
    let th = bits(second, 20, 3);
    let scope = bits(second, 18, 2);
    let atomic = op.1.contains("_atomic_");
    let fields = Fields {
        segment,
        offset: sign_extend(bits(third, 8, 24), 24),
        addr: bits(third, 0, 8),
        data: bits(second, 23, 8),
        saddr: bits(first, 0, 7),
        vdst: bits(second, 0, 8),
        returns: atomic && th & 1 != 0,
        sve: bits(second, 17, 1) != 0,
        agpr: false,
        lds: false,
    };
    let mut registers = RegisterOperands::default();
    let mut text = join(op.1, &operands(isa, op, &fields, &mut registers)?);
    if offset_printed(op, &fields) {
        text.push_str(&format!(" offset:{}", fields.offset));
    }
    flag(&mut text, bits(second, 16, 1) != 0, "scale_offset");
    cache_policy(&mut text, op.1, th, scope);
    flag(&mut text, bits(first, 7, 1) != 0, "nv");
    done_with(text, 3, Class::VectorMemory, registers)
}

/// GFX12's `th:` and `scope:` modifiers; the `th:` names depend on the kind of access and the
/// scope, as the generated table gives them.
pub(super) fn cache_policy(text: &mut String, name: &str, th: u32, scope: u32) {
    let kind = if name.contains("_atomic_") {
        2
    } else if name.contains("_store") {
        1
    } else {
        0
    };
    let index = (kind * 32 + scope * 8 + th) as usize;
    if let Some(th) = tables::TH_NAMES.get(index).filter(|t| !t.is_empty()) {
        text.push_str(" th:");
        text.push_str(th);
    }
    if scope != 0 {
        let names = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];
        if let Some(name) = names.get(scope as usize) {
            text.push_str(&format!(" scope:{name}"));
        }
    }
}

fn flag(text: &mut String, set: bool, name: &str) {
    if set {
        text.push(' ');
        text.push_str(name);
    }
}

/// Whether `offset:` prints: not when zero, nor for cache control without operands.
fn offset_printed(op: &Op, fields: &Fields) -> bool {
    let bare = op.nibble(0) == 0 && op.nibble(1) == 0 && op.nibble(2) == 0 && fields.segment != Segment::Scratch;
    fields.offset != 0 && !bare
}

/// `value`, `width` bits wide, as a two's-complement number.
fn sign_extend(value: u32, width: u32) -> i64 {
    let value = i64::from(value);
    let sign = 1i64 << (width - 1);
    (value ^ sign) - sign
}

/// The register operands: `vdst` (loads, returning atomics), the address, `data` (stores,
/// atomics), and the scalar base (global, scratch); added to `registers` with their roles:
/// `vdst` written (a returning atomic's too: it is a field of its own, not the data), the rest
/// read.
fn operands(isa: Isa, op: &Op, f: &Fields, registers: &mut RegisterOperands) -> Option<Vec<String>> {
    let generation = isa.generation();
    let off = match generation {
        Generation::Gfx8 | Generation::Gfx9 => 127,
        Generation::Gfx10 => 125,
        _ => 124,
    };
    let flat_saddr = if generation <= Generation::Gfx9 { 0 } else { off };
    if f.segment == Segment::Flat && f.saddr != flat_saddr {
        return None;
    }
    let mut out = Vec::new();
    let vdst = if f.returns && op.nibble(3) != 0 { op.nibble(3) } else { op.nibble(0) };
    // A returning atomic's registers take either file on every GFX9 family: no complaint (nor,
    // from gfx90a, about odd AGPR tuples).
    let returning_atomic = f.returns && op.1.contains("_atomic_");
    let quiet = returning_atomic && (!has_agpr_data(isa) || f.agpr);
    let data = |first: u32, count: u32| {
        if quiet {
            vector(f.agpr, first, count)
        } else {
            // A returning atomic's VGPRs are VGPRs only (`VReg_…`); other data takes either file.
            data_register(isa, f.agpr, first, count, !returning_atomic)
        }
    };
    if vdst != 0 && !f.lds {
        out.push(data(f.vdst, vdst)?);
        push_vector(registers, f.agpr, f.vdst, vdst, loaded(op.1));
    }
    let saddr_off = f.saddr == off;
    if op.nibble(1) != 0 || f.segment == Segment::Scratch {
        out.push(match f.segment {
            Segment::Flat => vector_address(isa, f.addr, 2, registers)?,
            Segment::Global if saddr_off => vector_address(isa, f.addr, 2, registers)?,
            Segment::Global => vector_address(isa, f.addr, 1, registers)?,
            Segment::Scratch => {
                let uses_vaddr = if generation >= Generation::Gfx11 || has_sc_bits(isa) { f.sve } else { saddr_off };
                if uses_vaddr {
                    vector_address(isa, f.addr, 1, registers)?
                } else {
                    String::from("off")
                }
            }
        });
    }
    if op.nibble(2) != 0 {
        out.push(data(f.data, op.nibble(2))?);
        push_vector(registers, f.agpr, f.data, op.nibble(2), Role::Read);
    }
    // Cache control without operands (`global_wb`, `global_inv`) takes no base either.
    let bare = op.nibble(0) == 0 && op.nibble(1) == 0 && op.nibble(2) == 0;
    if bare && f.segment == Segment::Global {
        return if saddr_off { Some(out) } else { None };
    }
    match f.segment {
        Segment::Flat => {}
        Segment::Global => {
            // GFX9's `lds` forms take `exec` as their base without llvm-mc's complaint (their
            // operand class holds it), where the other forms print one.
            if f.lds && generation == Generation::Gfx9 && f.saddr == EXEC {
                out.push(String::from("exec"));
            } else {
                out.push(scalar_operand(isa, Scalar::Saddr64, f.saddr)?);
            }
            registers.push_scalar(generation, f.saddr, 2, Role::Read);
        }
        Segment::Scratch => {
            // gfx1010's `lds` forms name their base as gfx1030 does: 127 is `off`, where the
            // other forms print `exec_hi` with a complaint.
            let names_from = if f.lds && isa == Isa::Gfx1010 { Isa::Gfx1030 } else { isa };
            out.push(scalar_operand(names_from, Scalar::Saddr32, f.saddr)?);
            registers.push_scalar(generation, f.saddr, 1, Role::Read);
        }
    }
    Some(out)
}

/// A VGPR address operand, read.
fn vector_address(isa: Isa, first: u32, count: u32, registers: &mut RegisterOperands) -> Option<String> {
    registers.push_vector(crate::disasm::operands::File::Vgpr, first, count, Role::Read);
    address(isa, first, count)
}
