//! What the Code view shows, free of the browser: which device image (and kernel) the selection
//! stands for, the listing's rows (labels and lines, in order), and the classes' names for its
//! colours and legend. Tested natively; `components/views/code_view.rs` draws it.

use crate::wire::code::{CodeListing, CLASSES};
use crate::wire::doc::{Doc, NodeId};
use offload::disasm::Class;
use offload::tree::NodeKind;

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

/// A row of the listing: a label, or a line (by their index in the listing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Label(usize),
    Line(usize),
}

/// The listing's rows: each label before the lines it names.
pub fn rows(listing: &CodeListing) -> Vec<Row> {
    let mut out = Vec::with_capacity(listing.lines.len() + listing.labels.len());
    let mut labels = listing.labels.iter().enumerate().peekable();
    for line in 0..listing.lines.len() {
        while let Some((k, _)) = labels.next_if(|(_, l)| l.line as usize <= line) {
            out.push(Row::Label(k));
        }
        out.push(Row::Line(line));
    }
    out.extend(labels.map(|(k, _)| Row::Label(k)));
    out
}

/// The row of line `line`: its index plus the labels before or at it.
pub fn row_of_line(listing: &CodeListing, line: usize) -> usize {
    line + listing.labels.partition_point(|l| l.line as usize <= line)
}

/// The row of label `label`.
pub fn row_of_label(listing: &CodeListing, label: usize) -> usize {
    listing.labels.get(label).map_or(0, |l| l.line as usize + label)
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
        }
    }

    #[test]
    fn labels_come_before_their_lines() {
        let l = listing();
        assert_eq!(rows(&l), [Row::Label(0), Row::Line(0), Row::Line(1), Row::Label(1), Row::Line(2)]);
        assert_eq!([row_of_line(&l, 0), row_of_line(&l, 1), row_of_line(&l, 2)], [1, 2, 4]);
        assert_eq!([row_of_label(&l, 0), row_of_label(&l, 1)], [0, 3]);
        assert_eq!(label_named(&l, "b"), Some(1));
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
