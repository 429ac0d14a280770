//! VOP3 DPP (`_e64_dpp`) of GFX11 and GFX12: the two VOP3 dwords with src0 = 250 (DPP16) or
//! 233/234 (DPP8; 234 sets `fi`), then the DPP dword of the 32-bit encodings ([`super::dpp`]),
//! whose bits 7:0 name src0's VGPR. The operands and modifiers are the VOP3 form's; which opcodes
//! have which form is [`vop3_dpp_tables`] (`scripts/disasm/gen_vop3_dpp.py`), and the mnemonic
//! is the VOP3 one with `_dpp` (`_e64_dpp` where it has no `_e64`), as llvm-objdump 22 prints it.

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
    let tail = if selector == 250 {
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
    Some(decoded)
}
