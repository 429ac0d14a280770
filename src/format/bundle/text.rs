//! Clang offload bundle, text layout (`clang-offload-bundler --type=i|ii|cui|hipi|d|ll|s`).
//!
//! Each entry is framed by two comment lines, `C` being the type's line comment:
//!
//! | bytes                                             | meaning                          |
//! |---------------------------------------------------|----------------------------------|
//! | `\n` `C` ` __CLANG_OFFLOAD_BUNDLE____START__ ` ID `\n` | start marker with the entry ID |
//! | content                                           | the entry's bytes, unchanged     |
//! | `\n` `C` ` __CLANG_OFFLOAD_BUNDLE____END__ ` ID `\n`   | end marker                     |
//!
//! repeated for every entry. Comments: `//` for i, ii, cui and hipi; `#` for d and s; `;` for
//! ll. The bundler finds entries by searching for the start marker, takes the ID up to the next
//! newline, and the content up to the next end marker; the newline that begins the end marker is
//! not part of the content.

use crate::error::{Error, Result};
use crate::tree::{Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const START: &[u8] = b" __CLANG_OFFLOAD_BUNDLE____START__ ";
const END: &[u8] = b" __CLANG_OFFLOAD_BUNDLE____END__ ";

/// The line comment of each text bundle type the bundler knows.
pub fn comment_for_type(file_type: &str) -> Option<&'static str> {
    match file_type {
        "i" | "ii" | "cui" | "hipi" => Some("//"),
        "d" | "s" => Some("#"),
        "ll" => Some(";"),
        _ => None,
    }
}

/// One entry of a text bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEntry<'a> {
    pub id: String,
    pub data: Cow<'a, [u8]>,
    /// Bytes before this entry's start marker that belong to no entry (normally none).
    pub before: Cow<'a, [u8]>,
    /// The ID written after the end marker, when it differs from `id` (normally `None`).
    pub end_id: Option<String>,
}

/// A text bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextBundle<'a> {
    /// The line comment that frames the markers, such as `;`.
    pub comment: String,
    pub entries: Vec<TextEntry<'a>>,
    /// Bytes after the last end marker line (normally none).
    pub trailing: Cow<'a, [u8]>,
    /// False when the input ended without the newline after the last end marker.
    pub final_newline: bool,
}

/// Where each part of an entry lies in the input, for the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryLayout {
    pub start_marker: (u64, u64),
    pub id: (u64, u64),
    pub content: (u64, u64),
    pub end_marker: (u64, u64),
}

/// The comment a text bundle uses, if `data` holds a start marker line.
pub fn detect_comment(data: &[u8]) -> Option<String> {
    let at = find(data, START, 0)?;
    let line_start = data[..at].iter().rposition(|&b| b == b'\n')? + 1;
    let comment = &data[line_start..at];
    let known = ["//", "#", ";"];
    known.iter().find(|c| c.as_bytes() == comment).map(|c| String::from(*c))
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > haystack.len() || needle.is_empty() {
        return None;
    }
    haystack[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn marker(comment: &str, kind: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(1 + comment.len() + kind.len());
    m.push(b'\n');
    m.extend_from_slice(comment.as_bytes());
    m.extend_from_slice(kind);
    m
}

fn utf8_id(bytes: &[u8], at: usize) -> Result<String> {
    core::str::from_utf8(bytes).map(String::from).map_err(|e| {
        Error::new(at as u64 + e.valid_up_to() as u64, "text bundle entry ID", "UTF-8 text", "a byte that is not UTF-8")
    })
}

impl<'a> TextBundle<'a> {
    pub fn new(comment: &str, entries: Vec<(String, Cow<'a, [u8]>)>) -> Self {
        TextBundle {
            comment: comment.into(),
            entries: entries
                .into_iter()
                .map(|(id, data)| TextEntry { id, data, before: Cow::Borrowed(&[]), end_id: None })
                .collect(),
            trailing: Cow::Borrowed(&[]),
            final_newline: true,
        }
    }

    /// Reads a text bundle framed with `comment`. Returns the bundle and each entry's layout.
    pub fn parse(data: &'a [u8], comment: &str) -> Result<(Self, Vec<EntryLayout>)> {
        let start = marker(comment, START);
        let end = marker(comment, END);
        let mut entries = Vec::new();
        let mut layouts = Vec::new();
        let mut pos = 0usize;
        let mut final_newline = true;
        while let Some(s) = find(data, &start, pos) {
            let id_at = s + start.len();
            let id_end = find(data, b"\n", id_at).ok_or_else(|| {
                Error::new(id_at as u64, "text bundle start marker", "a newline after the entry ID", "the end of input")
            })?;
            let id = utf8_id(&data[id_at..id_end], id_at)?;
            let content_at = id_end + 1;
            let e = find(data, &end, content_at).ok_or_else(|| {
                Error::new(
                    content_at as u64,
                    "text bundle entry",
                    format!("an end marker for `{id}`"),
                    "the end of input",
                )
            })?;
            let end_id_at = e + end.len();
            let end_id_end = find(data, b"\n", end_id_at);
            let end_id = utf8_id(&data[end_id_at..end_id_end.unwrap_or(data.len())], end_id_at)?;
            let next = match end_id_end {
                Some(n) => n + 1,
                None => {
                    final_newline = false;
                    data.len()
                }
            };
            layouts.push(EntryLayout {
                start_marker: (s as u64, content_at as u64),
                id: (id_at as u64, id_end as u64),
                content: (content_at as u64, e as u64),
                end_marker: (e as u64, next as u64),
            });
            entries.push(TextEntry {
                end_id: (end_id != id).then_some(end_id),
                id,
                data: Cow::Borrowed(&data[content_at..e]),
                before: Cow::Borrowed(&data[pos..s]),
            });
            pos = next;
        }
        if entries.is_empty() {
            return Err(Error::new(
                0,
                "text bundle",
                format!("a line `{comment} __CLANG_OFFLOAD_BUNDLE____START__ <id>`"),
                "no start marker",
            ));
        }
        let bundle =
            TextBundle { comment: comment.into(), entries, trailing: Cow::Borrowed(&data[pos..]), final_newline };
        Ok((bundle, layouts))
    }

    /// Writes the bundle as clang-offload-bundler does.
    pub fn write(&self) -> Vec<u8> {
        let start = marker(&self.comment, START);
        let end = marker(&self.comment, END);
        let mut out =
            Vec::with_capacity(self.entries.iter().map(|e| e.data.len() + 2 * (start.len() + e.id.len() + 1)).sum());
        for (i, e) in self.entries.iter().enumerate() {
            out.extend_from_slice(&e.before);
            out.extend_from_slice(&start);
            out.extend_from_slice(e.id.as_bytes());
            out.push(b'\n');
            out.extend_from_slice(&e.data);
            out.extend_from_slice(&end);
            out.extend_from_slice(e.end_id.as_deref().unwrap_or(&e.id).as_bytes());
            let last = i + 1 == self.entries.len();
            if !last || self.final_newline {
                out.push(b'\n');
            }
        }
        out.extend_from_slice(&self.trailing);
        out
    }

    pub fn entry(&self, id: &str) -> Option<&TextEntry<'a>> {
        self.entries.iter().find(|e| e.id == id)
    }
}

/// The tree of a text bundle read from the bytes at `span`.
pub fn to_node(bundle: &TextBundle<'_>, layouts: &[EntryLayout], span: Span) -> Node {
    let mut node = Node::new(
        NodeKind::TextBundle,
        format!("clang offload bundle, text, comment `{}`, {} entries", bundle.comment, bundle.entries.len()),
        span,
    );
    node.field("comment", bundle.comment.as_str(), None);
    node.field("entry_count", bundle.entries.len() as u64, None);
    for (e, l) in bundle.entries.iter().zip(layouts) {
        let content = span.sub(l.content.0, l.content.1 - l.content.0);
        let mut child =
            Node::new(NodeKind::BundleEntry, format!("{} ({})", e.id, human_size(e.data.len() as u64)), content);
        child.editable("id", e.id.as_str(), Some(span.sub(l.id.0, l.id.1 - l.id.0)));
        child.field("offset", l.content.0, None);
        child.field("size", e.data.len() as u64, None);
        child.field(
            "start_marker",
            format!("{}..{}", l.start_marker.0, l.start_marker.1),
            Some(span.sub(l.start_marker.0, l.start_marker.1 - l.start_marker.0)),
        );
        child.field(
            "end_marker",
            format!("{}..{}", l.end_marker.0, l.end_marker.1),
            Some(span.sub(l.end_marker.0, l.end_marker.1 - l.end_marker.0)),
        );
        if let Some(inner) = find(&e.data, &marker(&bundle.comment, START), 0) {
            // The bundler would hand this whole stretch out as one entry: an end marker before
            // the inner start marker is missing or damaged.
            // The marker found begins with its newline; point at the comment after it.
            let at = l.content.0 + inner as u64 + 1;
            child.diag(
                Severity::Warning,
                format!("entry `{}` contains another start marker at byte {at}: the end marker before it is missing or damaged", e.id),
                Some(span.sub(at, 1)),
            );
        }
        if let Some(end_id) = &e.end_id {
            child.diag(
                Severity::Warning,
                format!("end marker names `{end_id}`, not `{}`", e.id),
                Some(span.sub(l.end_marker.0, l.end_marker.1 - l.end_marker.0)),
            );
        }
        if !e.before.is_empty() {
            let at = l.start_marker.0 - e.before.len() as u64;
            node.diag(
                Severity::Warning,
                format!("{} bytes before entry `{}` belong to no entry", e.before.len(), e.id),
                Some(span.sub(at, e.before.len() as u64)),
            );
        }
        node.children.push(child);
    }
    if !bundle.trailing.is_empty() {
        let len = bundle.trailing.len() as u64;
        node.diag(
            Severity::Warning,
            format!("{len} trailing bytes belong to no entry"),
            Some(span.sub(span.size.saturating_sub(len), len)),
        );
    }
    if !bundle.final_newline {
        node.diag(Severity::Note, "the last end marker has no newline after it", None);
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn writes_what_the_bundler_writes() {
        let b = TextBundle::new(
            ";",
            vec![
                ("host-x86_64-unknown-linux-gnu-".into(), Cow::Borrowed(&b"HOSTDATA"[..])),
                ("hipv4-amdgcn-amd-amdhsa--gfx90a".into(), Cow::Borrowed(&b"dev1data!!"[..])),
            ],
        );
        let expected = "\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nHOSTDATA\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n\n; __CLANG_OFFLOAD_BUNDLE____START__ hipv4-amdgcn-amd-amdhsa--gfx90a\ndev1data!!\n; __CLANG_OFFLOAD_BUNDLE____END__ hipv4-amdgcn-amd-amdhsa--gfx90a\n";
        let out = b.write();
        assert_eq!(core::str::from_utf8(&out).unwrap(), expected);
        let (back, layouts) = TextBundle::parse(&out, ";").unwrap();
        assert_eq!(back, b);
        assert_eq!(layouts[0].content, (68, 76));
        assert_eq!(detect_comment(&out).as_deref(), Some(";"));
    }

    #[test]
    fn odd_inputs_round_trip() {
        let text = b"junk\n# __CLANG_OFFLOAD_BUNDLE____START__ a-b-c-d-\nX\n# __CLANG_OFFLOAD_BUNDLE____END__ other";
        let (b, _) = TextBundle::parse(text, "#").unwrap();
        assert_eq!(b.entries[0].before.as_ref(), b"junk");
        assert_eq!(b.entries[0].end_id.as_deref(), Some("other"));
        assert!(!b.final_newline);
        assert_eq!(b.write(), text);
    }

    #[test]
    fn broken_inputs_are_errors() {
        assert!(TextBundle::parse(b"nothing here", "//").is_err());
        let no_end = b"\n// __CLANG_OFFLOAD_BUNDLE____START__ x\ncontent";
        let e = TextBundle::parse(no_end, "//").unwrap_err();
        assert_eq!(e.offset, 40);
        let no_newline = b"\n// __CLANG_OFFLOAD_BUNDLE____START__ x";
        assert!(TextBundle::parse(no_newline, "//").is_err());
        let bad_utf8 = b"\n// __CLANG_OFFLOAD_BUNDLE____START__ \xff\n";
        assert!(TextBundle::parse(bad_utf8, "//").is_err());
    }
}
