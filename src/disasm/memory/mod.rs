//! The memory encodings: LDS (DS, LDSDIR), buffer (MUBUF, MTBUF, GFX12 VBUFFER), flat, global
//! and scratch (FLAT, GFX12 VFLAT/VGLOBAL/VSCRATCH), image (MIMG; GFX12 VIMAGE and VSAMPLE),
//! and export (EXP).
//!
//! Each encoding is told by the top bits of its first dword:
//!
//! | bits 31:26 | GFX8, GFX9, GFX10, GFX11 | GFX12 |
//! |---|---|---|
//! | `110110` | DS | DS |
//! | `110111` | FLAT (segment in bits 15:14, GFX11 17:16) | — |
//! | `111000` | MUBUF | — |
//! | `111010` | MTBUF | — |
//! | `111100` | MIMG (GFX8, gfx900–gfx90a, GFX10, GFX11) | — |
//! | `110100`, `111001` | — | VIMAGE, VSAMPLE |
//! | `110001` | — (GFX9 EXP) | VBUFFER (buffer and typed buffer) |
//! | `111011` | — | VFLAT, VSCRATCH, VGLOBAL (segment in bits 25:24) |
//! | `110001` | GFX9: EXP | — |
//! | `111110` | GFX10, GFX11: EXP | EXP (`export`) |
//! | `11001110` (31:24) | GFX11: LDSDIR | VDSDIR |
//!
//! The opcode tables and the operand widths each opcode gives its fields are generated from
//! llvm-mc 22 by `scripts/disasm/gen_memory.py` ([`tables`]); field layouts are in the
//! submodules' doc comments.

use alloc::format;
use alloc::string::String;

use super::operands::{register, File, RegisterOperands, Role};
use super::{Class, Decoded, Generation, Isa, Words};

mod buffer;
mod bvh;
mod ds;
mod export;
mod flat;
mod image;
mod image_dim;
mod image_dim_tables;
mod image_tables;
mod tables;

/// An image opcode of GFX8 and GFX9 (decoded by `image`, listed in `image_tables`): number,
/// mnemonic, and its shape: address VGPRs in bits 3–0, a sampler operand (bit 4), the data width
/// printed for a tuple that would run past `v255` (bits 7–5), which modifiers print (bits 16–8)
/// and which make the word invalid (25–17), both in the order of `image::MODIFIERS`, and its
/// data-width rule (31–26, an index in [`image_tables::RULES`]).
#[derive(Clone, Copy, Debug)]
struct ImageOp(pub u8, pub &'static str, pub u32);

/// A GFX10-GFX12 image opcode (decoded by `image_dim`, listed in `image_dim_tables`): number,
/// mnemonic, shape (bit 0 a sampler operand; 6–1 the data-width row of
/// [`image_dim_tables::RULES`]; 15–8 the address row of [`image_dim_tables::ADDRESSES`]; 19–16
/// per NSA size, the mnemonic followed by two spaces; 31–20 the modifiers (by `mods` index) that
/// make the word invalid; 39–32 likewise the family's `unnamed` bits) and the first decoding per
/// NSA size (a byte each: data width in bits 2–0, address count in 7–3).
#[derive(Clone, Copy, Debug)]
struct DimOp(pub u8, pub &'static str, pub u64, pub u32);

/// A family's tables (see [`image_dim_tables`]).
struct DimFamily {
    pub ops: &'static [DimOp],
    /// The single-bit modifiers in print order: (dword, bit, name).
    pub mods: &'static [(u8, u8, &'static str)],
    /// Bits some opcodes reject that print nothing.
    pub unnamed: &'static [(u8, u8)],
    /// Bits that make every word invalid.
    pub spare: &'static [(u8, u8)],
    pub srsrc: &'static [&'static str],
    pub ssamp: &'static [&'static str],
    /// GFX12: the register classes llvm-objdump names when `RSRC` and `SAMP` hold a VGPR (256
    /// on), empty where the field is too narrow to.
    pub vgpr_classes: [&'static str; 2],
    /// Where `TFE`, `LWE`, `D16`, `A16` are in `mods` (15: none); how many `mods` print before
    /// GFX12's `th:` and `scope:`.
    pub roles: [u8; 5],
}

/// One opcode of an encoding: its number, mnemonic, and `shape`, the operand widths and allowed
/// modifiers llvm-mc showed for it, packed as the generator describes per encoding.
#[derive(Clone, Copy, Debug)]
pub(super) struct Op(pub u16, pub &'static str, pub u32);

impl Op {
    /// The register count at nibble `index` of the shape (15 stands for the 32 of GFX12's
    /// block loads and stores).
    fn nibble(&self, index: u32) -> u32 {
        match (self.2 >> (4 * index)) & 0xF {
            15 => 32,
            n => n,
        }
    }

    fn flag(&self, bit: u32) -> bool {
        self.2 >> bit & 1 != 0
    }
}

/// The entry of `code` in a table sorted by opcode.
fn lookup(table: &'static [Op], code: u32) -> Option<&'static Op> {
    let code = u16::try_from(code).ok()?;
    table.binary_search_by_key(&code, |op| op.0).ok().and_then(|i| table.get(i))
}

/// Bits `shift..shift+width` of `word`.
fn bits(word: u32, shift: u32, width: u32) -> u32 {
    (word >> shift) & ((1u32 << width) - 1)
}

/// `count` vector registers from `first`, AGPRs when `agpr`. llvm-mc prints VGPR ranges past
/// `v255` as they are (`v[255:258]`) but rejects AGPR ranges past `a255`.
fn vector(agpr: bool, first: u32, count: u32) -> Option<String> {
    if agpr && first.checked_add(count)? > 256 {
        return None;
    }
    Some(register(if agpr { File::Agpr } else { File::Vgpr }, first, count))
}

/// The scalar operands whose values from some point on print by a table of their own.
#[derive(Clone, Copy)]
enum Scalar {
    /// A 64-bit global base (`s[2:3]`, `off`).
    Saddr64,
    /// A 32-bit scratch base (`s2`, `off`).
    Saddr32,
    /// A buffer resource (`s[8:11]`), its field counting SGPRs by four (GFX12: by one).
    Srsrc,
    /// A buffer offset (`s6`, `0`, `null`).
    Soffset,
}

/// The text of scalar operand `kind` with field value `value`: plain SGPRs below the table's
/// start, aligned as the operand's width asks; the generated table's name from there on. `None`
/// where llvm-mc rejects the value.
fn scalar_operand(isa: Isa, kind: Scalar, value: u32) -> Option<String> {
    let generation = isa.generation();
    let (table, first): (&[&str], u32) = match (kind, generation) {
        // GFX8 has neither global nor scratch instructions.
        (Scalar::Saddr64 | Scalar::Saddr32, Generation::Gfx8) => return None,
        (Scalar::Srsrc, Generation::Gfx8) => (tables::SRSRC_GFX803, 24),
        (Scalar::Soffset, Generation::Gfx8) => (tables::SOFFSET_GFX803, 100),
        (Scalar::Saddr64, Generation::Gfx9) => (tables::SADDR64_GFX900, 100),
        (Scalar::Saddr64, Generation::Gfx10) => (tables::SADDR64_GFX1030, 100),
        (Scalar::Saddr64, Generation::Gfx11) => (tables::SADDR64_GFX1100, 100),
        (Scalar::Saddr64, Generation::Gfx12) => (tables::SADDR64_GFX1200, 100),
        (Scalar::Saddr32, Generation::Gfx9) => (tables::SADDR32_GFX900, 100),
        (Scalar::Saddr32, Generation::Gfx10) if isa == Isa::Gfx1010 => (tables::SADDR32_GFX1010, 100),
        (Scalar::Saddr32, Generation::Gfx10) => (tables::SADDR32_GFX1030, 100),
        (Scalar::Saddr32, Generation::Gfx11) => (tables::SADDR32_GFX1100, 100),
        (Scalar::Saddr32, Generation::Gfx12) => (tables::SADDR32_GFX1200, 100),
        (Scalar::Srsrc, Generation::Gfx9) => (tables::SRSRC_GFX900, 24),
        (Scalar::Srsrc, Generation::Gfx10) => (tables::SRSRC_GFX1030, 24),
        (Scalar::Srsrc, Generation::Gfx11) => (tables::SRSRC_GFX1100, 24),
        (Scalar::Srsrc, Generation::Gfx12) => (tables::SRSRC_GFX1200, 24),
        (Scalar::Soffset, Generation::Gfx9) => (tables::SOFFSET_GFX900, 100),
        (Scalar::Soffset, Generation::Gfx10) => (tables::SOFFSET_GFX1030, 100),
        (Scalar::Soffset, Generation::Gfx11) => (tables::SOFFSET_GFX1100, 100),
        (Scalar::Soffset, Generation::Gfx12) => (tables::SOFFSET_GFX1200, 100),
    };
    if value >= first {
        let name = table.get((value - first) as usize).copied().filter(|n| !n.is_empty())?;
        return Some(String::from(name));
    }
    Some(match kind {
        // A 64-bit base at an odd SGPR prints from the even one below (llvm-objdump warns of it,
        // see `operands::Misaligned`).
        Scalar::Saddr64 => register(File::Sgpr, value & !1, 2),
        Scalar::Saddr32 | Scalar::Soffset => register(File::Sgpr, value, 1),
        Scalar::Srsrc if generation == Generation::Gfx12 => register(File::Sgpr, value & !3, 4),
        Scalar::Srsrc => register(File::Sgpr, value * 4, 4),
    })
}

/// A data or result operand of `count` registers from `first` whose `ACC` bit is `acc`: GFX9
/// families without AGPR memory operands still print the AGPRs, with llvm-mc's complaint.
/// `either_file`: the operand's register class takes VGPRs or AGPRs (`AV_…`), as flat and buffer
/// data do; DS names VGPRs (`VReg_…`) or AGPRs (`AReg_…`).
fn data_register(isa: Isa, acc: bool, first: u32, count: u32, either_file: bool) -> Option<String> {
    let text = vector(acc, first, count)?;
    if has_agpr_data(isa) {
        let class = match (either_file, acc) {
            (true, _) => "AV",
            (false, true) => "AReg",
            (false, false) => "VReg",
        };
        return Some(aligned(isa, class, text, first, count));
    }
    if !acc {
        return Some(text);
    }
    let class = match count {
        1 => String::from("VGPR_32"),
        n => format!("VReg_{}", n.wrapping_mul(32)),
    };
    Some(format!("{text}/*Invalid register, operand has '{class}' register class*/"))
}

/// gfx90a and later want register tuples at even registers; llvm-mc prints an odd one with its
/// complaint.
fn aligned(isa: Isa, file: &str, text: String, first: u32, count: u32) -> String {
    if !has_agpr_data(isa) || count < 2 || first % 2 == 0 {
        return text;
    }
    format!("{text}/*Invalid register, operand has '{file}_{}_Align2' register class*/", count.wrapping_mul(32))
}

/// A vector address operand: VGPRs only, aligned as [`aligned`] says.
fn address(isa: Isa, first: u32, count: u32) -> Option<String> {
    Some(aligned(isa, "VReg", vector(false, first, count)?, first, count))
}

/// Whether this family has AGPRs that memory instructions can load to and store from.
fn has_agpr_data(isa: Isa) -> bool {
    matches!(isa, Isa::Gfx90a | Isa::Gfx942 | Isa::Gfx950)
}

/// Whether the family prints the GFX940 cache bits (`sc0`, `sc1`, `nt`) for `glc`, `slc`.
fn has_sc_bits(isa: Isa) -> bool {
    matches!(isa, Isa::Gfx942 | Isa::Gfx950)
}

/// A decoded memory instruction with its register operands.
fn done_with(text: String, dwords: usize, class: Class, registers: RegisterOperands) -> Option<Decoded> {
    Some(Decoded { size: dwords * 4, text, class, target: None, registers: Some(registers) })
}

/// What a load does with its destination: a `_d16` load writes half of each register and keeps
/// the other half, so the register is read too.
fn loaded(name: &str) -> Role {
    if name.contains("_d16") {
        Role::ReadWritten
    } else {
        Role::Written
    }
}

/// What a buffer or image instruction does with `VDATA`: a load writes it, a store reads it, an atomic
/// reads it and, when it returns the old value (`returns`: `glc`, `sc0`, GFX12's return `th`),
/// writes it back into the same registers; a load into LDS (`lds`) only names it.
fn data_role(name: &str, returns: bool, lds: bool) -> Role {
    if name.contains("_atomic_") {
        return if returns { Role::ReadWritten } else { Role::Read };
    }
    if lds || name.contains("store") {
        return Role::Read;
    }
    loaded(name)
}

/// `count` registers of the vector file `agpr` says, from `first`.
fn push_vector(registers: &mut RegisterOperands, agpr: bool, first: u32, count: u32, role: Role) {
    registers.push_vector(if agpr { File::Agpr } else { File::Vgpr }, first, count, role);
}

/// `name` followed by its operands, comma-separated.
fn join(name: &str, operands: &[String]) -> String {
    if operands.is_empty() {
        return String::from(name);
    }
    let mut text = format!("{name} ");
    for (i, operand) in operands.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(operand);
    }
    text
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let generation = isa.generation();
    match (first >> 26, generation) {
        (0x36, _) => ds::decode(isa, words),
        (0x37, Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx10 | Generation::Gfx11) => flat::decode(isa, words),
        (0x3B, Generation::Gfx12) => flat::decode_gfx12(isa, words),
        (0x38 | 0x3A, Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx10 | Generation::Gfx11) => {
            buffer::decode(isa, words)
        }
        (0x31, Generation::Gfx12) => buffer::decode_gfx12(isa, words),
        // gfx90a, gfx940 and gfx950 have no exports.
        (0x31, Generation::Gfx8 | Generation::Gfx9) if !has_agpr_data(isa) => export::decode_export(isa, words),
        (0x3E, Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12) => export::decode_export(isa, words),
        (0x33, Generation::Gfx11 | Generation::Gfx12) if first >> 24 == 0xCE => export::decode_ldsdir(isa, words),
        (0x3C, Generation::Gfx8 | Generation::Gfx9) => image::decode(isa, words),
        (0x3C, Generation::Gfx10 | Generation::Gfx11) | (0x34 | 0x39, Generation::Gfx12) => {
            image_dim::decode(isa, words).or_else(|| bvh::decode(isa, words))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
