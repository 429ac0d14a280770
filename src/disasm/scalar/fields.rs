//! The named forms of the 16-bit immediate of SOPP and SOPK, printed as llvm-objdump 22 prints
//! them (the rules were read from llvm-mc's answers over the whole 16-bit space).
//!
//! - `s_waitcnt`: counters by generation (bit ranges below); a counter at its maximum is left
//!   out, and when all are, all are printed.
//! - `s_delay_alu`: `instid0` [3:0], `instskip` [6:4], `instid1` [10:7]; zero parts are left out.
//! - `s_waitcnt_depctr` / `s_wait_alu`: `va_vdst` [15:12], `va_sdst` [11:9], `va_ssrc` [8],
//!   `hold_cnt` [7], `vm_vsrc` [4:2], `va_vcc` [1], `sa_sdst` [0]; bits 5–6 set print hex.
//! - `hwreg(id, offset, size)`: id [5:0], offset [10:6], size − 1 [15:11].
//! - `gpr_idx(...)`: the four enable bits [3:0] of `s_set_gpr_idx_mode`/`_on`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::super::Generation;

/// A counter of `s_waitcnt`: its name and its bit ranges (low bit, width), low range first.
struct Counter {
    name: &'static str,
    parts: &'static [(u32, u32)],
}

const GFX8_COUNTERS: [Counter; 3] = [
    Counter { name: "vmcnt", parts: &[(0, 4)] },
    Counter { name: "expcnt", parts: &[(4, 3)] },
    Counter { name: "lgkmcnt", parts: &[(8, 4)] },
];
const GFX9_COUNTERS: [Counter; 3] = [
    Counter { name: "vmcnt", parts: &[(0, 4), (14, 2)] },
    Counter { name: "expcnt", parts: &[(4, 3)] },
    Counter { name: "lgkmcnt", parts: &[(8, 4)] },
];
const GFX10_COUNTERS: [Counter; 3] = [
    Counter { name: "vmcnt", parts: &[(0, 4), (14, 2)] },
    Counter { name: "expcnt", parts: &[(4, 3)] },
    Counter { name: "lgkmcnt", parts: &[(8, 6)] },
];
const GFX11_COUNTERS: [Counter; 3] = [
    Counter { name: "vmcnt", parts: &[(10, 6)] },
    Counter { name: "expcnt", parts: &[(0, 3)] },
    Counter { name: "lgkmcnt", parts: &[(4, 6)] },
];

fn bits(value: u32, low: u32, width: u32) -> u32 {
    (value >> low) & ((1 << width) - 1)
}

/// The counter's value and its maximum (all its bits set).
fn counter_value(counter: &Counter, imm: u32) -> (u32, u32) {
    let (mut value, mut max, mut shift) = (0, 0, 0);
    for &(low, width) in counter.parts {
        value |= bits(imm, low, width) << shift;
        max |= ((1 << width) - 1) << shift;
        shift += width;
    }
    (value, max)
}

/// `vmcnt(0) expcnt(0) lgkmcnt(0)`.
pub(super) fn waitcnt(generation: Generation, imm: u32) -> String {
    let counters = match generation {
        Generation::Gfx8 => &GFX8_COUNTERS,
        Generation::Gfx9 => &GFX9_COUNTERS,
        Generation::Gfx10 => &GFX10_COUNTERS,
        Generation::Gfx11 | Generation::Gfx12 => &GFX11_COUNTERS,
    };
    let values: Vec<(&str, u32, u32)> = counters
        .iter()
        .map(|c| {
            let (value, max) = counter_value(c, imm);
            (c.name, value, max)
        })
        .collect();
    let all_at_max = values.iter().all(|&(_, value, max)| value == max);
    let parts: Vec<String> = values
        .iter()
        .filter(|&&(_, value, max)| all_at_max || value != max)
        .map(|&(name, value, _)| format!("{name}({value})"))
        .collect();
    parts.join(" ")
}

const INSTID: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
const INSTSKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// `instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)`, or `0`.
pub(super) fn delay_alu(imm: u32) -> String {
    let instid = |v: u32| INSTID.get(v as usize).copied().unwrap_or("/* invalid instid value */");
    let instskip = |v: u32| INSTSKIP.get(v as usize).copied().unwrap_or("/* invalid instskip value */");
    let mut parts = Vec::new();
    let (id0, skip, id1) = (bits(imm, 0, 4), bits(imm, 4, 3), bits(imm, 7, 4));
    if id0 != 0 {
        parts.push(format!("instid0({})", instid(id0)));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", instskip(skip)));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", instid(id1)));
    }
    if parts.is_empty() {
        return String::from("0");
    }
    parts.join(" | ")
}

/// The fields of `s_waitcnt_depctr` in the order llvm prints them: name, low bit, width.
const DEPCTR: [(&str, u32, u32); 7] = [
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

/// `depctr_va_vdst(0) …`, or hex when a bit outside the fields is set. GFX10.1 has no
/// `hold_cnt` (its bit 7 is outside the fields).
pub(super) fn depctr(has_hold_cnt: bool, imm: u32) -> String {
    let outside = if has_hold_cnt { 0x60 } else { 0xe0 };
    if imm & outside != 0 {
        return format!("{imm:#x}");
    }
    let fields = DEPCTR.iter().filter(|&&(name, _, _)| has_hold_cnt || name != "depctr_hold_cnt");
    let all_at_max = fields.clone().all(|&(_, low, width)| bits(imm, low, width) == (1 << width) - 1);
    let parts: Vec<String> = fields
        .filter(|&&(_, low, width)| all_at_max || bits(imm, low, width) != (1 << width) - 1)
        .map(|&(name, low, width)| format!("{name}({})", bits(imm, low, width)))
        .collect();
    parts.join(" ")
}

/// `hwreg(HW_REG_MODE)`, `hwreg(HW_REG_MODE, 0, 1)`, `hwreg(52, 8, 3)`: `names` is the
/// family's table of register ids.
pub(super) fn hwreg(names: &[(u16, &str)], imm: u32) -> String {
    let id = bits(imm, 0, 6);
    let offset = bits(imm, 6, 5);
    let size = bits(imm, 11, 5) + 1;
    let name = match names.binary_search_by_key(&(id as u16), |&(i, _)| i) {
        Ok(at) => names.get(at).map_or_else(|| format!("{id}"), |&(_, n)| String::from(n)),
        Err(_) => format!("{id}"),
    };
    if offset == 0 && size == 32 {
        format!("hwreg({name})")
    } else {
        format!("hwreg({name}, {offset}, {size})")
    }
}

/// `gpr_idx(SRC0,DST)`, or hex beyond the four enable bits.
pub(super) fn gpr_idx(imm: u32) -> String {
    if imm > 15 {
        return format!("{imm:#x}");
    }
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let on: Vec<&str> = names.iter().enumerate().filter(|&(i, _)| imm & (1 << i) != 0).map(|(_, n)| *n).collect();
    format!("gpr_idx({})", on.join(","))
}

/// `s_version`: the code-object version names llvm-mc 22 prints, with the flag bits 13–15.
pub(super) fn version(imm: u32) -> String {
    if imm & 0x1f00 != 0 {
        return format!("{imm:#x}");
    }
    let base = imm & 0xff;
    let mut text = match base {
        0 => String::from("UC_VERSION_GFX7"),
        4 => String::from("UC_VERSION_GFX10"),
        6 => String::from("UC_VERSION_GFX11"),
        9 => String::from("UC_VERSION_GFX12"),
        _ => format!("{base}"),
    };
    let flags = [(13, "UC_VERSION_W64_BIT"), (14, "UC_VERSION_W32_BIT"), (15, "UC_VERSION_MDP_BIT")];
    for (bit, flag) in flags {
        if imm & (1 << bit) != 0 {
            // Each flag is or-ed onto what is there, in parentheses once that is an or itself.
            text = if text.contains('|') { format!("({text})|{flag}") } else { format!("{text}|{flag}") };
        }
    }
    text
}

/// A 16-bit immediate as llvm prints a plain one: decimal up to 64, hex above.
pub(super) fn small_decimal(imm: u32) -> String {
    if imm <= 64 {
        format!("{imm}")
    } else {
        format!("{imm:#x}")
    }
}

/// `sendmsg(MSG_DEALLOC_VGPRS)`, `sendmsg(2, 4, 0)`, or the bare number. `names` holds the
/// named values by the bits that select them (9:0 before GFX11, 7:0 after); a value that names
/// no message prints its fields (id, operation, stream) when they are all it has, else bare.
pub(super) fn sendmsg(generation: Generation, names: &[(u16, &str)], imm: u32) -> String {
    let selecting = if generation < Generation::Gfx11 { imm & 0x3ff } else { imm & 0xff };
    if let Ok(at) = names.binary_search_by_key(&(selecting as u16), |&(v, _)| v) {
        if let Some(&(_, text)) = names.get(at) {
            return String::from(text);
        }
    }
    match generation {
        Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx10 if imm < 0x400 && imm & 0x80 == 0 => {
            format!("sendmsg({}, {}, {})", imm & 0xf, (imm >> 4) & 7, (imm >> 8) & 3)
        }
        Generation::Gfx11 | Generation::Gfx12 if imm < 0x100 => format!("sendmsg({imm}, 0, 0)"),
        _ => format!("{imm}"),
    }
}
