//! The disassembler worker's work, free of the browser: a code object's listing
//! ([`offload::disasm::Listing`]) made into what the Code view draws, and a PTX module split by
//! function. Only the disassembler worker (`bin/disasm.rs`) calls this, so the disassembler's
//! code is in its binary alone.

use crate::wire::code::{CodeLabel, CodeLine, CodeListing, CodeTarget, PtxFunction, PtxText};
use offload::disasm::{Class, Line, LineKind, Listing};

/// Disassembles the code object `bytes`, which starts at `file_offset` of its byte space.
pub fn code_listing(bytes: &[u8], file_offset: u64) -> Result<CodeListing, String> {
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
    Ok(CodeListing { processor: listing.processor.clone(), labels, lines })
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
        let listing = code_listing(co, 0x1000).unwrap();
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
    fn what_is_not_a_code_object_is_refused_with_a_reason() {
        assert!(code_listing(b"not an ELF file", 0).is_err());
    }
}
