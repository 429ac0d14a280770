//! VOPD (GFX11, GFX12): two VALU operations issued together, `X :: Y`. Two dwords and an
//! optional literal (for a source of 255, and for `fmaak`/`fmamk`'s constant):
//!
//! | dword | bits | field |
//! |---|---|---|
//! | 0 | 31–26 | `0b110010` |
//! | 0 | 25–22 | X opcode |
//! | 0 | 21–17 | Y opcode |
//! | 0 | 16–9 | vsrc1x (a VGPR) |
//! | 0 | 8–0 | src0x (a 9-bit source operand) |
//! | 1 | 31–24 | vdstx |
//! | 1 | 23–17 | vdsty bits 7–1; bit 0 is the opposite of vdstx's |
//! | 1 | 16–9 | vsrc1y |
//! | 1 | 8–0 | src0y |

use alloc::format;
use alloc::string::String;

use super::tables::{VOPD_X_GFX11, VOPD_X_GFX12, VOPD_Y_GFX11, VOPD_Y_GFX12};
use super::vop3p::full_literal;
use super::Dual;
use crate::disasm::operands::{source, File, RegisterOperands, Role, Type};
use crate::disasm::{roles, Class, Decoded, Generation, Isa, Words};

pub(super) fn is_vopd(isa: Isa, first: u32) -> bool {
    matches!(isa.generation(), Generation::Gfx11 | Generation::Gfx12) && first >> 26 == 0x32
}

/// One half's fields.
struct Half {
    opcode: u32,
    dst: u32,
    src0: u32,
    vsrc1: u32,
}

fn lookup(table: &'static [(u8, &'static str, Dual)], opcode: u32) -> Option<(&'static str, Dual)> {
    let code = u8::try_from(opcode).ok()?;
    let index = table.binary_search_by_key(&code, |e| e.0).ok()?;
    table.get(index).map(|e| (e.1, e.2))
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let (xs, ys) = match isa.generation() {
        Generation::Gfx12 => (VOPD_X_GFX12, VOPD_Y_GFX12),
        _ => (VOPD_X_GFX11, VOPD_Y_GFX11),
    };
    let vdstx = second >> 24;
    let x = Half { opcode: (first >> 22) & 0xF, dst: vdstx, src0: first & 0x1FF, vsrc1: (first >> 9) & 0xFF };
    let y = Half {
        opcode: (first >> 17) & 0x1F,
        dst: (((second >> 17) & 0x7F) << 1) | (!vdstx & 1),
        src0: second & 0x1FF,
        vsrc1: (second >> 9) & 0xFF,
    };
    let (x_name, x_form) = lookup(xs, x.opcode)?;
    let (y_name, y_form) = lookup(ys, y.opcode)?;
    let needs_literal = x.src0 == 255 || y.src0 == 255 || x_form.has_constant() || y_form.has_constant();
    let literal = if needs_literal { Some(words.get(2)?) } else { None };
    let generation = isa.generation();
    let x_text = half_text(generation, x_name, x_form, &x, literal)?;
    let y_text = half_text(generation, y_name, y_form, &y, literal)?;
    let size = if needs_literal { 12 } else { 8 };
    let mut registers = RegisterOperands::default();
    half_registers(generation, x_name, x_form, &x, &mut registers);
    half_registers(generation, y_name, y_form, &y, &mut registers);
    Some(Decoded {
        size,
        text: format!("{x_text} :: {y_text}"),
        class: Class::VectorAlu,
        target: None,
        registers: Some(registers),
    })
}

/// Adds one half's registers to `out`: its destination written (and read, for an accumulator),
/// `src0` and `vsrc1` read.
fn half_registers(generation: Generation, name: &str, form: Dual, half: &Half, out: &mut RegisterOperands) {
    let mut registers = RegisterOperands::default();
    registers.push_vector(File::Vgpr, half.dst, 1, Role::Written);
    registers.push_source(generation, half.src0, 1, Role::Read);
    if form != Dual::Move {
        registers.push_vector(File::Vgpr, half.vsrc1, 1, Role::Read);
    }
    roles::apply_vector(name, &mut registers);
    for &register in registers.as_slice() {
        out.push(register);
    }
    out.reads_vcc |= registers.reads_vcc;
}

impl Dual {
    fn has_constant(self) -> bool {
        matches!(self, Dual::Addend | Dual::Multiplier)
    }
}

fn half_text(generation: Generation, name: &str, form: Dual, half: &Half, literal: Option<u32>) -> Option<String> {
    let src0 =
        if half.src0 == 255 { full_literal(literal?) } else { source(generation, half.src0, 1, Type::F32, None)? };
    let dst = half.dst;
    let vsrc1 = half.vsrc1;
    Some(match form {
        Dual::Move => {
            if vsrc1 != 0 {
                return None;
            }
            format!("{name} v{dst}, {src0}")
        }
        Dual::Binary => format!("{name} v{dst}, {src0}, v{vsrc1}"),
        // The constant K prints as plain hex, never `lit(…)`.
        Dual::Addend => format!("{name} v{dst}, {src0}, v{vsrc1}, {:#x}", literal?),
        Dual::Multiplier => format!("{name} v{dst}, {src0}, {:#x}, v{vsrc1}", literal?),
    })
}
