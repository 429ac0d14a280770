//! VOP3P: packed math, dot products, `v_fma_mix*`, MFMA/SMFMAC, WMMA/SWMMAC (layout in the
//! parent module's doc).

use alloc::format;
use alloc::string::String;

use super::tables::{vop3p, F8F6F4_WIDTHS};
use super::{push_operand, Fit, Form, Lit, Op, Slot, SlotFile};
use crate::disasm::operands::{inline_constant, invalid_literal, register, scalar, File, RegisterOperands, Role, Type};
use crate::disasm::{roles, Class, Decoded, Generation, Isa, Words};

/// Modifier bit numbers (see [`Op::reject`]).
const NEG_HI: [u32; 3] = [0, 1, 2];
const OP_SEL: [u32; 3] = [3, 4, 5];
const OP_SEL_HI: [u32; 3] = [8, 9, 6];
const CLAMP: u32 = 7;
const NEG_LO: [u32; 3] = [10, 11, 12];

pub(super) fn is_vop3p(isa: Isa, first: u32) -> bool {
    match isa.generation() {
        Generation::Gfx8 => false,
        Generation::Gfx9 => first >> 23 == 0x1A7,
        _ => first >> 24 == 0xCC,
    }
}

/// The 13 modifier bits of an instruction, numbered as [`Op::reject`] numbers them.
fn modifier_bits(first: u32, second: u32) -> u16 {
    (((first >> 8) & 0xFF) | (((second >> 27) & 0x1F) << 8)) as u16
}

/// What one decode reads and builds: the dwords, whether the literal was used, and the register
/// operands with their roles (the destination written, the sources read).
struct Reader<'a> {
    words: &'a Words<'a>,
    isa: Isa,
    literal_used: bool,
    registers: RegisterOperands,
}

impl<'a> Reader<'a> {
    fn new(words: &'a Words<'a>, isa: Isa) -> Reader<'a> {
        Reader { words, isa, literal_used: false, registers: RegisterOperands::default() }
    }

    /// The operands, with the roles no table holds (a tied accumulator) applied.
    fn registers(mut self, name: &str) -> RegisterOperands {
        roles::apply_vector(name, &mut self.registers);
        self.registers
    }

    /// Adds the registers of source `value` (`count` of them; AGPRs when `acc`), read.
    fn read(&mut self, value: u32, count: u32, acc: bool) {
        let generation = self.isa.generation();
        match value {
            256..=511 => {
                let file = if acc { File::Agpr } else { File::Vgpr };
                self.registers.push_vector(file, value - 256, count, Role::Read);
            }
            0..=127 => {
                if let Some((first, count)) = scalar_tuple(generation, value, count) {
                    // The tuple starts at the aligned register; llvm-objdump warns of the field's.
                    self.registers.misaligned.note(generation, value, count);
                    self.registers.push_scalar(generation, first, count, Role::Read);
                }
            }
            _ => {}
        }
    }

    fn literal(&mut self) -> Option<u32> {
        if self.isa.generation() == Generation::Gfx9 {
            return None; // llvm-mc 22 crashes on a GFX9 VOP3P literal
        }
        self.literal_used = true;
        self.words.get(2)
    }
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let second = words.get(1)?;
    let op = lookup(isa, first)?;
    if op.name == SCALE_LOAD {
        // The scale load has no destination: llvm-mc rejects one in its vdst field.
        if first & 0xFF != 0 {
            return None;
        }
        if let Some(fused) = scaled_mfma(isa, words, op, first, second) {
            return Some(fused);
        }
        // Its sources are VGPRs: bits 27 and 28 are `op_sel_hi`, not the MFMA's ACC bits.
        let mut reader = Reader::new(words, isa);
        let mut text = body(&mut reader, op, first, second & !(3 << 27))?;
        push_scale_modifiers(&mut text, first, second, 2);
        let registers = Some(reader.registers(op.name));
        return Some(Decoded { size: 8, text, class: class_of(op.name), target: None, registers });
    }
    let mut reader = Reader::new(words, isa);
    let mut text = body(&mut reader, op, first, second)?;
    let bits = modifier_bits(first, second);
    match op.form {
        Form::Packed => push_packed_modifiers(&mut text, op, bits),
        Form::Mix => push_mix_modifiers(&mut text, op, bits),
        Form::Mai => push_mai_modifiers(&mut text, first, second, negates_sources(isa, op)),
        Form::Move => {}
    }
    let size = if reader.literal_used { 12 } else { 8 };
    let registers = Some(reader.registers(op.name));
    Some(Decoded { size, text, class: class_of(op.name), target: None, registers })
}

/// The table row of a VOP3P first dword.
fn lookup(isa: Isa, first: u32) -> Option<&'static Op> {
    let code = ((first >> 16) & 0x7F) as u8;
    let table = vop3p(isa);
    table.binary_search_by_key(&code, |o| o.code).ok().and_then(|i| table.get(i))
}

/// The mnemonic and operands of a word (no modifiers), or `None` where llvm-mc rejects it.
fn body(reader: &mut Reader<'_>, op: &Op, first: u32, second: u32) -> Option<String> {
    let bits = modifier_bits(first, second);
    if (bits ^ op.base) & op.reject != 0 {
        return None;
    }
    let mut text = String::from(op.name);
    let mut separator = " ";
    if let Some(dst) = destination(reader.isa, op, first) {
        push_operand(&mut text, separator, &dst?);
        separator = ", ";
        let slot = op.slots[0];
        let file = if agpr_selected(slot.file, first, 0) { File::Agpr } else { File::Vgpr };
        reader.registers.push_vector(file, first & 0xFF, u32::from(slot.count), Role::Written);
    }
    let fields = [second & 0x1FF, (second >> 9) & 0x1FF, (second >> 18) & 0x1FF];
    let formats = op.name.ends_with("f8f6f4").then_some([(first >> 8) & 7, 8 + ((second >> 29) & 7)]);
    for (index, value) in fields.iter().enumerate() {
        let Some(slot) = op.slots.get(index + 1).filter(|s| s.count > 0) else { continue };
        let acc = agpr_selected(slot.file, first, second);
        // gfx950's f8f6f4 MFMAs: sources A and B are as wide as their formats (cbsz, blgp) ask.
        let width = formats.and_then(|f| f.get(index).and_then(|&at| F8F6F4_WIDTHS.get(at as usize)));
        // llvm-mc checks an AGPR tuple against the opcode's widest format before resizing it.
        if width.is_some() && acc && (256..=511).contains(value) && value - 256 + u32::from(slot.count) > 256 {
            return None;
        }
        let resized;
        let slot = match width {
            Some(&count) => {
                resized = Slot { count, ..*slot };
                &resized
            }
            None => slot,
        };
        let mut operand = source(reader, slot, *value, acc)?;
        reader.read(*value, u32::from(slot.count), acc);
        if op.form == Form::Mix {
            operand = with_mix_modifiers(operand, bits, index, (128..=208).contains(value));
        }
        push_operand(&mut text, separator, &operand);
        separator = ", ";
    }
    Some(text)
}

/// gfx950's scale load, alone or as the first half of a scaled MFMA.
const SCALE_LOAD: &str = "v_mfma_ld_scale_b32";

/// The scale load's `op_sel` (dword 0 bits 11, 12; only when set) and `op_sel_hi` (dword 1 bits 27,
/// 28; always), as lists of `entries` (a scaled MFMA lists a third, always 0).
fn push_scale_modifiers(text: &mut String, first: u32, second: u32, entries: usize) {
    let bit = |word: u32, number: u32| word >> number & 1;
    let pad = if entries == 3 { ",0" } else { "" };
    if (first >> 11) & 3 != 0 {
        text.push_str(&format!(" op_sel:[{},{}{pad}]", bit(first, 11), bit(first, 12)));
    }
    text.push_str(&format!(" op_sel_hi:[{},{}{pad}]", bit(second, 27), bit(second, 28)));
}

/// gfx950's scaled MFMA, which llvm-objdump prints as one instruction: `v_mfma_ld_scale_b32`
/// (the two scale operands, their `op_sel` and `op_sel_hi`) followed by an f8f6f4 MFMA whose
/// `abid` field is 1. `None` when the next word is not such an MFMA: the scale load then prints
/// alone.
fn scaled_mfma(isa: Isa, words: &Words<'_>, scale: &Op, first: u32, second: u32) -> Option<Decoded> {
    let (mfma_first, mfma_second) = (words.get(2)?, words.get(3)?);
    if !is_vop3p(isa, mfma_first) || (mfma_first >> 11) & 0xF != 1 {
        return None;
    }
    let mfma = lookup(isa, mfma_first).filter(|op| op.name.ends_with("f8f6f4"))?;
    let mut reader = Reader::new(words, isa);
    // The MFMA's abid field carries the pairing, not a modifier.
    let mfma_first = mfma_first & !(0xF << 11);
    let text = body(&mut reader, mfma, mfma_first, mfma_second)?;
    let _ = scale;
    let mut fused = String::from("v_mfma_scale_");
    fused.push_str(text.strip_prefix("v_mfma_")?);
    // The scale sources of the pair are VGPRs; llvm-objdump prints any other value with its
    // complaint, and no modifier bit of the scale word makes the pair invalid.
    for value in [second & 0x1FF, (second >> 9) & 0x1FF] {
        let operand = match value {
            256..=511 => register(File::Vgpr, value - 256, 1),
            128..=208 | 240..=248 => format!("{}/*Invalid immediate*/", inline_constant(value, Type::F32)?),
            _ if is_inline_register(isa.generation(), value) => scalar(isa.generation(), value, 1)?,
            _ => format!("{}{}", scalar(isa.generation(), value, 1)?, note("VGPR_32")),
        };
        push_operand(&mut fused, ", ", &operand);
        reader.read(value, 1, false);
    }
    push_scale_modifiers(&mut fused, first, second, 3);
    push_mai_modifiers(&mut fused, mfma_first, mfma_second, false);
    let registers = Some(reader.registers(mfma.name));
    Some(Decoded { size: 16, text: fused, class: Class::Matrix, target: None, registers })
}

fn class_of(name: &str) -> Class {
    let matrix = ["v_mfma", "v_smfmac", "v_wmma", "v_swmmac"];
    if matrix.iter().any(|m| name.starts_with(m)) {
        Class::Matrix
    } else {
        Class::VectorAlu
    }
}

/// Whether a slot's VGPR field names AGPRs in this word.
fn agpr_selected(file: SlotFile, first: u32, second: u32) -> bool {
    match file {
        SlotFile::Vgpr => false,
        SlotFile::Agpr => true,
        SlotFile::AccCd => first & (1 << 15) != 0,
        SlotFile::Acc0 => second & (1 << 27) != 0,
        SlotFile::Acc1 => second & (1 << 28) != 0,
    }
}

/// The vdst operand: `None` when the opcode has none, `Some(None)` when llvm-mc rejects it.
fn destination(_isa: Isa, op: &Op, first: u32) -> Option<Option<String>> {
    let slot = op.slots[0];
    if slot.count == 0 {
        return None;
    }
    let acc = agpr_selected(slot.file, first, 0);
    Some(vector_register(&slot, first & 0xFF, acc))
}

fn note(class: &str) -> String {
    format!("/*Invalid register, operand has '{class}' register class*/")
}

/// A VGPR/AGPR tuple from register `number`, with llvm-mc's note when it is misaligned.
fn vector_register(slot: &Slot, number: u32, acc: bool) -> Option<String> {
    let count = u32::from(slot.count);
    if acc && number + count > 256 {
        return None; // llvm-mc rejects an AGPR tuple past a255 (and prints a VGPR one past v255)
    }
    let file = if acc { File::Agpr } else { File::Vgpr };
    let mut text = register(file, number, count);
    if count > 1 && number % 2 == 1 {
        match slot.odd {
            Fit::Yes => {}
            // The note names the AGPR class when the tuple is one (`AReg_512_Align2`).
            Fit::Note(class) => {
                // The class names the tuple's width (`AV_256_Align2`), which for the f8f6f4
                // sources follows the format rather than the table's slot.
                let class = resized_class(class, count);
                match class.strip_prefix("VReg_").filter(|_| acc) {
                    Some(rest) => text.push_str(&note(&format!("AReg_{rest}"))),
                    None => text.push_str(&note(&class)),
                }
            }
            Fit::No | Fit::Imm => return None,
        }
    }
    Some(text)
}

/// `class` (`AV_256_Align2`) with its bit width set to that of `count` registers.
fn resized_class(class: &str, count: u32) -> String {
    let mut parts: alloc::vec::Vec<&str> = class.split('_').collect();
    let width = format!("{}", count.wrapping_mul(32));
    if let Some(part) = parts.iter_mut().find(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        *part = &width;
    }
    parts.join("_")
}

/// Appends llvm-mc's comment for a value the slot takes unwillingly, or `None` when it rejects it.
fn fitted(mut text: String, fit: Fit) -> Option<String> {
    match fit {
        Fit::Yes => {}
        Fit::No => return None,
        Fit::Imm => text.push_str("/*Invalid immediate*/"),
        Fit::Note(class) => text.push_str(&note(class)),
    }
    Some(text)
}

fn source(reader: &mut Reader<'_>, slot: &Slot, value: u32, acc: bool) -> Option<String> {
    let generation = reader.isa.generation();
    match value {
        256..=511 => vector_register(slot, value - 256, acc),
        255 => {
            let literal = reader.literal()?;
            literal_text(slot.lit, literal)
        }
        128..=208 => fitted(inline_constant(value, slot.ty)?, slot.int),
        240..=248 => fitted(inline_constant(value, slot.ty)?, slot.float),
        _ if !special_fits(generation, value, slot.count) => None,
        _ if is_inline_register(generation, value) => match slot.sgpr {
            // llvm-mc takes these in any register slot that takes SGPRs, without a note.
            Fit::No => None,
            _ => scalar(generation, value, u32::from(slot.count)),
        },
        _ => {
            let (first, count) = scalar_tuple(generation, value, u32::from(slot.count))?;
            fitted(scalar(generation, first, count)?, accumulator_class(slot.sgpr, slot.file, acc))
        }
    }
}

/// Whether a special register (not an SGPR or TTMP) can stand for a slot of `count` registers:
/// a 64-bit slot takes the registers that have a pair (`vcc`, `exec`, `flat_scratch`,
/// `xnack_mask`) and the `src_*` values but not a pair's high half, `m0`,
/// `src_flat_scratch_base_hi` or `src_lds_direct`; a wider slot takes only `null`.
fn special_fits(generation: Generation, value: u32, count: u8) -> bool {
    let ttmp = crate::disasm::operands::first_ttmp(generation);
    let last_sgpr = if generation <= Generation::Gfx9 { 101 } else { 105 };
    let null = if generation >= Generation::Gfx11 { 124 } else { 125 };
    let m0 = if generation >= Generation::Gfx11 { 125 } else { 124 };
    if count <= 1 || value <= last_sgpr || (ttmp..=123).contains(&value) {
        return true;
    }
    if count >= 3 {
        return value == null;
    }
    let pair_half = matches!(value, 102..=107 | 126 | 127) && value % 2 == 1;
    !(pair_half || value == m0 || value == 231 || value == 254)
}

/// The registers llvm-mc names for an SGPR or TTMP tuple of `count` at `value`: a pair starts at
/// the even register at or below the field, a wider tuple at the multiple of 4, and no scalar
/// tuple is wider than 16 registers (a 1024-bit slot names 16).
/// `None` when the tuple would run past s105 or `ttmp15`, which llvm-mc rejects.
fn scalar_tuple(generation: Generation, value: u32, count: u32) -> Option<(u32, u32)> {
    let ttmp = crate::disasm::operands::first_ttmp(generation);
    let last_sgpr = if generation <= Generation::Gfx9 { 101 } else { 105 };
    // A tuple may run into s102–s105 even where those are named registers (GFX9).
    let (base, last) = if value >= ttmp { (ttmp, 123) } else { (0, 105) };
    let in_file = value <= last_sgpr || (ttmp..=123).contains(&value);
    if !in_file || count <= 1 {
        return Some((value, count));
    }
    let align = if count == 2 { 2 } else { 4 };
    let (first, count) = (base + (value - base) / align * align, count.min(16));
    (first + count - 1 <= last).then_some((first, count))
}

/// The special registers llvm-objdump prints without a register-class note in any slot that
/// takes scalars: `null`, `src_flat_scratch_base_*`, `src_shared_*`, `src_private_*`,
/// `src_pops_exiting_wave_id`, `src_vccz`, `src_execz`, `src_scc`.
fn is_inline_register(generation: Generation, value: u32) -> bool {
    let null = if generation >= Generation::Gfx11 { 124 } else { 125 };
    value == null && generation >= Generation::Gfx9 || matches!(value, 230 | 231 | 235..=239 | 251..=253)
}

/// A note's class for the accumulator slot (src2 of an MFMA), which names AGPRs when `acc_cd`
/// is set (`AReg_512_Align2`), as the destination's does.
fn accumulator_class(fit: Fit, file: SlotFile, acc: bool) -> Fit {
    match fit {
        Fit::Note(class) if file == SlotFile::AccCd && acc => Fit::Note(agpr_class(class).unwrap_or(class)),
        other => other,
    }
}

/// The AGPR class of a VGPR class name (`VReg_512_Align2` → `AReg_512_Align2`).
fn agpr_class(class: &str) -> Option<&'static str> {
    const CLASSES: [(&str, &str); 6] = [
        ("VReg_64_Align2", "AReg_64_Align2"),
        ("VReg_128_Align2", "AReg_128_Align2"),
        ("VReg_256_Align2", "AReg_256_Align2"),
        ("VReg_512_Align2", "AReg_512_Align2"),
        ("VReg_1024_Align2", "AReg_1024_Align2"),
        ("VGPR_32", "AGPR_32"),
    ];
    CLASSES.iter().find(|(v, _)| *v == class).map(|(_, a)| *a)
}

const F16_INLINE: [u32; 9] = [0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118];
const BF16_INLINE: [u32; 9] = [0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22];
const F32_INLINE: [u32; 9] = [
    0x3F00_0000,
    0xBF00_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x4000_0000,
    0xC000_0000,
    0x4080_0000,
    0xC080_0000,
    0x3E22_F983,
];

fn small_int(value: u32) -> bool {
    value <= 64 || value >= 0xFFFF_FFF0
}

fn hex_or_lit(value: u32, inline: bool) -> String {
    if inline {
        format!("lit({value:#x})")
    } else {
        format!("{value:#x}")
    }
}

/// A literal as llvm-mc prints it in a slot of style `lit`.
fn literal_text(lit: Lit, value: u32) -> Option<String> {
    let low = value & 0xFFFF;
    Some(match lit {
        Lit::No => return None,
        Lit::Full => full_literal(value),
        Lit::Half => hex_or_lit(value, small_int(value) || F16_INLINE.contains(&value)),
        Lit::Brain => hex_or_lit(value, small_int(value) || BF16_INLINE.contains(&value)),
        Lit::Mix => {
            if low <= 64 || low >= 0xFFF0 || F16_INLINE.contains(&low) {
                format!("lit({value:#x})")
            } else {
                format!("{low:#x}")
            }
        }
        Lit::Invalid => invalid_literal(value),
    })
}

/// A 32-bit literal of an f32 or integer operand: `lit(…)` when an inline constant has its bits.
pub(super) fn full_literal(value: u32) -> String {
    hex_or_lit(value, small_int(value) || F32_INLINE.contains(&value))
}

fn bit(bits: u16, number: u32) -> bool {
    bits & (1 << number) != 0
}

/// `-x`, `|x|`, `-|x|`: the neg (neg_lo) and abs (neg_hi) bits of `v_fma_mix*`.
/// An integer inline constant is negated as `neg(18)`, not `-18`.
fn with_mix_modifiers(operand: String, bits: u16, index: usize, integer: bool) -> String {
    let neg = NEG_LO.get(index).is_some_and(|b| bit(bits, *b));
    let abs = NEG_HI.get(index).is_some_and(|b| bit(bits, *b));
    match (neg, abs) {
        (false, false) => operand,
        (true, false) if integer => format!("neg({operand})"),
        (true, false) => format!("-{operand}"),
        (false, true) => format!("|{operand}|"),
        (true, true) => format!("-|{operand}|"),
    }
}

/// The number of source slots an opcode has.
fn source_count(op: &Op) -> usize {
    op.slots.iter().skip(1).filter(|s| s.count > 0).count()
}

/// `name:[b0,b1,…]` over the opcode's sources, when a bit llvm-mc prints differs from `default`.
fn push_list(text: &mut String, op: &Op, bits: u16, name: &str, numbers: [u32; 3], default: bool) {
    let sources = source_count(op).min(3);
    let used = numbers.get(..sources).unwrap_or_default();
    if !used.iter().any(|n| bit(op.shown, *n) && bit(bits, *n) != default) {
        return;
    }
    let values: alloc::vec::Vec<&str> = used.iter().map(|n| if bit(bits, *n) { "1" } else { "0" }).collect();
    text.push_str(&format!(" {name}:[{}]", values.join(",")));
}

fn push_packed_modifiers(text: &mut String, op: &Op, bits: u16) {
    if op.name.starts_with("v_swmmac") {
        let key = u32::from(bit(bits, OP_SEL[0])) | (u32::from(bit(bits, OP_SEL[1])) << 1);
        if key != 0 {
            text.push_str(&format!(" index_key:{key}"));
        }
    } else {
        push_list(text, op, bits, "op_sel", OP_SEL, false);
    }
    push_list(text, op, bits, "op_sel_hi", OP_SEL_HI, true);
    push_list(text, op, bits, "neg_lo", NEG_LO, false);
    push_list(text, op, bits, "neg_hi", NEG_HI, false);
    if bit(op.shown, CLAMP) && bit(bits, CLAMP) {
        text.push_str(" clamp");
    }
}

fn push_mix_modifiers(text: &mut String, op: &Op, bits: u16) {
    for (name, numbers) in [("op_sel", OP_SEL), ("op_sel_hi", OP_SEL_HI)] {
        if numbers.iter().any(|n| bit(bits, *n)) {
            let values: alloc::vec::Vec<&str> = numbers.iter().map(|n| if bit(bits, *n) { "1" } else { "0" }).collect();
            text.push_str(&format!(" {name}:[{}]", values.join(",")));
        }
    }
    if bit(op.shown, CLAMP) && bit(bits, CLAMP) {
        text.push_str(" clamp");
    }
}

/// Whether an MFMA's `blgp` bits are its sources' negations, printed `neg:[…]`: the f64 MFMAs
/// from gfx940 on.
fn negates_sources(isa: Isa, op: &Op) -> bool {
    matches!(isa, Isa::Gfx942 | Isa::Gfx950) && op.name.starts_with("v_mfma_f64")
}

fn push_mai_modifiers(text: &mut String, first: u32, second: u32, negates: bool) {
    let cbsz = (first >> 8) & 7;
    let abid = (first >> 11) & 0xF;
    let blgp = (second >> 29) & 7;
    for (name, value) in [("cbsz", cbsz), ("abid", abid)] {
        if value != 0 {
            text.push_str(&format!(" {name}:{value}"));
        }
    }
    if blgp != 0 && negates {
        text.push_str(&format!(" neg:[{},{},{}]", blgp & 1, (blgp >> 1) & 1, blgp >> 2));
    } else if blgp != 0 {
        text.push_str(&format!(" blgp:{blgp}"));
    }
}
