//! Ray-tracing intersection (`image_bvh_intersect_ray`, `image_bvh64_intersect_ray`) of GFX10.3,
//! GFX11 and GFX12: image words whose every field but the registers and `a16` is fixed, so
//! they are not in the DIM-driven tables of [`super::image_dim`].
//!
//! Fields, as llvm-objdump 22 reads them (each bit probed alone on a valid word):
//!
//! | family | dword 0 | dword 1 | addresses |
//! |---|---|---|---|
//! | GFX10.3 | `0xF1989F01` (BVH64: bit 18 set); `NSA` 2:1 extra dwords; bits 6, 14 ignored | `VADDR` 7:0, `VDATA` 15:8, `SRSRC` 20:16 (SGPRs by four), `A16` 30; 25:21 and 31 zero | one tuple, or one VGPR a byte (NSA) |
//! | GFX11 | `0xF0648F80` (BVH64: `0xF0688F80`); `NSA` 0; `A16` 16; bits 1, 5, 6 ignored | as GFX10.3, 22:21 and 30:26 zero | one tuple, or five slots (dword 1 byte 0, dword 2) |
//! | GFX12 | `0xD3C64010` (BVH64: `0xD3C68010`); bits 3, 13:8 ignored | `VDATA` 7:0, `RSRC` 17:9, slot 4 in 31:24; 23:18 zero | five slots (dword 2, then dword 1 byte 3) |
//!
//! The data is always four VGPRs. The addresses are the node pointer (two VGPRs for BVH64),
//! the ray extent, origin, direction and inverse direction (three VGPRs each); with `A16` the
//! direction and its inverse share three VGPRs. GFX11 and GFX12 group them in slots: `[node,
//! extent, origin, direction, inverse]`.
//!
//! Tuples past v255 print as llvm-objdump reads them (`v[254:264]`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{bits, scalar_operand, Scalar};
use crate::disasm::operands::{inline_constant, register, File, RegisterOperands, Role, Type};
use crate::disasm::{Class, Decoded, Isa, Words};

const NAMES: [&str; 2] = ["image_bvh_intersect_ray", "image_bvh64_intersect_ray"];

/// The decoding of a BVH word, or `None` when the word is not one (or is one llvm-objdump
/// rejects).
pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    match isa {
        Isa::Gfx1030 => gfx10(isa, words),
        Isa::Gfx1100 | Isa::Gfx1150 => gfx11(isa, words),
        Isa::Gfx1200 => gfx12(words),
        _ => None,
    }
}

/// Which of the two opcodes dword 0 is, once its free bits are masked, or `None`.
fn opcode(first: u32, ignored: u32, bases: [u32; 2]) -> Option<bool> {
    let fixed = first & !ignored;
    bases.iter().position(|&b| b & !ignored == fixed).map(|i| i == 1)
}

/// The address counts of `[node, extent, origin, direction, inverse]`.
fn groups(wide: bool, a16: bool) -> &'static [u32] {
    match (wide, a16) {
        (false, false) => &[1, 1, 3, 3, 3],
        (false, true) => &[1, 1, 3, 3],
        (true, false) => &[2, 1, 3, 3, 3],
        (true, true) => &[2, 1, 3, 3],
    }
}

fn gfx10(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let wide = opcode(first, 1 << 6 | 1 << 14 | 3 << 1, [0xF198_9F01, 0xF19C_9F01])?;
    let second = words.get(1)?;
    if bits(second, 21, 5) != 0 || second >> 31 != 0 {
        return None;
    }
    let a16 = second >> 30 & 1 != 0;
    let count: u32 = groups(wide, a16).iter().sum();
    let nsa = bits(first, 1, 2) as usize;
    let mut registers = RegisterOperands::default();
    let address = if nsa == 0 {
        registers.push_vector(File::Vgpr, second & 0xFF, count, Role::Read);
        register(File::Vgpr, second & 0xFF, count)
    } else {
        // One VGPR a byte: the first in dword 1, the rest in the NSA dwords.
        if nsa != (count as usize - 1).div_ceil(4) {
            return None;
        }
        let mut list = Vec::with_capacity(count as usize);
        list.push(register(File::Vgpr, second & 0xFF, 1));
        registers.push_vector(File::Vgpr, second & 0xFF, 1, Role::Read);
        for i in 0..count as usize - 1 {
            let dword = words.get(2 + i / 4)?;
            list.push(register(File::Vgpr, dword >> (8 * (i % 4)) & 0xFF, 1));
            registers.push_vector(File::Vgpr, dword >> (8 * (i % 4)) & 0xFF, 1, Role::Read);
        }
        format!("[{}]", list.join(", "))
    };
    finish(isa, wide, second, address, a16, 8 + 4 * nsa, registers)
}

fn gfx11(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let wide = opcode(first, 1 | 1 << 1 | 1 << 5 | 1 << 6 | 1 << 16, [0xF064_8F80, 0xF068_8F80])?;
    let second = words.get(1)?;
    if bits(second, 21, 2) != 0 || bits(second, 26, 5) != 0 {
        return None;
    }
    let a16 = first >> 16 & 1 != 0;
    let sizes = groups(wide, a16);
    let mut registers = RegisterOperands::default();
    let (address, size) = if first & 1 == 0 {
        let count = sizes.iter().sum();
        registers.push_vector(File::Vgpr, second & 0xFF, count, Role::Read);
        (register(File::Vgpr, second & 0xFF, count), 8)
    } else {
        let nsa = words.get(2)?;
        let slots = [second & 0xFF, nsa & 0xFF, nsa >> 8 & 0xFF, nsa >> 16 & 0xFF, nsa >> 24];
        (slot_list(&slots, sizes, &mut registers), 12)
    };
    finish(isa, wide, second, address, a16, size, registers)
}

fn gfx12(words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let wide = opcode(first, 1 << 3 | 0x3F << 8, [0xD3C6_4010, 0xD3C6_8010])?;
    let (second, third) = (words.get(1)?, words.get(2)?);
    if bits(second, 18, 6) != 0 {
        return None;
    }
    let resource = gfx12_resource(bits(second, 9, 9))?;
    let slots = [third & 0xFF, third >> 8 & 0xFF, third >> 16 & 0xFF, third >> 24, second >> 24];
    // The four result VGPRs are written; the address slots and the resource read.
    let mut registers = RegisterOperands::default();
    registers.push_vector(File::Vgpr, second & 0xFF, 4, Role::Written);
    let address = slot_list(&slots, groups(wide, false), &mut registers);
    match bits(second, 9, 9) {
        value @ 256..=511 => registers.push_vector(File::Vgpr, value - 256, 4, Role::Read),
        value => registers.push_scalar(crate::disasm::Generation::Gfx12, value, 4, Role::Read),
    }
    let data = register(File::Vgpr, second & 0xFF, 4);
    let text = format!("{} {data}, {address}, {resource}", NAMES[usize::from(wide)]);
    Some(Decoded { size: 12, text, class: Class::VectorMemory, target: None, registers: Some(registers) })
}

/// GFX12's 9-bit resource field: an SGPR or TTMP quad (from the multiple of 4 at or below the
/// field's register, which llvm-objdump warns of when it is not that one) or `null`; llvm-objdump
/// also names a VGPR quad and an inline constant there, each with its complaint. `None` for the
/// values it rejects.
fn gfx12_resource(value: u32) -> Option<String> {
    Some(match value {
        0..=103 => register(File::Sgpr, value & !3, 4),
        108..=123 => register(File::Ttmp, (value - 108) & !3, 4),
        124 => String::from("null"),
        128..=208 | 240..=248 => format!("{}/*Invalid immediate*/", inline_constant(value, Type::F32)?),
        256..=511 => format!(
            "{}/*Invalid register, operand has 'SReg_128_XNULL' register class*/",
            register(File::Vgpr, value - 256, 4)
        ),
        _ => return None,
    })
}

/// `[v9, v10, v[11:13], …]`: one slot per group, each a VGPR or a tuple (llvm-objdump prints a
/// tuple past v255 as it reads it).
fn slot_list(slots: &[u32], sizes: &[u32], registers: &mut RegisterOperands) -> String {
    let list: Vec<String> = slots
        .iter()
        .zip(sizes)
        .map(|(&first, &count)| {
            registers.push_vector(File::Vgpr, first, count, Role::Read);
            register(File::Vgpr, first, count)
        })
        .collect();
    format!("[{}]", list.join(", "))
}

/// The text of a GFX10.3/GFX11 word: data, address, resource, `a16`; `registers` holds the
/// address registers read, to which the four result VGPRs (written) and the resource's four
/// SGPRs (read) are added.
fn finish(
    isa: Isa,
    wide: bool,
    second: u32,
    address: String,
    a16: bool,
    size: usize,
    mut registers: RegisterOperands,
) -> Option<Decoded> {
    let data = register(File::Vgpr, second >> 8 & 0xFF, 4);
    let resource = scalar_operand(isa, Scalar::Srsrc, bits(second, 16, 5))?;
    registers.push_vector(File::Vgpr, second >> 8 & 0xFF, 4, Role::Written);
    registers.push_scalar(isa.generation(), 4 * bits(second, 16, 5), 4, Role::Read);
    let mut text = format!("{} {data}, {address}, {resource}", NAMES[usize::from(wide)]);
    if a16 {
        text.push_str(" a16");
    }
    Some(Decoded { size, text, class: Class::VectorMemory, target: None, registers: Some(registers) })
}
