//! Which registers an instruction reads and writes.
//!
//! Registers counted: VGPRs `v0`–`v255`, AGPRs `a0`–`a255`, SGPRs `s0`–`s105` and `vcc` (its
//! halves as SGPRs 106 and 107, where the hardware puts them in the SGPR file and where the
//! metadata's `sgpr_count` counts them). `exec`, `m0`, `scc`, `ttmp*`, `null`, constants and
//! literals are not register-file registers and are left out.
//!
//! **From the decoder's fields** ([`from_operands`]): every decoder (scalar, vector ALU with
//! DPP, SDWA and `_e64_dpp`, VOP3P, VOPD, interpolation, DS, buffer, flat, image, BVH, export,
//! LDS-direct) hands over each register operand with its role, decided where it reads the field
//! from the generated layout (a scalar layout's `D` is written, `A`/`B` read; a vector form's
//! destination and carry-out written, its sources read; a load's data written, a store's read,
//! an atomic's data read and, when it returns into the same registers, written), plus the few
//! roles no table holds, listed in [`crate::disasm::roles`]. A line that did not decode (`.long`,
//! a run of zeros) reads and writes nothing.
//!
//! **The former text rules** ([`from_text`]) are kept as the reference `tests/disasm_flow.rs`
//! compares the decoder's operands with, over the fixtures and real wheels; the analysis does
//! not use them. The text names every explicit operand in encoding order (llvm-objdump's
//! syntax), so the sets followed from the mnemonic and the operands' positions:
//!
//! | instructions | written | read |
//! |---|---|---|
//! | VALU, VMEM/DS/FLAT loads, image loads and samples | the first operand | the rest |
//! | `v_mad_u64_u32`, `v_mad_i64_i32` (VOP3b in VOP3P's space on GFX9) | the first two | the rest |
//! | stores, `exp` | nothing | every operand |
//! | atomics | the first operand when they return a value (`glc`; `sc0` on gfx940+; `th:TH_ATOMIC_RETURN` on GFX12) | every operand |
//! | DS: `ds_read*`, `ds_load*`, `*_rtn*`, `ds_swizzle`, `ds_(b)permute`, `ds_append`, `ds_consume`, `ds_ordered_count` | the first operand | the rest; other DS operations write nothing |
//! | accumulating or partial writes: `v_smfmac*`, `*dot*c`, `*_d16*` loads, true16 halves `v0.l`/`v0.h` | the first operand | the first operand too |
//! | `v_dual_*` (VOPD) | each half's first operand | each half's rest |
//!
//! The text rules also cover the scalar and vector ALU encodings (they were the only source
//! before the decoders gave operands); `tests/disasm_flow.rs` checks that both agree there.
//! A branch's target operand is an address or a label, not a register, and is skipped.

use alloc::vec::Vec;

use crate::disasm::operands::{File as OperandFile, RegisterOperands, Role};
use crate::disasm::roles::base_of;
use crate::disasm::{Generation, Isa, Line, Listing};

/// A register file the pressure is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum File {
    Vgpr,
    Agpr,
    /// `s0`–`s105`, and `vcc_lo`/`vcc_hi` as 106/107.
    Sgpr,
}

/// `count` consecutive registers of `file` from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub file: File,
    pub first: u16,
    pub count: u16,
}

/// SGPR numbers of `vcc_lo` and `vcc_hi` in the sets (their encoding values).
pub const VCC_LO: u16 = 106;
pub const SGPR_SLOTS: u16 = 128;
pub const VECTOR_SLOTS: u16 = 256;

/// A set of registers of each counted file, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegSet {
    v: [u64; 4],
    a: [u64; 4],
    s: [u64; 2],
}

impl RegSet {
    fn words(&mut self, file: File) -> &mut [u64] {
        match file {
            File::Vgpr => &mut self.v,
            File::Agpr => &mut self.a,
            File::Sgpr => &mut self.s,
        }
    }

    /// Adds the registers of `range` (those past the file's end are dropped).
    pub fn insert(&mut self, range: Range) {
        let words = self.words(range.file);
        let end = (u32::from(range.first) + u32::from(range.count)).min(words.len() as u32 * 64);
        for r in u32::from(range.first)..end {
            words[(r / 64) as usize] |= 1 << (r % 64);
        }
    }

    pub fn remove(&mut self, range: Range) {
        let words = self.words(range.file);
        let end = (u32::from(range.first) + u32::from(range.count)).min(words.len() as u32 * 64);
        for r in u32::from(range.first)..end {
            words[(r / 64) as usize] &= !(1 << (r % 64));
        }
    }

    pub fn union_with(&mut self, other: &RegSet) {
        for (a, b) in self.v.iter_mut().zip(other.v) {
            *a |= b;
        }
        for (a, b) in self.a.iter_mut().zip(other.a) {
            *a |= b;
        }
        for (a, b) in self.s.iter_mut().zip(other.s) {
            *a |= b;
        }
    }

    /// How many registers of `file` are in the set.
    pub fn count(&self, file: File) -> u32 {
        let words: &[u64] = match file {
            File::Vgpr => &self.v,
            File::Agpr => &self.a,
            File::Sgpr => &self.s,
        };
        words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether register `index` of `file` is in the set.
    pub fn contains(&self, file: File, index: u16) -> bool {
        let words: &[u64] = match file {
            File::Vgpr => &self.v,
            File::Agpr => &self.a,
            File::Sgpr => &self.s,
        };
        words.get(usize::from(index / 64)).is_some_and(|w| w & (1 << (index % 64)) != 0)
    }
}

/// The registers one instruction writes (`defs`) and reads (`uses`). A partial or accumulating
/// write is in both, so that it does not end the register's earlier value's life.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub defs: Vec<Range>,
    pub uses: Vec<Range>,
}

/// How the instruction is run, where the text alone does not say.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    pub isa: Isa,
    /// Wave64: an implicit `vcc` is two SGPRs, else only `vcc_lo`.
    pub wave64: bool,
}

/// The registers instruction `line` of `listing` writes and reads, from the decoder's operands;
/// nothing for a line that did not decode.
pub fn of_line(listing: &Listing, line: &Line, mode: Mode) -> Access {
    listing.registers(line).map_or_else(Access::default, |registers| from_operands(&registers, mode))
}

/// The sets of the register operands a decoder read, with their roles.
pub fn from_operands(registers: &RegisterOperands, mode: Mode) -> Access {
    let mut out = Access::default();
    for operand in registers.as_slice() {
        let file = match operand.file {
            OperandFile::Vgpr => File::Vgpr,
            OperandFile::Agpr => File::Agpr,
            OperandFile::Sgpr => File::Sgpr,
            OperandFile::Ttmp => continue,
        };
        let range = Range { file, first: operand.first, count: operand.count };
        if operand.role != Role::Read {
            out.defs.push(range);
        }
        if operand.role != Role::Written {
            out.uses.push(range);
        }
    }
    if registers.reads_vcc {
        out.uses.push(implicit_vcc_range(mode));
    }
    out
}

/// `vcc` as an implicit operand reads it: a pair in wave64, `vcc_lo` in wave32.
fn implicit_vcc_range(mode: Mode) -> Range {
    Range { file: File::Sgpr, first: VCC_LO, count: if mode.wave64 { 2 } else { 1 } }
}

/// The registers the instruction printed as `text` writes and reads by the former text rules
/// (the reference the tests compare with); `has_target`: its last operand is a branch target.
pub fn from_text(text: &str, has_target: bool, mode: Mode) -> Access {
    let mut out = Access::default();
    if let Some((first, second)) = text.split_once(" :: ") {
        // VOPD: two independent halves, each "mnemonic dst, srcs".
        add_half(&mut out, first, false, mode);
        add_half(&mut out, second, false, mode);
        return out;
    }
    add_half(&mut out, text, has_target, mode);
    out
}

fn add_half(out: &mut Access, text: &str, has_target: bool, mode: Mode) {
    let (mnemonic, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut operands = split_operands(rest);
    if has_target {
        operands.pop();
    }
    let rule = rule(mnemonic, text, &operands, mode.isa);
    for (i, operand) in operands.iter().enumerate() {
        let is_def = i < rule.defs;
        let mut ranges = Vec::new();
        registers(operand, &mut ranges);
        let half = operand.contains(".l") || operand.contains(".h");
        for range in ranges {
            if is_def {
                out.defs.push(range);
                if rule.def_is_read || half {
                    out.uses.push(range);
                }
            } else {
                out.uses.push(range);
            }
        }
    }
    if mnemonic.starts_with("s_cbranch_vcc") || mnemonic.starts_with("v_div_fmas_") {
        out.uses.push(implicit_vcc_range(mode));
    }
}

/// What the leading operands of an instruction are.
struct Rule {
    /// How many leading operands are written.
    defs: usize,
    /// The written operands are read too (a partial or accumulating write).
    def_is_read: bool,
}

fn rule(mnemonic: &str, text: &str, operands: &[&str], isa: Isa) -> Rule {
    let writes = |defs: usize| Rule { defs, def_is_read: false };
    let accumulates = Rule { defs: 1, def_is_read: true };
    let name = base_of(mnemonic);
    if name.starts_with("s_") {
        return scalar_rule(name, text);
    }
    if let Some(memory) = memory_rule(name, text) {
        return memory;
    }
    if name.starts_with("v_cmpx") && isa.generation() >= Generation::Gfx10 {
        return writes(0); // GFX10+ v_cmpx writes only exec
    }
    if writes_carry(name, operands) {
        return writes(2);
    }
    let partial = text.contains("UNUSED_PRESERVE");
    if partial
        || name.contains("mac_")
        || name.contains("fmac")
        || is_dot_c(name)
        || name.starts_with("v_writelane")
        || name.starts_with("v_smfmac")
        || name.starts_with("v_swap")
        || name.starts_with("v_permlane")
        || name.starts_with("v_movreld")
    {
        return accumulates;
    }
    if name == "v_nop" || name == "v_illegal" || name.starts_with("v_clrexcp") || name == "exp" {
        return writes(0);
    }
    writes(1)
}

/// `v_dot2c_f32_f16`, `v_dot4c_i32_i8`, `v_dot8c_i32_i4`: the accumulator is the destination.
fn is_dot_c(name: &str) -> bool {
    ["v_dot2c_", "v_dot4c_", "v_dot8c_"].iter().any(|p| name.starts_with(p))
}

/// VALU instructions whose second operand is a carry or condition out (VOP3b, or VOP2 with
/// `vcc` printed): the carry ops always; the unsuffixed `v_add_u32`/`v_sub_u32`/`v_subrev_u32`
/// only in their four-operand (GFX8) form, since GFX9 reuses the names without a carry.
fn writes_carry(name: &str, operands: &[&str]) -> bool {
    let always = name.contains("_co_")
        || name.starts_with("v_addc_")
        || name.starts_with("v_subb_")
        || name.starts_with("v_subbrev_")
        || name.starts_with("v_div_scale_")
        || name == "v_mad_u64_u32"
        || name == "v_mad_i64_i32";
    let gfx8_form = matches!(name, "v_add_u32" | "v_sub_u32" | "v_subrev_u32") && operands.len() == 4;
    always || gfx8_form
}

fn scalar_rule(name: &str, text: &str) -> Rule {
    let writes = |defs: usize| Rule { defs, def_is_read: false };
    let reads_only = name.starts_with("s_cmp")
        || name.starts_with("s_bitcmp")
        || name.starts_with("s_setreg")
        || name.starts_with("s_set_gpr_idx")
        || name.starts_with("s_setpc")
        || name.starts_with("s_rfe")
        || name.starts_with("s_waitcnt_")
        || name.contains("_store")
        || name.starts_with("s_cbranch")
        || name.starts_with("s_branch")
        || name.starts_with("s_movreld");
    if reads_only {
        return writes(0);
    }
    if name.contains("_atomic_") {
        return Rule { defs: usize::from(returns(text)), def_is_read: true };
    }
    let accumulating = name.starts_with("s_cmov")
        || name.starts_with("s_addk")
        || name.starts_with("s_mulk")
        || name.starts_with("s_bitset")
        || name.starts_with("s_fmac")
        || name.starts_with("s_subvector_loop");
    Rule { defs: 1, def_is_read: accumulating }
}

/// Whether an atomic returns the old value into its first operand.
fn returns(text: &str) -> bool {
    text.split([' ', ',']).any(|t| t == "glc" || t == "sc0" || t == "th:TH_ATOMIC_RETURN")
}

/// The rule of a memory instruction (DS, MUBUF, MTBUF, FLAT, GLOBAL, SCRATCH, MIMG), or `None`
/// for other encodings.
fn memory_rule(name: &str, text: &str) -> Option<Rule> {
    let writes = |defs: usize| Rule { defs, def_is_read: false };
    if let Some(ds) = name.strip_prefix("ds_") {
        let result = ["read", "load", "swizzle", "permute", "bpermute", "append", "consume", "ordered_count"]
            .iter()
            .any(|p| ds.starts_with(p))
            || ds.contains("_rtn");
        let partial = ds.contains("_d16");
        return Some(Rule { defs: usize::from(result), def_is_read: partial });
    }
    let vmem = ["buffer_", "tbuffer_", "global_", "flat_", "scratch_", "image_"].iter().any(|p| name.starts_with(p));
    if !vmem {
        return None;
    }
    if name.contains("atomic") {
        return Some(Rule { defs: usize::from(returns(text)), def_is_read: true });
    }
    let stores = name.contains("store") || name.contains("_lds_") || name.ends_with("_lds");
    let loads_to_lds = text.split(' ').any(|t| t == "lds");
    // Cache control (`buffer_wbinvl1`, `global_inv`, …) has no operands: the rule does not matter.
    if stores || loads_to_lds {
        return Some(writes(0));
    }
    Some(Rule { defs: 1, def_is_read: name.contains("_d16") })
}

/// The comma-separated operands of `rest` (after the mnemonic), split outside brackets and
/// parentheses; the modifiers after the last operand (`offset:16 glc`, `dmask:0xf a16`) are
/// cut off at the first space outside brackets.
pub fn split_operands(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = rest[start..].trim_start();
    let mut depth = 0i32;
    let mut end = last.len();
    for (i, c) in last.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ' ' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    // `exp mrt0 v0, …`: a single-word first operand group keeps its words (only the last
    // group has modifiers after it).
    if !last.is_empty() {
        out.push(&last[..end]);
    }
    out
}

/// Appends the counted registers an operand names: `v7`, `s[4:5]`, `a[0:15]`, `-|v1|`,
/// `[v4, v5]` (NSA addresses), `vcc`, `vcc_lo`, `v1.h`.
pub fn registers(operand: &str, out: &mut Vec<Range>) {
    let bytes = operand.as_bytes();
    let word_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !word_char(bytes[i]) || (i > 0 && (word_char(bytes[i - 1]) || bytes[i - 1] == b'.' || bytes[i - 1] == b':'))
        {
            i += 1;
            continue;
        }
        let end = (i..bytes.len()).find(|&j| !word_char(bytes[j])).unwrap_or(bytes.len());
        let word = &operand[i..end];
        match word {
            "vcc" => out.push(Range { file: File::Sgpr, first: VCC_LO, count: 2 }),
            "vcc_lo" => out.push(Range { file: File::Sgpr, first: VCC_LO, count: 1 }),
            "vcc_hi" => out.push(Range { file: File::Sgpr, first: VCC_LO + 1, count: 1 }),
            "v" | "s" | "a" if bytes.get(end) == Some(&b'[') => {
                if let Some((range, after)) = bracket_range(operand, end, word) {
                    out.push(range);
                    i = after;
                    continue;
                }
            }
            _ => {
                if let Some(range) = single(word) {
                    out.push(range);
                }
            }
        }
        i = end;
    }
}

fn file_of(prefix: &str) -> Option<File> {
    match prefix {
        "v" => Some(File::Vgpr),
        "a" => Some(File::Agpr),
        "s" => Some(File::Sgpr),
        _ => None,
    }
}

/// `v12`, `s3`, `a0`.
fn single(word: &str) -> Option<Range> {
    let (prefix, digits) = word.split_at(1);
    let file = file_of(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let first: u16 = digits.parse().ok()?;
    in_file(file, first, 1)
}

/// `[4:7]` after a file prefix, at byte `open` of `operand`: the range and where it ends.
fn bracket_range(operand: &str, open: usize, prefix: &str) -> Option<(Range, usize)> {
    let close = open + operand[open..].find(']')?;
    let (lo, hi) = operand[open + 1..close].split_once(':')?;
    let (lo, hi): (u16, u16) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    let count = hi.checked_sub(lo)?.checked_add(1)?;
    Some((in_file(file_of(prefix)?, lo, count)?, close + 1))
}

/// A range that lies inside its file's numbering, or `None`.
fn in_file(file: File, first: u16, count: u16) -> Option<Range> {
    let slots = if file == File::Sgpr { VCC_LO } else { VECTOR_SLOTS };
    (u32::from(first) + u32::from(count) <= u32::from(slots)).then_some(Range { file, first, count })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const GFX9: Mode = Mode { isa: Isa::Gfx90a, wave64: true };
    const GFX11: Mode = Mode { isa: Isa::Gfx1100, wave64: false };

    fn v(first: u16, count: u16) -> Range {
        Range { file: File::Vgpr, first, count }
    }
    fn s(first: u16, count: u16) -> Range {
        Range { file: File::Sgpr, first, count }
    }
    fn a(first: u16, count: u16) -> Range {
        Range { file: File::Agpr, first, count }
    }

    #[test]
    fn the_first_operand_is_written_and_the_rest_read() {
        let got = from_text("v_add_f32_e32 v0, s1, v[2:3]", false, GFX9);
        assert_eq!(got, Access { defs: vec![v(0, 1)], uses: vec![s(1, 1), v(2, 2)] });
        let load = from_text("global_load_dwordx4 v[4:7], v[0:1], off offset:16", false, GFX9);
        assert_eq!(load, Access { defs: vec![v(4, 4)], uses: vec![v(0, 2)] });
    }

    #[test]
    fn stores_compares_and_carries() {
        let store = from_text("buffer_store_dword v1, v2, s[0:3], 0 offen", false, GFX9);
        assert_eq!(store, Access { defs: vec![], uses: vec![v(1, 1), v(2, 1), s(0, 4)] });
        let cmp = from_text("s_cmp_eq_u32 s4, 0", false, GFX9);
        assert_eq!(cmp.defs, vec![]);
        let carry = from_text("v_addc_co_u32_e32 v1, vcc, v2, v3, vcc", false, GFX9);
        assert_eq!(carry.defs, vec![v(1, 1), s(106, 2)]);
        assert_eq!(carry.uses, vec![v(2, 1), v(3, 1), s(106, 2)]);
        let cmpx = from_text("v_cmpx_eq_u32_e64 s0, v1", false, GFX11);
        assert_eq!(cmpx, Access { defs: vec![], uses: vec![s(0, 1), v(1, 1)] });
    }

    #[test]
    fn modifiers_are_not_registers() {
        let image = from_text("image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf a16", false, GFX9);
        assert_eq!(image.uses, vec![v(4, 2), s(8, 8), s(16, 4)]);
        let mfma = from_text("v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1", false, GFX9);
        assert_eq!(mfma.defs, vec![a(0, 16)]);
        let nsa = from_text("image_sample v[0:3], [v4, v6], s[8:15], s[16:19] dmask:0xf", false, GFX11);
        assert_eq!(nsa.uses, vec![v(4, 1), v(6, 1), s(8, 8), s(16, 4)]);
        let exp = from_text("exp mrt0 v0, v1, off, off done vm", false, GFX9);
        assert_eq!(exp, Access { defs: vec![], uses: vec![v(0, 1), v(1, 1)] });
    }

    #[test]
    fn atomics_write_only_when_they_return() {
        let no_return = from_text("global_atomic_add v[0:1], v2, off", false, GFX9);
        assert_eq!(no_return.defs, vec![]);
        let returns = from_text("global_atomic_add v3, v[0:1], v2, off glc", false, GFX9);
        assert_eq!(returns.defs, vec![v(3, 1)]);
    }

    #[test]
    fn implicit_vcc_and_branch_targets() {
        let branch = from_text("s_cbranch_vccz 12", true, GFX11);
        assert_eq!(branch, Access { defs: vec![], uses: vec![s(106, 1)] });
        let call = from_text("s_swappc_b64 s[30:31], s[4:5]", false, GFX9);
        assert_eq!(call, Access { defs: vec![s(30, 2)], uses: vec![s(4, 2)] });
    }

    #[test]
    fn vopd_halves() {
        let dual = from_text("v_dual_mov_b32 v0, v1 :: v_dual_add_f32 v2, v3, v4", false, GFX11);
        assert_eq!(dual, Access { defs: vec![v(0, 1), v(2, 1)], uses: vec![v(1, 1), v(3, 1), v(4, 1)] });
    }

    /// The sets the decoder's operands give for `bytes` (as llvm-mc 22 encodes the text the
    /// decoder prints, checked too).
    fn decoded(isa: Isa, wave64: bool, bytes: &[u8], text: &str) -> Access {
        let decoded = crate::disasm::decode(isa, bytes, 0).expect(text);
        assert_eq!(decoded.text, text);
        let registers = decoded.registers.expect("the decoder hands over its operands");
        from_operands(&registers, Mode { isa, wave64 })
    }

    #[test]
    fn roles_come_from_the_decoders_fields() {
        let g = Isa::Gfx90a;
        let carry = decoded(g, true, &[0x02, 0x07, 0x02, 0x38], "v_addc_co_u32_e32 v1, vcc, v2, v3, vcc");
        assert_eq!(carry, Access { defs: vec![v(1, 1), s(106, 2)], uses: vec![v(2, 1), v(3, 1), s(106, 2)] });
        let fmac = decoded(g, true, &[0x01, 0x05, 0x00, 0x76], "v_fmac_f32_e32 v0, v1, v2");
        assert_eq!(fmac, Access { defs: vec![v(0, 1)], uses: vec![v(0, 1), v(1, 1), v(2, 1)] });
        let swap = decoded(g, true, &[0x02, 0xa3, 0x02, 0x7e], "v_swap_b32 v1, v2");
        assert_eq!(swap, Access { defs: vec![v(1, 1), v(2, 1)], uses: vec![v(1, 1), v(2, 1)] });
        let cmovk = decoded(g, true, &[0x10, 0x00, 0x84, 0xb0], "s_cmovk_i32 s4, 0x10");
        assert_eq!(cmovk, Access { defs: vec![s(4, 1)], uses: vec![s(4, 1)] });
        let cmpk = decoded(g, true, &[0x01, 0x00, 0x04, 0xb4], "s_cmpk_eq_u32 s4, 0x1");
        assert_eq!(cmpk, Access { defs: vec![], uses: vec![s(4, 1)] });
        let branch = decoded(g, true, &[0x01, 0x00, 0x86, 0xbf], "s_cbranch_vccz 1");
        assert_eq!(branch, Access { defs: vec![], uses: vec![s(106, 2)] });
        let mfma = decoded(
            g,
            true,
            &[0x00, 0x80, 0xc1, 0xd3, 0x00, 0x03, 0x02, 0x04],
            "v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15]",
        );
        assert_eq!(mfma, Access { defs: vec![a(0, 16)], uses: vec![v(0, 1), v(1, 1), a(0, 16)] });
    }

    #[test]
    fn memory_roles_come_from_the_decoders_fields() {
        let g = Isa::Gfx90a;
        let load = decoded(g, true, &[0x02, 0, 0x0a, 0xc0, 0, 0, 0, 0], "s_load_dwordx4 s[0:3], s[4:5], 0x0");
        assert_eq!(load, Access { defs: vec![s(0, 4)], uses: vec![s(4, 2)] });
        let store = decoded(g, true, &[0x42, 0, 0x42, 0xc0, 0, 0, 0, 0], "s_store_dword s1, s[4:5], 0x0");
        assert_eq!(store, Access { defs: vec![], uses: vec![s(1, 1), s(4, 2)] });
        let ds = decoded(g, true, &[0, 0, 0x6c, 0xd8, 0x02, 0, 0, 0x01], "ds_read_b32 v1, v2");
        assert_eq!(ds, Access { defs: vec![v(1, 1)], uses: vec![v(2, 1)] });
        // A buffer atomic returns into the data registers it reads.
        let buffer = decoded(
            g,
            true,
            &[0x00, 0x50, 0x08, 0xe1, 0x02, 0x01, 0x00, 0x80],
            "buffer_atomic_add v1, v2, s[0:3], 0 offen glc",
        );
        assert_eq!(buffer, Access { defs: vec![v(1, 1)], uses: vec![v(1, 1), v(2, 1), s(0, 4)] });
        // A global atomic returns into a VDST field of its own.
        let global = decoded(
            g,
            true,
            &[0x00, 0x80, 0x09, 0xdd, 0x00, 0x02, 0x7f, 0x03],
            "global_atomic_add v3, v[0:1], v2, off glc",
        );
        assert_eq!(global, Access { defs: vec![v(3, 1)], uses: vec![v(0, 2), v(2, 1)] });
    }

    #[test]
    fn gfx11_halves_vopd_and_cmpx() {
        let g = Isa::Gfx1100;
        let half = decoded(g, false, &[0x02, 0x07, 0x02, 0x65], "v_add_f16_e32 v1.h, v2.l, v3.l");
        assert_eq!(half, Access { defs: vec![v(1, 1)], uses: vec![v(1, 1), v(2, 1), v(3, 1)] });
        let dual = decoded(
            g,
            false,
            &[0x01, 0x05, 0x50, 0xca, 0x04, 0x01, 0x02, 0x00],
            "v_dual_cndmask_b32 v0, v1, v2 :: v_dual_mov_b32 v3, v4",
        );
        assert_eq!(dual, Access { defs: vec![v(0, 1), v(3, 1)], uses: vec![v(1, 1), v(2, 1), v(4, 1), s(106, 1)] });
        let cmpx = decoded(g, false, &[0x7e, 0x00, 0xca, 0xd4, 0x00, 0x02, 0x02, 0x00], "v_cmpx_eq_u32_e64 s0, v1");
        assert_eq!(cmpx, Access { defs: vec![], uses: vec![s(0, 1), v(1, 1)] });
    }
}
