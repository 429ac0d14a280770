//! AMDGPU machine code decoded into the text llvm-objdump 22 prints, instruction for instruction.
//!
//! An instruction is one to three dwords, little-endian: the encoding's first dword, an optional
//! second (VOP3, DS, buffer, flat, image, SMEM, DPP, SDWA), and an optional 32-bit literal when a
//! source operand names one (value 255). Which encoding a word is follows from its top bits and
//! the processor's family ([`Isa`]): the families renumber opcodes and move fields, so each group
//! of encodings keeps a table per family, generated from `llvm-mc --disassemble` 22 by
//! `scripts/disasm/` (no decoding code of LLVM's is copied).
//!
//! - [`scalar`]: SOP1, SOP2, SOPK, SOPC, SOPP and SMEM, with the fields of `s_waitcnt`,
//!   `s_delay_alu`, `hwreg` and `sendmsg`, and branch targets.
//! - [`vector`]: VOP1, VOP2, VOPC and VOP3 (with their `_e64`, DPP and SDWA forms).
//! - [`packed`]: VOP3P (packed math, MFMA, WMMA), VOPD, and the interpolation encodings.
//! - [`memory`]: DS, MUBUF, MTBUF, FLAT/GLOBAL/SCRATCH, MIMG, EXP, LDSDIR.
//! - [`operands`]: registers, inline constants and literals, shared by the groups.
//! - [`descriptor`]: the 64-byte kernel descriptor (`<kernel>.kd`) as `.amdhsa_*` directives.
//! - [`listing`]: a code object's `.text` with its symbols, printed as `llvm-objdump -d` does.
//! - [`flow`]: basic blocks, loops and register pressure of each function of a listing.
//!
//! A word no group decodes is printed as llvm-objdump prints it, `.long 0x…`, and the listing
//! goes on at the next dword. Decoding never panics: every dword read is checked.

use alloc::string::String;

pub mod descriptor;
pub mod flow;
pub mod listing;
mod memory;
pub mod operands;
mod packed;
pub mod roles;
mod scalar;
mod vector;

pub use listing::{Line, LineKind, Listing, Symbol};
pub use operands::{RegisterOperand, RegisterOperands, Role};

/// The encoding family of a processor: the unit the decoding tables are kept per.
///
/// Processors of one family decode the same words the same way as far as llvm-mc 22 shows; the
/// generic targets (`gfx9-generic`, …) use their family's encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// gfx801, gfx802, gfx803, gfx805: GFX8 (Volcanic Islands).
    Gfx803,
    /// gfx810: GFX8 with packed 16-bit image data (`d16`).
    Gfx810,
    /// gfx900, gfx902, gfx904, gfx909, gfx90c, gfx9-generic.
    Gfx900,
    /// gfx906: GFX9 with the dot-product instructions.
    Gfx906,
    /// gfx908: MFMA and AGPRs.
    Gfx908,
    /// gfx90a: MFMA with 64-bit AGPR/VGPR operands, packed FP32.
    Gfx90a,
    /// gfx940, gfx941, gfx942, gfx9-4-generic: `sc0`/`sc1`/`nt` cache bits.
    Gfx942,
    /// gfx950.
    Gfx950,
    /// gfx1010–gfx1013, gfx10-1-generic.
    Gfx1010,
    /// gfx1030–gfx1036, gfx10-3-generic.
    Gfx1030,
    /// gfx1100–gfx1103, gfx11-generic.
    Gfx1100,
    /// gfx1150–gfx1153.
    Gfx1150,
    /// gfx1200, gfx1201, gfx12-generic.
    Gfx1200,
}

/// The broad generation of an [`Isa`], for the rules that hold across a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Generation {
    Gfx8,
    Gfx9,
    Gfx10,
    Gfx11,
    Gfx12,
}

impl Isa {
    /// Every family, in the order reports list them.
    pub const ALL: [Isa; 13] = [
        Isa::Gfx803,
        Isa::Gfx810,
        Isa::Gfx900,
        Isa::Gfx906,
        Isa::Gfx908,
        Isa::Gfx90a,
        Isa::Gfx942,
        Isa::Gfx950,
        Isa::Gfx1010,
        Isa::Gfx1030,
        Isa::Gfx1100,
        Isa::Gfx1150,
        Isa::Gfx1200,
    ];

    /// The family of a processor name (`gfx90a`, `gfx11-generic`), or `None` for processors
    /// outside GFX8–GFX12.
    pub fn for_processor(processor: &str) -> Option<Isa> {
        Some(match processor {
            "gfx801" | "gfx802" | "gfx803" | "gfx805" => Isa::Gfx803,
            "gfx810" => Isa::Gfx810,
            "gfx900" | "gfx902" | "gfx904" | "gfx909" | "gfx90c" | "gfx9-generic" => Isa::Gfx900,
            "gfx906" => Isa::Gfx906,
            "gfx908" => Isa::Gfx908,
            "gfx90a" => Isa::Gfx90a,
            "gfx940" | "gfx941" | "gfx942" | "gfx9-4-generic" => Isa::Gfx942,
            "gfx950" => Isa::Gfx950,
            "gfx1010" | "gfx1011" | "gfx1012" | "gfx1013" | "gfx10-1-generic" => Isa::Gfx1010,
            "gfx1030" | "gfx1031" | "gfx1032" | "gfx1033" | "gfx1034" | "gfx1035" | "gfx1036" | "gfx10-3-generic" => {
                Isa::Gfx1030
            }
            "gfx1100" | "gfx1101" | "gfx1102" | "gfx1103" | "gfx11-generic" => Isa::Gfx1100,
            "gfx1150" | "gfx1151" | "gfx1152" | "gfx1153" => Isa::Gfx1150,
            "gfx1200" | "gfx1201" | "gfx12-generic" => Isa::Gfx1200,
            _ => return None,
        })
    }

    /// The processor the tables of this family were generated with (`llvm-mc -mcpu=`).
    pub fn processor(self) -> &'static str {
        match self {
            Isa::Gfx803 => "gfx803",
            Isa::Gfx810 => "gfx810",
            Isa::Gfx900 => "gfx900",
            Isa::Gfx906 => "gfx906",
            Isa::Gfx908 => "gfx908",
            Isa::Gfx90a => "gfx90a",
            Isa::Gfx942 => "gfx942",
            Isa::Gfx950 => "gfx950",
            Isa::Gfx1010 => "gfx1010",
            Isa::Gfx1030 => "gfx1030",
            Isa::Gfx1100 => "gfx1100",
            Isa::Gfx1150 => "gfx1150",
            Isa::Gfx1200 => "gfx1200",
        }
    }

    pub fn generation(self) -> Generation {
        match self {
            Isa::Gfx803 | Isa::Gfx810 => Generation::Gfx8,
            Isa::Gfx900 | Isa::Gfx906 | Isa::Gfx908 | Isa::Gfx90a | Isa::Gfx942 | Isa::Gfx950 => Generation::Gfx9,
            Isa::Gfx1010 | Isa::Gfx1030 => Generation::Gfx10,
            Isa::Gfx1100 | Isa::Gfx1150 => Generation::Gfx11,
            Isa::Gfx1200 => Generation::Gfx12,
        }
    }
}

/// What an instruction does, for colouring a listing and counting a kernel's mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    ScalarAlu,
    VectorAlu,
    ScalarMemory,
    VectorMemory,
    Lds,
    Matrix,
    Branch,
    Wait,
    /// Export, message, `s_nop`, `s_endpgm`, barriers and other control.
    Other,
}

impl Class {
    pub const ALL: [Class; 9] = [
        Class::ScalarAlu,
        Class::VectorAlu,
        Class::ScalarMemory,
        Class::VectorMemory,
        Class::Lds,
        Class::Matrix,
        Class::Branch,
        Class::Wait,
        Class::Other,
    ];

    /// The class's name in reports and the page's legend.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::ScalarAlu => "scalar ALU",
            Class::VectorAlu => "vector ALU",
            Class::ScalarMemory => "scalar memory",
            Class::VectorMemory => "vector memory",
            Class::Lds => "LDS",
            Class::Matrix => "matrix",
            Class::Branch => "branch",
            Class::Wait => "wait",
            Class::Other => "other",
        }
    }
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Bytes the instruction takes, literal included: 4, 8, 12 (or 16 for GFX10+ NSA images).
    pub size: usize,
    /// The mnemonic and operands, as llvm-objdump prints them (without its leading tab).
    pub text: String,
    pub class: Class,
    /// Where a branch goes, as an address.
    pub target: Option<u64>,
    /// The register operands and what the instruction does with each, from the fields the
    /// decoder read; `None` for the encodings that do not give them yet (the flow analysis then
    /// reads the text, see [`flow::access`]).
    pub registers: Option<RegisterOperands>,
}

/// The dwords of the code at one address: the first is always there; later ones are read with a
/// check, so a truncated instruction is undecodable rather than a panic.
#[derive(Clone, Copy, Debug)]
pub struct Words<'a> {
    bytes: &'a [u8],
    /// The instruction's address, for branch targets.
    pub address: u64,
}

impl<'a> Words<'a> {
    pub fn new(bytes: &'a [u8], address: u64) -> Words<'a> {
        Words { bytes, address }
    }

    /// Dword `index` (0 is the first), or `None` past the end of the code.
    pub fn get(&self, index: usize) -> Option<u32> {
        let start = index.checked_mul(4)?;
        let bytes = self.bytes.get(start..start.checked_add(4)?)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Dwords available from the instruction's start.
    pub fn len(&self) -> usize {
        self.bytes.len() / 4
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Decodes the instruction at the start of `bytes` (at `address`), or `None` when llvm-objdump 22
/// would print its first dword as `.long`.
///
/// Each group answers only for the encodings it owns (by their fixed top bits) and `None` for
/// the rest, so the order they are asked in does not change the answer.
pub fn decode(isa: Isa, bytes: &[u8], address: u64) -> Option<Decoded> {
    let words = Words::new(bytes, address);
    let first = words.get(0)?;
    // GFX10 and later name the all-zero dword `v_illegal` (VOP2 opcode 0 is unused there), as
    // llvm-mc 22 shows: the padding some linkers leave between kernels.
    if first == 0 && isa.generation() >= Generation::Gfx10 {
        return Some(Decoded {
            size: 4,
            text: String::from("v_illegal"),
            class: Class::Other,
            target: None,
            registers: Some(RegisterOperands::default()),
        });
    }
    scalar::decode(isa, &words)
        .or_else(|| vector::decode(isa, &words))
        .or_else(|| packed::decode(isa, &words))
        .or_else(|| memory::decode(isa, &words))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// llvm-objdump 22 on the code objects of jax-rocm60-pjrt 0.5.0: `v_illegal` for a zero
    /// dword on GFX10 and later; GFX9 reads the same dword as VOP2 opcode 0.
    #[test]
    fn a_zero_dword_is_v_illegal_from_gfx10_on() {
        for isa in [Isa::Gfx1010, Isa::Gfx1030, Isa::Gfx1100, Isa::Gfx1200] {
            assert_eq!(decode(isa, &[0; 4], 0).map(|d| d.text), Some(String::from("v_illegal")), "{isa:?}");
        }
        assert_eq!(decode(Isa::Gfx1030, &[1, 0, 0, 0], 0), None);
        let gfx9 = decode(Isa::Gfx90a, &[0; 4], 0).map(|d| d.text);
        assert_eq!(gfx9, Some(String::from("v_cndmask_b32_e32 v0, s0, v0, vcc")));
    }
}
