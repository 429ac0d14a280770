//! What passes between the page and the disassembler worker (`bin/disasm.rs`), which the page
//! starts the first time its Code view opens: a device image's bytes go over, its listing comes
//! back, ready to draw (every line's text, words and class; branch targets as line numbers,
//! each function's lines). A function's control flow and register pressure ([`CodeFlow`]) is
//! asked for when the view shows it: the worker keeps the last listing it made for that, so a
//! code object of fifty kernels costs the analysis of the one looked at.
//!
//! Only plain data here: nothing of the disassembler itself, so that the page's binary, which
//! uses these types, does not carry it.

pub use offload::disasm::flow::{EdgeKind, Exit};
use serde::{Deserialize, Serialize};

/// What the page asks of the disassembler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToDisasm {
    /// Disassemble the `.text` of this AMDGPU code object; `file_offset` is where its first
    /// byte is in its byte space, so that the lines say where their bytes are there.
    CodeObject {
        request: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        file_offset: u64,
    },
    /// The control flow and pressure of function `function` (an index in
    /// [`CodeListing::functions`]) of the listing `listing` (its [`CodeListing::id`]).
    Flow { request: u32, listing: u32, function: u32 },
    /// Split this PTX text by its `.entry` and `.func` directives.
    Ptx {
        request: u32,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
}

/// What the disassembler answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FromDisasm {
    /// Its code is loaded: requests posted from now on are heard.
    Ready,
    Listing {
        request: u32,
        listing: CodeListing,
    },
    Ptx {
        request: u32,
        ptx: PtxText,
    },
    Flow {
        request: u32,
        flow: CodeFlow,
    },
    Failed {
        request: u32,
        message: String,
    },
}

/// A code object's `.text`, decoded: its labels and lines in address order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeListing {
    /// Which listing of the worker's this is, to ask for its functions' flow.
    pub id: u32,
    pub processor: String,
    pub labels: Vec<CodeLabel>,
    pub lines: Vec<CodeLine>,
    /// Its functions (kernels and the functions they call), in address order.
    pub functions: Vec<CodeFunction>,
}

/// A function of a listing: a `STT_FUNC` symbol and its lines `first..end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeFunction {
    pub name: String,
    pub first: u32,
    pub end: u32,
}

/// A label (a kernel, a function, a named place in the code) and the line it stands before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeLabel {
    pub name: String,
    pub address: u64,
    /// Index in [`CodeListing::lines`] of the first line at or after `address`.
    pub line: u32,
}

/// One instruction, a dword that did not decode (`class` is `None`), or a run of zero bytes
/// llvm-objdump prints as `...` (`zeros`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeLine {
    pub address: u64,
    /// Where its first byte is in the byte space the code object is in.
    pub offset: u64,
    /// Its bytes: the instruction's, or the whole run of zeros.
    pub size: u32,
    pub text: String,
    /// The instruction's dwords as llvm-objdump prints them (`BF8C0000 00000000`).
    pub words: String,
    /// Index in `offload::disasm::Class::ALL`.
    pub class: Option<u8>,
    /// Where a branch goes: the line there and its label (`<kernel+0x40>`).
    pub target: Option<CodeTarget>,
    /// A run of `size` zero bytes, skipped as llvm-objdump skips it (`text` is `...`, `words`
    /// empty, `class` `None`).
    pub zeros: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeTarget {
    pub address: u64,
    /// `None` when the target is not the first byte of a line (outside `.text`, or inside an
    /// instruction).
    pub line: Option<u32>,
    pub label: Option<String>,
}

/// One function's control flow and register pressure (`offload::disasm::flow`), as the Code
/// view's block outline, pressure column and strip draw them. Kept compact: the live counts
/// are one array of small integers per register file, not a struct per line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeFlow {
    pub name: String,
    /// Its lines in [`CodeListing::lines`]: `first..end`.
    pub first: u32,
    pub end: u32,
    pub blocks: Vec<FlowBlock>,
    pub loops: Vec<FlowLoop>,
    /// Retreating edges into cycles with no single header.
    pub irreducible: u32,
    /// An indirect jump leaves a block: a block called unreachable may be reached through it.
    pub indirect: bool,
    /// Live VGPRs, AGPRs and SGPRs at each of its lines.
    pub vgprs: Vec<u16>,
    pub agprs: Vec<u16>,
    pub sgprs: Vec<u16>,
    /// The first line (in the listing) where each file's peak is reached: VGPRs, AGPRs, SGPRs.
    pub peaks: [u32; 3],
    /// `peak 212 VGPRs at 0x1f40, inside the loop at 0x1c00; 256 allocated; 2 waves per SIMD`,
    /// as `offload disasm --pressure` prints it.
    pub summary: String,
    /// Whether the metadata or a descriptor names it a kernel (it has an allocation).
    pub kernel: bool,
    /// What the kernel's metadata (else its descriptor) allocates of each file: VGPRs, AGPRs,
    /// SGPRs, as the summary's "N allocated" says; `None` for a function or an unknown count.
    pub allocated: [Option<u32>; 3],
}

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBlock {
    /// Its lines in [`CodeListing::lines`]: `first..end`.
    pub first: u32,
    pub end: u32,
    pub address: u64,
    /// The address just past its last instruction.
    pub end_address: u64,
    pub exit: Exit,
    pub successors: Vec<FlowEdge>,
    pub reachable: bool,
    /// How many loops hold it.
    pub loop_depth: u16,
    /// The header block of the innermost loop holding it.
    pub loop_header: Option<u32>,
}

/// An edge out of a block: to a block of the function, or out of it (`to` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowEdge {
    pub kind: EdgeKind,
    pub to: Option<u32>,
    pub address: u64,
}

/// A natural loop: its header block, the blocks whose edges go back to it, how many blocks it
/// has and how many loops hold it (0: outermost).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowLoop {
    pub header: u32,
    pub latches: Vec<u32>,
    pub blocks: u32,
    pub depth: u32,
}

/// Which register file a pressure count is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegFile {
    Vgpr,
    Agpr,
    Sgpr,
}

impl RegFile {
    pub const ALL: [RegFile; 3] = [RegFile::Vgpr, RegFile::Agpr, RegFile::Sgpr];

    /// Its plural name: `VGPRs`.
    pub fn name(self) -> &'static str {
        match self {
            RegFile::Vgpr => "VGPRs",
            RegFile::Agpr => "AGPRs",
            RegFile::Sgpr => "SGPRs",
        }
    }
}

impl CodeFlow {
    /// Live registers of `file` at each of its lines.
    pub fn counts(&self, file: RegFile) -> &[u16] {
        match file {
            RegFile::Vgpr => &self.vgprs,
            RegFile::Agpr => &self.agprs,
            RegFile::Sgpr => &self.sgprs,
        }
    }

    /// The line (in the listing) where `file`'s peak is first reached, and the count there.
    pub fn peak(&self, file: RegFile) -> (usize, u16) {
        let line = self.peaks[file as usize] as usize;
        let count = line.checked_sub(self.first as usize).and_then(|i| self.counts(file).get(i));
        (line, count.copied().unwrap_or(0))
    }

    /// What is allocated of `file`, when known.
    pub fn allocated(&self, file: RegFile) -> Option<u32> {
        self.allocated[file as usize]
    }

    /// Whether line `line` (in the listing) is one of its lines.
    pub fn holds(&self, line: usize) -> bool {
        (self.first as usize..self.end as usize).contains(&line)
    }

    /// The block holding line `line` (in the listing).
    pub fn block_of(&self, line: usize) -> Option<usize> {
        let b = self.blocks.partition_point(|b| b.first as usize <= line).checked_sub(1)?;
        (line < self.blocks[b].end as usize).then_some(b)
    }

    /// Live VGPRs, AGPRs and SGPRs at line `line` (in the listing), when it is one of its lines.
    pub fn pressure_at(&self, line: usize) -> Option<[u16; 3]> {
        let i = line.checked_sub(self.first as usize).filter(|_| self.holds(line))?;
        Some(RegFile::ALL.map(|file| self.counts(file).get(i).copied().unwrap_or(0)))
    }
}

/// A PTX module's text, by line, and where each function starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxText {
    pub lines: Vec<String>,
    pub functions: Vec<PtxFunction>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxFunction {
    pub name: String,
    /// `entry` for a kernel, `func` for a device function.
    pub directive: String,
    /// Index in [`PtxText::lines`] of the line that declares it.
    pub line: u32,
}

impl CodeListing {
    /// The line whose bytes hold byte `offset` of the code object's byte space.
    pub fn line_at_offset(&self, offset: u64) -> Option<usize> {
        let after = self.lines.partition_point(|l| l.offset <= offset);
        let at = after.checked_sub(1)?;
        let line = &self.lines[at];
        (offset < line.offset + u64::from(line.size)).then_some(at)
    }

    /// The label whose code holds line `index` (the last label at or before it).
    pub fn label_of_line(&self, index: usize) -> Option<usize> {
        self.labels.partition_point(|l| l.line as usize <= index).checked_sub(1)
    }

    /// Lines `[from, to)` of label `index`: up to the next label's first line.
    pub fn lines_of_label(&self, index: usize) -> (usize, usize) {
        let from = self.labels.get(index).map_or(0, |l| l.line as usize);
        let to = self.labels[index + 1..].iter().map(|l| l.line as usize).find(|&l| l > from);
        (from, to.unwrap_or(self.lines.len()))
    }

    /// The function whose lines hold line `line`.
    pub fn function_of_line(&self, line: usize) -> Option<usize> {
        let f = self.functions.partition_point(|f| f.first as usize <= line).checked_sub(1)?;
        (line < self.functions[f].end as usize).then_some(f)
    }

    /// The function named `name`.
    pub fn function_named(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    /// How many lines of `[from, to)` are of each class: `Class::ALL`'s order, then the dwords
    /// that did not decode. Runs of zeros are not instructions and are not counted.
    pub fn mix(&self, from: usize, to: usize) -> Vec<u32> {
        let mut counts = vec![0u32; CLASSES + 1];
        for line in self.lines.get(from..to).unwrap_or_default().iter().filter(|l| !l.zeros) {
            let slot = line.class.map_or(CLASSES, |c| usize::from(c).min(CLASSES));
            counts[slot] += 1;
        }
        counts
    }
}

/// Instruction classes (`offload::disasm::Class::ALL.len()`).
pub const CLASSES: usize = 9;

#[cfg(test)]
mod tests {
    use super::*;

    fn line(offset: u64, size: u32, class: Option<u8>) -> CodeLine {
        CodeLine {
            address: offset,
            offset,
            size,
            text: String::new(),
            words: String::new(),
            class,
            target: None,
            zeros: false,
        }
    }

    fn listing() -> CodeListing {
        CodeListing {
            id: 1,
            processor: "gfx90a".into(),
            labels: vec![
                CodeLabel { name: "a".into(), address: 0x100, line: 0 },
                CodeLabel { name: "b".into(), address: 0x10c, line: 2 },
            ],
            functions: vec![
                CodeFunction { name: "a".into(), first: 0, end: 2 },
                CodeFunction { name: "b".into(), first: 2, end: 4 },
            ],
            lines: vec![
                line(0x100, 8, Some(0)),
                line(0x108, 4, Some(6)),
                line(0x10c, 4, None),
                line(0x110, 4, Some(6)),
            ],
        }
    }

    #[test]
    fn a_byte_finds_the_instruction_that_holds_it() {
        let l = listing();
        assert_eq!(l.line_at_offset(0xff), None);
        assert_eq!(l.line_at_offset(0x100), Some(0));
        assert_eq!(l.line_at_offset(0x107), Some(0));
        assert_eq!(l.line_at_offset(0x108), Some(1));
        assert_eq!(l.line_at_offset(0x113), Some(3));
        assert_eq!(l.line_at_offset(0x114), None);
    }

    #[test]
    fn a_label_holds_the_lines_up_to_the_next() {
        let l = listing();
        assert_eq!(l.lines_of_label(0), (0, 2));
        assert_eq!(l.lines_of_label(1), (2, 4));
        assert_eq!(l.label_of_line(1), Some(0));
        assert_eq!(l.label_of_line(3), Some(1));
        assert_eq!(
            (0..5).map(|i| l.function_of_line(i)).collect::<Vec<_>>(),
            [Some(0), Some(0), Some(1), Some(1), None]
        );
        assert_eq!(l.function_named("b"), Some(1));
        let mix = l.mix(0, 4);
        assert_eq!((mix[0], mix[6], mix[CLASSES]), (1, 2, 1));
    }
}
