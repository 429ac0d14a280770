//! DS: LDS and GDS access, two dwords.
//!
//! | dword | bits | field |
//! |---|---|---|
//! | 0 | 7:0, 15:8 | `OFFSET0`, `OFFSET1` (one 16-bit `offset:` for single-address forms) |
//! | 0 | 16 (GFX8, GFX9) / 17 | `GDS` |
//! | 0 | 24:17 (GFX8, GFX9) / 25:18 | `OP` |
//! | 0 | 25 (GFX8, GFX9) | `ACC`: data and result are AGPRs (before gfx90a printed with a note) |
//! | 1 | 7:0, 15:8, 23:16, 31:24 | `ADDR`, `DATA0`, `DATA1`, `VDST` |
//!
//! A register field the opcode does not use must be zero; llvm-mc rejects the word otherwise.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{
    address, bits, data_register, done_with, has_agpr_data, join, loaded, lookup, push_vector, tables, vector, Op,
};
use crate::disasm::operands::{RegisterOperands, Role};
use crate::disasm::{roles, Class, Decoded, Generation, Isa, Words};

/// How an opcode's offset bits print (bits 16-17 of its shape).
const STYLE_SHIFT: u32 = 16;
const GDS_ALLOWED: u32 = 18;
const ACC_ALLOWED: u32 = 19;
/// `ds_gws_*`, `ds_ordered_count`…: llvm-mc rejects the word without the GDS bit.
const GDS_REQUIRED: u32 = 20;

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let generation = isa.generation();
    let (op_shift, gds_bit) = if generation <= Generation::Gfx9 { (17, 16) } else { (18, 17) };
    let op = lookup(tables::ds(isa), bits(first, op_shift, 8))?;
    let gds = bits(first, gds_bit, 1) != 0;
    let acc = generation <= Generation::Gfx9 && bits(first, 25, 1) != 0;
    let gds_required = op.flag(GDS_REQUIRED);
    if (gds && !op.flag(GDS_ALLOWED)) || (!gds && gds_required) || (acc && !op.flag(ACC_ALLOWED)) {
        return None;
    }
    let mut registers = RegisterOperands::default();
    let operands = operands(isa, op, second, acc, &mut registers)?;
    let mut text = join(op.1, &operands);
    offsets(&mut text, op, first);
    // gfx90a and later have no GDS: llvm-mc accepts the bit and does not print it, except on
    // the opcodes that require it.
    if gds && (!has_agpr_data(isa) || gds_required) {
        text.push_str(" gds");
    }
    done_with(text, 2, Class::Lds, registers)
}

/// The register operands in the order llvm-mc prints them: `vdst`, `addr`, `data0`, `data1`,
/// added to `registers` with their roles (`vdst` written, the rest read). `None` when a field
/// the opcode does not use is not zero.
fn operands(isa: Isa, op: &Op, second: u32, acc: bool, registers: &mut RegisterOperands) -> Option<Vec<String>> {
    // (nibble of the shape, bit position in dword 1, whether an AGPR when ACC is set)
    let fields = [(0, 24, true), (1, 0, false), (2, 8, true), (3, 16, true)];
    let mut out = Vec::new();
    for (nibble, shift, data) in fields {
        let value = bits(second, shift, 8);
        let count = op.nibble(nibble);
        if count == 0 {
            if value != 0 {
                return None;
            }
            continue;
        }
        // Loaded data and a lone source take either file (`AV_…`); the operands of returning
        // atomics and two-source forms are VGPRs only (`VReg_…`), and llvm-mc does not complain
        // about odd AGPR tuples there.
        let either_file = if nibble == 0 { !op.1.contains("_rtn_") } else { op.nibble(0) == 0 && op.nibble(3) == 0 };
        let gws = op.1.starts_with("ds_gws");
        let role = match nibble {
            0 => loaded(op.1),
            1 => roles::ds_address(op.1),
            _ => Role::Read,
        };
        push_vector(registers, acc && (data || gws), value, count, role);
        out.push(match (data, acc) {
            // The GWS operand sits in the address field but is data: AGPRs print plainly.
            (false, true) if gws => vector(true, value, count)?,
            (false, _) => address(isa, value, count)?,
            (true, true) if has_agpr_data(isa) && !either_file => vector(true, value, count)?,
            (true, _) => data_register(isa, acc, value, count, either_file)?,
        });
    }
    Some(out)
}

/// Appends the offset modifiers in the opcode's style.
fn offsets(text: &mut String, op: &Op, first: u32) {
    let offset0 = bits(first, 0, 8);
    let offset1 = bits(first, 8, 8);
    let offset = bits(first, 0, 16);
    match bits(op.2, STYLE_SHIFT, 2) {
        1 if offset != 0 => text.push_str(&format!(" offset:{offset}")),
        2 => {
            if offset0 != 0 {
                text.push_str(&format!(" offset0:{offset0}"));
            }
            if offset1 != 0 {
                text.push_str(&format!(" offset1:{offset1}"));
            }
        }
        3 if offset != 0 => text.push_str(&format!(" offset:{}", swizzle(offset))),
        _ => {}
    }
}

/// The `ds_swizzle_b32` pattern of `offset`, as llvm-mc names it.
fn swizzle(offset: u32) -> String {
    if offset & 0xE000 == 0xE000 {
        return format!("swizzle(FFT,{})", bits(offset, 0, 5));
    }
    if offset & 0xE000 == 0xC000 {
        return format!("swizzle(ROTATE,{},{})", bits(offset, 10, 1), bits(offset, 5, 5));
    }
    if offset & 0x8000 != 0 {
        if offset & 0x1F00 != 0 {
            return format!("{offset}");
        }
        let lane = |i: u32| bits(offset, 2 * i, 2);
        return format!("swizzle(QUAD_PERM,{},{},{},{})", lane(0), lane(1), lane(2), lane(3));
    }
    let and = bits(offset, 0, 5);
    let or = bits(offset, 5, 5);
    let xor = bits(offset, 10, 5);
    if and == 0x1F && or == 0 && xor.is_power_of_two() {
        return format!("swizzle(SWAP,{xor})");
    }
    if and == 0x1F && or == 0 && xor != 0 && (xor + 1).is_power_of_two() {
        return format!("swizzle(REVERSE,{})", xor + 1);
    }
    let size = (!and & 0x1F) + 1;
    if xor == 0 && and != 0x1F && size.is_power_of_two() && or & and == 0 {
        return format!("swizzle(BROADCAST,{size},{or})");
    }
    let mut mask = String::new();
    for bit in (0..5).rev() {
        let (a, o, x) = (and >> bit & 1, or >> bit & 1, xor >> bit & 1);
        mask.push(match (a, o, x) {
            (1, 0, 0) => 'p',
            (1, 0, 1) => 'i',
            (_, o, x) if o ^ x != 0 => '1',
            _ => '0',
        });
    }
    format!("swizzle(BITMASK_PERM,\"{mask}\")")
}
