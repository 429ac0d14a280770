//! The DPP forms of VOP1, VOP2 and VOPC: a 32-bit word whose src0 field is 250 (DPP16) or
//! 233/234 (DPP8, GFX10+) followed by a second dword that names src0 and the lane shuffle.
//!
//! | form | dword 1 (bit 31 first) |
//! |---|---|
//! | DPP16 | row_mask[31:28] bank_mask[27:24] src1_abs[23] src1_neg[22] src0_abs[21] src0_neg[20] bound_ctrl[19] fi[18] (GFX10+) dpp_ctrl[16:8] src0 VGPR[7:0] |
//! | DPP8 | lane selects 7…0 [31:8], 3 bits each; src0 VGPR[7:0] (src0 field 234 sets fi) |
//!
//! dpp_ctrl: 0x000–0x0FF `quad_perm:[a,b,c,d]` (2 bits per lane, lane 0 lowest); 0x101–0x10F
//! `row_shl`, 0x111–0x11F `row_shr`, 0x121–0x12F `row_ror`; GFX9 only: 0x130 `wave_shl:1`,
//! 0x134 `wave_rol:1`, 0x138 `wave_shr:1`, 0x13C `wave_ror:1`, 0x142/0x143 `row_bcast:15/31`;
//! 0x140 `row_mirror`, 0x141 `row_half_mirror`; 0x150–0x15F `row_newbcast` (GFX90A, GFX942,
//! GFX950) or `row_share` (GFX10+); 0x160–0x16F `row_xmask` (GFX10+). Which opcodes have a DPP
//! form, their mnemonic and which neg/abs bits print come from [`super::dpp_tables`]
//! (`scripts/disasm/gen_vector.py --dpp`); the operands are those of the 32-bit form.

use alloc::format;
use alloc::string::String;

use super::{dpp_tables, Fields};
use crate::disasm::{Generation, Isa, Words};

/// The encodings with DPP forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Vop1,
    Vop2,
    Vopc,
}

/// Flags of a [`dpp_tables`] row: bits 0–3 the neg/abs bits that print, 4–7 those that make the
/// word invalid, 8 a DPP8 form exists, 9 only `row_newbcast` is a valid control.
/// 10–12 a VGPR above v127 in vdst, src0, src1 makes the word invalid, 13–15 it prints with a
/// `VGPR_32_Lo128` note (the 16-bit operations of GFX12, which have no register halves).
const DPP8_OK: u16 = 1 << 8;
const NEWBCAST_ONLY: u16 = 1 << 9;
const HIGH_INVALID: u16 = 10;
const HIGH_NOTE: u16 = 13;
/// src1's abs bit among the four DPP16 neg/abs bits (src0 neg, src0 abs, src1 neg, src1 abs).
const SRC1_ABS: u16 = 1 << 3;

/// What a DPP word adds to the 32-bit form: the mnemonic, the source fields, the modifier bits
/// that print (in the order of [`Form::print`]) and the words after the operands.
pub(super) struct Extension {
    pub mnemonic: &'static str,
    pub fields: Fields,
    pub shown: u16,
    pub tail: String,
    /// GFX12's `v_cndmask_b32_dpp` with src1's abs bit: llvm-objdump 22 draws the bars around
    /// src1 and the carry-in together (`|v5, vcc_lo|`).
    pub abs_around_carry: bool,
}

/// The DPP row of `opcode` in `encoding`.
fn row(isa: Isa, encoding: Encoding, opcode: u32) -> Option<(&'static str, u16)> {
    let table = match encoding {
        Encoding::Vop1 => dpp_tables::vop1(isa),
        Encoding::Vop2 => dpp_tables::vop2(isa),
        Encoding::Vopc => dpp_tables::vopc(isa),
    };
    let at = table.binary_search_by_key(&(opcode as u16), |r| r.0).ok()?;
    table.get(at).map(|r| (r.1, r.2))
}

/// Decodes the DPP extension of a 32-bit word whose src0 field selected it; `fields` are the
/// 32-bit word's fields.
pub(super) fn extend(
    isa: Isa,
    words: &Words<'_>,
    encoding: Encoding,
    opcode: u32,
    mut fields: Fields,
) -> Option<Extension> {
    let selector = fields.src[0];
    let w1 = words.get(1)?;
    let (mnemonic, flags) = row(isa, encoding, opcode)?;
    fields.src[0] = 256 + (w1 & 0xFF);
    fields.size = 2;
    let high = [fields.vdst, w1 & 0xFF, fields.src[1].wrapping_sub(256)].map(|number| number >= 128);
    for (operand, is_high) in high.iter().enumerate() {
        if *is_high && flags & (1 << (HIGH_INVALID + operand as u16)) != 0 {
            return None;
        }
    }
    fields.lo128_notes = ((flags >> (HIGH_NOTE + 1)) & 3) as u8;
    if selector == 250 {
        let modifiers = ((w1 >> 20) & 0xF) as u16;
        let abs_around_carry = isa.generation() == Generation::Gfx12 && mnemonic == "v_cndmask_b32_dpp";
        let abs_around_carry = abs_around_carry && modifiers & SRC1_ABS != 0;
        let rejected = (flags >> 4) & 0xF & if abs_around_carry { !SRC1_ABS } else { 0xF };
        if modifiers & rejected != 0 {
            return None;
        }
        let printed = modifiers & flags & 0xF;
        // DPP bit order (src0 neg, src0 abs, src1 neg, src1 abs) to the Form order (abs 0–2, neg 3–5).
        let shown = [(0, 3), (1, 0), (2, 4), (3, 1)]
            .iter()
            .filter(|(from, _)| printed & (1 << from) != 0)
            .fold(0u16, |acc, (_, to)| acc | (1 << to));
        Some(Extension { mnemonic, fields, shown, tail: dpp16_tail(isa, w1, flags), abs_around_carry })
    } else {
        if flags & DPP8_OK == 0 || isa.generation() <= Generation::Gfx9 {
            return None;
        }
        Some(Extension { mnemonic, fields, shown: 0, tail: dpp8_tail(w1, selector == 234), abs_around_carry: false })
    }
}

/// `dpp8:[…]` and `fi:1`.
pub(super) fn dpp8_tail(w1: u32, fetch_inactive: bool) -> String {
    let mut text = String::from("dpp8:[");
    for lane in 0..8 {
        if lane > 0 {
            text.push(',');
        }
        text.push_str(&format!("{}", (w1 >> (8 + 3 * lane)) & 7));
    }
    text.push(']');
    if fetch_inactive {
        text.push_str(" fi:1");
    }
    text
}

/// The control, masks, `bound_ctrl:1` and `fi:1` of a DPP16 second dword.
pub(super) fn dpp16_tail(isa: Isa, w1: u32, flags: u16) -> String {
    let ctrl = (w1 >> 8) & 0x1FF;
    let control = if flags & NEWBCAST_ONLY != 0 && !(0x150..=0x15F).contains(&ctrl) {
        String::from(" /* DP ALU dpp only supports row_newbcast */")
    } else {
        control_text(isa, ctrl)
    };
    let mut text = format!("{control} row_mask:{:#x} bank_mask:{:#x}", w1 >> 28, (w1 >> 24) & 0xF);
    if w1 & (1 << 19) != 0 {
        text.push_str(" bound_ctrl:1");
    }
    if w1 & (1 << 18) != 0 && isa.generation() > Generation::Gfx9 {
        text.push_str(" fi:1");
    }
    text
}

/// How llvm-objdump names dpp_ctrl `ctrl` on `isa`.
fn control_text(isa: Isa, ctrl: u32) -> String {
    let gfx9 = isa.generation() <= Generation::Gfx9;
    let newbcast = matches!(isa, Isa::Gfx90a | Isa::Gfx942 | Isa::Gfx950);
    let n = ctrl & 0xF;
    match ctrl {
        0x000..=0x0FF => {
            format!("quad_perm:[{},{},{},{}]", ctrl & 3, (ctrl >> 2) & 3, (ctrl >> 4) & 3, (ctrl >> 6) & 3)
        }
        0x101..=0x10F => format!("row_shl:{n}"),
        0x111..=0x11F => format!("row_shr:{n}"),
        0x121..=0x12F => format!("row_ror:{n}"),
        0x130 | 0x134 | 0x138 | 0x13C => {
            let name = ["wave_shl", "wave_rol", "wave_shr", "wave_ror"].get(((ctrl >> 2) & 3) as usize).copied();
            let name = name.unwrap_or("");
            if gfx9 {
                format!("{name}:1")
            } else {
                format!("/* {name} is not supported starting from GFX10 */")
            }
        }
        0x140 => String::from("row_mirror"),
        0x141 => String::from("row_half_mirror"),
        0x142 | 0x143 if gfx9 => format!("row_bcast:{}", if ctrl == 0x142 { 15 } else { 31 }),
        0x142 | 0x143 => String::from("/* row_bcast is not supported starting from GFX10 */"),
        0x150..=0x15F if newbcast => format!("row_newbcast:{n}"),
        0x150..=0x15F if gfx9 => {
            String::from(" /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */")
        }
        0x150..=0x15F => format!("row_share:{n}"),
        0x160..=0x16F if gfx9 => String::from("/* row_xmask is not supported on ASICs earlier than GFX10 */"),
        0x160..=0x16F => format!("row_xmask:{n}"),
        _ => String::from("/* Invalid dpp_ctrl value */"),
    }
}
