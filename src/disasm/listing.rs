//! A code object's `.text`, decoded instruction by instruction, with the labels of its symbols:
//! what `llvm-objdump -d` prints for an AMDGPU code object, and what the page's Code view shows.
//!
//! Labels are the defined function and untyped symbols inside `.text`; where several share an
//! address, llvm-objdump 22 prints the one whose name sorts last, and so does this. A branch
//! target is named by the nearest label at or before it (`<kernel+0x40>`); a branch to exactly
//! an untyped symbol prints that symbol's name (the first by name) as its operand instead of the
//! offset, with no comment, as llvm-objdump's AMDGPU symbolizer does. A dword that does not
//! decode becomes `.long 0x…` and the listing goes on at the next dword.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::{decode, Class, Isa};
use crate::error::{Error, Result};
use crate::image::amdgpu::{processor_name, EF_AMDGPU_MACH};
use crate::image::elf::Elf;

const CONTEXT: &str = "AMDGPU code object";
/// `EM_AMDGPU`.
const MACHINE_AMDGPU: u16 = 224;
const STT_NOTYPE: u8 = 0;
const STT_FUNC: u8 = 2;

/// A label in the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub address: u64,
    /// `st_size`: for a kernel, how far its code goes.
    pub size: u64,
    /// `STT_NOTYPE` (a label) rather than `STT_FUNC`.
    pub untyped: bool,
}

/// One line of code: a decoded instruction, or a dword printed as `.long`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub address: u64,
    /// Offset of the first byte in the code object.
    pub file_offset: u64,
    /// 4 for `.long`; the instruction's size otherwise.
    pub size: usize,
    pub text: String,
    /// `None` for a dword that did not decode.
    pub class: Option<Class>,
    pub target: Option<u64>,
    /// The branch operand was printed as the name of the untyped symbol at `target`, so the
    /// line has no `<label>` comment.
    pub target_named: bool,
}

/// A code object's `.text`, decoded.
#[derive(Clone, Debug)]
pub struct Listing {
    pub processor: String,
    pub isa: Isa,
    /// The labels, by address.
    pub symbols: Vec<Symbol>,
    pub lines: Vec<Line>,
    /// The instruction bytes, for the words column.
    code: Vec<u8>,
    code_address: u64,
}

impl Listing {
    /// Decodes `.text` of the AMDGPU code object `elf`.
    pub fn of_code_object(data: &[u8]) -> Result<Listing> {
        let elf = Elf::parse(data)?;
        if elf.machine != MACHINE_AMDGPU {
            let found = format!("e_machine {}", elf.machine);
            return Err(Error::new(18, CONTEXT, "e_machine 224 (EM_AMDGPU)", found));
        }
        let processor = processor_name(elf.flags & EF_AMDGPU_MACH)
            .ok_or_else(|| Error::new(48, CONTEXT, "a known EF_AMDGPU_MACH", format!("e_flags {:#x}", elf.flags)))?;
        let isa = Isa::for_processor(processor).ok_or_else(|| {
            Error::new(48, CONTEXT, "a GFX9, GFX10, GFX11 or GFX12 processor", String::from(processor))
        })?;
        let text =
            elf.section(".text").ok_or_else(|| Error::new(0, CONTEXT, "a .text section", String::from("none")))?;
        let code = text.data.ok_or_else(|| {
            Error::new(
                text.offset,
                CONTEXT,
                ".text bytes inside the file",
                format!("{} bytes at {:#x}", text.size, text.offset),
            )
        })?;
        let mut symbols: Vec<Symbol> = elf
            .symbols
            .iter()
            .filter(|s| s.section == text.index && matches!(s.st_type, STT_FUNC | STT_NOTYPE))
            .filter(|s| !s.name.is_empty() && s.value >= text.addr && s.value - text.addr < text.size)
            .map(|s| Symbol {
                name: String::from(s.name),
                address: s.value,
                size: s.size,
                untyped: s.st_type == STT_NOTYPE,
            })
            .collect();
        symbols.sort_by(|a, b| a.address.cmp(&b.address).then_with(|| a.name.cmp(&b.name)));
        let mut lines = decode_all(isa, code, text.addr, text.offset);
        name_branches_to_labels(&mut lines, &symbols);
        Ok(Listing {
            processor: String::from(processor),
            isa,
            symbols,
            lines,
            code: code.to_vec(),
            code_address: text.addr,
        })
    }

    /// The dwords of `line` as llvm-objdump prints them: `C00A0002 00000000`.
    pub fn words(&self, line: &Line) -> String {
        let start = line.address.wrapping_sub(self.code_address) as usize;
        let mut out = String::new();
        for (i, word) in self.code[start..start + line.size].chunks_exact(4).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let value = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let _ = write!(out, "{value:08X}");
        }
        out
    }

    /// The label a branch to `address` is printed with: `<kernel+0x40>`.
    pub fn label_of(&self, address: u64) -> Option<String> {
        let at = self.symbols.partition_point(|s| s.address <= address);
        let symbol = self.symbols.get(at.checked_sub(1)?)?;
        Some(match address - symbol.address {
            0 => format!("<{}>", symbol.name),
            offset => format!("<{}+{offset:#x}>", symbol.name),
        })
    }

    /// The lines from `symbol` up to the next label.
    pub fn lines_of(&self, symbol: &Symbol) -> &[Line] {
        let end = self.symbols.iter().map(|s| s.address).filter(|&a| a > symbol.address).min().unwrap_or(u64::MAX);
        let from = self.lines.partition_point(|l| l.address < symbol.address);
        let to = self.lines.partition_point(|l| l.address < end);
        &self.lines[from..to]
    }

    /// One instruction line as llvm-objdump prints it (without the newline).
    pub fn objdump_line(&self, line: &Line) -> String {
        let mut out = format!("\t{:<59}// {:012X}: {}", line.text, line.address, self.words(line));
        if let Some(label) = line.target.filter(|_| !line.target_named).and_then(|t| self.label_of(t)) {
            out.push(' ');
            out.push_str(&label);
        }
        out
    }

    /// The whole listing as `llvm-objdump -d FILE` prints it after its header: the section line,
    /// then each label and its lines.
    pub fn objdump_text(&self) -> String {
        let mut out = String::from("Disassembly of section .text:\n");
        let mut next_symbol = 0;
        for line in &self.lines {
            // Of the symbols at one address only the last by name is printed (they are sorted so).
            let mut label = None;
            while let Some(symbol) = self.symbols.get(next_symbol).filter(|s| s.address <= line.address) {
                label = (symbol.address == line.address).then_some(symbol);
                next_symbol += 1;
            }
            if let Some(symbol) = label {
                let _ = write!(out, "\n{:016x} <{}>:\n", symbol.address, symbol.name);
            }
            out.push_str(&self.objdump_line(line));
            out.push('\n');
        }
        out
    }
}

/// Branches to exactly an untyped symbol print its name instead of their offset operand (the
/// last word of the text).
fn name_branches_to_labels(lines: &mut [Line], symbols: &[Symbol]) {
    for line in lines.iter_mut() {
        let Some(target) = line.target else { continue };
        let from = symbols.partition_point(|s| s.address < target);
        let named = symbols[from..].iter().take_while(|s| s.address == target).find(|s| s.untyped);
        if let (Some(symbol), Some(space)) = (named, line.text.rfind(' ')) {
            line.text.truncate(space + 1);
            line.text.push_str(&symbol.name);
            line.target_named = true;
        }
    }
}

/// Decodes `code` (loaded at `address`, at `file_offset` in the file) from start to end.
pub fn decode_all(isa: Isa, code: &[u8], address: u64, file_offset: u64) -> Vec<Line> {
    let mut lines = Vec::with_capacity(code.len() / 6);
    let mut at = 0usize;
    while at + 4 <= code.len() {
        let here = address.wrapping_add(at as u64);
        // A size that is not whole dwords or runs past the code would be a decoder bug; the word
        // is then printed as undecodable rather than trusted.
        let decoded =
            decode(isa, &code[at..], here).filter(|d| d.size >= 4 && d.size % 4 == 0 && d.size <= code.len() - at);
        let line = match decoded {
            Some(d) => Line {
                address: here,
                file_offset: file_offset + at as u64,
                size: d.size,
                text: d.text,
                class: Some(d.class),
                target: d.target,
                target_named: false,
            },
            None => {
                let word = u32::from_le_bytes([code[at], code[at + 1], code[at + 2], code[at + 3]]);
                Line {
                    address: here,
                    file_offset: file_offset + at as u64,
                    size: 4,
                    text: format!(".long {word:#010x}"),
                    class: None,
                    target: None,
                    target_named: false,
                }
            }
        };
        at += line.size;
        lines.push(line);
    }
    lines
}
