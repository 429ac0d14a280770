//! The vector ALU encodings: VOP1, VOP2, VOPC (32-bit, `_e32`) and VOP3 (64-bit, `_e64` and
//! the three-source operations), as llvm-objdump 22 prints them.
//!
//! Layouts (bit 31 first; `src0` is a 9-bit source operand, see [`super::operands`]):
//!
//! | encoding | dword 0 | dword 1 |
//! |---|---|---|
//! | VOP2 | `0` op[30:25] vdst[24:17] vsrc1[16:9] src0[8:0] | literal when src0 = 255 |
//! | VOPC | `0111110` op[24:17] vsrc1[16:9] src0[8:0] | literal |
//! | VOP1 | `0111111` vdst[24:17] op[16:9] src0[8:0] | literal |
//! | VOP3 (GFX8, GFX9 `110100`, GFX10+ `110101`) | op[25:16] clamp[15] op_sel[14:11] abs[10:8] vdst[7:0] | neg[31:29] omod[28:27] src2[26:18] src1[17:9] src0[8:0] |
//! | VOP3b (carry out) | op[25:16] clamp[15] sdst[14:8] vdst[7:0] | as VOP3 |
//!
//! VOP3 takes a literal (third dword) from GFX10 on. GFX9 VOP3 opcodes 0x380 and up are VOP3P
//! ([`super::packed`]). In GFX11 and GFX12 the 16-bit operations name register halves
//! (`v1.l`, `v1.h`): in a 32-bit encoding bit 7 of a VGPR number picks the high half, in VOP3
//! the `op_sel` bits do.
//!
//! What each opcode prints is a [`Form`] in the generated [`tables`]: the operands in printed
//! order, each tied to the field it comes from, the type a constant in a source is read as,
//! which values a source accepts, and which VOP3 modifier bits print, are ignored, or make the
//! word invalid. `scripts/disasm/gen_vector.py` learns them from llvm-objdump; this file only
//! extracts the fields and prints.

mod dpp;
mod dpp_tables;
mod sdwa;
mod tables;
mod vop3_dpp;
mod vop3_dpp_tables;

use alloc::format;
use alloc::string::String;

use super::operands::{first_ttmp, invalid_literal, register, scalar, File, RegisterOperands, Role};
use super::{roles, Class, Decoded, Generation, Isa, Words};

/// How a constant in an operand prints (learned per operand from llvm-objdump's answers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    /// 32-bit operands, integer or float: a literal equal to an inline constant prints `lit(…)`.
    B32,
    /// 64-bit operands: the literal is the high dword; one that makes an inline value prints as it.
    B64,
    /// 64-bit integers: the literal is zero-extended.
    I64,
    /// 16-bit floats: the literal's low half is the value.
    F16,
    /// 16-bit integers: the float inline constants print as their half-precision bits.
    I16,
    /// Packed 16-bit floats: a literal is inline when a 32-bit integer constant or an f16 one
    /// (with a zero high half); otherwise printed whole.
    V2H,
    /// Packed bfloat16: as [`Ty::V2H`] with the bf16 constants.
    V2B,
    /// bfloat16: the literal's low half decides, the whole literal prints.
    BF,
    /// An operand that must be a register: a constant prints with `/*Invalid immediate*/`.
    NoImm,
}

/// One printed operand of a [`Form`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Operand {
    /// Text that does not depend on the word (`vcc`, `vcc_lo`).
    Fixed(&'static str),
    /// A constant operand that is always the literal dword (`v_madmk_f32`'s K).
    Literal,
    /// An interpolation attribute and channel (`attr3.y`) from src0: attribute in bits 5:0,
    /// channel in 7:6 (bit 8 is `high`).
    Attr,
    /// `v_interp_mov`'s parameter from src1: `p10`, `p20`, `p0`, or `invalid_param_N`.
    Param,
    /// The `vdst` field: VGPRs, AGPRs, or SGPRs for comparisons and lane reads; `odd_note` is
    /// what llvm-objdump appends to a tuple at an odd register where the processor wants pairs;
    /// `high_invalid`: in the plain 32-bit encoding a VGPR above v127 makes the word invalid
    /// (GFX12's 16-bit operations).
    Dst { file: DstFile, count: u8, half: bool, odd_note: &'static str, high_invalid: bool },
    /// The VOP3b carry-out `sdst` field.
    Carry { count: u8 },
    /// Source `index` (0–2): `count` registers (AGPRs rather than VGPRs when `agpr`), constants
    /// read as `ty`; `accept` is a mask of VGPR (1), SGPR (2), inline constant (4), literal (8).
    /// `notes` are the `/*Invalid register …*/` llvm-objdump appends after a VGPR, an SGPR, a
    /// VGPR tuple at an odd number, and, in the plain 32-bit encoding, a VGPR above v127 (GFX12's
    /// `…_Lo128`) ("" for none); `high_invalid`: such a VGPR makes the word invalid there.
    Src {
        index: u8,
        count: u8,
        half: bool,
        agpr: bool,
        ty: Ty,
        accept: u8,
        notes: [&'static str; 4],
        high_invalid: bool,
    },
}

/// The register file of a destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DstFile {
    Vgpr,
    Agpr,
    Scalar,
}

/// How an opcode prints: operands in order, then the modifiers.
///
/// `print` and `reject` are masks over the VOP3 modifier bits in this order: abs of src0–2 (0–2),
/// neg of src0–2 (3–5), clamp (6), omod 1, 2, 3 (7–9), op_sel bits 0–3 (10–13), an interpolation's
/// `high` (14, src0 bit 8 of a form with an [`Operand::Attr`]), and a nonzero `vdst` field (15;
/// `reject` only, for opcodes without operands such as `v_nop`). A set bit in `reject` makes the
/// word invalid; a bit in neither is ignored.
#[derive(Clone, Copy, Debug)]
pub(super) struct Form {
    pub operands: &'static [Operand],
    /// Words printed after the operands whatever the modifiers are.
    pub suffix: &'static str,
    pub print: u16,
    pub reject: u16,
    /// op_sel bits of operands the instruction lacks: with one set, llvm-objdump prints the
    /// instruction without register halves and without `op_sel`.
    pub plain: u16,
    /// Entries in `op_sel:[…]`, 0 when it never prints.
    pub op_sel_len: u8,
    /// The entry of each op_sel bit (15: none).
    pub op_sel_pos: [u8; 4],
    /// The operand each op_sel bit turns into a `.h` half (15: none).
    pub op_sel_half: [u8; 4],
}

const VGPR: u8 = 1;
const SGPR: u8 = 2;
const INLINE: u8 = 4;
const LITERAL: u8 = 8;

/// The fields of one decoded word, in the VOP3 shape (32-bit encodings fill what they have).
#[derive(Clone, Copy, Debug, Default)]
struct Fields {
    vdst: u32,
    sdst: u32,
    src: [u32; 3],
    abs: u32,
    neg: u32,
    clamp: u32,
    omod: u32,
    op_sel: u32,
    /// A 32-bit encoding: VGPR numbers are 8 bits and carry the `.h` bit in GFX11+.
    short: bool,
    /// Dwords before a literal.
    size: usize,
    /// Modifier bits that print whatever the form says (the neg/abs of a DPP word).
    shown: u16,
    /// Sources (bit per index) whose VGPRs above v127 print with the `VGPR_32_Lo128` note.
    lo128_notes: u8,
    /// Sources (bit per index) that print inside `sext(…)` (SDWA).
    sext: u8,
    /// Sources may name any register file and constant (SDWA's s0/s1 select a scalar source).
    any_file: bool,
    /// Sources (bit per index) whose inline constants print as their 9-bit field in hex
    /// (`0x81`): src1 of `v_fmac_*_e64_dpp`.
    raw_constants: u8,
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let w0 = words.get(0)?;
    let generation = isa.generation();
    let vop3_prefix = if generation <= Generation::Gfx9 { 0x34 } else { 0x35 };
    let (table, opcode, fields, encoding) = if w0 >> 25 == 0x3F {
        (tables::vop1(isa), (w0 >> 9) & 0xFF, short_fields(w0, 0), Some(dpp::Encoding::Vop1))
    } else if w0 >> 25 == 0x3E {
        let fields = short_fields(w0 & !(0xFF << 17), (w0 >> 9) & 0xFF);
        (tables::vopc(isa), (w0 >> 17) & 0xFF, fields, Some(dpp::Encoding::Vopc))
    } else if w0 >> 31 == 0 {
        (tables::vop2(isa), (w0 >> 25) & 0x3F, short_fields(w0, (w0 >> 9) & 0xFF), Some(dpp::Encoding::Vop2))
    } else if w0 >> 26 == vop3_prefix {
        (tables::vop3(isa), (w0 >> 16) & 0x3FF, vop3_fields(w0, words.get(1)?), None)
    } else {
        return None;
    };
    if fields.short && is_extension(generation, fields.src[0]) {
        // SDWA (249), DPP16 (250) and DPP8 (233, 234).
        let encoding = encoding?;
        let at = table.binary_search_by_key(&(opcode as u16), |row| row.0).ok()?;
        let form = tables::FORMS.get(usize::from(table.get(at)?.2))?;
        if fields.src[0] == 249 {
            return decode_sdwa(isa, words, encoding, opcode, fields, form);
        }
        let extension = dpp::extend(isa, words, encoding, opcode, fields)?;
        let fields = Fields { shown: extension.shown, ..extension.fields };
        let mut decoded = print(isa, words, extension.mnemonic, form, fields, &extension.tail)?;
        // DPP's src0 is a VGPR operand, so a misaligned tuple names the VGPR class, not VGPR-or-SGPR.
        decoded.text = decoded.text.replacen("operand has 'VS_", "operand has 'VReg_", 1);
        if extension.abs_around_carry {
            decoded.text = abs_around_carry(&decoded.text)?;
        }
        return Some(decoded);
    }
    let at = table.binary_search_by_key(&(opcode as u16), |row| row.0).ok()?;
    let (_, mnemonic, form) = *table.get(at)?;
    let form = tables::FORMS.get(usize::from(form))?;
    let byte_sel = byte_select(generation, mnemonic, &fields);
    let fields = match byte_sel {
        Some((_, used)) => Fields { op_sel: fields.op_sel & !used, ..fields },
        None => fields,
    };
    let byte_sel = byte_sel.map(|(text, _)| text);
    if !fields.short && generation >= Generation::Gfx11 && matches!(fields.src[0], 233 | 234 | 250) {
        let fields = if byte_sel.is_some() { Fields { op_sel: 0, ..fields } } else { fields };
        return vop3_dpp::decode(isa, words, opcode, mnemonic, form, fields, byte_sel.unwrap_or_default());
    }
    if let Some(selected) = byte_sel {
        let mut decoded = print(isa, words, mnemonic, form, fields, "")?;
        decoded.text.push_str(&selected);
        return Some(decoded);
    }
    if !fields.short && mnemonic.starts_with("v_bitop3_") {
        return decode_bitop3(isa, words, mnemonic, form, fields);
    }
    print(isa, words, mnemonic, form, fields, "")
}

/// GFX12's fp8/bf8 conversions name a byte of a dword with two op_sel bits, printed
/// `byte_sel:N` when not 0: `v_cvt_sr_bf8_f32`/`_fp8_f32` the byte written (op_sel bit 2 is
/// N's bit 0, bit 3 its bit 1), `v_cvt_f32_bf8`/`_fp8` the byte read (bit 1 is N's bit 0, bit 0
/// its bit 1). The other two op_sel bits make the plain VOP3 word invalid and are ignored by its
/// DPP forms. The text and the op_sel bits used; `None` for other opcodes.
fn byte_select(generation: Generation, mnemonic: &str, fields: &Fields) -> Option<(String, u32)> {
    if generation != Generation::Gfx12 || fields.short {
        return None;
    }
    let bit = |n: u32| fields.op_sel >> n & 1;
    let (byte, used) = match mnemonic {
        "v_cvt_sr_bf8_f32" | "v_cvt_sr_fp8_f32" => (bit(2) | bit(3) << 1, 0b1100),
        "v_cvt_f32_bf8_e64" | "v_cvt_f32_fp8_e64" => (bit(1) | bit(0) << 1, 0b0011),
        _ => return None,
    };
    let text = if byte == 0 { String::new() } else { format!(" byte_sel:{byte}") };
    Some((text, used))
}

/// gfx950's `v_bitop3_b16`/`_b32`: the neg (bits 2:0), abs (5:3) and omod (7:6) fields hold the
/// 8-bit truth table, printed `bitop3:N` (decimal up to 10, hex above, nothing for 0) before
/// `op_sel`, as llvm-objdump 22 prints it.
fn decode_bitop3(isa: Isa, words: &Words<'_>, mnemonic: &str, form: &Form, fields: Fields) -> Option<Decoded> {
    let table = (fields.neg & 7) | (fields.abs & 7) << 3 | (fields.omod & 3) << 6;
    let plain = Fields { neg: 0, abs: 0, omod: 0, ..fields };
    let mut decoded = print(isa, words, mnemonic, form, plain, "")?;
    let shown = match table {
        0 => return Some(decoded),
        1..=10 => format!(" bitop3:{table}"),
        _ => format!(" bitop3:{table:#x}"),
    };
    let at = decoded.text.find(" op_sel:").unwrap_or(decoded.text.len());
    decoded.text.insert_str(at, &shown);
    Some(decoded)
}

/// `v_cndmask_b32_dpp v1, v2, -v5, vcc_lo …` as `v_cndmask_b32_dpp v1, v2, -|v5, vcc_lo| …`: the
/// bars of src1's abs around src1 and the carry-in, as llvm-objdump 22 prints GFX12's form.
fn abs_around_carry(text: &str) -> Option<String> {
    let carry = [", vcc_lo", ", vcc"].into_iter().find(|c| text.contains(&format!("{c} ")))?;
    let end = text.find(&format!("{carry} "))? + carry.len();
    let start = text.get(..end - carry.len())?.rfind(", ")? + 2;
    let operand = text.get(start..end)?;
    let (sign, rest) = operand.strip_prefix('-').map_or(("", operand), |rest| ("-", rest));
    Some(format!("{}{sign}|{rest}|{}", text.get(..start)?, text.get(end..)?))
}

/// An SDWA word (see [`sdwa`]).
fn decode_sdwa(
    isa: Isa,
    words: &Words<'_>,
    encoding: dpp::Encoding,
    opcode: u32,
    fields: Fields,
    form: &Form,
) -> Option<Decoded> {
    let extension = sdwa::extend(isa, words, encoding, opcode, fields)?;
    let mut decoded = print(isa, words, extension.mnemonic, form, extension.fields, &extension.tail)?;
    if let Some(sdst) = extension.sdst {
        // The comparison writes an SGPR (pair in wave64) rather than VCC: the first operand is
        // replaced (a source may be vcc_lo too, as s0 makes src0 scalar).
        let operands = decoded.text.find(' ').map_or(decoded.text.len(), |i| i + 1);
        let first = decoded.text.get(operands..).unwrap_or("");
        // A comparison that names no vcc (GFX10's v_cmpx writes exec only) keeps its text.
        let (vcc, count) = if first.starts_with("vcc_lo, ") {
            ("vcc_lo", 1)
        } else if first.starts_with("vcc, ") {
            ("vcc", 2)
        } else {
            ("", 2)
        };
        let named = scalar_tuple(isa.generation(), sdst, count)?;
        if !vcc.is_empty() {
            decoded.text.replace_range(operands..operands + vcc.len(), &named);
        }
        if let Some(registers) = decoded.registers.as_mut() {
            sdwa_condition_out(isa.generation(), registers, sdst, u32::from(count));
        }
    }
    if extension.preserves {
        // dst_unused:UNUSED_PRESERVE keeps the destination's bits outside dst_sel.
        for register in decoded.registers.iter_mut().flat_map(|r| r.as_mut_slice()) {
            if register.role == Role::Written && register.file != File::Sgpr {
                register.role = Role::ReadWritten;
            }
        }
    }
    Some(decoded)
}

/// An SDWA comparison's `sdst` in place of the `vcc` its form writes.
fn sdwa_condition_out(generation: Generation, registers: &mut RegisterOperands, sdst: u32, count: u32) {
    let mut rebuilt = RegisterOperands::default();
    rebuilt.reads_vcc = registers.reads_vcc;
    let mut replaced = false;
    for &register in registers.as_slice() {
        if !replaced && register.role == Role::Written && register.file == File::Sgpr && register.first == 106 {
            replaced = true;
            rebuilt.push_scalar(generation, sdst, count, Role::Written);
        } else {
            rebuilt.push(register);
        }
    }
    *registers = rebuilt;
}

/// Source values that select the SDWA or DPP extension of a 32-bit encoding instead of an operand.
fn is_extension(generation: Generation, src0: u32) -> bool {
    match generation {
        Generation::Gfx8 | Generation::Gfx9 => matches!(src0, 249 | 250),
        _ => matches!(src0, 233 | 234 | 249 | 250),
    }
}

/// The fields of a VOP1/VOP2/VOPC word; `vsrc1` is the 8-bit VGPR of src1.
fn short_fields(w0: u32, vsrc1: u32) -> Fields {
    Fields { vdst: (w0 >> 17) & 0xFF, src: [w0 & 0x1FF, 256 + vsrc1, 0], short: true, size: 1, ..Fields::default() }
}

fn vop3_fields(w0: u32, w1: u32) -> Fields {
    Fields {
        vdst: w0 & 0xFF,
        sdst: (w0 >> 8) & 0x7F,
        src: [w1 & 0x1FF, (w1 >> 9) & 0x1FF, (w1 >> 18) & 0x1FF],
        abs: (w0 >> 8) & 7,
        neg: w1 >> 29,
        clamp: (w0 >> 15) & 1,
        omod: (w1 >> 27) & 3,
        op_sel: (w0 >> 11) & 0xF,
        short: false,
        size: 2,
        shown: 0,
        lo128_notes: 0,
        sext: 0,
        any_file: false,
        raw_constants: 0,
    }
}

/// The modifier bits set in a word, in the order of [`Form::print`].
fn modifier_bits(form: &Form, fields: &Fields) -> u16 {
    let has_carry = form.operands.iter().any(|o| matches!(o, Operand::Carry { .. }));
    let mut bits = 0u16;
    if fields.vdst != 0 {
        bits |= 1 << 15;
    }
    if fields.src[0] & 0x100 != 0 && form.operands.iter().any(|o| matches!(o, Operand::Attr)) {
        bits |= 1 << 14;
    }
    if !fields.short {
        if !has_carry {
            bits |= (fields.abs & 7) as u16;
            bits |= ((fields.op_sel & 0xF) as u16) << 10;
        }
        bits |= ((fields.neg & 7) as u16) << 3;
        bits |= ((fields.clamp & 1) as u16) << 6;
        if fields.omod != 0 {
            bits |= 1 << (6 + fields.omod);
        }
    }
    bits
}

/// The text of an instruction; `tail` is what an extension (DPP) prints after everything else.
fn print(isa: Isa, words: &Words<'_>, mnemonic: &str, form: &Form, fields: Fields, tail: &str) -> Option<Decoded> {
    let generation = isa.generation();
    let bits = modifier_bits(form, &fields);
    if bits & form.reject != 0 {
        return None;
    }
    let plain = bits & form.plain != 0;
    let shown = if plain { bits & form.print & !(0xF << 10) } else { bits & form.print } | fields.shown;
    let literal_index = fields.size;
    let mut literal_used = false;
    // A 32-bit word without an extension (DPP and SDWA have rules of their own).
    let plain32 = fields.short && fields.size == 1;
    // Room for the usual line, so that it is not reallocated as its operands are added.
    let mut text = String::with_capacity(64);
    text.push_str(mnemonic);
    let mut registers = RegisterOperands::default();
    for (i, operand) in form.operands.iter().enumerate() {
        record(generation, operand, &fields, plain, &mut registers);
        text.push_str(if i == 0 { " " } else { ", " });
        let half_high = form
            .op_sel_half
            .iter()
            .enumerate()
            .any(|(bit, &to)| usize::from(to) == i && shown & (1 << (10 + bit)) != 0);
        let piece = match *operand {
            Operand::Fixed(s) => String::from(s),
            Operand::Literal => {
                // The K operand of v_madmk/v_fmaak…: always a literal, so never marked `lit(…)`.
                literal_used = true;
                format!("{:#x}", words.get(literal_index)?)
            }
            Operand::Attr => {
                let channel = ["x", "y", "z", "w"][((fields.src[0] >> 6) & 3) as usize];
                format!("attr{}.{channel}", fields.src[0] & 0x3F)
            }
            Operand::Param => match fields.src[1] {
                0 => String::from("p10"),
                1 => String::from("p20"),
                2 => String::from("p0"),
                value => format!("invalid_param_{value}"),
            },
            // GFX10+ reads a scalar destination field of 255 as a literal, which it prints with
            // its complaint.
            Operand::Dst { file: DstFile::Scalar, .. }
                if fields.vdst == 255 && !fields.short && generation >= Generation::Gfx10 =>
            {
                literal_used = true;
                invalid_literal(words.get(literal_index)?)
            }
            Operand::Dst { file: DstFile::Scalar, count, .. } => scalar_destination(generation, fields.vdst, count)?,
            Operand::Dst { file, count, half, odd_note, high_invalid } => {
                if high_invalid && plain32 && fields.vdst >= 128 {
                    return None;
                }
                let file = if file == DstFile::Agpr { File::Agpr } else { File::Vgpr };
                let mut text = vgpr(file, fields.vdst, count, half && !plain, fields.short, half_high);
                if count >= 2 && fields.vdst % 2 == 1 {
                    text.push_str(odd_note);
                }
                text
            }
            Operand::Carry { count } => scalar_tuple(generation, fields.sdst, count)?,
            Operand::Src { index, count, half, agpr, ty, accept, notes, high_invalid } => {
                let value = *fields.src.get(usize::from(index))?;
                let high = plain32 && value >= 256 + 128;
                if high && high_invalid {
                    return None;
                }
                if value == 255 {
                    literal_used = true;
                }
                let file = if agpr { File::Agpr } else { File::Vgpr };
                let half = half && !plain;
                let raw = fields.raw_constants & (1 << index) != 0 && matches!(value, 128..=208 | 240..=248);
                let mut body = if raw {
                    format!("{value:#x}")
                } else {
                    source(
                        generation,
                        words,
                        literal_index,
                        value,
                        (file, count, half, ty, accept),
                        &fields,
                        half_high,
                    )?
                };
                match notes[3] {
                    note if high && !note.is_empty() => body.push_str(note),
                    // An SDWA source takes scalars and constants whatever the 32-bit form's
                    // operand takes (GFX10's v_movrels_b32_sdwa prints s95 without a remark).
                    _ if fields.any_file && value < 256 => {}
                    _ => body.push_str(note_for(generation, value, count, [notes[0], notes[1], notes[2]])),
                }
                if fields.sext & (1 << index) != 0 {
                    body = format!("sext({body})");
                }
                if fields.lo128_notes & (1 << index) != 0 && value >= 256 + 128 {
                    body.push_str("/*Invalid register, operand has 'VGPR_32_Lo128' register class*/");
                }
                with_modifiers(body, shown, index, value < 256 && !is_register(value))
            }
        };
        text.push_str(&piece);
    }
    if !form.suffix.is_empty() {
        text.push(' ');
        text.push_str(form.suffix);
    }
    push_modifiers(&mut text, form, shown);
    if !tail.is_empty() {
        text.push(' ');
        text.push_str(tail);
    }
    let size = 4 * (fields.size + usize::from(literal_used));
    roles::apply_vector(mnemonic, &mut registers);
    Some(Decoded { size, text, class: Class::VectorAlu, target: None, registers: Some(registers) })
}

/// Adds the registers `operand` names to `registers`, with the role its field has: the
/// destination and carry-out are written, sources read, and a fixed `vcc` is the carry or
/// condition out before the first source and the carry or condition in after it. A 16-bit
/// destination half (`v1.l`) is a partial write, so it is read too. `plain`: the word prints
/// without register halves.
fn record(generation: Generation, operand: &Operand, fields: &Fields, plain: bool, registers: &mut RegisterOperands) {
    // The number of a VGPR field and how many registers it names, halves included.
    let vector = |number: u32, count: u8, half: bool| {
        if half && fields.short {
            (number & 0x7F, 1)
        } else if half {
            (number, 1)
        } else {
            (number, u32::from(count))
        }
    };
    // llvm-objdump names a six-register scalar tuple with five.
    let scalar_count = |count: u8| if count == 6 { 5 } else { u32::from(count) };
    match *operand {
        Operand::Fixed(name) => {
            let after_sources = registers.as_slice().iter().any(|r| r.role == Role::Read);
            let role = if after_sources { Role::Read } else { Role::Written };
            let count = if name == "vcc" { 2 } else { 1 };
            registers.push_scalar(generation, 106, count, role);
        }
        Operand::Dst { file: DstFile::Scalar, .. }
            if fields.vdst == 255 && !fields.short && generation >= Generation::Gfx10 => {}
        Operand::Dst { file: DstFile::Scalar, count, .. } => {
            if fields.vdst < 128 {
                registers.push_scalar(generation, fields.vdst, scalar_count(count), Role::Written);
            }
        }
        Operand::Dst { file, count, half, .. } => {
            let half = half && !plain;
            let (first, count) = vector(fields.vdst, count, half);
            let file = if file == DstFile::Agpr { File::Agpr } else { File::Vgpr };
            registers.push_vector(file, first, count, if half { Role::ReadWritten } else { Role::Written });
        }
        Operand::Carry { count } => registers.push_scalar(generation, fields.sdst, scalar_count(count), Role::Written),
        Operand::Src { index, count, half, agpr, .. } => {
            let Some(&value) = fields.src.get(usize::from(index)) else { return };
            if value >= 256 {
                let (first, count) = vector(value - 256, count, half && !plain);
                registers.push_vector(if agpr { File::Agpr } else { File::Vgpr }, first, count, Role::Read);
            } else if value < 128 {
                registers.push_scalar(generation, value, scalar_count(count), Role::Read);
            }
        }
        Operand::Literal | Operand::Attr | Operand::Param => {}
    }
}

/// A VGPR operand: in a 32-bit encoding of a 16-bit operation bit 7 picks the high half.
fn vgpr(file: File, number: u32, count: u8, half: bool, short: bool, half_high: bool) -> String {
    if !half {
        return register(file, number, u32::from(count));
    }
    let (number, high) = if short { (number & 0x7F, number & 0x80 != 0) } else { (number, half_high) };
    let mut text = register(file, number, 1);
    text.push_str(if high { ".h" } else { ".l" });
    text
}

/// The note llvm-objdump appends to source `value` (see [`Operand::Src`]).
fn note_for(generation: Generation, value: u32, count: u8, notes: [&'static str; 3]) -> &'static str {
    let null = if generation >= Generation::Gfx11 { 124 } else { 125 };
    match value {
        _ if value == null => "",
        // An operand that takes VGPRs or LDS-direct takes src_lds_direct without a note.
        254 if notes[1].contains("OrLds") => "",
        // The special source registers print without a note.
        230 | 231 | 235..=239 | 251..=253 => "",
        256..=511 if count >= 2 && value % 2 == 1 => notes[2],
        256..=511 => notes[0],
        0..=127 | 254 => notes[1],
        _ => "",
    }
}

/// Source `value` of an operand (`count`, `half`, `ty`, `accept`), or `None` when it names
/// something the operand does not accept.
fn source(
    generation: Generation,
    words: &Words<'_>,
    literal_index: usize,
    value: u32,
    (file, count, half, ty, accept): (File, u8, bool, Ty, u8),
    fields: &Fields,
    half_high: bool,
) -> Option<String> {
    let accept = if fields.any_file { accept | VGPR | SGPR | INLINE } else { accept };
    // An SDWA source takes constants even where the 32-bit form's operand must be a register
    // (GFX10's v_movrels_b32_sdwa prints 17 without a remark): they print as 32-bit integers.
    let ty = if fields.any_file && ty == Ty::NoImm { Ty::B32 } else { ty };
    let allowed = |bit: u8| accept & bit != 0;
    match value {
        256..=511 if allowed(VGPR) => Some(vgpr(file, value - 256, count, half, fields.short, half_high)),
        255 if allowed(LITERAL) => Some(literal_text(ty, words.get(literal_index)?)),
        128..=208 | 240..=248 if allowed(INLINE) => Some(inline_text(ty, value)),
        0..=127 | 230 | 231 | 235..=239 | 251..=254 if allowed(SGPR) => scalar_tuple(generation, value, count),
        _ => None,
    }
}

/// A scalar destination: a register tuple, or a constant that llvm-objdump prints with a note.
fn scalar_destination(generation: Generation, value: u32, count: u8) -> Option<String> {
    match value {
        128..=208 | 240..=248 => Some(inline_text(Ty::NoImm, value)),
        0..=127 => scalar_tuple(generation, value, count),
        // The special source registers are named as destinations too.
        230 | 235..=239 | 251..=253 => scalar_tuple(generation, value, count),
        231 | 254 if count == 1 => scalar_tuple(generation, value, count),
        _ => None,
    }
}

/// `count` scalar registers from `value`. An SGPR or trap-temporary tuple that does not start
/// at a multiple of 2 (pairs) or 4 (larger) is printed from the aligned register below, as
/// llvm-objdump prints it (with a warning after the words, see [`Misaligned`]); another
/// special register off its alignment is rejected.
///
/// [`Misaligned`]: crate::disasm::operands::Misaligned
fn scalar_tuple(generation: Generation, value: u32, count: u8) -> Option<String> {
    let align = match count {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    };
    if generation == Generation::Gfx8 && (108..=111).contains(&value) && count >= 2 {
        // GFX8's `tba` and `tma` pairs.
        return (value % 2 == 0 && count == 2).then(|| scalar(generation, value, 2)).flatten();
    }
    let ttmp = first_ttmp(generation);
    let last_sgpr = if generation <= Generation::Gfx9 { 101 } else { 105 };
    let value = if value <= last_sgpr {
        value & !(align - 1)
    } else if (ttmp..=123).contains(&value) {
        ttmp + ((value - ttmp) & !(align - 1))
    } else {
        value
    };
    let null = if generation >= Generation::Gfx11 { 124 } else { 125 };
    if value < 128 && value % align != 0 && value != null {
        return None;
    }
    if count >= 2 && value == 231 {
        // src_flat_scratch_base_hi has no 64-bit form.
        return None;
    }
    let m0 = if generation >= Generation::Gfx11 { 125 } else { 124 };
    if count >= 2 && (value == m0 || value == 254) {
        // No 64-bit m0 or LDS-direct operand.
        return None;
    }
    // llvm-objdump names a six-register (192-bit) scalar tuple with five registers.
    let count = if count == 6 { 5 } else { count };
    scalar(generation, value, u32::from(count))
}

/// An inline constant (128–208, 240–248) read as `ty`.
fn inline_text(ty: Ty, value: u32) -> String {
    const FLOATS: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];
    const HALF_BITS: [u16; 9] = [0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118];
    let text = match value {
        128..=192 => format!("{}", value - 128),
        193..=208 => format!("-{}", value - 192),
        _ if ty == Ty::I16 => format!("{:#x}", HALF_BITS.get((value.wrapping_sub(240)) as usize).copied().unwrap_or(0)),
        248 if matches!(ty, Ty::B64 | Ty::I64) => String::from("0.15915494309189532"),
        248 => String::from("0.15915494"),
        _ => String::from(FLOATS.get(value.wrapping_sub(240) as usize).copied().unwrap_or("")),
    };
    if ty == Ty::NoImm {
        format!("{text}/*Invalid immediate*/")
    } else {
        text
    }
}

/// The f32 inline values as bits, with their printed names.
const F32_INLINE: [(u32, &str); 9] = [
    (0x3F000000, "0.5"),
    (0xBF000000, "-0.5"),
    (0x3F800000, "1.0"),
    (0xBF800000, "-1.0"),
    (0x40000000, "2.0"),
    (0xC0000000, "-2.0"),
    (0x40800000, "4.0"),
    (0xC0800000, "-4.0"),
    (0x3E22F983, "0.15915494"),
];

/// The high dwords of the f64 inline values.
const F64_HIGH: [(u32, &str); 8] = [
    (0x3FE00000, "0.5"),
    (0xBFE00000, "-0.5"),
    (0x3FF00000, "1.0"),
    (0xBFF00000, "-1.0"),
    (0x40000000, "2.0"),
    (0xC0000000, "-2.0"),
    (0x40100000, "4.0"),
    (0xC0100000, "-4.0"),
];

const F16_INLINE: [u32; 9] = [0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118];
const BF16_INLINE: [u32; 9] = [0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22];

/// Whether a literal equals a 32-bit integer inline constant (-16–64).
fn is_inline_int32(value: u32) -> bool {
    value <= 64 || value >= 0xFFFF_FFF0
}

/// Whether a 16-bit value equals a 16-bit integer inline constant (-16–64).
fn is_inline_int16(value: u32) -> bool {
    value <= 64 || (0xFFF0..=0xFFFF).contains(&value)
}

fn name_of(table: &[(u32, &'static str)], value: u32) -> Option<&'static str> {
    table.iter().find(|(bits, _)| *bits == value).map(|(_, name)| *name)
}

/// Whether a 32-bit literal equals an inline constant of a 32-bit operand (then llvm-objdump
/// marks it `lit(…)`, since an encoder would not have used a literal for it).
fn is_inline32(value: u32) -> bool {
    value <= 64 || value >= 0xFFFF_FFF0 || name_of(&F32_INLINE, value).is_some()
}

fn literal_text(ty: Ty, value: u32) -> String {
    match ty {
        Ty::B32 if is_inline32(value) => format!("lit({value:#x})"),
        Ty::B32 => format!("{value:#x}"),
        Ty::B64 if value == 0 => String::from("0"),
        Ty::B64 => name_of(&F64_HIGH, value).map(String::from).unwrap_or_else(|| format!("{value:#x}")),
        Ty::I64 if value <= 64 => format!("lit({value:#x})"),
        Ty::I64 => format!("{value:#x}"),
        Ty::I16 if is_inline32(value) => format!("lit({value:#x})"),
        Ty::I16 => format!("{:#x}", value & 0xFFFF),
        Ty::F16 => {
            let low = value & 0xFFFF;
            if low <= 64 || low >= 0xFFF0 || F16_INLINE.contains(&low) {
                format!("lit({value:#x})")
            } else {
                format!("{low:#x}")
            }
        }
        Ty::V2H if is_inline_int32(value) || F16_INLINE.contains(&value) => format!("lit({value:#x})"),
        Ty::V2B if is_inline_int32(value) || BF16_INLINE.contains(&value) => format!("lit({value:#x})"),
        Ty::BF if is_inline_int16(value & 0xFFFF) || BF16_INLINE.contains(&(value & 0xFFFF)) => {
            format!("lit({value:#x})")
        }
        Ty::V2H | Ty::V2B | Ty::BF => format!("{value:#x}"),
        Ty::NoImm => {
            let name = match value {
                0..=64 => format!("{value}"),
                0xFFFF_FFF0.. => format!("-{}", value.wrapping_neg()),
                _ => name_of(&F32_INLINE, value).map(String::from).unwrap_or_else(|| format!("{value:#x}")),
            };
            format!("{name}/*Invalid immediate*/")
        }
    }
}

/// Whether source value `value` names a register rather than a constant.
fn is_register(value: u32) -> bool {
    matches!(value, 0..=127 | 230 | 231 | 235..=239 | 251..=254 | 256..=511)
}

/// `body` with the neg and abs modifiers of source `index` that print: `-|v1|`, and `neg(…)` for
/// a negated constant.
fn with_modifiers(body: String, shown: u16, index: u8, constant: bool) -> String {
    let abs = shown & (1 << index) != 0;
    let neg = shown & (1 << (3 + index)) != 0;
    match (neg, abs) {
        (false, false) => body,
        (false, true) => format!("|{body}|"),
        (true, false) if constant => format!("neg({body})"),
        (true, false) => format!("-{body}"),
        (true, true) => format!("-|{body}|"),
    }
}

/// The words after the operands: `high`, `op_sel:[…]`, `clamp`, `mul:2`/`mul:4`/`div:2`.
fn push_modifiers(text: &mut String, form: &Form, shown: u16) {
    if shown & (1 << 14) != 0 {
        text.push_str(" high");
    }
    let op_sel = (shown >> 10) & 0xF;
    if op_sel != 0 && form.op_sel_len > 0 {
        let mut entries = [0u8; 8];
        for bit in 0..4 {
            if op_sel & (1 << bit) != 0 {
                if let Some(entry) = entries.get_mut(usize::from(form.op_sel_pos[bit])) {
                    *entry = 1;
                }
            }
        }
        text.push_str(" op_sel:[");
        for (i, entry) in entries.iter().take(usize::from(form.op_sel_len)).enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push(if *entry == 1 { '1' } else { '0' });
        }
        text.push(']');
    }
    if shown & (1 << 6) != 0 {
        text.push_str(" clamp");
    }
    for (bit, word) in [(7, " mul:2"), (8, " mul:4"), (9, " div:2")] {
        if shown & (1 << bit) != 0 {
            text.push_str(word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use super::*;

    /// The text and size of the words, as `decode` gives them.
    fn text(isa: Isa, words: &[u32]) -> Option<(String, usize)> {
        let bytes: alloc::vec::Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        decode(isa, &bytes, 0).map(|d| (d.text, d.size))
    }

    fn assert_text(isa: Isa, words: &[u32], expected: &str) {
        assert_eq!(text(isa, words), Some((String::from(expected), 4 * words.len())), "{words:08X?}");
    }

    /// Words and texts llvm-objdump 22 printed for tests/images/hip_kernels_gfx90a.co.
    #[test]
    fn gfx90a_code_object_lines() {
        assert_text(Isa::Gfx90a, &[0x32040400], "v_add_co_u32_e32 v2, vcc, s0, v2");
        assert_text(Isa::Gfx90a, &[0x38060701], "v_addc_co_u32_e32 v3, vcc, v1, v3, vcc");
        assert_text(Isa::Gfx90a, &[0x7D940080], "v_cmp_eq_u32_e32 vcc, 0, v0");
        assert_text(Isa::Gfx90a, &[0x100000FF, 0x00000060], "v_mul_u32_u24_e32 v0, 0x60, v0");
        assert_text(Isa::Gfx90a, &[0x680050C1], "v_add_u32_e32 v0, -1, v40");
        assert_text(Isa::Gfx90a, &[0xD1FD0002, 0x04011006], "v_lshl_add_u32 v2, s6, 8, v0");
        assert_text(Isa::Gfx90a, &[0xD28F0002, 0x00020482], "v_lshlrev_b64 v[2:3], 2, v[2:3]");
        assert_text(Isa::Gfx90a, &[0xD28A002B, 0x00010C04], "v_writelane_b32 v43, s4, 6");
        assert_text(Isa::Gfx90a, &[0xD2890025, 0x00010B2B], "v_readlane_b32 s37, v43, 5");
    }

    /// Words and texts llvm-objdump 22 printed for tests/images/hip_kernels_gfx1100.co (wave32).
    #[test]
    fn gfx1100_code_object_lines() {
        assert_text(Isa::Gfx1100, &[0xD7006A01, 0x00020200], "v_add_co_u32 v1, vcc_lo, s0, v1");
        assert_text(Isa::Gfx1100, &[0xD5207C02, 0x01AA0401], "v_add_co_ci_u32_e64 v2, null, s1, v2, vcc_lo");
        assert_text(Isa::Gfx1100, &[0x7D940080], "v_cmpx_eq_u32_e32 0, v0");
        assert_text(Isa::Gfx1100, &[0x4A0054C1], "v_add_nc_u32_e32 v0, -1, v42");
        assert_text(Isa::Gfx1100, &[0x7C985484], "v_cmp_gt_u32_e32 vcc_lo, 4, v42");
    }

    /// Modifiers and constants, as llvm-mc 22 prints them.
    #[test]
    fn modifiers_and_literals() {
        assert_text(Isa::Gfx900, &[0xD1018100, 0x6CA24118], "v_add_f32_e64 v0, -|v24|, -v32 clamp mul:2");
        assert_text(Isa::Gfx900, &[0xD1193400, 0x04A24118], "v_add_co_u32_e64 v0, s[52:53], v24, v32");
        assert_text(Isa::Gfx900, &[0x7E0002FF, 0x3F800000], "v_mov_b32_e32 v0, lit(0x3f800000)");
        assert_text(Isa::Gfx900, &[0x7E0092FF, 0x12345678], "v_sin_f16_e32 v0, 0x5678");
        assert_text(Isa::Gfx900, &[0x7E0006F8], "v_cvt_i32_f64_e32 v0, 0.15915494309189532");
        assert_text(Isa::Gfx1100, &[0xD6480000, 0x04A24118], "v_fma_f16 v0.l, v24.l, v32.l, v40.l");
        assert_text(Isa::Gfx1100, &[0xD6487800, 0x04A24118], "v_fma_f16 v0.h, v24.h, v32.h, v40.h op_sel:[1,1,1,1]");
        assert_text(Isa::Gfx1100, &[0xD5030000, 0x04A240FF, 0x3F800000], "v_add_f32_e64 v0, lit(0x3f800000), v32");
    }

    /// DPP16, DPP8 and SDWA forms, as llvm-mc 22 encodes and prints them.
    #[test]
    fn dpp_and_sdwa_forms() {
        assert_text(
            Isa::Gfx900,
            &[0x7E0202FA, 0xFF091102],
            "v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
        );
        assert_text(
            Isa::Gfx900,
            &[0x020206FA, 0xA590B102],
            "v_add_f32_dpp v1, -v2, |v3| quad_perm:[1,0,3,2] row_mask:0xa bank_mask:0x5",
        );
        assert_text(
            Isa::Gfx1030,
            &[0x500206FA, 0xA5016F02],
            "v_add_co_ci_u32_dpp v1, vcc_lo, v2, v3, vcc_lo row_xmask:15 row_mask:0xa bank_mask:0x5",
        );
        assert_text(Isa::Gfx1030, &[0x7E0202EA, 0xDE54C102], "v_mov_b32_dpp v1, v2 dpp8:[1,0,3,2,5,4,7,6] fi:1");
        assert_text(
            Isa::Gfx900,
            &[0x7E0202F9, 0x00000502],
            "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0",
        );
        assert_text(
            Isa::Gfx900,
            &[0x7D9406F9, 0x06058002],
            "v_cmp_eq_u32_sdwa s[0:1], v2, v3 src0_sel:WORD_1 src1_sel:DWORD",
        );
    }

    /// Words of other groups are left to them.
    #[test]
    fn other_encodings_are_not_vector_alu() {
        assert_eq!(decode_vector(Isa::Gfx90a, &[0xBE800000]), None);
        assert_eq!(decode_vector(Isa::Gfx90a, &[0xD3B14802, 0x10025536]), None);
        assert_eq!(decode_vector(Isa::Gfx1100, &[0xCA100000, 0x00020003]), None);
    }

    fn decode_vector(isa: Isa, words: &[u32]) -> Option<String> {
        let bytes: alloc::vec::Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        super::decode(isa, &Words::new(&bytes, 0)).map(|d| d.text)
    }

    /// Random words, truncated or not, never panic.
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
                let top = [0x7E00_0000, 0x7C00_0000, 0x0000_0000, 0xD000_0000, 0xD400_0000][(next() % 5) as usize];
                let first = top | (next() & 0x03FF_FFFF);
                let words = [first, next(), next()];
                for len in 1..=3 {
                    let _ = decode_vector(isa, words.get(..len).unwrap_or(&[]));
                }
            }
        }
    }
}
