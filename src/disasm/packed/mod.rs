//! Packed math, matrix (MFMA, WMMA), dual-issue (VOPD) and interpolation encodings.
//!
//! VOP3P, two dwords and an optional literal (GFX10+; GFX9 has none):
//!
//! | dword | bits | field |
//! |---|---|---|
//! | 0 | 31–23 | `0b110100111` (GFX9), 31–24 `0xCC` (GFX10+) |
//! | 0 | 22–16 | opcode |
//! | 0 | 15 | `clamp` (MFMA: `acc_cd`, the AGPR bit of vdst and src2) |
//! | 0 | 14 | `op_sel_hi[2]` (MFMA: `abid` bit 3) |
//! | 0 | 13–11 | `op_sel` (MFMA: `abid` bits 0–2; SWMMAC: `index_key`) |
//! | 0 | 10–8 | `neg_hi` (`fma_mix`: abs; MFMA: `cbsz`) |
//! | 0 | 7–0 | vdst |
//! | 1 | 31–29 | `neg_lo` (`fma_mix`: neg; MFMA: `blgp`) |
//! | 1 | 28–27 | `op_sel_hi[1:0]` (MFMA: the AGPR bits of src1, src0) |
//! | 1 | 26–18, 17–9, 8–0 | src2, src1, src0 (9-bit source operands) |
//!
//! Which modifier bits an opcode takes, how wide each operand is and which values each operand
//! slot accepts were read from llvm-mc 22 by `scripts/disasm/gen_packed.py` into [`tables`].

use alloc::string::String;

use super::operands::Type;
use super::{Decoded, Isa, Words};

mod tables;
mod vop3p;

/// How an opcode prints its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// `op_sel:[…] op_sel_hi:[…] neg_lo:[…] neg_hi:[…] clamp`, printed when not the default.
    Packed,
    /// `v_fma_mix*`: neg and abs on the operands, `op_sel`/`op_sel_hi` when not zero.
    Mix,
    /// MFMA/SMFMAC: AGPR bits, `cbsz:`, `abid:`, `blgp:`.
    Mai,
    /// `v_accvgpr_*`: no modifiers.
    Move,
}

/// Which register file an operand slot's VGPR values name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotFile {
    Vgpr,
    Agpr,
    /// AGPR when `acc_cd` (dword 0 bit 15) is set.
    AccCd,
    /// AGPR when dword 1 bit 27 is set.
    Acc0,
    /// AGPR when dword 1 bit 28 is set.
    Acc1,
}

/// Whether a slot takes a kind of value, and what llvm-mc adds when it takes it unwillingly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fit {
    Yes,
    No,
    /// `/*Invalid immediate*/` after the value.
    Imm,
    /// `/*Invalid register, operand has '…' register class*/` after the register.
    Note(&'static str),
}

/// How a 32-bit literal prints in a slot: as hex, wrapped in `lit(…)` when the value is one an
/// inline constant of the slot's type could give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lit {
    No,
    /// Inline when a small integer or an f32 inline constant.
    Full,
    /// Inline when a small integer or an f16 inline constant.
    Half,
    /// Inline when a small integer or a bf16 inline constant.
    Brain,
    /// `v_fma_mix*`: the low 16 bits, or the whole value in `lit(…)` when those are inline.
    Mix,
    /// Printed as an f32 operand would be, then `/*Invalid immediate*/`.
    Invalid,
}

/// One operand slot of an opcode: its width in registers and the values it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub count: u8,
    pub file: SlotFile,
    pub sgpr: Fit,
    /// A tuple starting at an odd register.
    pub odd: Fit,
    pub int: Fit,
    pub float: Fit,
    pub ty: Type,
    pub lit: Lit,
}

/// An absent slot.
pub(super) const NONE: Slot = Slot {
    count: 0,
    file: SlotFile::Vgpr,
    sgpr: Fit::No,
    odd: Fit::No,
    int: Fit::No,
    float: Fit::No,
    ty: Type::Int,
    lit: Lit::No,
};

/// One VOP3P opcode of a family.
#[derive(Clone, Copy, Debug)]
pub(super) struct Op {
    pub code: u8,
    pub name: &'static str,
    pub form: Form,
    /// vdst, src0, src1, src2.
    pub slots: [Slot; 4],
    /// Modifier bits that make llvm-mc reject the word (bit i: dword 0 bit 8+i for i < 8,
    /// dword 1 bit 19+i above).
    pub reject: u16,
    /// Modifier bits that print when set (same numbering).
    pub shown: u16,
}

/// Decodes the packed-math, matrix, VOPD and interpolation encodings; `None` for the others.
pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    if vop3p::is_vop3p(isa, first) {
        return vop3p::decode(isa, words);
    }
    None
}

/// Appends `text` to `out` after a separator.
fn push_operand(out: &mut String, separator: &str, text: &str) {
    out.push_str(separator);
    out.push_str(text);
}
