//! Operands shared by every group of encodings: register names and ranges, and the 9-bit source
//! operand (`SRC0`, `SSRC0`, …) with its inline constants and literal.
//!
//! Source operand values (the same space in every encoding that names a source; GFX10 moved
//! `null`, GFX11 swapped `m0` and `null`):
//!
//! | value | GFX9 | GFX10 | GFX11, GFX12 |
//! |---|---|---|---|
//! | 0–101 (GFX9) / 0–105 | `s0`… | `s0`… | `s0`… |
//! | 102–105 | `flat_scratch_lo/hi`, `xnack_mask_lo/hi` | `s102`… | `s102`… |
//! | 106, 107 | `vcc_lo`, `vcc_hi` | same | same |
//! | 108–123 | `ttmp0`–`ttmp15` | same | same |
//! | 124 | `m0` | `m0` | `null` |
//! | 125 | `null` (as llvm-objdump 22 prints it) | `null` | `m0` |
//! | 126, 127 | `exec_lo`, `exec_hi` | same | same |
//! | 128–192 | integers 0–64 | same | same |
//! | 193–208 | integers -1 to -16 | same | same |
//! | 230, 231 | `src_flat_scratch_base_lo`, `src_flat_scratch_base_hi` (as llvm-objdump 22 prints them) | same | same |
//! | 235–239 | `src_shared_base`, `src_shared_limit`, `src_private_base`, `src_private_limit`, `src_pops_exiting_wave_id` | same | same |
//! | 240–248 | 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2π) | same | same |
//! | 251–253 | `src_vccz`, `src_execz`, `src_scc` | same | same |
//! | 254 | `src_lds_direct` | same | same (llvm-objdump 22 still prints it) |
//! | 255 | a 32-bit literal in the next dword | same | same |
//! | 256–511 | `v0`–`v255` | same | same |
//!
//! A 64-bit operand names a register pair (`s[4:5]`, `vcc`, `exec`); an inline constant prints
//! as the value the operand's type gives it. How each type prints was read from llvm-mc 22.

use alloc::format;
use alloc::string::String;

use super::Generation;

/// The register files an operand can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum File {
    Sgpr,
    Vgpr,
    Agpr,
    Ttmp,
}

impl File {
    fn prefix(self) -> &'static str {
        match self {
            File::Sgpr => "s",
            File::Vgpr => "v",
            File::Agpr => "a",
            File::Ttmp => "ttmp",
        }
    }
}

/// `count` consecutive registers of `file` from `first`: `v7`, `s[4:5]`, `a[0:15]`.
///
/// Built by hand rather than with `format!`: the listing names millions of registers, and
/// `format!` and its callees took about a quarter of `offload disasm`'s time in a profile.
pub fn register(file: File, first: u32, count: u32) -> String {
    let mut out = String::with_capacity(16);
    out.push_str(file.prefix());
    if count <= 1 {
        push_decimal(&mut out, first);
    } else {
        out.push('[');
        push_decimal(&mut out, first);
        out.push(':');
        push_decimal(&mut out, first + count - 1);
        out.push(']');
    }
    out
}

/// Appends `value` in decimal.
pub fn push_decimal(out: &mut String, value: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = value;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}

/// How an operand's value is read, which decides how an inline constant prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// Integers and raw bits (`_b32`, `_u32`, `_i64`, …).
    Int,
    F16,
    Bf16,
    F32,
    F64,
}

/// The printed name of special register `value` (106–127 and the `src_*` values) in a
/// 32-bit operand, or `None` when it is not one.
fn special32(generation: Generation, value: u32) -> Option<&'static str> {
    Some(match (value, generation) {
        (102, Generation::Gfx8 | Generation::Gfx9) => "flat_scratch_lo",
        (103, Generation::Gfx8 | Generation::Gfx9) => "flat_scratch_hi",
        (104, Generation::Gfx8 | Generation::Gfx9) => "xnack_mask_lo",
        (105, Generation::Gfx8 | Generation::Gfx9) => "xnack_mask_hi",
        (106, _) => "vcc_lo",
        (107, _) => "vcc_hi",
        (108, Generation::Gfx8) => "tba_lo",
        (109, Generation::Gfx8) => "tba_hi",
        (110, Generation::Gfx8) => "tma_lo",
        (111, Generation::Gfx8) => "tma_hi",
        (124, Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx10) => "m0",
        (124, _) => "null",
        (125, Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx10) => "null",
        (125, Generation::Gfx11 | Generation::Gfx12) => "m0",
        (126, _) => "exec_lo",
        (127, _) => "exec_hi",
        (230, _) => "src_flat_scratch_base_lo",
        (231, _) => "src_flat_scratch_base_hi",
        (235, _) => "src_shared_base",
        (236, _) => "src_shared_limit",
        (237, _) => "src_private_base",
        (238, _) => "src_private_limit",
        (239, _) => "src_pops_exiting_wave_id",
        (251, _) => "src_vccz",
        (252, _) => "src_execz",
        (253, _) => "src_scc",
        (254, _) => "src_lds_direct",
        _ => return None,
    })
}

/// The printed name of special register pair `value` in a 64-bit operand.
fn special64(generation: Generation, value: u32) -> Option<&'static str> {
    Some(match (value, generation) {
        (102, Generation::Gfx8 | Generation::Gfx9) => "flat_scratch",
        (104, Generation::Gfx8 | Generation::Gfx9) => "xnack_mask",
        (108, Generation::Gfx8) => "tba",
        (110, Generation::Gfx8) => "tma",
        (106, _) => "vcc",
        (126, _) => "exec",
        _ => return special32(generation, value),
    })
}

/// The highest SGPR number a source operand can name directly.
fn last_sgpr(generation: Generation) -> u32 {
    match generation {
        Generation::Gfx8 | Generation::Gfx9 => 101,
        _ => 105,
    }
}

/// The value of the first trap-handler temporary, `ttmp0`: GFX8 has twelve from 112 (108–111
/// are `tba` and `tma`), later generations sixteen from 108.
pub fn first_ttmp(generation: Generation) -> u32 {
    if generation == Generation::Gfx8 {
        112
    } else {
        108
    }
}

/// A scalar register operand (`SDST`, `SBASE`, `SSRC` without constants): `count` registers
/// from `value`, with the special names.
pub fn scalar(generation: Generation, value: u32, count: u32) -> Option<String> {
    if value <= last_sgpr(generation) {
        return Some(register(File::Sgpr, value, count));
    }
    let ttmp = first_ttmp(generation);
    if (ttmp..=123).contains(&value) {
        return Some(register(File::Ttmp, value - ttmp, count));
    }
    let name = if count >= 2 { special64(generation, value) } else { special32(generation, value) };
    name.map(String::from)
}

/// The inline constant of source value `value` read as `ty`, or `None` when `value` is not one.
pub fn inline_constant(value: u32, ty: Type) -> Option<String> {
    match value {
        128..=192 => Some(format!("{}", value - 128)),
        193..=208 => Some(format!("-{}", value - 192)),
        240..=247 => {
            let names = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];
            Some(String::from(names[(value - 240) as usize]))
        }
        248 => Some(String::from(match ty {
            Type::F64 => "0.15915494309189532",
            _ => "0.15915494",
        })),
        _ => None,
    }
}

/// A source operand of `count` dwords read as `ty`: a register (range), a special register, an
/// inline constant, or (value 255) `literal`, which the caller has read from the dword after the
/// instruction. `None` for a value llvm-mc rejects.
pub fn source(generation: Generation, value: u32, count: u32, ty: Type, literal: Option<u32>) -> Option<String> {
    match value {
        256..=511 => Some(register(File::Vgpr, value - 256, count)),
        255 => literal.map(|l| format!("{l:#x}")),
        128..=208 | 240..=248 => inline_constant(value, ty),
        _ => scalar(generation, value, count),
    }
}

/// A 32-bit literal where llvm-objdump wants none (a scalar destination field of 255 on GFX10+,
/// an MFMA source): the value as an integer or f32 inline constant would print when it is one,
/// else hex, then `/*Invalid immediate*/`.
pub fn invalid_literal(value: u32) -> String {
    const F32_INLINE: [(u32, &str); 9] = [
        (0x3F00_0000, "0.5"),
        (0xBF00_0000, "-0.5"),
        (0x3F80_0000, "1.0"),
        (0xBF80_0000, "-1.0"),
        (0x4000_0000, "2.0"),
        (0xC000_0000, "-2.0"),
        (0x4080_0000, "4.0"),
        (0xC080_0000, "-4.0"),
        (0x3E22_F983, "0.15915494"),
    ];
    let shown = if value <= 64 {
        format!("{value}")
    } else if value >= 0xFFFF_FFF0 {
        format!("-{}", value.wrapping_neg())
    } else if let Some((_, name)) = F32_INLINE.iter().find(|(bits, _)| *bits == value) {
        String::from(*name)
    } else {
        format!("{value:#x}")
    };
    format!("{shown}/*Invalid immediate*/")
}

/// What an instruction does with a register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Written,
    Read,
    /// Read and written: an accumulator, a tied operand, a partial write (a 16-bit half, an
    /// SDWA `UNUSED_PRESERVE` destination), an atomic that returns the old value.
    ReadWritten,
}

/// One register operand as the decoder read it from its fields: `count` registers of `file`
/// from `first`. Only the counted files appear: VGPRs, AGPRs, and SGPRs `s0`–`s105` with
/// `vcc_lo`/`vcc_hi` as 106 and 107; trap temporaries, `exec`, `m0`, `null` and constants do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterOperand {
    pub file: File,
    pub first: u16,
    pub count: u16,
    pub role: Role,
}

/// The register operands of one instruction, in encoding order, without allocating (the
/// listing decodes millions of words). The capacity holds the most any encoding has (a GFX10
/// image: thirteen NSA addresses, data, resource, sampler); more would mark the list
/// incomplete, which `tests/disasm_flow.rs` checks never happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterOperands {
    items: [RegisterOperand; RegisterOperands::CAPACITY],
    len: u8,
    overflowed: bool,
    /// The instruction also reads `vcc` without naming it (`s_cbranch_vccz`, `v_div_fmas_*`):
    /// a pair in wave64, `vcc_lo` in wave32, which the decoder does not know.
    pub reads_vcc: bool,
    /// The scalar tuples whose field does not start at their alignment, which llvm-objdump
    /// prints from the aligned register below and warns of after the words.
    pub misaligned: Misaligned,
}

/// The scalar register tuples of one instruction whose field names a register that is not at
/// the tuple's alignment (an odd SGPR for a pair, one not a multiple of 4 for more): the
/// decoder prints the tuple from the aligned register below, and llvm-objdump 22 warns after
/// the instruction's words, once per such operand in operand order and with nothing between
/// them: `; Warning: SGPR_64: scalar reg isn't aligned 5Warning: TTMP_128: ...`. The class is
/// the tuple's file and width in bits; the number is the field's register (a trap temporary's
/// own number, `ttmp5` → 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Misaligned {
    /// (trap temporaries rather than SGPRs, registers in the tuple, the register named).
    items: [(bool, u8, u8); Misaligned::CAPACITY],
    len: u8,
}

impl Misaligned {
    /// Room for the most scalar tuples an instruction has (SOP2: a destination, two sources).
    const CAPACITY: usize = 3;

    /// Notes scalar field `value` naming `count` registers, when it is an SGPR or trap
    /// temporary tuple that does not start at its alignment.
    pub fn note(&mut self, generation: Generation, value: u32, count: u32) {
        let align = match count {
            0 | 1 => return,
            2 => 2,
            _ => 4,
        };
        let ttmp = first_ttmp(generation);
        let (is_ttmp, number) = if value <= last_sgpr(generation) {
            (false, value)
        } else if (ttmp..=123).contains(&value) {
            (true, value - ttmp)
        } else {
            return;
        };
        if number % align == 0 {
            return;
        }
        if let (Some(slot), Ok(count)) = (self.items.get_mut(usize::from(self.len)), u8::try_from(count)) {
            *slot = (is_ttmp, count, number as u8);
            self.len += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The warnings as llvm-objdump prints them after the words, without the ` ; ` before them.
    pub fn push_warnings(&self, out: &mut String) {
        for &(is_ttmp, count, number) in &self.items[..usize::from(self.len)] {
            out.push_str("Warning: ");
            out.push_str(if is_ttmp { "TTMP_" } else { "SGPR_" });
            push_decimal(out, 32 * u32::from(count));
            out.push_str(": scalar reg isn't aligned ");
            push_decimal(out, u32::from(number));
        }
    }
}

impl Default for RegisterOperands {
    fn default() -> RegisterOperands {
        let empty = RegisterOperand { file: File::Sgpr, first: 0, count: 0, role: Role::Read };
        RegisterOperands {
            items: [empty; RegisterOperands::CAPACITY],
            len: 0,
            overflowed: false,
            reads_vcc: false,
            misaligned: Misaligned::default(),
        }
    }
}

impl RegisterOperands {
    /// Room for a GFX10 image's thirteen NSA addresses and its other operands.
    const CAPACITY: usize = 16;

    /// Adds an operand.
    pub fn push(&mut self, operand: RegisterOperand) {
        match self.items.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = operand;
                self.len += 1;
            }
            None => self.overflowed = true,
        }
    }

    /// Adds the counted registers of a scalar operand field (`value` as in the source operand
    /// table, `count` dwords from it as printed), if it names any.
    pub fn push_scalar(&mut self, generation: Generation, value: u32, count: u32, role: Role) {
        self.misaligned.note(generation, value, count);
        if let Some((first, count)) = counted_scalar(generation, value, count) {
            self.push(RegisterOperand { file: File::Sgpr, first, count, role });
        }
    }

    /// Adds `count` registers of a vector file (VGPRs or AGPRs) from `first`.
    pub fn push_vector(&mut self, file: File, first: u32, count: u32, role: Role) {
        let (Ok(first), Ok(count)) = (u16::try_from(first), u16::try_from(count)) else { return };
        if u32::from(first) + u32::from(count) <= 256 {
            self.push(RegisterOperand { file, first, count, role });
        }
    }

    /// Adds the registers of source operand `value` (a VGPR from 256, else a scalar value).
    pub fn push_source(&mut self, generation: Generation, value: u32, count: u32, role: Role) {
        match value {
            256..=511 => self.push_vector(File::Vgpr, value - 256, count, role),
            _ => self.push_scalar(generation, value, count, role),
        }
    }

    /// The operands, in order.
    pub fn as_slice(&self) -> &[RegisterOperand] {
        &self.items[..usize::from(self.len)]
    }

    pub fn as_mut_slice(&mut self) -> &mut [RegisterOperand] {
        &mut self.items[..usize::from(self.len)]
    }

    /// Whether every operand fitted.
    pub fn is_complete(&self) -> bool {
        !self.overflowed
    }

    /// The operands `items` (at most the capacity; more mark the list incomplete) with the
    /// flags they were kept with: what a listing's store of them gives back.
    pub fn from_kept(items: &[RegisterOperand], complete: bool, reads_vcc: bool) -> RegisterOperands {
        let mut registers = RegisterOperands { reads_vcc, ..RegisterOperands::default() };
        for item in items {
            registers.push(*item);
        }
        registers.overflowed |= !complete;
        registers
    }
}

/// The counted SGPRs a scalar field names, as (first, count): a range starts at the aligned
/// register below `value` (2 for pairs, 4 for more), as it prints; `vcc` and its halves are
/// 106 and 107. `None` for trap temporaries, `exec`, `m0`, `null`, GFX9's `flat_scratch` and
/// `xnack_mask`, and constants.
fn counted_scalar(generation: Generation, value: u32, count: u32) -> Option<(u16, u16)> {
    let align = match count {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    };
    if value <= last_sgpr(generation) {
        let first = value & !(align - 1);
        return (first + count <= 106).then_some((first as u16, count as u16));
    }
    match (value, count) {
        (106, 1) => Some((106, 1)),
        (106, _) => Some((106, 2)),
        (107, 1) => Some((107, 1)),
        _ => None,
    }
}
