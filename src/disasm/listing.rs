//! A code object's `.text`, decoded instruction by instruction, with the labels of its symbols:
//! what `llvm-objdump -d` prints for an AMDGPU code object, and what the page's Code view shows.
//!
//! Labels are the defined function and untyped symbols inside `.text`; where several share an
//! address, llvm-objdump 22 prints the one whose name sorts last, and so does this. A branch
//! target is named by the nearest label at or before it (`<kernel+0x40>`); a branch to exactly
//! an untyped symbol prints that symbol's name (the first by name) as its operand instead of the
//! offset, with no comment, as llvm-objdump's AMDGPU symbolizer does. A dword that does not
//! decode becomes `.long 0x…` and the listing goes on at the next dword.
//!
//! As llvm-objdump 22 does, the code is decoded one symbol at a time: from each distinct symbol
//! address up to the next (or the end of `.text`), with a `<.text>` label of its own for code
//! before the first symbol. An instruction that runs past the next symbol is printed whole, and
//! decoding starts again at that symbol. Unless zeros are asked for ([`Options`], `-z`), at each
//! position a run of at least 8 zero bytes up to the symbol's end is skipped, its length rounded
//! down to whole dwords, and printed as one `...` line ([`LineKind::Zeros`]). The 1–3 bytes
//! after the last whole dword of `.text` are printed as `.byte`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::{decode, Class, Isa, RegisterOperand, RegisterOperands};
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

/// One line of code: a decoded instruction, a dword printed as `.long`, or a run of zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub address: u64,
    /// Offset of the first byte in the code object.
    pub file_offset: u64,
    /// The bytes the line covers: the instruction's size; 4 for `.long` (1–3 for the `.byte`
    /// of a last partial dword); the run's length for [`LineKind::Zeros`].
    pub size: usize,
    /// The instruction as llvm-objdump prints it; `...` for a run of zeros.
    pub text: String,
    /// `None` for a dword that did not decode and for a run of zeros.
    pub class: Option<Class>,
    pub target: Option<u64>,
    /// The branch operand was printed as the name of the untyped symbol at `target`, so the
    /// line has no `<label>` comment.
    pub target_named: bool,
    pub kind: LineKind,
    /// A scalar register tuple of the instruction does not start at its alignment: llvm-objdump
    /// prints a warning after the words, which [`Listing::objdump_line`] reads again from the
    /// instruction's bytes (rare, so the line does not carry its text).
    pub misaligned: bool,
}

/// What a [`Line`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// A decoded instruction.
    Instruction,
    /// Bytes that did not decode: a dword printed as `.long 0x…`, or the last 1–3 bytes of the
    /// code as `.byte …`.
    Undecoded,
    /// `size` zero bytes llvm-objdump skips (without `-z`) and prints as one `...` line.
    Zeros,
}

impl LineKind {
    /// The kind's name in `offload disasm --json`.
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::Instruction => "instruction",
            LineKind::Undecoded => "undecoded",
            LineKind::Zeros => "zeros",
        }
    }
}

/// How a listing is made, as llvm-objdump's options say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `-z`/`--disassemble-zeroes`: decode runs of zeros like any other bytes instead of
    /// printing `...` for them.
    pub disassemble_zeroes: bool,
}

/// The text of a line for a run of zeros.
const ZEROS: &str = "...";
/// The least number of zero bytes llvm-objdump skips.
const ZEROS_SKIPPED_FROM: usize = 8;

/// A code object's `.text`, decoded.
#[derive(Clone, Debug)]
pub struct Listing {
    pub processor: String,
    pub isa: Isa,
    /// The labels, by address.
    pub symbols: Vec<Symbol>,
    pub lines: Vec<Line>,
    /// The register operands of each line, from the decoding that made it.
    registers: KeptRegisters,
    /// The instruction bytes, for the words column.
    code: Vec<u8>,
    code_address: u64,
}

/// The register operands of every line of a listing, kept flat from the decoding that made the
/// lines: the flow analysis asks for them all, and decoding each line a second time cost about
/// as much as the first decoding. A few tens of bytes a line where a [`RegisterOperands`] takes 100.
#[derive(Clone, Debug, Default)]
struct KeptRegisters {
    /// Per line: where its operands start in `items`, and its flags ([`KEPT_GIVEN`], …).
    lines: Vec<(u32, u8)>,
    items: Vec<RegisterOperand>,
}

/// The decoder gave the line's operands (no flags: a line without them).
const KEPT_GIVEN: u8 = 1;
/// [`RegisterOperands::is_complete`].
const KEPT_COMPLETE: u8 = 2;
/// [`RegisterOperands::reads_vcc`].
const KEPT_READS_VCC: u8 = 4;

impl KeptRegisters {
    /// Adds the next line's operands (`None`: it has none to give).
    fn push(&mut self, registers: Option<&RegisterOperands>) {
        let start = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        let Some(registers) = registers else {
            self.lines.push((start, 0));
            return;
        };
        let flags = KEPT_GIVEN
            | if registers.is_complete() { KEPT_COMPLETE } else { 0 }
            | if registers.reads_vcc { KEPT_READS_VCC } else { 0 };
        self.lines.push((start, flags));
        self.items.extend_from_slice(registers.as_slice());
    }

    /// The operands of line `index`, as they were pushed.
    fn get(&self, index: usize) -> Option<RegisterOperands> {
        let &(start, flags) = self.lines.get(index)?;
        if flags & KEPT_GIVEN == 0 {
            return None;
        }
        let end = self.lines.get(index + 1).map_or(self.items.len(), |&(next, _)| next as usize);
        let items = self.items.get(start as usize..end)?;
        Some(RegisterOperands::from_kept(items, flags & KEPT_COMPLETE != 0, flags & KEPT_READS_VCC != 0))
    }
}

/// The `.text` of a code object and what a listing of it needs, borrowed from the file.
struct Text<'a> {
    processor: &'static str,
    isa: Isa,
    symbols: Vec<Symbol>,
    code: &'a [u8],
    address: u64,
    file_offset: u64,
}

impl<'a> Text<'a> {
    fn of_code_object(data: &'a [u8]) -> Result<Text<'a>> {
        let elf = Elf::parse(data)?;
        if elf.machine != MACHINE_AMDGPU {
            let found = format!("e_machine {}", elf.machine);
            return Err(Error::new(18, CONTEXT, "e_machine 224 (EM_AMDGPU)", found));
        }
        let processor = processor_name(elf.flags & EF_AMDGPU_MACH)
            .ok_or_else(|| Error::new(48, CONTEXT, "a known EF_AMDGPU_MACH", format!("e_flags {:#x}", elf.flags)))?;
        let isa = Isa::for_processor(processor).ok_or_else(|| {
            Error::new(48, CONTEXT, "a GFX8, GFX9, GFX10, GFX11 or GFX12 processor", String::from(processor))
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
        if symbols.first().is_none_or(|s| s.address != text.addr) && !code.is_empty() {
            // llvm-objdump's stand-in for a section that has no symbol at its start.
            let dummy = Symbol { name: String::from(".text"), address: text.addr, size: 0, untyped: false };
            symbols.insert(0, dummy);
        }
        Ok(Text { processor, isa, symbols, code, address: text.addr, file_offset: text.offset })
    }

    /// The line at byte `at` of the code; its register operands go to `kept` when given.
    fn line_at(&self, at: usize, kept: Option<&mut KeptRegisters>) -> Line {
        let mut line = decode_line(self.isa, self.code, at, self.address, self.file_offset, kept);
        name_branch_to_label(&mut line, &self.symbols);
        line
    }

    /// Every line, in order: each symbol's code from its address to the next symbol's.
    fn lines(&self, options: Options) -> TextLines<'_, 'a> {
        TextLines { text: self, options, symbol: 0, at: 0, end: 0 }
    }
}

/// The lines of a [`Text`], decoded as they are asked for.
struct TextLines<'t, 'a> {
    text: &'t Text<'a>,
    options: Options,
    /// The next symbol whose code starts a region.
    symbol: usize,
    /// Where the next line starts and where the current region ends, as offsets in the code.
    at: usize,
    end: usize,
}

impl Iterator for TextLines<'_, '_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        self.next_keeping(None)
    }
}

impl TextLines<'_, '_> {
    /// The next line; its register operands (or that it has none) go to `kept` when given.
    fn next_keeping(&mut self, mut kept: Option<&mut KeptRegisters>) -> Option<Line> {
        let text = self.text;
        while self.at >= self.end {
            // The next region: from the next distinct symbol address to the one after it.
            let symbols = &text.symbols;
            let start = symbols.get(self.symbol)?.address;
            while symbols.get(self.symbol).is_some_and(|s| s.address == start) {
                self.symbol += 1;
            }
            let end = symbols.get(self.symbol).map_or(u64::MAX, |s| s.address);
            self.at = (start - text.address) as usize;
            self.end = end.saturating_sub(text.address).min(text.code.len() as u64) as usize;
        }
        let at = self.at;
        let here = text.address.wrapping_add(at as u64);
        let file_offset = text.file_offset.wrapping_add(at as u64);
        let blank = |size, text: String, kind| Line {
            address: here,
            file_offset,
            size,
            text,
            class: None,
            target: None,
            target_named: false,
            kind,
            misaligned: false,
        };
        let line = if let Some(run) =
            (!self.options.disassemble_zeroes).then(|| zero_run(&text.code[at..self.end])).flatten()
        {
            if let Some(k) = kept.as_deref_mut() {
                k.push(None);
            }
            blank(run, String::from(ZEROS), LineKind::Zeros)
        } else if text.code.len() - at < 4 {
            if let Some(k) = kept.as_deref_mut() {
                k.push(None);
            }
            let bytes = &text.code[at..];
            let mut listed = String::from(".byte ");
            for (i, byte) in bytes.iter().enumerate() {
                let _ = write!(listed, "{}{byte:#04x}", if i > 0 { ", " } else { "" });
            }
            blank(bytes.len(), listed, LineKind::Undecoded)
        } else {
            text.line_at(at, kept)
        };
        self.at = at + line.size;
        Some(line)
    }
}

/// How many bytes at the start of `bytes` llvm-objdump skips as zeros: at least 8 zero bytes,
/// rounded down to whole dwords, or `None`.
fn zero_run(bytes: &[u8]) -> Option<usize> {
    let zeros = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    (zeros >= ZEROS_SKIPPED_FROM).then_some(zeros & !3)
}

/// Writes the listing of the AMDGPU code object `data` as `llvm-objdump -d FILE` prints it after
/// its header, a piece at a time through `emit`, decoding as it goes: a listing of millions of
/// lines is never held whole (what `offload disasm` prints).
pub fn write_objdump(data: &[u8], emit: &mut dyn FnMut(&str)) -> Result<()> {
    write_objdump_with(data, Options::default(), emit)
}

/// [`write_objdump`] with llvm-objdump's `options`.
pub fn write_objdump_with(data: &[u8], options: Options, emit: &mut dyn FnMut(&str)) -> Result<()> {
    let text = Text::of_code_object(data)?;
    let mut out = String::with_capacity(EMITTED + 512);
    out.push_str("Disassembly of section .text:\n");
    let mut labels = Labels::new(&text.symbols);
    for line in text.lines(options) {
        let at = (line.address - text.address) as usize;
        labels.push_label_at(&mut out, line.address);
        push_objdump_line(&mut out, &line, &text.code[at..at + line.size], &text.symbols, text.isa);
        out.push('\n');
        if out.len() >= EMITTED {
            emit(&out);
            out.clear();
        }
    }
    emit(&out);
    Ok(())
}

/// How much text [`write_objdump`] gathers before handing it on.
const EMITTED: usize = 64 << 10;

/// The label lines of a listing, printed as its lines pass their addresses.
struct Labels<'s> {
    symbols: &'s [Symbol],
    next: usize,
}

impl<'s> Labels<'s> {
    fn new(symbols: &'s [Symbol]) -> Labels<'s> {
        Labels { symbols, next: 0 }
    }

    /// The label line of the symbol at `address`, if one is there. Of the symbols at one address
    /// only the last by name is printed (they are sorted so), as llvm-objdump does.
    fn push_label_at(&mut self, out: &mut String, address: u64) {
        let mut label = None;
        while let Some(symbol) = self.symbols.get(self.next).filter(|s| s.address <= address) {
            label = (symbol.address == address).then_some(symbol);
            self.next += 1;
        }
        if let Some(symbol) = label {
            out.push('\n');
            push_hex(out, symbol.address, 16, false);
            out.push_str(" <");
            out.push_str(&symbol.name);
            out.push_str(">:\n");
        }
    }
}

/// `value` as `digits` hex digits, zero-padded.
fn push_hex(out: &mut String, value: u64, digits: u32, upper: bool) {
    let table: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    // Gathered, then appended at once: every line of a listing has two or more of these.
    let mut buffer = [b'0'; 16];
    let digits = (digits as usize).min(buffer.len());
    for (i, slot) in buffer[..digits].iter_mut().enumerate() {
        let shift = 4 * (digits - 1 - i) as u32;
        *slot = table[(value.checked_shr(shift).unwrap_or(0) & 0xf) as usize];
    }
    out.push_str(core::str::from_utf8(&buffer[..digits]).unwrap_or(""));
}

/// The dwords of an instruction as llvm-objdump prints them: `C00A0002 00000000`; bytes that
/// are not a whole dword one by one (`AB CD`).
fn push_words(out: &mut String, bytes: &[u8]) {
    if bytes.len() % 4 != 0 {
        for (i, byte) in bytes.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            push_hex(out, u64::from(*byte), 2, true);
        }
        return;
    }
    for (i, word) in bytes.chunks_exact(4).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_hex(out, u64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]])), 8, true);
    }
}

/// `<kernel+0x40>`: the nearest label at or before `address`.
fn push_label_of(out: &mut String, symbols: &[Symbol], address: u64) -> bool {
    let at = symbols.partition_point(|s| s.address <= address);
    let Some(symbol) = at.checked_sub(1).and_then(|i| symbols.get(i)) else { return false };
    out.push('<');
    out.push_str(&symbol.name);
    let offset = address - symbol.address;
    if offset != 0 {
        let _ = write!(out, "+{offset:#x}");
    }
    out.push('>');
    true
}

/// Columns llvm-objdump pads an instruction's text to before its `//` comment.
const TEXT_COLUMNS: usize = 59;
/// The spaces of the widest padding, appended as one slice.
const PADDING: &str = "                                                           ";
const _: () = assert!(PADDING.len() == TEXT_COLUMNS);

/// One instruction line as llvm-objdump prints it (without the newline); `bytes` are its own.
fn push_objdump_line(out: &mut String, line: &Line, bytes: &[u8], symbols: &[Symbol], isa: Isa) {
    if line.kind == LineKind::Zeros {
        out.push_str("\t\t...");
        return;
    }
    out.push('\t');
    out.push_str(&line.text);
    let columns = line.text.chars().count();
    out.push_str(PADDING.get(..TEXT_COLUMNS.saturating_sub(columns)).unwrap_or(""));
    out.push_str("// ");
    push_hex(out, line.address, 12, true);
    out.push_str(": ");
    push_words(out, bytes);
    if let Some(target) = line.target.filter(|_| !line.target_named) {
        let mark = out.len();
        out.push(' ');
        if !push_label_of(out, symbols, target) {
            out.truncate(mark);
        }
    }
    if line.misaligned {
        push_misaligned_warnings(out, isa, line.address, bytes);
    }
}

/// llvm-objdump's warnings after the words of an instruction that names a scalar tuple from a
/// register off its alignment (` ; Warning: SGPR_64: scalar reg isn't aligned 5`), read from the
/// instruction's bytes decoded again.
fn push_misaligned_warnings(out: &mut String, isa: Isa, address: u64, bytes: &[u8]) {
    let Some(misaligned) = decode(isa, bytes, address).and_then(|d| d.registers).map(|r| r.misaligned) else {
        return;
    };
    if !misaligned.is_empty() {
        out.push_str(" ; ");
        misaligned.push_warnings(out);
    }
}

impl Listing {
    /// Decodes `.text` of the AMDGPU code object `data` as `llvm-objdump -d` does (runs of
    /// zeros skipped).
    pub fn of_code_object(data: &[u8]) -> Result<Listing> {
        Listing::of_code_object_with(data, Options::default())
    }

    /// Decodes `.text` of the AMDGPU code object `data` with llvm-objdump's `options`.
    pub fn of_code_object_with(data: &[u8], options: Options) -> Result<Listing> {
        let text = Text::of_code_object(data)?;
        let mut lines = Vec::with_capacity(text.code.len() / 6);
        let mut registers = KeptRegisters::default();
        registers.lines.reserve(lines.capacity());
        let mut decoding = text.lines(options);
        while let Some(line) = decoding.next_keeping(Some(&mut registers)) {
            lines.push(line);
        }
        Ok(Listing {
            processor: String::from(text.processor),
            isa: text.isa,
            code: text.code.to_vec(),
            code_address: text.address,
            symbols: text.symbols,
            lines,
            registers,
        })
    }

    /// The bytes of `line`.
    fn bytes_of(&self, line: &Line) -> &[u8] {
        let start = line.address.wrapping_sub(self.code_address) as usize;
        self.code.get(start..start.saturating_add(line.size)).unwrap_or(&[])
    }

    /// The register operands of instruction `line` and what it does with each, as its decoding
    /// gave them (kept beside the lines, see [`KeptRegisters`]; a line from elsewhere is decoded
    /// again from its bytes); `None` for other lines and for the encodings that do not give them.
    pub fn registers(&self, line: &Line) -> Option<RegisterOperands> {
        if line.kind != LineKind::Instruction {
            return None;
        }
        // The store follows the lines as decoded; lines changed since are decoded again.
        let index = self.lines.partition_point(|l| l.address < line.address);
        let kept = self.registers.lines.len() == self.lines.len();
        // The store does not keep the tuples off their alignment (rare): such a line is decoded again.
        if kept
            && !line.misaligned
            && self.lines.get(index).is_some_and(|l| l.address == line.address && l.size == line.size)
        {
            return self.registers.get(index);
        }
        decode(self.isa, self.bytes_of(line), line.address)?.registers
    }

    /// The dwords of `line` as llvm-objdump prints them: `C00A0002 00000000` (empty for a run
    /// of zeros, which llvm-objdump prints without its words).
    pub fn words(&self, line: &Line) -> String {
        let mut out = String::new();
        if line.kind != LineKind::Zeros {
            push_words(&mut out, self.bytes_of(line));
        }
        out
    }

    /// The label a branch to `address` is printed with: `<kernel+0x40>`.
    pub fn label_of(&self, address: u64) -> Option<String> {
        let mut out = String::new();
        push_label_of(&mut out, &self.symbols, address).then_some(out)
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
        let mut out = String::with_capacity(96);
        push_objdump_line(&mut out, line, self.bytes_of(line), &self.symbols, self.isa);
        out
    }

    /// The whole listing as `llvm-objdump -d FILE` prints it after its header: the section line,
    /// then each label and its lines.
    pub fn objdump_text(&self) -> String {
        let mut out = String::from("Disassembly of section .text:\n");
        let mut labels = Labels::new(&self.symbols);
        for line in &self.lines {
            labels.push_label_at(&mut out, line.address);
            push_objdump_line(&mut out, line, self.bytes_of(line), &self.symbols, self.isa);
            out.push('\n');
        }
        out
    }
}

/// A branch to exactly an untyped symbol prints its name instead of its offset operand (the
/// last word of the text).
fn name_branch_to_label(line: &mut Line, symbols: &[Symbol]) {
    let Some(target) = line.target else { return };
    let from = symbols.partition_point(|s| s.address < target);
    let named = symbols[from..].iter().take_while(|s| s.address == target).find(|s| s.untyped);
    if let (Some(symbol), Some(space)) = (named, line.text.rfind(' ')) {
        line.text.truncate(space + 1);
        line.text.push_str(&symbol.name);
        line.target_named = true;
    }
}

/// Decodes `code` (loaded at `address`, at `file_offset` in the file) from start to end.
pub fn decode_all(isa: Isa, code: &[u8], address: u64, file_offset: u64) -> Vec<Line> {
    let mut lines = Vec::with_capacity(code.len() / 6);
    let mut at = 0usize;
    while at + 4 <= code.len() {
        let line = decode_line(isa, code, at, address, file_offset, None);
        at += line.size;
        lines.push(line);
    }
    lines
}

/// The line at byte `at` of `code` (at least 4 bytes are there); its register operands (or
/// that it has none) go to `kept` when given.
fn decode_line(
    isa: Isa,
    code: &[u8],
    at: usize,
    address: u64,
    file_offset: u64,
    kept: Option<&mut KeptRegisters>,
) -> Line {
    let here = address.wrapping_add(at as u64);
    let file_offset = file_offset.wrapping_add(at as u64);
    // A size that is not whole dwords or runs past the code would be a decoder bug; the word
    // is then printed as undecodable rather than trusted.
    let decoded =
        decode(isa, &code[at..], here).filter(|d| d.size >= 4 && d.size % 4 == 0 && d.size <= code.len() - at);
    if let Some(kept) = kept {
        kept.push(decoded.as_ref().and_then(|d| d.registers.as_ref()));
    }
    match decoded {
        Some(d) => Line {
            address: here,
            file_offset,
            size: d.size,
            text: d.text,
            class: Some(d.class),
            target: d.target,
            target_named: false,
            kind: LineKind::Instruction,
            misaligned: d.registers.is_some_and(|r| !r.misaligned.is_empty()),
        },
        None => {
            let word = u32::from_le_bytes([code[at], code[at + 1], code[at + 2], code[at + 3]]);
            Line {
                address: here,
                file_offset,
                size: 4,
                text: format!(".long {word:#010x}"),
                class: None,
                target: None,
                target_named: false,
                kind: LineKind::Undecoded,
                misaligned: false,
            }
        }
    }
}
