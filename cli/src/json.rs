//! The JSON shape of `offload list --json`, stable for scripts:
//!
//! `{file, spaces: [{label, size, origin}], root: node, targets: [target]}`, where a node is
//! `{kind, label, space, offset, size, fields: {name: value}, field_spans: {name: {space, offset,
//! size}}, editable: [names], diagnostics: [{severity, message, span}], children: [nodes]}` and a
//! value is null, a boolean, a number, a string or a string-to-string map.
//!
//! The core's types derive serde for the web page's worker messages; this shape is the CLI's
//! own, written here so that a change there never changes what scripts read. The lines of
//! `offload list --jsonl` reuse its targets and diagnostics; their shapes are in `list/jsonl.rs`.

use offload::report::targets::Target;
use offload::tree::{ByteSpace, Diagnostic, Field, Node, Span, Tree, Value};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The whole document `offload list --json` prints.
pub struct ListDocument<'a> {
    pub file: &'a str,
    pub tree: &'a Tree,
    pub targets: &'a [Target],
}

impl Serialize for ListDocument<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("file", self.file)?;
        m.serialize_entry("root", &JsonNode(&self.tree.root))?;
        m.serialize_entry("spaces", &Each(&self.tree.spaces, JsonSpace))?;
        m.serialize_entry("targets", &Each(self.targets, JsonTarget))?;
        m.end()
    }
}

/// A slice serialized as a sequence of `wrap(item)`.
struct Each<'a, T, W>(&'a [T], fn(&'a T) -> W);

impl<'a, T, W: Serialize> Serialize for Each<'a, T, W> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            q.serialize_element(&(self.1)(item))?;
        }
        q.end()
    }
}

struct JsonValue<'a>(&'a Value);

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Uint(n) => s.serialize_u64(*n),
            Value::Text(t) => s.serialize_str(t),
            Value::Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

struct JsonSpan<'a>(&'a Span);

impl Serialize for JsonSpan<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("space", &self.0.space)?;
        m.serialize_entry("offset", &self.0.offset)?;
        m.serialize_entry("size", &self.0.size)?;
        m.end()
    }
}

/// A diagnostic, `{severity, message, span}` (also in `offload list --jsonl`'s member lines).
pub(crate) struct JsonDiagnostic<'a>(pub(crate) &'a Diagnostic);

impl Serialize for JsonDiagnostic<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("severity", self.0.severity.as_str())?;
        m.serialize_entry("message", &self.0.message)?;
        m.serialize_entry("span", &self.0.span.as_ref().map(JsonSpan))?;
        m.end()
    }
}

/// `{name: value}` of a node's fields.
struct Fields<'a>(&'a [Field]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for f in self.0 {
            m.serialize_entry(&f.name, &JsonValue(&f.value))?;
        }
        m.end()
    }
}

/// `{name: span}` of the fields read from known bytes.
struct FieldSpans<'a>(&'a [Field]);

impl Serialize for FieldSpans<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for f in self.0 {
            if let Some(span) = &f.span {
                m.serialize_entry(&f.name, &JsonSpan(span))?;
            }
        }
        m.end()
    }
}

/// The names of the editable fields.
struct Editable<'a>(&'a [Field]);

impl Serialize for Editable<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(None)?;
        for f in self.0.iter().filter(|f| f.editable) {
            q.serialize_element(&f.name)?;
        }
        q.end()
    }
}

struct JsonNode<'a>(&'a Node);

impl Serialize for JsonNode<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        let mut m = s.serialize_map(Some(10))?;
        m.serialize_entry("kind", n.kind.as_str())?;
        m.serialize_entry("label", &n.label)?;
        m.serialize_entry("space", &n.span.space)?;
        m.serialize_entry("offset", &n.span.offset)?;
        m.serialize_entry("size", &n.span.size)?;
        m.serialize_entry("fields", &Fields(&n.fields))?;
        m.serialize_entry("field_spans", &FieldSpans(&n.fields))?;
        m.serialize_entry("editable", &Editable(&n.fields))?;
        m.serialize_entry("diagnostics", &Each(&n.diagnostics, JsonDiagnostic))?;
        m.serialize_entry("children", &Each(&n.children, JsonNode))?;
        m.end()
    }
}

struct JsonSpace<'a>(&'a ByteSpace);

impl Serialize for JsonSpace<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("label", &self.0.label)?;
        m.serialize_entry("size", &self.0.size)?;
        m.serialize_entry("origin", &self.0.origin.as_ref().map(JsonSpan))?;
        m.end()
    }
}

/// A device target: every field of the core's `Target` but its span, in its order.
pub(crate) struct JsonTarget<'a>(pub(crate) &'a Target);

impl Serialize for JsonTarget<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(10))?;
        self.entries(&mut m)?;
        m.end()
    }
}

impl JsonTarget<'_> {
    /// The target's entries, written into a map being serialized: `offload list --jsonl`'s
    /// target lines put their `type` before them.
    pub(crate) fn entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        let t = self.0;
        m.serialize_entry("target_id", &t.target_id)?;
        m.serialize_entry("offload_kind", &t.offload_kind)?;
        m.serialize_entry("triple", &t.triple)?;
        m.serialize_entry("processor", &t.processor)?;
        m.serialize_entry("features", &t.features)?;
        m.serialize_entry("image_size", &t.image_size)?;
        m.serialize_entry("stored_size", &t.stored_size)?;
        m.serialize_entry("compression", &t.compression)?;
        m.serialize_entry("chain", &t.chain)?;
        m.serialize_entry("member", &t.member)?;
        if let Some(name) = &t.file_name {
            m.serialize_entry("file_name", name)?;
        }
        Ok(())
    }
}
