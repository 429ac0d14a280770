//! What the Code view shows, free of the browser: which device image (and kernel) the selection
//! stands for, the listing's rows (labels and lines, in order, folded blocks as one row), the
//! pressure strip's bars, and the classes' names for its colours and legend. Tested natively;
//! `components/views/code_view.rs` draws it.

use crate::wire::code::{CodeFlow, CodeListing, CLASSES};
use crate::wire::doc::{Doc, NodeId};
use offload::disasm::Class;
use offload::tree::NodeKind;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// What kind of code an image holds, as far as the Code view is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeFormat {
    /// An AMDGPU code object: disassembled.
    Amdgpu,
    /// PTX: shown as its text, by function.
    Ptx,
    /// A CUDA cubin: SASS has no public encoding, so only its resources are shown.
    Cubin,
}

/// The image the Code view shows for the selection, and the kernel to go to in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSubject {
    pub image: NodeId,
    pub format: CodeFormat,
    /// The selected kernel's name (its label in the listing).
    pub kernel: Option<String>,
}

/// The image at or above `selected` whose code the view can show (or say why not).
pub fn subject(doc: &Doc, selected: Option<NodeId>) -> Option<CodeSubject> {
    let selected = selected?;
    let node = doc.nodes.get(selected)?;
    let kernel = (node.kind == NodeKind::Kernel).then(|| node.text("name").map(String::from)).flatten();
    let image =
        std::iter::once(selected).chain(doc.ancestors(selected)).find(|&id| doc.nodes[id].kind == NodeKind::Image)?;
    let format = match doc.nodes[image].text("format")? {
        "AMDGPU code object" => CodeFormat::Amdgpu,
        "PTX" => CodeFormat::Ptx,
        "CUDA cubin" => CodeFormat::Cubin,
        _ => return None,
    };
    Some(CodeSubject { image, format, kernel })
}

/// A row of the listing: a label, a line (by their index in the listing), or the hidden lines
/// `first..end` of a folded block (whose first line stays shown above them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Label(usize),
    Line(usize),
    Folded { first: usize, end: usize },
}

/// Blocks folded by the reader: each block's first line and the line past its end.
pub type Folds = BTreeMap<usize, usize>;

/// The listing's rows: each label before the lines it names.
pub fn rows(listing: &CodeListing) -> Vec<Row> {
    folded_rows(listing, &Folds::new())
}

/// The listing's rows with the blocks of `folds` folded: a block's first line, then one row for
/// the rest of it.
pub fn folded_rows(listing: &CodeListing, folds: &Folds) -> Vec<Row> {
    let mut out = Vec::with_capacity(listing.lines.len() + listing.labels.len());
    let mut labels = listing.labels.iter().enumerate().peekable();
    let mut line = 0;
    while line < listing.lines.len() {
        while let Some((k, _)) = labels.next_if(|(_, l)| l.line as usize <= line) {
            out.push(Row::Label(k));
        }
        out.push(Row::Line(line));
        match folds.get(&line) {
            Some(&end) if end > line + 1 => {
                let end = end.min(listing.lines.len());
                out.push(Row::Folded { first: line + 1, end });
                line = end;
            }
            _ => line += 1,
        }
    }
    out.extend(labels.map(|(k, _)| Row::Label(k)));
    out
}

/// Where a row falls in the listing's order: its first line, labels before lines.
fn row_key(listing: &CodeListing, row: &Row) -> (usize, u8) {
    match *row {
        Row::Label(k) => (listing.labels.get(k).map_or(usize::MAX, |l| l.line as usize), 0),
        Row::Line(i) => (i, 1),
        Row::Folded { first, .. } => (first, 1),
    }
}

/// The row that shows line `line`: its own, or the folded row that hides it.
pub fn row_of_line(listing: &CodeListing, rows: &[Row], line: usize) -> usize {
    rows.partition_point(|r| row_key(listing, r) <= (line, 1)).saturating_sub(1)
}

/// The row of label `label`.
pub fn row_of_label(listing: &CodeListing, rows: &[Row], label: usize) -> usize {
    let Some(l) = listing.labels.get(label) else { return 0 };
    let from = rows.partition_point(|r| row_key(listing, r) < (l.line as usize, 0));
    rows[from..].iter().position(|r| *r == Row::Label(label)).map_or(from, |i| from + i)
}

/// The fold that hides line `line` (its block's first line), when one does.
pub fn fold_hiding(folds: &Folds, line: usize) -> Option<usize> {
    let (&first, &end) = folds.range(..line).next_back()?;
    (line < end).then_some(first)
}

/// A function's control flow and pressure as far as the page has it: asked of the worker when
/// the view first shows the function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowState {
    Pending,
    Ready(Rc<CodeFlow>),
    Failed(String),
}

/// The flows asked for, by listing id and function index.
pub type Flows = HashMap<(u32, usize), FlowState>;

/// One bar of the pressure strip: the highest count over a run of lines, and the first line
/// (in the listing) where it is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    pub count: u16,
    pub line: usize,
}

/// The strip's bars for `counts` (the live registers of a function whose first line is
/// `first`): at most `most` bars, each over an equal run of lines, so a function of 50,000
/// instructions draws as few elements as a small one and no peak falls between two bars.
pub fn strip_bars(counts: &[u16], first: usize, most: usize) -> Vec<Bar> {
    if counts.is_empty() || most == 0 {
        return Vec::new();
    }
    let bars = counts.len().min(most);
    (0..bars)
        .map(|b| {
            let (from, to) = (b * counts.len() / bars, (b + 1) * counts.len() / bars);
            let mut best = Bar { count: counts[from], line: first + from };
            for (i, &c) in counts[from..to].iter().enumerate() {
                if c > best.count {
                    best = Bar { count: c, line: first + from + i };
                }
            }
            best
        })
        .collect()
}

/// The bar of [`strip_bars`] whose run holds the `index`th of `lines` lines, drawn as `bars`
/// bars: the last bar whose run starts at or before it.
pub fn bar_of(index: usize, lines: usize, bars: usize) -> usize {
    if lines == 0 || bars == 0 {
        return 0;
    }
    (((index.min(lines - 1) + 1) * bars - 1) / lines).min(bars - 1)
}

/// The label named `name`, for a kernel selected in another view.
pub fn label_named(listing: &CodeListing, name: &str) -> Option<usize> {
    listing.labels.iter().position(|l| l.name == name)
}

/// Class names in markup (`code-class-<slug>`, the colours' custom properties), in
/// `Class::ALL`'s order, then the dwords that did not decode.
pub const CLASS_SLUGS: [&str; CLASSES + 1] = [
    "scalar-alu",
    "vector-alu",
    "scalar-memory",
    "vector-memory",
    "lds",
    "matrix",
    "branch",
    "wait",
    "other",
    "undecoded",
];

/// A class's name in the legend (by its slot: see [`CLASS_SLUGS`]).
pub fn class_name(slot: usize) -> &'static str {
    Class::ALL.get(slot).map_or("not decoded (.long)", |c| c.as_str())
}

/// The class slot of a line: its class, or the last slot for a dword that did not decode.
pub fn class_slot(class: Option<u8>) -> usize {
    class.map_or(CLASSES, |c| usize::from(c).min(CLASSES))
}

/// A count as a percentage of `total`, one decimal.
pub fn percent(count: u32, total: u32) -> f64 {
    if total == 0 {
        0.0
    } else {
        (f64::from(count) * 1000.0 / f64::from(total)).round() / 10.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::code::{CodeLabel, CodeLine};

    fn listing() -> CodeListing {
        let line = |a: u64| CodeLine {
            address: a,
            offset: a,
            size: 4,
            text: String::new(),
            words: String::new(),
            class: None,
            target: None,
            zeros: false,
        };
        CodeListing {
            processor: "gfx90a".into(),
            labels: vec![
                CodeLabel { name: "a".into(), address: 0, line: 0 },
                CodeLabel { name: "b".into(), address: 8, line: 2 },
            ],
            lines: vec![line(0), line(4), line(8)],
            functions: Vec::new(),
            id: 1,
        }
    }

    #[test]
    fn labels_come_before_their_lines() {
        let l = listing();
        let r = rows(&l);
        assert_eq!(r, [Row::Label(0), Row::Line(0), Row::Line(1), Row::Label(1), Row::Line(2)]);
        assert_eq!([row_of_line(&l, &r, 0), row_of_line(&l, &r, 1), row_of_line(&l, &r, 2)], [1, 2, 4]);
        assert_eq!([row_of_label(&l, &r, 0), row_of_label(&l, &r, 1)], [0, 3]);
        assert_eq!(label_named(&l, "b"), Some(1));
    }

    #[test]
    fn a_folded_block_keeps_its_first_line_and_hides_the_rest_in_one_row() {
        let mut l = listing();
        l.lines.extend([8, 12, 16].map(|a| CodeLine { address: a + 4, offset: a + 4, ..l.lines[0].clone() }));
        // Lines 2..5 are a block of label b; folded, line 2 stays and 3..5 become one row.
        let folds = Folds::from([(2, 5)]);
        let r = folded_rows(&l, &folds);
        assert_eq!(
            r,
            [
                Row::Label(0),
                Row::Line(0),
                Row::Line(1),
                Row::Label(1),
                Row::Line(2),
                Row::Folded { first: 3, end: 5 },
                Row::Line(5)
            ]
        );
        assert_eq!([row_of_line(&l, &r, 2), row_of_line(&l, &r, 3), row_of_line(&l, &r, 4)], [4, 5, 5]);
        assert_eq!(row_of_line(&l, &r, 5), 6);
        assert_eq!(row_of_label(&l, &r, 1), 3);
        assert_eq!([fold_hiding(&folds, 2), fold_hiding(&folds, 3), fold_hiding(&folds, 4)], [None, Some(2), Some(2)]);
        assert_eq!(fold_hiding(&folds, 5), None);
    }

    #[test]
    fn the_strip_keeps_every_peak_in_fewer_bars() {
        let counts: Vec<u16> = (0..1000u16).map(|i| if i == 637 { 90 } else { i % 7 }).collect();
        let bars = strip_bars(&counts, 100, 300);
        assert_eq!(bars.len(), 300);
        let top = bars.iter().max_by_key(|b| b.count).unwrap();
        assert_eq!((top.count, top.line), (90, 737));
        // Fewer lines than bars: one bar per line.
        assert_eq!(strip_bars(&[3, 5], 0, 300), [Bar { count: 3, line: 0 }, Bar { count: 5, line: 1 }]);
        assert!(strip_bars(&[], 0, 300).is_empty());
        // Each line falls in the bar whose run holds it.
        for (lines, bars) in [(1000, 300), (7, 7), (301, 300), (5, 3)] {
            for i in 0..lines {
                let b = bar_of(i, lines, bars);
                assert!(b * lines / bars <= i && i < (b + 1) * lines / bars, "{i} of {lines} in bar {b} of {bars}");
            }
        }
    }

    #[test]
    fn slugs_follow_the_class_names() {
        for (slot, class) in Class::ALL.iter().enumerate() {
            assert_eq!(CLASS_SLUGS[slot], class.as_str().to_lowercase().replace(' ', "-"));
        }
        assert_eq!(percent(1, 3), 33.3);
        assert_eq!(percent(0, 0), 0.0);
    }
}
