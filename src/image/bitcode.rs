//! LLVM bitcode: the module's producer, target triple and data layout, and its defined functions
//! (kernels marked by their calling convention), read by a small bitstream reader of our own.
//!
//! No `no_std` bitcode crate exists; the reader below decodes only what these fields need and
//! skips every other block by its length, so it costs a few kilobytes of wasm.
//!
//! # Layout
//!
//! | part | bytes | meaning |
//! |---|---|---|
//! | wrapper (optional) | `DE C0 17 0B`, then `u32` version, offset, size, CPU type | the bitcode is `size` bytes at `offset` |
//! | magic | `BC C0 DE` (`42 43 C0 DE`) | |
//! | blocks | a bit stream, read in little-endian 32-bit words from bit 0 | |
//!
//! An abbreviation id of the current width starts each item: 0 `END_BLOCK`, 1 `ENTER_SUBBLOCK`
//! (block id vbr8, new width vbr4, align to 32 bits, length in words: u32), 2 `DEFINE_ABBREV`,
//! 3 `UNABBREV_RECORD` (code vbr6, count vbr6, operands vbr6), 4+ a record in a defined
//! abbreviation (literal, fixed, vbr, array, char6 and blob operands). The top level uses width 2.
//! `BLOCKINFO` (block 0) defines abbreviations for other blocks.
//!
//! | block | record | operands | field |
//! |---|---|---|---|
//! | `IDENTIFICATION` (13) | `STRING` (1), `EPOCH` (2) | characters; epoch | `producer`, `epoch` |
//! | `MODULE` (8) | `VERSION` (1) | 2: names in the string table | `module_version` |
//! | `MODULE` | `TRIPLE` (2), `DATALAYOUT` (3), `SOURCE_FILENAME` (16) | characters | `triple`, `data_layout`, `source_filename` |
//! | `MODULE` | `FUNCTION` (8) | strtab offset, strtab size, type, calling convention, is-declaration, ... | a `kernel` node per definition |
//! | `STRTAB` (23) | `BLOB` (1) | the names | |
//!
//! A definition whose calling convention is `amdgpu_kernel` (91), `ptx_kernel` (71) or
//! `spir_kernel` (76) is an entry kernel; other definitions are device functions. Modules of
//! version 1 (before LLVM 5) keep names in a symbol table this reader does not decode: their
//! functions are counted, not named.

use crate::error::{Error, Result};
use crate::tree::{Node, NodeKind, Severity, Span};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub const FORMAT: &str = "LLVM bitcode";
const CONTEXT: &str = "LLVM bitcode";

/// Most operands kept from one record: names and triples are far shorter.
const MAX_OPERANDS: u64 = 1 << 20;

const BLOCKINFO: u64 = 0;
const MODULE_BLOCK: u64 = 8;
const IDENTIFICATION_BLOCK: u64 = 13;
const STRTAB_BLOCK: u64 = 23;

/// Calling conventions that mark an entry kernel, and the names LLVM prints for them.
pub fn calling_convention_name(cc: u64) -> Option<&'static str> {
    Some(match cc {
        0 => "ccc",
        8 => "fastcc",
        9 => "coldcc",
        71 => "ptx_kernel",
        72 => "ptx_device",
        75 => "spir_func",
        76 => "spir_kernel",
        91 => "amdgpu_kernel",
        _ => return None,
    })
}

fn is_kernel_cc(cc: u64) -> bool {
    matches!(cc, 71 | 76 | 91)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

struct Bits<'a> {
    data: &'a [u8],
    pos: u64,
}

impl<'a> Bits<'a> {
    fn left(&self) -> u64 {
        (self.data.len() as u64 * 8).saturating_sub(self.pos)
    }

    fn error(&self, expected: impl Into<String>, found: impl Into<String>) -> Error {
        Error::new((self.pos / 8).min(self.data.len() as u64), CONTEXT, expected, found)
    }

    fn read(&mut self, width: u32) -> Result<u64> {
        if width as u64 > self.left() {
            return Err(self.error(format!("{width} more bits"), format!("{} bits before the end", self.left())));
        }
        let mut value = 0u64;
        let mut got = 0u32;
        while got < width {
            let byte = self.data[(self.pos / 8) as usize] as u64;
            let shift = (self.pos % 8) as u32;
            let take = (8 - shift).min(width - got);
            value |= ((byte >> shift) & ((1 << take) - 1)) << got;
            got += take;
            self.pos += take as u64;
        }
        Ok(value)
    }

    fn vbr(&mut self, width: u32) -> Result<u64> {
        let high = 1u64 << (width - 1);
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let chunk = self.read(width)?;
            let bits = chunk & (high - 1);
            if shift >= 64 || (bits.checked_shl(shift).unwrap_or(0) >> shift) != bits {
                return Err(self.error("a variable-width number that fits in 64 bits", "more chunks"));
            }
            value |= bits << shift;
            if chunk & high == 0 {
                return Ok(value);
            }
            shift += width - 1;
        }
    }

    fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32) * 32;
    }

    fn skip_bits(&mut self, n: u64) -> Result<()> {
        if n > self.left() {
            return Err(
                self.error(format!("a block of {} bytes", n / 8), format!("{} bytes before the end", self.left() / 8))
            );
        }
        self.pos += n;
        Ok(())
    }
}

fn char6(v: u64) -> u8 {
    match v {
        0..=25 => b'a' + v as u8,
        26..=51 => b'A' + (v - 26) as u8,
        52..=61 => b'0' + (v - 52) as u8,
        62 => b'.',
        _ => b'_',
    }
}

struct Record {
    code: u64,
    ops: Vec<u64>,
    /// (byte offset, length) of a blob operand.
    blob: Option<(usize, usize)>,
    /// Byte range the record covers.
    start: u64,
    end: u64,
}

impl Record {
    fn text(&self) -> String {
        let bytes: Vec<u8> = self.ops.iter().map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A defined or declared function of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: Option<String>,
    pub calling_convention: u64,
    pub declaration: bool,
    /// Bytes of the module's `FUNCTION` record.
    pub record: (u64, u64),
}

/// What is read from a bitcode file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    pub producer: Option<String>,
    pub epoch: Option<u64>,
    pub version: Option<u64>,
    pub triple: Option<(String, u64, u64)>,
    pub data_layout: Option<(String, u64, u64)>,
    pub source_filename: Option<String>,
    pub functions: Vec<Function>,
    /// Function records past the limit of what is kept (4 x [`super::MAX_KERNEL_NODES`]).
    pub functions_not_kept: u64,
    /// Where bytes that are no block start, after the module (`None`: the stream ends cleanly).
    pub trailing: Option<u64>,
}

struct Reader<'a> {
    bits: Bits<'a>,
    /// Byte offset of the bit stream in the image (after a wrapper).
    base: u64,
    blockinfo: BTreeMap<u64, Vec<Vec<Op>>>,
    module: Module,
    strtab: Option<(usize, usize)>,
    /// (strtab offset, size) of each function, by index in `module.functions`.
    names: Vec<(u64, u64)>,
}

impl<'a> Reader<'a> {
    fn define_abbrev(&mut self) -> Result<Vec<Op>> {
        let n = self.bits.vbr(5)?;
        if n > self.bits.left() {
            return Err(self.bits.error("an abbreviation that fits the stream", format!("{n} operands")));
        }
        let mut ops = Vec::with_capacity(n.min(64) as usize);
        for _ in 0..n {
            if self.bits.read(1)? == 1 {
                ops.push(Op::Literal(self.bits.vbr(8)?));
                continue;
            }
            let op = match self.bits.read(3)? {
                encoding @ (1 | 2) => {
                    let width = self.bits.vbr(5)?;
                    match (encoding, width) {
                        // LLVM reads a width of 0 as the literal 0.
                        (_, 0) => Op::Literal(0),
                        (1, 1..=64) => Op::Fixed(width as u32),
                        (2, 2..=32) => Op::Vbr(width as u32),
                        _ => {
                            return Err(self
                                .bits
                                .error("a fixed width up to 64 or a VBR width from 2 to 32", format!("{width}")))
                        }
                    }
                }
                3 => Op::Array,
                4 => Op::Char6,
                5 => Op::Blob,
                e => return Err(self.bits.error("an operand encoding from 1 to 5", format!("{e}"))),
            };
            ops.push(op);
        }
        Ok(ops)
    }

    fn scalar(&mut self, op: Op) -> Result<u64> {
        match op {
            Op::Literal(v) => Ok(v),
            Op::Fixed(w) => self.bits.read(w),
            Op::Vbr(w) => self.bits.vbr(w),
            Op::Char6 => Ok(char6(self.bits.read(6)?) as u64),
            Op::Array | Op::Blob => Err(self.bits.error("a scalar array element", "an array or blob")),
        }
    }

    fn record(&mut self, id: u64, abbrevs: &[Vec<Op>], start: u64) -> Result<Record> {
        let mut values = Vec::new();
        let mut blob = None;
        if id == 3 {
            let code = self.bits.vbr(6)?;
            let n = self.bits.vbr(6)?;
            if n > self.bits.left() / 6 || n > MAX_OPERANDS {
                return Err(self.bits.error("an operand count the stream can hold", format!("{n}")));
            }
            values.push(code);
            for _ in 0..n {
                values.push(self.bits.vbr(6)?);
            }
        } else {
            let Some(abbrev) = usize::try_from(id - 4).ok().and_then(|i| abbrevs.get(i)) else {
                return Err(self
                    .bits
                    .error(format!("an abbreviation id below {}", abbrevs.len() + 4), format!("{id}")));
            };
            let mut i = 0;
            while i < abbrev.len() {
                match abbrev[i] {
                    Op::Array => {
                        let element = *abbrev
                            .get(i + 1)
                            .ok_or_else(|| self.bits.error("an array element type", "the end of the abbreviation"))?;
                        let n = self.bits.vbr(6)?;
                        if n > self.bits.left() || n > MAX_OPERANDS {
                            return Err(self.bits.error("an array length the stream can hold", format!("{n}")));
                        }
                        for _ in 0..n {
                            values.push(self.scalar(element)?);
                        }
                        i += 2;
                        continue;
                    }
                    Op::Blob => {
                        let n = self.bits.vbr(6)?;
                        self.bits.align32();
                        let at = (self.bits.pos / 8) as usize;
                        self.bits.skip_bits(n.saturating_mul(8))?;
                        self.bits.align32();
                        blob = Some((at, n as usize));
                    }
                    op => values.push(self.scalar(op)?),
                }
                i += 1;
            }
        }
        if values.is_empty() {
            return Err(self.bits.error("a record code", "an abbreviation with no operands"));
        }
        let code = values.remove(0);
        Ok(Record { code, ops: values, blob, start: self.base + start / 8, end: self.base + self.bits.pos.div_ceil(8) })
    }

    /// Reads a block whose header has been read; `width` is its abbreviation width.
    fn block(&mut self, block_id: u64, width: u32) -> Result<()> {
        if width == 0 || width > 32 {
            return Err(self.bits.error("an abbreviation width from 1 to 32", format!("{width}")));
        }
        let mut abbrevs: Vec<Vec<Op>> = self.blockinfo.get(&block_id).cloned().unwrap_or_default();
        let mut info_target: Option<u64> = None;
        loop {
            let start = self.bits.pos;
            match self.bits.read(width)? {
                0 => {
                    self.bits.align32();
                    return Ok(());
                }
                1 => {
                    let sub = self.bits.vbr(8)?;
                    let sub_width = self.bits.vbr(4)?;
                    self.bits.align32();
                    let words = self.bits.read(32)?;
                    if sub == BLOCKINFO && block_id != BLOCKINFO {
                        self.block(BLOCKINFO, sub_width as u32)?;
                    } else {
                        self.bits.skip_bits(words * 32)?;
                    }
                }
                2 => {
                    let abbrev = self.define_abbrev()?;
                    match (block_id, info_target) {
                        (BLOCKINFO, Some(target)) => self.blockinfo.entry(target).or_default().push(abbrev),
                        (BLOCKINFO, None) => {
                            return Err(self.bits.error("SETBID before an abbreviation in BLOCKINFO", "none"))
                        }
                        _ => abbrevs.push(abbrev),
                    }
                }
                id => {
                    let r = self.record(id, &abbrevs, start)?;
                    match (block_id, r.code) {
                        (BLOCKINFO, 1) => info_target = r.ops.first().copied(),
                        (IDENTIFICATION_BLOCK, 1) => self.module.producer = Some(r.text()),
                        (IDENTIFICATION_BLOCK, 2) => self.module.epoch = r.ops.first().copied(),
                        (MODULE_BLOCK, 1) => self.module.version = r.ops.first().copied(),
                        (MODULE_BLOCK, 2) => self.module.triple = Some((r.text(), r.start, r.end - r.start)),
                        (MODULE_BLOCK, 3) => self.module.data_layout = Some((r.text(), r.start, r.end - r.start)),
                        (MODULE_BLOCK, 16) => self.module.source_filename = Some(r.text()),
                        (MODULE_BLOCK, 8) => self.function(&r),
                        (STRTAB_BLOCK, 1) if self.strtab.is_none() => self.strtab = r.blob,
                        _ => {}
                    }
                }
            }
        }
    }

    fn function(&mut self, r: &Record) {
        // Version 2: [strtab offset, strtab size, type, calling convention, is-proto, ...];
        // version 1: [type, calling convention, is-proto, ...] (names elsewhere).
        let named = self.module.version.unwrap_or(0) >= 2;
        let at = if named { 2 } else { 0 };
        let (Some(&cc), Some(&proto)) = (r.ops.get(at + 1), r.ops.get(at + 2)) else { return };
        if self.module.functions.len() >= 4 * super::MAX_KERNEL_NODES {
            self.module.functions_not_kept += 1;
            return;
        }
        self.names.push(if named { (r.ops[0], r.ops[1]) } else { (u64::MAX, 0) });
        self.module.functions.push(Function {
            name: None,
            calling_convention: cc,
            declaration: proto != 0,
            record: (r.start, r.end - r.start),
        });
    }
}

/// Reads a bitcode file (with or without its wrapper header).
pub fn read(data: &[u8]) -> Result<Module> {
    let (base, stream) = if data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        let word = |i: usize| data.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
        let (Some(offset), Some(size)) = (word(8), word(12)) else {
            return Err(Error::new(0, CONTEXT, "a 20-byte wrapper header", format!("{} bytes", data.len())));
        };
        let body = crate::util::bytes::slice_at(data, offset, size, 8, "bitcode wrapper")?;
        (offset, body)
    } else {
        (0, data)
    };
    if !stream.starts_with(b"BC\xC0\xDE") {
        return Err(Error::new(
            base,
            CONTEXT,
            "the magic BC C0 DE",
            format!("{:02x?}", &stream[..stream.len().min(4)]),
        ));
    }
    let mut r = Reader {
        bits: Bits { data: stream, pos: 32 },
        base,
        blockinfo: BTreeMap::new(),
        module: Module::default(),
        strtab: None,
        names: Vec::new(),
    };
    while r.bits.left() > 0 {
        let at = r.bits.pos;
        // Zero padding after the last block (wrapped files round up to 16 bytes).
        if stream[(at / 8) as usize..].iter().all(|&b| b == 0) {
            break;
        }
        match r.bits.read(2)? {
            1 => {
                let id = r.bits.vbr(8)?;
                let width = r.bits.vbr(4)?;
                r.bits.align32();
                let words = r.bits.read(32)?;
                match id {
                    IDENTIFICATION_BLOCK | MODULE_BLOCK | STRTAB_BLOCK => r.block(id, width as u32)?,
                    _ => r.bits.skip_bits(words * 32)?,
                }
            }
            // Bytes after a whole module that are no block (the next file in a concatenation,
            // an archive's padding): everything wanted is read, and they are reported.
            _ if r.module.version.is_some() => {
                r.module.trailing = Some(base + at / 8);
                break;
            }
            other => {
                return Err(Error::new(
                    base + at / 8,
                    CONTEXT,
                    "a block at the top level",
                    format!("abbreviation id {other}"),
                ))
            }
        }
    }
    if let Some((at, len)) = r.strtab {
        let table = &stream[at..at + len];
        // Names are copied: held to what the file can hold, as many records may name one
        // long string. Functions past that keep no name.
        let mut budget = (data.len() as u64).saturating_mul(2).saturating_add(1 << 16);
        for (f, &(offset, size)) in r.module.functions.iter_mut().zip(&r.names) {
            let end = offset.checked_add(size).filter(|&e| e <= len as u64 && size <= budget);
            f.name = end.map(|e| String::from_utf8_lossy(&table[offset as usize..e as usize]).into_owned());
            budget = budget.saturating_sub(size);
        }
    }
    Ok(r.module)
}

/// Describes a bitcode image on its node (lying at `span`).
pub fn describe(data: &[u8], node: &mut Node, span: Span) {
    let m = match read(data) {
        Ok(m) => m,
        Err(e) => {
            node.diag(Severity::Error, format!("{e}"), Some(span.sub(e.offset, 1)));
            return;
        }
    };
    if let Some(p) = &m.producer {
        node.field("producer", p.as_str(), None);
    }
    if let Some(v) = m.version {
        node.field("module_version", v, None);
    }
    if let Some((t, at, size)) = &m.triple {
        node.field("triple", t.as_str(), Some(span.sub(*at, *size)));
    }
    if let Some((d, at, size)) = &m.data_layout {
        node.field("data_layout", d.as_str(), Some(span.sub(*at, *size)));
    }
    if let Some(s) = &m.source_filename {
        node.field("source_filename", s.as_str(), None);
    }
    if let Some(at) = m.trailing {
        let size = (data.len() as u64).saturating_sub(at);
        node.diag(
            Severity::Warning,
            format!("{size} bytes after the bitcode's last block are not a block"),
            Some(span.sub(at, size)),
        );
    }
    if m.functions_not_kept > 0 {
        node.diag(
            Severity::Error,
            format!(
                "{} more function records are not read: the limit is {}",
                m.functions_not_kept,
                4 * super::MAX_KERNEL_NODES
            ),
            None,
        );
    }
    let defined: Vec<&Function> = m.functions.iter().filter(|f| !f.declaration).take(super::MAX_KERNEL_NODES).collect();
    node.field("functions", defined.len() as u64, None);
    node.field("declarations", (m.functions.len() - defined.len()) as u64, None);
    let kernels = defined.iter().filter(|f| is_kernel_cc(f.calling_convention)).count();
    node.field("kernels", kernels as u64, None);
    if m.version.unwrap_or(0) < 2 && !defined.is_empty() {
        node.diag(
            Severity::Note,
            "module version 1 keeps function names in its symbol table, which is not decoded",
            None,
        );
    }
    for (i, f) in defined.iter().enumerate() {
        let entry = is_kernel_cc(f.calling_convention);
        let name = f.name.clone().unwrap_or_else(|| format!("#{i}"));
        let label = if entry { format!("kernel {name}") } else { format!("device function {name}") };
        let mut k = Node::new(NodeKind::Kernel, label, span.sub(f.record.0, f.record.1));
        k.field("name", name, None);
        k.field("entry", entry, None);
        k.field("function_kind", if entry { "entry" } else { "device function" }, None);
        let cc = calling_convention_name(f.calling_convention)
            .map_or_else(|| format!("cc {}", f.calling_convention), String::from);
        k.field("calling_convention", cc, None);
        node.children.push(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_vbr() {
        let data = [0b1010_1101, 0xff, 0x00, 0x80];
        let mut b = Bits { data: &data, pos: 0 };
        assert_eq!(b.read(3).unwrap(), 0b101);
        assert_eq!(b.read(5).unwrap(), 0b10101);
        assert_eq!(b.read(8).unwrap(), 0xff);
        // vbr6 of 0 then the rest.
        let mut b = Bits { data: &[0b0010_0011, 0b0000_0001], pos: 0 };
        // chunk 1: 100011 -> continue, low 5 bits 00011; chunk 2: 000100 -> 00100 << 5
        assert_eq!(b.vbr(6).unwrap(), 3 | (4 << 5));
        assert!(Bits { data: &[0xff; 16], pos: 0 }.vbr(6).is_err(), "more than 64 bits");
        assert!(Bits { data: &[0x01], pos: 0 }.read(9).is_err());
    }

    #[test]
    fn not_bitcode_and_truncation_are_errors() {
        assert!(read(b"BC").is_err());
        assert!(read(b"nope").is_err());
        assert!(read(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0, 0, 0, 100, 0, 0, 0, 4, 0, 0, 0]).is_err());
        // Without a module, bytes that are no block are an error at the top level.
        let e = read(b"BC\xC0\xDE\x02\x00\x00\x00\x00\x00\x00\x00").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("top level"), "{e}");
    }
}
