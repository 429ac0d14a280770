//! VINTERP: GFX11 and GFX12 parameter interpolation, two dwords, as llvm-objdump 22 prints it.
//!
//! | dword | bits | field |
//! |---|---|---|
//! | 0 | 31–24 | `11001101` |
//! | 0 | 22–16 | opcode ([`vinterp_tables`]) |
//! | 0 | 15 | `CLAMP` |
//! | 0 | 14–11 | `OP_SEL`: src0, src1, src2, dst |
//! | 0 | 10–8 | `WAIT_EXP` |
//! | 0 | 7–0 | `VDST` |
//! | 1 | 31–29 | `NEG`: src0, src1, src2 |
//! | 1 | 26–18, 17–9, 8–0 | `SRC2`, `SRC1`, `SRC0` (VOP3 source values) |
//!
//! Printed as `name vdst, src0, src1, src2 [clamp] [op_sel:[…]] wait_exp:N`. The sources are
//! VGPRs; any other source value prints as the VOP3 operand would, followed by llvm-objdump's
//! complaint. GFX11 prints the 16-bit operands as `.l`/`.h` halves of the VGPR in the field's low
//! 8 bits, the half chosen by their `OP_SEL` bit.

use alloc::format;
use alloc::string::String;

use super::vinterp_tables;
use crate::disasm::operands::{self, File, RegisterOperands, Role, Type};
use crate::disasm::{Class, Decoded, Generation, Isa, Words};

/// Whether `first` is a VINTERP word of `isa`.
pub(super) fn is_vinterp(isa: Isa, first: u32) -> bool {
    first >> 24 == 0xCD && !vinterp_tables::ops(isa).is_empty()
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let ops = vinterp_tables::ops(isa);
    let code = u8::try_from(first >> 16 & 0x7F).ok()?;
    let &(_, name, shape) = ops.get(ops.binary_search_by_key(&code, |op| op.0).ok()?)?;
    let generation = isa.generation();
    let op_sel = first >> 11 & 0xF;
    // GFX11 names 16-bit operands by half; GFX12 prints the whole VGPR and `op_sel:`.
    let half = |operand: u32, select: u32| -> &'static str {
        if generation != Generation::Gfx11 || shape >> operand & 1 == 0 {
            ""
        } else if op_sel >> select & 1 != 0 {
            ".h"
        } else {
            ".l"
        }
    };
    let mut text = format!("{name} v{}{}", first & 0xFF, half(0, 3));
    // The destination is written (a 16-bit half in part, so read too); the sources read.
    let mut registers = RegisterOperands::default();
    let partial = if half(0, 3).is_empty() { Role::Written } else { Role::ReadWritten };
    registers.push_vector(File::Vgpr, first & 0xFF, 1, partial);
    for i in 0..3 {
        let value = second >> (9 * i) & 0x1FF;
        let negated = second >> (29 + i) & 1 != 0;
        text.push_str(", ");
        text.push_str(&source(isa, value, half(i + 1, i), negated)?);
        if value >= 256 || !half(i + 1, i).is_empty() {
            registers.push_vector(File::Vgpr, value & 0xFF, 1, Role::Read);
        } else {
            registers.push_source(generation, value, 1, Role::Read);
        }
    }
    if first >> 15 & 1 != 0 {
        text.push_str(" clamp");
    }
    if shape & 0x10 != 0 && op_sel != 0 {
        let bit = |i: u32| op_sel >> i & 1;
        text.push_str(&format!(" op_sel:[{},{},{},{}]", bit(0), bit(1), bit(2), bit(3)));
    }
    text.push_str(&format!(" wait_exp:{}", first >> 8 & 7));
    Some(Decoded { size: 8, text, class: Class::VectorAlu, target: None, registers: Some(registers) })
}

/// A source: a VGPR (with its half), or another VOP3 source value, followed where llvm-objdump
/// adds it by its complaint that the operand takes VGPRs ([`vinterp_tables::source_notes`]). A
/// negated constant prints as `neg(…)`, anything else negated with a `-`.
fn source(isa: Isa, value: u32, half: &str, negated: bool) -> Option<String> {
    let sign = if negated { "-" } else { "" };
    // A 16-bit operand (GFX11) is a VGPR half whatever the field's top bit.
    if value >= 256 || !half.is_empty() {
        return Some(format!("{sign}v{}{half}", value & 0xFF));
    }
    let body = operands::source(isa.generation(), value, 1, Type::F32, None)?;
    Some(match vinterp_tables::source_notes(isa).get(value as usize)? {
        1 => format!("{sign}{body}"),
        2 => format!("{sign}{body}/*Invalid register, operand has 'VGPR_32' register class*/"),
        3 if negated => format!("neg({body}/*Invalid immediate*/)"),
        3 => format!("{body}/*Invalid immediate*/"),
        _ => return None,
    })
}
