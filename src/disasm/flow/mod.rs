//! Control flow and register pressure of a code object's functions, from its listing: what a
//! kernel engineer reads after the instructions themselves.
//!
//! - [`access`]: the registers each instruction reads and writes, from the operands and roles
//!   the decoder hands over ([`crate::disasm::RegisterOperands`]).
//! - [`blocks`]: basic blocks and branch edges; unreachable blocks.
//! - [`loops`]: dominators, back edges and natural loops.
//! - [`liveness`]: live VGPRs, AGPRs and SGPRs at each instruction (a backward pass).
//! - [`budget`]: what the metadata or descriptor allocates, and the occupancy it gives.
//!
//! A function is a `STT_FUNC` symbol of `.text` (kernels and the functions they call), from its
//! address over its `st_size` bytes (to the next function when the size is 0). Untyped labels
//! inside it are branch targets, not functions.

pub mod access;
pub mod blocks;
pub mod budget;
pub mod liveness;
pub mod loops;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use super::{Class, LineKind, Listing};
pub use access::{File, Mode};
pub use blocks::{Block, Edge, EdgeKind, Exit};
pub use budget::{Allocation, Source};
pub use liveness::Pressure;
pub use loops::Loop;

/// One function's control flow and register pressure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    pub name: String,
    pub address: u64,
    /// Its lines in [`Listing::lines`].
    pub lines: Range<usize>,
    pub blocks: Vec<Block>,
    pub loops: Vec<Loop>,
    /// Retreating edges into cycles with no single header.
    pub irreducible: usize,
    /// Whether an indirect jump (`s_setpc_b64`) leaves a block: its targets are unknown, so a
    /// block called unreachable may be reached through it.
    pub has_indirect: bool,
    /// The pressure at each of its lines.
    pub pressure: Vec<Pressure>,
}

/// The largest count of one register file and the first line (index in the listing) where
/// it is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peak {
    pub count: u16,
    pub line: usize,
}

/// The functions of `listing`: each `STT_FUNC` symbol and its lines.
pub fn functions(listing: &Listing) -> Vec<(String, u64, Range<usize>)> {
    let functions: Vec<_> = listing.symbols.iter().filter(|s| !s.untyped).collect();
    let mut out: Vec<(String, u64, Range<usize>)> = Vec::new();
    for (i, symbol) in functions.iter().enumerate() {
        if out.iter().any(|(_, a, _)| *a == symbol.address) {
            continue; // aliases at one address: the first by name
        }
        let next = functions[i + 1..].iter().map(|s| s.address).find(|&a| a > symbol.address);
        let end = match symbol.size {
            0 => next.unwrap_or(u64::MAX),
            size => symbol.address.saturating_add(size),
        };
        let from = listing.lines.partition_point(|l| l.address < symbol.address);
        let to = listing.lines.partition_point(|l| l.address < end);
        out.push((symbol.name.clone(), symbol.address, from..to));
    }
    out
}

/// Analyses the function whose lines are `lines` of `listing`; `wave64` for the implicit
/// `vcc` width.
pub fn analyze(listing: &Listing, name: &str, lines: Range<usize>, wave64: bool) -> Flow {
    let code = &listing.lines[lines.clone()];
    let mode = Mode { isa: listing.isa, wave64 };
    let accesses: Vec<_> = code.iter().map(|l| access::of_line(listing, l, mode)).collect();
    let blocks = blocks::blocks(code);
    let (loops, irreducible) = loops::loops(&blocks);
    let pressure = liveness::pressure(&accesses, &blocks);
    Flow {
        name: String::from(name),
        address: code.first().map_or(0, |l| l.address),
        has_indirect: blocks.iter().any(|b| b.exit == Exit::Indirect),
        lines,
        blocks,
        loops,
        irreducible,
        pressure,
    }
}

impl Flow {
    /// The peak of one register file over the function.
    pub fn peak(&self, file: File) -> Peak {
        let count = |p: &Pressure| match file {
            File::Vgpr => p.vgprs,
            File::Agpr => p.agprs,
            File::Sgpr => p.sgprs,
        };
        let mut best = Peak { count: 0, line: self.lines.start };
        for (i, p) in self.pressure.iter().enumerate() {
            if count(p) > best.count {
                best = Peak { count: count(p), line: self.lines.start + i };
            }
        }
        best
    }

    /// The block holding line `line` (an index in the listing).
    pub fn block_of(&self, line: usize) -> Option<usize> {
        let at = line.checked_sub(self.lines.start)?;
        let b = self.blocks.partition_point(|b| b.first <= at);
        b.checked_sub(1).filter(|&b| at < self.blocks[b].end)
    }

    /// The innermost loop holding block `block`.
    pub fn loop_of(&self, block: usize) -> Option<&Loop> {
        self.loops.iter().filter(|l| l.body.binary_search(&block).is_ok()).max_by_key(|l| l.depth)
    }

    /// How many loops hold block `block`.
    pub fn loop_depth(&self, block: usize) -> usize {
        self.loops.iter().filter(|l| l.body.binary_search(&block).is_ok()).count()
    }

    /// The instruction mix of lines `range` (indices in the listing): count per class, in
    /// [`Class::ALL`] order, then undecoded words under `None`; classes with no line left out.
    /// A run of zeros (`...`) is neither.
    pub fn mix(listing: &Listing, range: Range<usize>) -> Vec<(Option<Class>, usize)> {
        let mut counts = [0usize; Class::ALL.len() + 1];
        for line in listing.lines[range].iter().filter(|l| l.kind != LineKind::Zeros) {
            let slot = line.class.map_or(Class::ALL.len(), |c| Class::ALL.iter().position(|&k| k == c).unwrap_or(0));
            counts[slot] += 1;
        }
        let classes = Class::ALL.iter().map(|&c| Some(c)).chain([None]);
        classes.zip(counts).filter(|&(_, n)| n > 0).collect()
    }

    /// The one-line summary: `peak 212 VGPRs at 0x1f40, inside the loop at 0x1c00; 256
    /// allocated; 2 waves per SIMD` (and the AGPR and SGPR peaks after it).
    pub fn summary(&self, listing: &Listing, allocation: Option<&Allocation>) -> String {
        let mut parts = Vec::new();
        for (file, name, allocated) in [
            (File::Vgpr, "VGPRs", allocation.and_then(|a| a.vgprs)),
            (File::Agpr, "AGPRs", allocation.and_then(|a| a.agprs)),
            (File::Sgpr, "SGPRs", allocation.and_then(|a| a.sgprs)),
        ] {
            let peak = self.peak(file);
            if file == File::Agpr && peak.count == 0 && allocated.unwrap_or(0) == 0 {
                continue;
            }
            let address = listing.lines.get(peak.line).map_or(0, |l| l.address);
            let mut part = format!("peak {} {name} at {address:#x}", peak.count);
            if let Some(l) = self.block_of(peak.line).and_then(|b| self.loop_of(b)) {
                part.push_str(&format!(", inside the loop at {:#x}", self.blocks[l.header].address));
            }
            if let Some(n) = allocated {
                part.push_str(&format!("; {n} allocated"));
            }
            parts.push(part);
        }
        let mut text = parts.join("; ");
        if let Some(waves) = allocation.and_then(|a| a.occupancy) {
            text.push_str(&format!("; {waves} wave{} per SIMD", if waves == 1 { "" } else { "s" }));
        }
        text
    }
}
