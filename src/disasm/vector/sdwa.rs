//! The SDWA forms of VOP1, VOP2 and VOPC (GFX9, GFX10): a 32-bit word whose src0 field is 249,
//! followed by a second dword that names the sources and the parts of the dwords used.
//!
//! dword 1 (bit 31 first): s1[31] src1_abs[29] src1_neg[28] src1_sext[27] src1_sel[26:24]
//! s0[23] src0_abs[21] src0_neg[20] src0_sext[19] src0_sel[18:16] omod[15:14] clamp[13]
//! dst_unused[12:11] dst_sel[10:8] src0[7:0]. VOPC has sd[15] sdst[14:8] in place of omod, clamp
//! and the destination selects: with sd set the comparison writes sdst rather than VCC (GFX8 has
//! no sd and sdst: its VOPC has clamp and omod there, and always writes VCC). s0/s1 make
//! src0/src1 a scalar operand. A select is BYTE_0–3, WORD_0–1, DWORD (7 is invalid). Which
//! opcodes have an SDWA form, their mnemonic and which bits print, are ignored or make the word
//! invalid come from [`super::dpp_tables`] (`scripts/disasm/gen_vector.py --dpp`); the operands
//! are those of the 32-bit form.

use alloc::format;
use alloc::string::String;

use super::dpp::Encoding;
use super::{dpp_tables, Fields};
use crate::disasm::{Generation, Isa};

/// The dword-1 bits the flags of a [`dpp_tables`] SDWA row describe, in flag order: bit `j` of
/// the flags says bit `SDWA_BITS[j]` prints, bit `12 + j` that it makes the word invalid.
const SDWA_BITS: [u32; 11] = [13, 14, 15, 19, 20, 21, 23, 27, 28, 29, 31];
/// Flag: the opcode prints no `dst_sel`/`dst_unused` (it writes a whole dword or a pair, as
/// gfx940's `v_cvt_f32_fp8_sdwa` and `v_cvt_pk_f32_fp8_sdwa` do); dst_unused is then ignored.
const NO_DESTINATION_SELECTS: u32 = 1 << 24;
/// Flag (with [`NO_DESTINATION_SELECTS`]): a dst_sel other than DWORD makes the word invalid.
const DESTINATION_DWORD_ONLY: u32 = 1 << 25;
/// The dst_sel value of a whole dword.
const DWORD: u32 = 6;
const SELECTS: [&str; 7] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"];
const UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];

/// What an SDWA word adds to the 32-bit form (see [`super::dpp::Extension`]).
pub(super) struct Sdwa {
    pub mnemonic: &'static str,
    pub fields: Fields,
    pub tail: String,
    /// The VOPC destination written instead of VCC (scalar register number).
    pub sdst: Option<u32>,
    /// `dst_unused:UNUSED_PRESERVE`: the destination is written in part.
    pub preserves: bool,
}

fn row(isa: Isa, encoding: Encoding, opcode: u32) -> Option<(&'static str, u32)> {
    let table = match encoding {
        Encoding::Vop1 => dpp_tables::sdwa_vop1(isa),
        Encoding::Vop2 => dpp_tables::sdwa_vop2(isa),
        Encoding::Vopc => dpp_tables::sdwa_vopc(isa),
    };
    let at = table.binary_search_by_key(&(opcode as u16), |r| r.0).ok()?;
    table.get(at).map(|r| (r.1, r.2))
}

fn select(value: u32) -> Option<&'static str> {
    SELECTS.get(value as usize).copied()
}

pub(super) fn extend(
    isa: Isa,
    words: &crate::disasm::Words<'_>,
    encoding: Encoding,
    opcode: u32,
    mut fields: Fields,
) -> Option<Sdwa> {
    let w1 = words.get(1)?;
    let (mnemonic, flags) = row(isa, encoding, opcode)?;
    // GFX8 VOPC has no sdst: it writes VCC, and bits 13-15 are clamp and omod.
    let gfx8 = isa.generation() == Generation::Gfx8;
    let is_vopc = encoding == Encoding::Vopc && !gfx8;
    let set = |bit: u32| w1 & (1 << bit) != 0;
    let mut printed = 0u32;
    for (j, bit) in SDWA_BITS.iter().enumerate() {
        if is_vopc && *bit <= 14 {
            continue;
        }
        if set(*bit) {
            if flags & (1 << (12 + j)) != 0 {
                return None;
            }
            if flags & (1 << j) != 0 {
                printed |= 1 << bit;
            }
        }
    }
    let shows = |bit: u32| printed & (1 << bit) != 0;
    fields.size = 2;
    fields.src[0] = if shows(23) { w1 & 0xFF } else { 256 + (w1 & 0xFF) };
    if shows(31) {
        fields.src[1] = fields.src[1].wrapping_sub(256);
    }
    fields.any_file = true;
    // neg/abs into the Form order (abs 0–2, neg 3–5); clamp 6; omod 7–9.
    for (bit, to) in [(20, 3), (21, 0), (28, 4), (29, 1), (13, 6)] {
        if shows(bit) {
            fields.shown |= 1 << to;
        }
    }
    let omod = (w1 >> 14) & 3;
    if !is_vopc && omod != 0 && (omod & 1 == 0 || shows(14)) && (omod & 2 == 0 || shows(15)) {
        fields.shown |= 1 << (6 + omod);
    }
    fields.sext = u8::from(shows(19)) | u8::from(shows(27)) << 1;
    let src0_sel = select((w1 >> 16) & 7)?;
    let src1_sel = select((w1 >> 24) & 7)?;
    let whole_destination = flags & NO_DESTINATION_SELECTS != 0;
    if whole_destination && flags & DESTINATION_DWORD_ONLY != 0 && (w1 >> 8) & 7 != DWORD {
        return None;
    }
    // Only VOP1 and VOP2 have destination selects (VOPC has sdst in those bits).
    let destination = || {
        if whole_destination {
            Some(String::new())
        } else {
            destination_selects(w1)
        }
    };
    let tail = match encoding {
        Encoding::Vop1 => {
            if (w1 >> 24) & 7 != 0 {
                return None;
            }
            format!("{}src0_sel:{src0_sel}", destination()?)
        }
        Encoding::Vop2 => format!("{}src0_sel:{src0_sel} src1_sel:{src1_sel}", destination()?),
        Encoding::Vopc => format!("src0_sel:{src0_sel} src1_sel:{src1_sel}"),
    };
    let sdst = if is_vopc && set(15) { Some((w1 >> 8) & 0x7F) } else { None };
    let preserves = encoding != Encoding::Vopc && !whole_destination && (w1 >> 11) & 3 == 2;
    Some(Sdwa { mnemonic, fields, tail, sdst, preserves })
}

/// `dst_sel:… dst_unused:… ` (with the space before the source selects).
fn destination_selects(w1: u32) -> Option<String> {
    let unused = UNUSED.get(((w1 >> 11) & 3) as usize).copied()?;
    Some(format!("dst_sel:{} dst_unused:{unused} ", select((w1 >> 8) & 7)?))
}
