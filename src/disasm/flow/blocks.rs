//! A function's basic blocks and the edges between them, from its decoded lines.
//!
//! A block starts at the function's first instruction, at every branch target inside the
//! function, and after every instruction that ends one:
//!
//! | instruction | how the block ends | successors |
//! |---|---|---|
//! | `s_branch` | jump | the target |
//! | `s_cbranch_*` (and any other instruction with a target) | conditional branch | the target, then the next instruction |
//! | `s_setpc_b64`, `s_rfe_b64`, `s_cbranch_join` | indirect jump | unknown: none recorded |
//! | `s_swappc_b64`, `s_call_b64` | call | the next instruction (where the callee returns) |
//! | `s_endpgm*` | end of the program | none |
//!
//! A target outside the function (another function, or the middle of an instruction) is an
//! edge out of the function, kept with its address. A block is unreachable when no path of
//! edges leads to it from the entry; with an indirect jump in the function that is only "not
//! reached by a direct edge".

use alloc::vec;
use alloc::vec::Vec;

use crate::disasm::Line;

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Exit {
    /// Into the next block, which is a branch target.
    Fallthrough,
    Jump,
    Conditional,
    /// `s_setpc_b64` and the like: the successor is a register's value.
    Indirect,
    /// A call: the callee returns to the next instruction.
    Call,
    /// `s_endpgm`.
    End,
    /// The function's last instruction ends nothing: execution would run past its end.
    OffEnd,
}

impl Exit {
    pub fn as_str(self) -> &'static str {
        match self {
            Exit::Fallthrough => "fallthrough",
            Exit::Jump => "jump",
            Exit::Conditional => "conditional",
            Exit::Indirect => "indirect",
            Exit::Call => "call",
            Exit::End => "end",
            Exit::OffEnd => "off end",
        }
    }
}

/// What kind of control transfer an edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EdgeKind {
    /// The branch is taken.
    Taken,
    /// The next instruction, after a conditional branch or into a branch target.
    Fallthrough,
    /// The next instruction after a call.
    CallReturn,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Taken => "taken",
            EdgeKind::Fallthrough => "fallthrough",
            EdgeKind::CallReturn => "call return",
        }
    }
}

/// One edge out of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Edge {
    pub kind: EdgeKind,
    /// The block it goes to, or `None` when it leaves the function.
    pub to: Option<usize>,
    /// The address it goes to.
    pub address: u64,
}

/// A basic block: lines `first..end` of the function.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Block {
    pub first: usize,
    pub end: usize,
    pub address: u64,
    /// The address just past its last instruction.
    pub end_address: u64,
    pub exit: Exit,
    pub successors: Vec<Edge>,
    pub predecessors: Vec<usize>,
    pub reachable: bool,
}

/// How a line changes the flow of control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transfer {
    None,
    Jump,
    Conditional,
    Indirect,
    Call,
    End,
}

fn transfer(line: &Line) -> Transfer {
    let mnemonic = line.text.split(' ').next().unwrap_or("");
    match mnemonic {
        "s_branch" => Transfer::Jump,
        "s_setpc_b64" | "s_rfe_b64" | "s_cbranch_join" | "s_rfe_restore_b64" => Transfer::Indirect,
        "s_swappc_b64" | "s_call_b64" => Transfer::Call,
        m if m.starts_with("s_endpgm") => Transfer::End,
        _ if line.target.is_some() => Transfer::Conditional,
        _ => Transfer::None,
    }
}

/// The blocks of the function whose lines are `lines` (in address order).
pub fn blocks(lines: &[Line]) -> Vec<Block> {
    if lines.is_empty() {
        return Vec::new();
    }
    let index_of = |address: u64| lines.binary_search_by_key(&address, |l| l.address).ok();
    let mut leader = vec![false; lines.len()];
    leader[0] = true;
    for (i, line) in lines.iter().enumerate() {
        if let Some(t) = line.target.and_then(index_of) {
            leader[t] = true;
        }
        if transfer(line) != Transfer::None && i + 1 < lines.len() {
            leader[i + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| leader[i]).collect();
    let block_at = |line: usize| starts.partition_point(|&s| s <= line) - 1;
    let mut out: Vec<Block> = starts
        .iter()
        .enumerate()
        .map(|(b, &first)| {
            let end = starts.get(b + 1).copied().unwrap_or(lines.len());
            let last = &lines[end - 1];
            let end_address = last.address + last.size as u64;
            let next = (end < lines.len()).then(|| Edge {
                kind: EdgeKind::Fallthrough,
                to: Some(b + 1),
                address: end_address,
            });
            let taken =
                last.target.map(|address| Edge { kind: EdgeKind::Taken, to: index_of(address).map(block_at), address });
            let (exit, successors) = match transfer(last) {
                Transfer::Jump => (Exit::Jump, taken.into_iter().collect()),
                Transfer::Conditional => (Exit::Conditional, taken.into_iter().chain(next).collect()),
                Transfer::Indirect => (Exit::Indirect, Vec::new()),
                Transfer::Call => {
                    let back = next.map(|e| Edge { kind: EdgeKind::CallReturn, ..e });
                    (Exit::Call, back.into_iter().collect())
                }
                Transfer::End => (Exit::End, Vec::new()),
                Transfer::None if next.is_some() => (Exit::Fallthrough, next.into_iter().collect()),
                Transfer::None => (Exit::OffEnd, Vec::new()),
            };
            Block {
                first,
                end,
                address: lines[first].address,
                end_address,
                exit,
                successors,
                predecessors: Vec::new(),
                reachable: false,
            }
        })
        .collect();
    for b in 0..out.len() {
        for to in out[b].successors.clone().iter().filter_map(|e| e.to) {
            if !out[to].predecessors.contains(&b) {
                out[to].predecessors.push(b);
            }
        }
    }
    mark_reachable(&mut out);
    out
}

fn mark_reachable(blocks: &mut [Block]) {
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if blocks[b].reachable {
            continue;
        }
        blocks[b].reachable = true;
        stack.extend(blocks[b].successors.iter().filter_map(|e| e.to));
    }
}
