//! EXP (GFX12 `export`), two dwords, and LDSDIR (GFX12 VDSDIR), one dword.
//!
//! EXP: dword 0 `EN` 3:0 (which of the four sources are written), `TARGET` 9:4, GFX9/GFX10
//! `COMPR` 10, `DONE` 11, GFX9/GFX10 `VM` 12, GFX11+ `ROW_EN` 13, encoding in 31:26 (`110001` on
//! GFX9, `111110` from GFX10); dword 1 `VSRC0`–`VSRC3`, a byte each. With `COMPR` two sources
//! hold the four values as 16-bit pairs: slots 0 and 1 print `VSRC0`, slots 2 and 3 `VSRC1`.
//!
//! LDSDIR: `VDST` 7:0, `ATTR_CHAN` 9:8, `ATTR` 15:10, `WAIT_VDST` (GFX12 `WAIT_VA_VDST`) 19:16,
//! `OP` 21:20, GFX12 `WAIT_VM_VSRC` 23 (reserved on GFX11, as is 22), encoding `11001110` in 31:24.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{bits, done_with, tables, vector};
use crate::disasm::operands::{File, RegisterOperands, Role};
use crate::disasm::{Class, Decoded, Generation, Isa, Words};

pub(super) fn decode_export(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let generation = isa.generation();
    let gfx11 = generation >= Generation::Gfx11;
    let enabled = bits(first, 0, 4);
    let compressed = !gfx11 && bits(first, 10, 1) != 0;
    let mut sources = Vec::new();
    // An export reads its enabled sources and writes no register.
    let mut registers = RegisterOperands::default();
    for slot in 0..4 {
        let source = if compressed { slot / 2 } else { slot };
        sources.push(if enabled >> slot & 1 != 0 {
            registers.push_vector(File::Vgpr, bits(second, 8 * source, 8), 1, Role::Read);
            vector(false, bits(second, 8 * source, 8), 1)?
        } else {
            String::from("off")
        });
    }
    let name = if generation == Generation::Gfx12 { "export" } else { "exp" };
    let mut text = format!("{name} {} {}", target(generation, bits(first, 4, 6)), sources.join(", "));
    let flags = [
        (bits(first, 11, 1) != 0, "done"),
        (compressed, "compr"),
        (!gfx11 && bits(first, 12, 1) != 0, "vm"),
        (gfx11 && bits(first, 13, 1) != 0, "row_en"),
    ];
    for (set, flag) in flags {
        if set {
            text.push(' ');
            text.push_str(flag);
        }
    }
    done_with(text, 2, Class::Other, registers)
}

/// The export target's name: colour, depth, position, primitive and parameter slots by
/// generation, `invalid_target_N` otherwise, as llvm-mc names them.
fn target(generation: Generation, value: u32) -> String {
    let gfx9_10 = generation <= Generation::Gfx10;
    match value {
        0..=7 => format!("mrt{value}"),
        8 => String::from("mrtz"),
        9 if gfx9_10 => String::from("null"),
        12..=15 => format!("pos{}", value - 12),
        16 if generation >= Generation::Gfx10 => String::from("pos4"),
        20 if generation >= Generation::Gfx10 => String::from("prim"),
        21 | 22 if !gfx9_10 => format!("dual_src_blend{}", value - 21),
        32..=63 if gfx9_10 => format!("param{}", value - 32),
        _ => format!("invalid_target_{value}"),
    }
}

pub(super) fn decode_ldsdir(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let word = words.get(0)?;
    let gfx12 = isa.generation() == Generation::Gfx12;
    let names = if gfx12 { tables::LDSDIR_GFX1200 } else { tables::LDSDIR_GFX1100 };
    // Bit 22 (and on GFX11 bit 23) is reserved: llvm-mc rejects the word when it is set.
    if bits(word, 22, 1) != 0 || (!gfx12 && bits(word, 23, 1) != 0) {
        return None;
    }
    let op = bits(word, 20, 2);
    let name = names.get(op as usize).copied().filter(|n| !n.is_empty())?;
    let mut text = format!("{name} {}", vector(false, bits(word, 0, 8), 1)?);
    if op == 0 {
        let channel = ["x", "y", "z", "w"].get(bits(word, 8, 2) as usize).copied().unwrap_or("x");
        text.push_str(&format!(", attr{}.{channel}", bits(word, 10, 6)));
    }
    let wait = bits(word, 16, 4);
    if gfx12 {
        text.push_str(&format!(" wait_va_vdst:{wait} wait_vm_vsrc:{}", bits(word, 23, 1)));
    } else {
        text.push_str(&format!(" wait_vdst:{wait}"));
    }
    // The loaded VGPR is written.
    let mut registers = RegisterOperands::default();
    registers.push_vector(File::Vgpr, bits(word, 0, 8), 1, Role::Written);
    done_with(text, 1, Class::Lds, registers)
}
