//! Live registers at every instruction: a backward data-flow pass over the blocks.
//!
//! A register is live between a write and the last read of that value. Per block, the
//! registers live on entry are those read before being written in it plus those live on exit
//! and not written; a block's exit set is the union of its successors' entry sets (edges out of
//! the function and indirect jumps add nothing). The sets are iterated to their fixed point,
//! then each block is walked backwards once more to give each instruction its count.
//!
//! An instruction's pressure is what it needs at once: the registers live after it, plus the
//! ones it reads and writes (a result nobody reads still takes its registers while written).

use alloc::vec;
use alloc::vec::Vec;

use super::access::{Access, File, RegSet};
use super::blocks::Block;

/// Registers of each file one instruction needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pressure {
    pub vgprs: u16,
    pub agprs: u16,
    pub sgprs: u16,
}

impl Pressure {
    fn of(set: &RegSet) -> Pressure {
        let count = |f| set.count(f) as u16;
        Pressure { vgprs: count(File::Vgpr), agprs: count(File::Agpr), sgprs: count(File::Sgpr) }
    }
}

/// The pressure at each line, given each line's register access and the blocks over them.
pub fn pressure(accesses: &[Access], blocks: &[Block]) -> Vec<Pressure> {
    let live_in = block_live_in(accesses, blocks);
    let mut out = vec![Pressure::default(); accesses.len()];
    for block in blocks {
        let mut live = live_out(block, &live_in);
        for i in (block.first..block.end).rev() {
            let access = &accesses[i];
            let mut busy = live;
            for &r in access.defs.iter().chain(&access.uses) {
                busy.insert(r);
            }
            out[i] = Pressure::of(&busy);
            step_back(&mut live, access);
        }
    }
    out
}

/// `live` after an instruction becomes `live` before it.
fn step_back(live: &mut RegSet, access: &Access) {
    for &r in &access.defs {
        live.remove(r);
    }
    for &r in &access.uses {
        live.insert(r);
    }
}

fn live_out(block: &Block, live_in: &[RegSet]) -> RegSet {
    let mut out = RegSet::default();
    for to in block.successors.iter().filter_map(|e| e.to) {
        out.union_with(&live_in[to]);
    }
    out
}

/// The registers live on entry to each block, at the fixed point.
fn block_live_in(accesses: &[Access], blocks: &[Block]) -> Vec<RegSet> {
    let mut live_in = vec![RegSet::default(); blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        // Backward problem: visiting later blocks first converges in few rounds.
        for (b, block) in blocks.iter().enumerate().rev() {
            let mut live = live_out(block, &live_in);
            for access in accesses[block.first..block.end].iter().rev() {
                step_back(&mut live, access);
            }
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
        }
    }
    live_in
}
