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
//!
//! VINTRP, the one-dword interpolation of GFX8–GFX10, is in [`vintrp`].

use alloc::string::String;

use super::operands::Type;
use super::{Decoded, Isa, Words};

mod tables;
mod vinterp;
mod vinterp_tables;
mod vintrp;
mod vop3p;
mod vopd;

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

/// The operands of one half of a VOPD instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dual {
    /// `vdst, src0` (`v_dual_mov_b32`; vsrc1 must be 0).
    Move,
    /// `vdst, src0, vsrc1`.
    Binary,
    /// `vdst, src0, vsrc1, K` (`fmaak`).
    Addend,
    /// `vdst, src0, K, vsrc1` (`fmamk`).
    Multiplier,
}

/// One VOP3P opcode of a family.
#[derive(Clone, Copy, Debug)]
pub(super) struct Op {
    pub code: u8,
    pub name: &'static str,
    pub form: Form,
    /// vdst, src0, src1, src2.
    pub slots: [Slot; 4],
    /// The modifier bits of the word the opcode was probed with (`op_sel_hi` set, or clear for
    /// MFMA): `reject` and `shown` tell what changing a bit from these does.
    pub base: u16,
    /// Modifier bits that, changed from `base`, make llvm-mc reject the word (bit i: dword 0 bit 8+i for i < 8,
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
    if vopd::is_vopd(isa, first) {
        return vopd::decode(isa, words);
    }
    if vintrp::is_vintrp(isa, first) {
        return vintrp::decode(words);
    }
    if vinterp::is_vinterp(isa, first) {
        return vinterp::decode(isa, words);
    }
    None
}

/// Appends `text` to `out` after a separator.
fn push_operand(out: &mut String, separator: &str, text: &str) {
    out.push_str(separator);
    out.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disasm::Class;

    fn text(isa: Isa, words: &[u32]) -> Option<String> {
        let bytes: alloc::vec::Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        decode(isa, &Words::new(&bytes, 0)).map(|d| d.text)
    }

    /// Texts llvm-objdump 22 printed for compiled kernels.
    #[test]
    fn compiled_words_print_as_llvm_objdump_prints_them() {
        let cases: &[(Isa, &[u32], &str)] = &[
            (Isa::Gfx90a, &[0xD3CC0002, 0x040A3114], "v_mfma_f32_32x32x8f16 v[2:17], v[20:21], v[24:25], v[2:17]"),
            (Isa::Gfx1100, &[0xCC404001, 0x1C062309], "v_wmma_f32_16x16x16_f16 v[1:8], v[9:16], v[17:24], v[1:8]"),
            (Isa::Gfx1200, &[0xCC404001, 0x1C061B09], "v_wmma_f32_16x16x16_f16 v[1:8], v[9:12], v[13:16], v[1:8]"),
            (Isa::Gfx1100, &[0xCC0E4001, 0x1C060102], "v_pk_fma_f16 v1, v2, v0, v1"),
            (Isa::Gfx1100, &[0xCC201001, 0x1C060102], "v_fma_mix_f32 v1, v2, v0, v1 op_sel:[0,1,0] op_sel_hi:[1,1,0]"),
            (Isa::Gfx1200, &[0xCC0F4000, 0x18020102], "v_pk_add_f16 v0, v2, v0"),
        ];
        for (isa, words, expected) in cases {
            assert_eq!(text(*isa, words).as_deref(), Some(*expected), "{isa:?} {words:08x?}");
        }
    }

    /// Texts llvm-mc 22 printed for hand-made words.
    #[test]
    fn modifiers_print_as_llvm_mc_prints_them() {
        let cases: &[(Isa, &[u32], &str)] = &[
            (Isa::Gfx906, &[0xD38E0000, 0x1C040501], "v_pk_fma_f16 v0, v1, s2, v1 op_sel_hi:[1,1,0]"),
            (Isa::Gfx906, &[0xD3A04700, 0x1C040501], "v_fma_mix_f32 v0, |v1|, |s2|, |v1| op_sel_hi:[1,1,1]"),
            (Isa::Gfx90a, &[0xD3CC8000, 0x04822108], "v_mfma_f32_32x32x8f16 a[0:15], v[8:9], v[16:17], a[32:47]"),
            (
                Isa::Gfx90a,
                &[0xD3CC0000, 0x24822108],
                "v_mfma_f32_32x32x8f16 v[0:15], v[8:9], v[16:17], v[32:47] blgp:1",
            ),
            (Isa::Gfx1100, &[0xCA100101, 0x0A0C0003], "v_dual_mov_b32 v10, v1 :: v_dual_mov_b32 v13, s3"),
        ];
        for (isa, words, expected) in cases {
            assert_eq!(text(*isa, words).as_deref(), Some(*expected), "{isa:?} {words:08x?}");
        }
    }

    #[test]
    fn matrix_instructions_are_classed_as_matrix() {
        let bytes: alloc::vec::Vec<u8> = [0xD3CC0002u32, 0x040A3114].iter().flat_map(|w| w.to_le_bytes()).collect();
        let decoded = decode(Isa::Gfx90a, &Words::new(&bytes, 0)).expect("an MFMA");
        assert_eq!((decoded.class, decoded.size), (Class::Matrix, 8));
    }

    /// Random words, truncated at every length, never panic.
    #[test]
    fn random_words_never_panic() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u32
        };
        for isa in Isa::ALL {
            for _ in 0..20_000 {
                let prefix = match next() % 4 {
                    0 => 0xD380_0000,
                    1 => 0xCC00_0000,
                    2 => 0xC800_0000,
                    _ => 0,
                };
                let words = [prefix | (next() & 0x00FF_FFFF), next(), next()];
                let bytes: alloc::vec::Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                for len in [4, 8, 12] {
                    let _ = decode(isa, &Words::new(bytes.get(..len).unwrap_or_default(), 0));
                }
            }
        }
    }
}
