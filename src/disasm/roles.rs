//! The operand roles no generated table holds, in one place.
//!
//! The decoders give each register operand its role from the field it comes from: a scalar
//! layout's `D` (SDST), a vector form's destination and carry-out, and an SMEM load's `SDATA`
//! are written; sources, bases and offsets are read. llvm-mc's text, which the tables are learned
//! from, does not say when a destination field is read as well (a tied accumulator), or read
//! only, or when an instruction reads `vcc` without naming it. Those mnemonics are listed here,
//! checked against the ISA manuals' descriptions:
//!
//! | instructions | destination field | why |
//! |---|---|---|
//! | `s_cmpk_*`, `s_setreg_b32`, `s_waitcnt_*cnt`, `s_cbranch_i_fork`, `s_movreld_*` | read only | SOPK's `sdst` is the compared or stored value, a counter's SGPR, a fork mask; `s_movreld` writes the SGPR `m0` past it, which the flow analysis cannot name |
//! | `s_cmovk_i32`, `s_cmov_*`, `s_addk_*`, `s_mulk_i32`, `s_bitset0/1_*`, `s_fmac_*`, `s_subvector_loop_*` | read and written | conditional move, `D = D op K`, one bit set, `D += A * B`, the loop's saved mask |
//! | `v_mac_*`, `v_fmac_*`, `v_dot2c_*`, `v_dot4c_*`, `v_dot8c_*`, `v_dot2acc_*` (and their `v_dual_` halves), `v_writelane_*`, `v_smfmac_*`, `v_movreld_*`, `v_permlane*` | read and written | accumulators and tied destinations (one lane, or `vdst` as `src2`; `llvm-mc -show-inst` lists the destination again as the last source); `v_permlane16/x16` keep lanes the select skips |
//! | `v_swap_*`, `v_permlane*_swap_*` | read and written, and the source too | both operands are exchanged |
//! | `s_cbranch_vccz`, `s_cbranch_vccnz`, `v_div_fmas_*`, `v_dual_cndmask_b32` | — | read `vcc` implicitly (VOPD's `v_dual_cndmask_b32` names no `vcc` where VOP2's prints it) |
//! | `v_interp_p2_f32_e32` (VINTRP, GFX8–GFX10) | read and written | adds to the first pass's result in the destination (`llvm-mc -show-inst` lists VGPR D twice); GFX11's VINTERP `v_interp_p2_f32` takes it as a source |
//! | `ds_bvh_stack_*` | the address too is read and written | the stack address is updated in place |

use super::operands::{RegisterOperands, Role};

/// The role of a scalar (SOP) instruction's `sdst` field.
pub fn scalar_destination(mnemonic: &str) -> Role {
    let read_only = ["s_cmpk_", "s_setreg_", "s_waitcnt_", "s_cbranch_i_fork", "s_movreld_"];
    let tied = ["s_cmovk_", "s_cmov_", "s_addk_", "s_mulk_", "s_bitset", "s_fmac_", "s_subvector_loop_"];
    if read_only.iter().any(|p| mnemonic.starts_with(p)) {
        Role::Read
    } else if tied.iter().any(|p| mnemonic.starts_with(p)) {
        Role::ReadWritten
    } else {
        Role::Written
    }
}

/// Whether a vector instruction's destination is read too (`base` is the mnemonic without its
/// encoding suffix).
pub fn vector_destination_is_read(base: &str) -> bool {
    let tied = [
        "v_writelane",
        "v_smfmac",
        "v_swap",
        "v_permlane",
        "v_movreld",
        "v_dot2c_",
        "v_dot4c_",
        "v_dot8c_",
        "v_dot2acc_",
        "v_dual_dot2acc_",
    ];
    tied.iter().any(|p| base.starts_with(p)) || is_multiply_accumulate(base)
}

/// Whether `base` holds `mac_` or `fmac`: one pass over its bytes (`str::contains` sets up a
/// substring searcher per call, a visible cost when every vector instruction asks).
fn is_multiply_accumulate(base: &str) -> bool {
    let bytes = base.as_bytes();
    bytes.windows(3).enumerate().any(|(i, w)| {
        w == b"mac" && (bytes.get(i + 3) == Some(&b'_') || i.checked_sub(1).and_then(|j| bytes.get(j)) == Some(&b'f'))
    })
}

/// Whether a vector instruction exchanges its destination and source (both written).
pub fn vector_swaps(base: &str) -> bool {
    base.starts_with("v_swap") || (base.starts_with("v_permlane") && base.contains("_swap"))
}

/// Whether an instruction reads `vcc` without naming it.
pub fn reads_vcc_implicitly(mnemonic: &str) -> bool {
    ["s_cbranch_vcc", "v_div_fmas_", "v_dual_cndmask_"].iter().any(|p| mnemonic.starts_with(p))
}

/// A vector instruction's mnemonic without its encoding suffix (`_e32`, `_e64`, `_sdwa`, `_dpp`,
/// `_e64_dpp`).
pub fn base_of(mnemonic: &str) -> &str {
    for suffix in ["_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp"] {
        if let Some(base) = mnemonic.strip_suffix(suffix) {
            return base;
        }
    }
    mnemonic
}

/// Applies the vector rules above to the operands a form gave (destination first).
pub fn apply_vector(mnemonic: &str, registers: &mut RegisterOperands) {
    let base = base_of(mnemonic);
    let tied = vector_destination_is_read(base);
    let swaps = vector_swaps(base);
    let mut seen_destination = false;
    for operand in registers.as_mut_slice() {
        match operand.role {
            Role::Written if !seen_destination => {
                seen_destination = true;
                if tied {
                    operand.role = Role::ReadWritten;
                }
            }
            Role::Read if swaps => operand.role = Role::ReadWritten,
            _ => {}
        }
    }
    registers.reads_vcc |= reads_vcc_implicitly(mnemonic);
}

/// The role of a DS instruction's `ADDR` field.
pub fn ds_address(mnemonic: &str) -> Role {
    if mnemonic.starts_with("ds_bvh_stack") {
        Role::ReadWritten
    } else {
        Role::Read
    }
}

/// The role of an interpolation's destination (VINTRP and VINTERP).
pub fn interpolation_destination(mnemonic: &str) -> Role {
    if mnemonic == "v_interp_p2_f32_e32" {
        Role::ReadWritten
    } else {
        Role::Written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiply_accumulates_are_found_anywhere_in_the_name() {
        for tied in
            ["v_mac_f32", "v_fmac_f32", "v_pk_fmac_f16", "v_dual_fmac_f32", "v_fmac_legacy_f32", "v_mac_legacy_f32"]
        {
            assert!(vector_destination_is_read(tied), "{tied}");
        }
        for untied in ["v_mad_f32", "v_fma_f32", "v_max_f32", "v_mac", "v_cvt_f32_ubyte0", "v_fmamk_f32"] {
            assert!(!vector_destination_is_read(untied), "{untied}");
        }
    }
}
