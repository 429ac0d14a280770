//! VINTRP: parameter interpolation in one dword, on the families that have it (GFX8, gfx900,
//! gfx906, gfx908, GFX10), as llvm-objdump 22 prints it.
//!
//! | bits | field |
//! |---|---|
//! | 31–26 | `110101` (GFX8, GFX9), `110010` (GFX10) |
//! | 25–18 | vdst |
//! | 17–16 | opcode: `v_interp_p1_f32`, `v_interp_p2_f32`, `v_interp_mov_f32` (3 is invalid) |
//! | 15–10 | attribute |
//! | 9–8 | channel (`x`, `y`, `z`, `w`) |
//! | 7–0 | vsrc: a VGPR, or for `v_interp_mov` the parameter (`p10`, `p20`, `p0`) |
//!
//! Every other word of the encoding decodes; an out-of-range parameter prints as
//! `invalid_param_N`, as llvm-mc's answers over random words show (`scripts/disasm/check_vector.py`).

use alloc::format;
use alloc::string::String;

use crate::disasm::operands::{File, RegisterOperands, Role};
use crate::disasm::{roles, Class, Decoded, Generation, Isa, Words};

const NAMES: [&str; 3] = ["v_interp_p1_f32_e32", "v_interp_p2_f32_e32", "v_interp_mov_f32_e32"];

/// Whether `first` is a VINTRP word of `isa`.
pub(super) fn is_vintrp(isa: Isa, first: u32) -> bool {
    match isa.generation() {
        Generation::Gfx8 => first >> 26 == 0x35,
        Generation::Gfx9 => first >> 26 == 0x35 && matches!(isa, Isa::Gfx900 | Isa::Gfx906 | Isa::Gfx908),
        Generation::Gfx10 => first >> 26 == 0x32,
        _ => false,
    }
}

pub(super) fn decode(words: &Words<'_>) -> Option<Decoded> {
    let word = words.get(0)?;
    let op = (word >> 16) & 3;
    let name = NAMES.get(op as usize)?;
    let vsrc = word & 0xFF;
    let source = if op == 2 {
        match vsrc {
            0 => String::from("p10"),
            1 => String::from("p20"),
            2 => String::from("p0"),
            _ => format!("invalid_param_{vsrc}"),
        }
    } else {
        format!("v{vsrc}")
    };
    let channel = ["x", "y", "z", "w"][((word >> 8) & 3) as usize];
    let vdst = (word >> 18) & 0xFF;
    let text = format!("{name} v{vdst}, {source}, attr{}.{channel}", (word >> 10) & 0x3F);
    let mut registers = RegisterOperands::default();
    registers.push_vector(File::Vgpr, vdst, 1, roles::interpolation_destination(name));
    if op != 2 {
        registers.push_vector(File::Vgpr, vsrc, 1, Role::Read);
    }
    Some(Decoded { size: 4, text, class: Class::VectorAlu, target: None, registers: Some(registers) })
}
