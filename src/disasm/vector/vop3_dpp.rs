//! VOP3 DPP (`_e64_dpp`) of GFX11 and GFX12: the two VOP3 dwords with src0 = 250 (DPP16) or
//! 233/234 (DPP8; 234 sets `fi`), then the DPP dword of the 32-bit encodings ([`super::dpp`]),
//! whose bits 7:0 name src0's VGPR. The operands and modifiers are the VOP3 form's; which opcodes
//! have which form is [`vop3_dpp_tables`] (`scripts/disasm/gen_vop3_dpp.py`), and the mnemonic
//! is the VOP3 one with `_dpp` (`_e64_dpp` where it has no `_e64`), as llvm-objdump 22 prints it.

use alloc::format;
use alloc::string::String;

use super::{dpp, print, vop3_dpp_tables, Fields, Form, Operand};
use crate::disasm::{Decoded, Isa, Words};

const DPP16: u8 = 1;
const DPP8: u8 = 2;

pub(super) fn decode(
    isa: Isa,
    words: &Words<'_>,
    opcode: u32,
    mnemonic: &str,
    form: &Form,
    mut fields: Fields,
    byte_sel: String,
) -> Option<Decoded> {
    let ops = vop3_dpp_tables::ops(isa);
    let code = u16::try_from(opcode).ok()?;
    let &(_, forms) = ops.get(ops.binary_search_by_key(&code, |row| row.0).ok()?)?;
    let selector = fields.src[0];
    let dword = words.get(2)?;
    // No literal source (the DPP dword is where it would be); a source field the form does not
    // use is ignored whatever it holds.
    let literal = form.operands.iter().any(|o| match *o {
        Operand::Src { index, .. } => index > 0 && fields.src.get(usize::from(index)) == Some(&255),
        _ => false,
    });
    // The op_sel bits that make this opcode's DPP words invalid (some 16-bit operations, for
    // operands they lack).
    if literal || fields.op_sel & u32::from(forms >> 2) & 0xF != 0 {
        return None;
    }
    // An op_sel bit of an operand the opcode lacks selects the form without register halves,
    // whose DPP words reject the neg and abs bits the opcode does not print (16-bit integer
    // comparisons), where the other form ignores them.
    let plain_op_sel = fields.op_sel & u32::from(form.plain >> 10) & 0xF != 0;
    let sign_bits = ((fields.abs & 7) | (fields.neg & 7) << 3) as u16;
    if plain_op_sel && sign_bits & !form.print != 0 {
        return None;
    }
    let shuffle = if selector == 250 {
        if forms & DPP16 == 0 {
            return None;
        }
        dpp::dpp16_tail(isa, dword, 0)
    } else {
        if forms & DPP8 == 0 {
            return None;
        }
        dpp::dpp8_tail(dword, selector == 234)
    };
    // `byte_sel:N` (GFX12's stochastic-rounding conversions) goes before the lane shuffle.
    let tail = match byte_sel.trim_start() {
        "" => shuffle,
        selected => format!("{selected} {shuffle}"),
    };
    fields.src[0] = 256 + (dword & 0xFF);
    fields.size = 3;
    // llvm-objdump 22 prints an inline constant in src1 of the fused multiply-accumulates
    // (whose src2 is tied to the destination) as the field's value in hex.
    if mnemonic.starts_with("v_fmac_") {
        fields.raw_constants = 1 << 1;
    }
    let mut name = String::from(mnemonic);
    name.push_str(if mnemonic.ends_with("_e64") { "_dpp" } else { "_e64_dpp" });
    let mut decoded = print(isa, words, &name, form, fields, &tail)?;
    // src0 is a VGPR operand, so a misaligned tuple names the VGPR class, not VGPR-or-SGPR.
    decoded.text = decoded.text.replacen("operand has 'VS_", "operand has 'VReg_", 1);
    if mnemonic.starts_with("v_cmp_") {
        decoded.text = without_destination_op_sel(&decoded.text);
    }
    Some(decoded)
}

/// A comparison's `op_sel:[a,b,c]` as `op_sel:[a,b]`: llvm-objdump 22 lists only the sources of
/// a 16-bit comparison's DPP forms (the plain VOP3 form lists the SGPR destination's entry too).
fn without_destination_op_sel(text: &str) -> String {
    let Some(start) = text.find(" op_sel:[") else { return String::from(text) };
    let list_start = start + " op_sel:[".len();
    let Some(length) = text.get(list_start..).and_then(|rest| rest.find(']')) else { return String::from(text) };
    let entries: alloc::vec::Vec<&str> = text.get(list_start..list_start + length).unwrap_or("").split(',').collect();
    if entries.len() != 3 {
        return String::from(text);
    }
    let mut out = String::from(text.get(..list_start).unwrap_or(""));
    out.push_str(&entries[..2].join(","));
    out.push_str(text.get(list_start + length..).unwrap_or(""));
    out
}
