//! The disassembler worker's work, free of the browser: a code object's listing
//! ([`offload::disasm::Listing`]) made into what the Code view draws, a function's control flow
//! and register pressure ([`offload::disasm::flow`]), and a PTX module split by function. Only the disassembler worker (`bin/disasm.rs`) calls this, so the disassembler's
//! code is in its binary alone.

use crate::wire::code::{
    CodeFlow, CodeFunction, CodeLabel, CodeLine, CodeListing, CodeTarget, FlowBlock, FlowEdge, FlowLoop, PtxFunction,
    PtxText,
};
use offload::disasm::flow::{self, Allocation, File, Flow};
use offload::disasm::{Class, Line, LineKind, Listing};
use std::ops::Range;

/// A code object's listing as the worker keeps it, to analyse its functions when asked.
pub struct Analysable {
    listing: Listing,
    functions: Vec<(String, u64, Range<usize>)>,
    allocations: Vec<Allocation>,
}

/// Disassembles the code object `bytes`, which starts at `file_offset` of its byte space: what
/// the view draws, and what the worker keeps to answer for its functions' flow.
pub fn code_listing(bytes: &[u8], file_offset: u64) -> Result<(CodeListing, Analysable), String> {
    let listing = Listing::of_code_object(bytes).map_err(|e| e.to_string())?;
    let lines: Vec<CodeLine> = listing.lines.iter().map(|line| code_line(&listing, line, file_offset)).collect();
    let labels = listing
        .symbols
        .iter()
        .map(|s| CodeLabel {
            name: s.name.clone(),
            address: s.address,
            line: listing.lines.partition_point(|l| l.address < s.address) as u32,
        })
        .collect();
    let mut functions = flow::functions(&listing);
    functions.retain(|(_, _, lines)| !lines.is_empty());
    functions.sort_by_key(|(_, _, lines)| lines.start);
    let shown = functions
        .iter()
        .map(|(name, _, lines)| CodeFunction { name: name.clone(), first: lines.start as u32, end: lines.end as u32 })
        .collect();
    let allocations = flow::budget::allocations(bytes, &listing.processor, listing.isa);
    let code = CodeListing { id: 0, processor: listing.processor.clone(), labels, lines, functions: shown };
    Ok((code, Analysable { listing, functions, allocations }))
}

/// The control flow and pressure of function `function` (an index in
/// [`CodeListing::functions`]), beside what its kernel is allocated, as `offload disasm --cfg
/// --pressure` computes them.
pub fn code_flow(held: &Analysable, function: usize) -> Option<CodeFlow> {
    let (name, _, lines) = held.functions.get(function)?;
    let allocation = held.allocations.iter().find(|a| &a.kernel == name);
    let wave64 = allocation.is_none_or(|a| a.wave_size != 32);
    let flow = flow::analyze(&held.listing, name, lines.clone(), wave64);
    Some(flow_of(&held.listing, &flow, allocation))
}

fn flow_of(listing: &Listing, flow: &Flow, allocation: Option<&Allocation>) -> CodeFlow {
    let start = flow.lines.start as u32;
    let blocks = flow
        .blocks
        .iter()
        .enumerate()
        .map(|(b, block)| FlowBlock {
            first: start + block.first as u32,
            end: start + block.end as u32,
            address: block.address,
            end_address: block.end_address,
            exit: block.exit,
            successors: block
                .successors
                .iter()
                .map(|e| FlowEdge { kind: e.kind, to: e.to.map(|t| t as u32), address: e.address })
                .collect(),
            reachable: block.reachable,
            loop_depth: flow.loop_depth(b).min(usize::from(u16::MAX)) as u16,
            loop_header: flow.loop_of(b).map(|l| l.header as u32),
        })
        .collect();
    let loops = flow
        .loops
        .iter()
        .map(|l| FlowLoop {
            header: l.header as u32,
            latches: l.latches.iter().map(|&b| b as u32).collect(),
            blocks: l.body.len() as u32,
            depth: l.depth,
        })
        .collect();
    CodeFlow {
        name: flow.name.clone(),
        first: start,
        end: flow.lines.end as u32,
        blocks,
        loops,
        irreducible: flow.irreducible as u32,
        indirect: flow.has_indirect,
        vgprs: flow.pressure.iter().map(|p| p.vgprs).collect(),
        agprs: flow.pressure.iter().map(|p| p.agprs).collect(),
        sgprs: flow.pressure.iter().map(|p| p.sgprs).collect(),
        peaks: [File::Vgpr, File::Agpr, File::Sgpr].map(|f| flow.peak(f).line as u32),
        summary: flow.summary(listing, allocation),
        kernel: allocation.is_some(),
        allocated: allocation.map_or([None; 3], |a| [a.vgprs, a.agprs, a.sgprs]),
    }
}

fn code_line(listing: &Listing, line: &Line, file_offset: u64) -> CodeLine {
    CodeLine {
        address: line.address,
        offset: file_offset.saturating_add(line.file_offset),
        size: u32::try_from(line.size).unwrap_or(u32::MAX),
        text: line.text.clone(),
        words: listing.words(line),
        class: line.class.and_then(class_index),
        target: line.target.map(|address| CodeTarget {
            address,
            line: line_starting_at(listing, address),
            label: listing.label_of(address),
        }),
        zeros: line.kind == LineKind::Zeros,
    }
}

fn class_index(class: Class) -> Option<u8> {
    Class::ALL.iter().position(|&c| c == class).map(|i| i as u8)
}

fn line_starting_at(listing: &Listing, address: u64) -> Option<u32> {
    let at = listing.lines.partition_point(|l| l.address < address);
    listing.lines.get(at).filter(|l| l.address == address).map(|_| at as u32)
}

/// A PTX module's lines, and the line of each `.entry` (kernel) and `.func` (device function).
pub fn ptx_text(bytes: &[u8]) -> PtxText {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\0');
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let functions = lines.iter().enumerate().filter_map(|(i, l)| ptx_function(l, i as u32)).collect();
    PtxText { lines, functions }
}

/// The function a PTX line declares: `.visible .entry _Z3fooPf(` → `_Z3fooPf`.
fn ptx_function(line: &str, index: u32) -> Option<PtxFunction> {
    let line = line.split("//").next().unwrap_or_default();
    let mut words = line.split_whitespace().skip_while(|w| !matches!(*w, ".entry" | ".func"));
    let directive = words.next()?.trim_start_matches('.');
    // A `.func` may declare its return value first: `.func (.param .b32 r) name(`.
    let rest: String = words.collect::<Vec<_>>().join(" ");
    let rest = match rest.strip_prefix('(') {
        Some(returns) => returns.split_once(')').map_or("", |(_, after)| after).trim_start(),
        None => rest.as_str(),
    };
    let name: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '(' && *c != ';').collect();
    (!name.is_empty()).then(|| PtxFunction { name, directive: directive.into(), line: index })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::code::RegFile;

    #[test]
    fn ptx_is_split_by_entry_and_func() {
        let ptx = b".version 8.0\n.visible .entry _Z3fooPf(\n\t.param .u64 p\n)\n{\n}\n.func (.param .b32 r) helper(\n.param .b32 x)\n{\n}\n// .entry in a comment\n\0";
        let text = ptx_text(ptx);
        assert_eq!(text.lines.len(), 11);
        let names: Vec<(&str, &str, u32)> =
            text.functions.iter().map(|f| (f.name.as_str(), f.directive.as_str(), f.line)).collect();
        assert_eq!(names, [("_Z3fooPf", "entry", 1), ("helper", "func", 6)]);
    }

    #[test]
    fn a_code_object_is_listed_with_its_labels_and_where_its_bytes_are() {
        let co = include_bytes!("../../../tests/images/hip_kernels_gfx90a.co");
        let (listing, _) = code_listing(co, 0x1000).unwrap();
        assert_eq!(listing.processor, "gfx90a");
        let labels: Vec<(&str, u64)> = listing.labels.iter().map(|l| (l.name.as_str(), l.address)).collect();
        // As llvm-objdump -d prints them.
        assert_eq!(
            labels,
            [
                ("_Z10reduce_ldsPKiPi", 0x1e00),
                ("_Z13private_arrayPKiPii", 0x2600),
                ("_Z5spillPKfPf", 0x2b00),
                ("_Z3fibi", 0x3e68),
                ("_Z9recursivePi", 0x4000)
            ]
        );
        for label in &listing.labels {
            assert_eq!(listing.lines[label.line as usize].address, label.address);
        }
        // .text is at 0xe00 in the code object (its address is 0x1e00), the code object at 0x1000.
        let first = &listing.lines[0];
        assert_eq!((first.address, first.offset), (0x1e00, 0x1e00));
        assert_eq!(first.words.split(' ').count() * 4, first.size as usize);
    }

    #[test]
    fn a_listing_carries_each_functions_blocks_loops_and_pressure() {
        // Assembled with a known loop (tests/disasm/flow/loop_gfx900.s): 3 blocks, the middle
        // one a loop on itself, the VGPR peak (4) at `v_add_u32_e32 v5, v4, v1` inside it.
        let co = include_bytes!("../../../tests/disasm/flow/loop_gfx900.co");
        let (listing, held) = code_listing(co, 0).unwrap();
        assert_eq!(listing.functions.len(), 1);
        let flow = code_flow(&held, 0).unwrap();
        assert!(code_flow(&held, 1).is_none());
        assert_eq!((flow.name.as_str(), flow.kernel), ("loop_kernel", true));
        let lines = (flow.end - flow.first) as usize;
        assert!(flow.vgprs.len() == lines && flow.agprs.len() == lines && flow.sgprs.len() == lines);
        // The blocks tile the function's lines.
        assert_eq!(flow.blocks.len(), 3);
        assert_eq!((flow.blocks[0].first, flow.blocks[2].end), (flow.first, flow.end));
        assert!(flow.blocks.windows(2).all(|w| w[0].end == w[1].first));
        let loop_ = &flow.loops[..];
        assert_eq!(loop_.len(), 1);
        assert_eq!((loop_[0].header, loop_[0].latches.as_slice(), loop_[0].blocks), (1, &[1][..], 1));
        assert_eq!((flow.blocks[1].loop_depth, flow.blocks[1].loop_header), (1, Some(1)));
        assert_eq!((flow.blocks[0].loop_depth, flow.blocks[0].loop_header), (0, None));
        let (line, count) = flow.peak(RegFile::Vgpr);
        assert_eq!((listing.lines[line].text.as_str(), count), ("v_add_u32_e32 v5, v4, v1", 4));
        assert_eq!(flow.pressure_at(line).map(|p| p[0]), Some(4));
        assert_eq!(flow.pressure_at(flow.end as usize), None);
        assert_eq!(flow.block_of(line), Some(1));
        let header = flow.blocks[1].address;
        let at = listing.lines[line].address;
        assert!(flow.summary.starts_with(&format!("peak 4 VGPRs at {at:#x}, inside the loop at {header:#x};")));
    }

    #[test]
    fn every_function_of_a_compiled_code_object_has_its_flow() {
        let co = include_bytes!("../../../tests/images/hip_kernels_gfx90a.co");
        let (listing, held) = code_listing(co, 0).unwrap();
        let names: Vec<&str> = listing.functions.iter().map(|f| f.name.as_str()).collect();
        let labels: Vec<&str> = listing.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, labels);
        for (f, function) in listing.functions.iter().enumerate() {
            let flow = code_flow(&held, f).unwrap();
            assert_eq!(
                (flow.name.as_str(), flow.first, flow.end),
                (function.name.as_str(), function.first, function.end)
            );
            assert_eq!(listing.function_of_line(flow.first as usize), Some(f));
            let (peak, _) = flow.peak(RegFile::Vgpr);
            assert!(flow.holds(peak), "{}: its peak is one of its lines", flow.name);
        }
    }

    #[test]
    fn what_is_not_a_code_object_is_refused_with_a_reason() {
        assert!(code_listing(b"not an ELF file", 0).is_err());
    }
}
