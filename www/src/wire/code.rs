//! What passes between the page and the disassembler worker (`bin/disasm.rs`), which the page
//! starts the first time its Code view opens: a device image's bytes go over, its listing comes
//! back, ready to draw (every line's text, words and class; branch targets as line numbers).
//!
//! Only plain data here: nothing of the disassembler itself, so that the page's binary, which
//! uses these types, does not carry it.

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
    Failed {
        request: u32,
        message: String,
    },
}

/// A code object's `.text`, decoded: its labels and lines in address order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeListing {
    pub processor: String,
    pub labels: Vec<CodeLabel>,
    pub lines: Vec<CodeLine>,
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
            processor: "gfx90a".into(),
            labels: vec![
                CodeLabel { name: "a".into(), address: 0x100, line: 0 },
                CodeLabel { name: "b".into(), address: 0x10c, line: 2 },
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
        let mix = l.mix(0, 4);
        assert_eq!((mix[0], mix[6], mix[CLASSES]), (1, 2, 1));
    }
}
