//! Edits as the page sends them to its worker: a serde mirror of [`offload::edit::Edit`] (the
//! core's types stay free of serde), converted back on the worker's side. Browser-free, so
//! the conversion is tested natively.
//!
//! Nodes are named by their path of child indices from the tree's root, as the core names
//! them ([`crate::model::Doc::path_of`]).

use offload::codec::Method;
use offload::edit::{Edit, NewEntry};
use offload::tree::NodeKind;
use serde::{Deserialize, Serialize};

pub type NodePath = Vec<usize>;

/// A compression method as the page offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompressionMethod {
    Zlib,
    Zstd,
}

impl CompressionMethod {
    pub const ALL: [CompressionMethod; 2] = [CompressionMethod::Zlib, CompressionMethod::Zstd];

    pub fn core(self) -> Method {
        match self {
            CompressionMethod::Zlib => Method::Zlib,
            CompressionMethod::Zstd => Method::Zstd,
        }
    }

    pub fn from_core(method: Method) -> CompressionMethod {
        match method {
            Method::Zlib => CompressionMethod::Zlib,
            Method::Zstd => CompressionMethod::Zstd,
        }
    }

    pub fn name(self) -> &'static str {
        self.core().name()
    }

    pub fn from_name(name: &str) -> Option<CompressionMethod> {
        Method::from_name(name).map(CompressionMethod::from_core)
    }

    /// The level the bundler uses when none is given.
    pub fn default_level(self) -> i32 {
        self.core().default_level()
    }
}

/// An entry to add: bundles use `id`, offload binaries the rest.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NewEntryRequest {
    pub id: String,
    pub strings: Vec<(String, String)>,
    pub image_kind: u16,
    pub offload_kind: u16,
    pub flags: u32,
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
}

/// One change to the file, as [`Edit`] says it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EditRequest {
    SetEntryId {
        node: NodePath,
        id: String,
    },
    SetString {
        node: NodePath,
        key: String,
        value: Option<String>,
    },
    SetImageKind {
        node: NodePath,
        kind: u16,
    },
    SetOffloadKind {
        node: NodePath,
        kind: u16,
    },
    SetFlags {
        node: NodePath,
        flags: u32,
    },
    RemoveEntry {
        node: NodePath,
    },
    MoveEntry {
        node: NodePath,
        to: usize,
    },
    AddEntry {
        container: NodePath,
        entry: NewEntryRequest,
    },
    ReplaceContent {
        node: NodePath,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    Compress {
        node: NodePath,
        method: CompressionMethod,
        level: Option<i32>,
        version: u16,
    },
    Decompress {
        node: NodePath,
    },
}

impl EditRequest {
    /// The core's edit.
    pub fn to_core(&self) -> Edit {
        match self.clone() {
            EditRequest::SetEntryId { node, id } => Edit::SetEntryId { node, id },
            EditRequest::SetString { node, key, value } => Edit::SetString { node, key, value },
            EditRequest::SetImageKind { node, kind } => Edit::SetImageKind { node, kind },
            EditRequest::SetOffloadKind { node, kind } => Edit::SetOffloadKind { node, kind },
            EditRequest::SetFlags { node, flags } => Edit::SetFlags { node, flags },
            EditRequest::RemoveEntry { node } => Edit::RemoveEntry { node },
            EditRequest::MoveEntry { node, to } => Edit::MoveEntry { node, to },
            EditRequest::AddEntry { container, entry } => Edit::AddEntry {
                container,
                entry: NewEntry {
                    id: entry.id,
                    strings: entry.strings,
                    image_kind: entry.image_kind,
                    offload_kind: entry.offload_kind,
                    flags: entry.flags,
                    data: entry.data,
                },
            },
            EditRequest::ReplaceContent { node, data } => Edit::ReplaceContent { node, data },
            EditRequest::Compress { node, method, level, version } => {
                Edit::Compress { node, method: method.core(), level, version }
            }
            EditRequest::Decompress { node } => Edit::Decompress { node },
        }
    }

    /// The node the edit is about (for an added entry, its container).
    pub fn node(&self) -> &[usize] {
        match self {
            EditRequest::SetEntryId { node, .. }
            | EditRequest::SetString { node, .. }
            | EditRequest::SetImageKind { node, .. }
            | EditRequest::SetOffloadKind { node, .. }
            | EditRequest::SetFlags { node, .. }
            | EditRequest::RemoveEntry { node }
            | EditRequest::MoveEntry { node, .. }
            | EditRequest::ReplaceContent { node, .. }
            | EditRequest::Compress { node, .. }
            | EditRequest::Decompress { node } => node,
            EditRequest::AddEntry { container, .. } => container,
        }
    }

    /// What the page says while the edit runs.
    pub fn describe(&self) -> String {
        match self {
            EditRequest::SetEntryId { id, .. } => format!("setting the entry ID to {id}"),
            EditRequest::SetString { key, value: Some(v), .. } => format!("setting {key} to {v}"),
            EditRequest::SetString { key, value: None, .. } => format!("removing {key}"),
            EditRequest::SetImageKind { kind, .. } => format!("setting the image kind to {kind}"),
            EditRequest::SetOffloadKind { kind, .. } => format!("setting the offload kind to {kind}"),
            EditRequest::SetFlags { flags, .. } => format!("setting the flags to {flags}"),
            EditRequest::RemoveEntry { .. } => "removing the entry".into(),
            EditRequest::MoveEntry { to, .. } => format!("moving the entry to position {}", to + 1),
            EditRequest::AddEntry { entry, .. } => format!("adding an entry of {} bytes", entry.data.len()),
            EditRequest::ReplaceContent { data, .. } => format!("replacing the contents with {} bytes", data.len()),
            EditRequest::Compress { method, level, version, .. } => {
                format!(
                    "compressing with {} level {}, format version {version}",
                    method.name(),
                    level.unwrap_or_else(|| method.default_level())
                )
            }
            EditRequest::Decompress { .. } => "decompressing".into(),
        }
    }
}

/// The level typed for `method`: `Ok(None)` for an empty box (the method's default), the
/// level when it is one the method has, otherwise what was expected.
pub fn parse_level(method: CompressionMethod, text: &str) -> Result<Option<i32>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let range = match method {
        CompressionMethod::Zlib => 0..=9,
        CompressionMethod::Zstd => 1..=22,
    };
    match text.parse::<i32>() {
        Ok(level) if range.contains(&level) => Ok(Some(level)),
        _ => Err(format!(
            "expected a {} level from {} to {} (or nothing for {}), found '{text}'",
            method.name(),
            range.start(),
            range.end(),
            method.default_level()
        )),
    }
}

/// The flags typed for an offload entry: a 32-bit number, decimal or `0x` hex.
pub fn parse_flags(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => t.parse::<u32>(),
    };
    parsed.map_err(|_| format!("expected a number from 0 to 4294967295 (decimal, or hex with 0x), found '{t}'"))
}

/// Whether an edit's note only says again what the edit's description says ("compressed with
/// zstd level 3, …" after "compressing with zstd level 3, …"): the same words after the verb.
pub fn restates(note: &str, what: &str) -> bool {
    let after_verb = |s: &str| s.split_once(' ').map(|(_, rest)| rest.to_string());
    after_verb(note).is_some_and(|n| Some(n) == after_verb(what))
}

/// The file name to offer a payload under when it does not fit in a linked file: the file's
/// name with the extension of what the payload is (`.hipfb` for a bundle or a compressed
/// bundle, as HIP names its fat binaries; `.offbin` for an offload binary).
pub fn payload_file_name(file: &str, kind: NodeKind) -> String {
    let extension = match kind {
        NodeKind::Bundle | NodeKind::CompressedBundle => "hipfb",
        NodeKind::OffloadBinary => "offbin",
        NodeKind::Section => "section.bin",
        _ => "bin",
    };
    format!("{file}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_converts_to_the_same_core_edit() {
        let entry =
            NewEntryRequest { id: "hipv4-amdgcn-amd-amdhsa--gfx908".into(), data: vec![1, 2, 3], ..Default::default() };
        let cases = [
            (
                EditRequest::SetEntryId { node: vec![0, 1], id: "x".into() },
                Edit::SetEntryId { node: vec![0, 1], id: "x".into() },
            ),
            (
                EditRequest::SetString { node: vec![2], key: "k".into(), value: None },
                Edit::SetString { node: vec![2], key: "k".into(), value: None },
            ),
            (EditRequest::SetImageKind { node: vec![3], kind: 2 }, Edit::SetImageKind { node: vec![3], kind: 2 }),
            (EditRequest::SetOffloadKind { node: vec![3], kind: 4 }, Edit::SetOffloadKind { node: vec![3], kind: 4 }),
            (EditRequest::SetFlags { node: vec![3], flags: 7 }, Edit::SetFlags { node: vec![3], flags: 7 }),
            (EditRequest::RemoveEntry { node: vec![1, 1] }, Edit::RemoveEntry { node: vec![1, 1] }),
            (EditRequest::MoveEntry { node: vec![1, 1], to: 0 }, Edit::MoveEntry { node: vec![1, 1], to: 0 }),
            (
                EditRequest::AddEntry { container: vec![0], entry: entry.clone() },
                Edit::AddEntry {
                    container: vec![0],
                    entry: NewEntry { id: entry.id.clone(), data: vec![1, 2, 3], ..Default::default() },
                },
            ),
            (
                EditRequest::ReplaceContent { node: vec![], data: vec![9] },
                Edit::ReplaceContent { node: vec![], data: vec![9] },
            ),
            (
                EditRequest::Compress { node: vec![0, 0], method: CompressionMethod::Zlib, level: Some(9), version: 2 },
                Edit::Compress { node: vec![0, 0], method: Method::Zlib, level: Some(9), version: 2 },
            ),
            (EditRequest::Decompress { node: vec![0, 0] }, Edit::Decompress { node: vec![0, 0] }),
        ];
        for (request, edit) in cases {
            assert_eq!(request.to_core(), edit, "{request:?}");
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn requests_survive_serialization() {
        let requests = [
            EditRequest::SetString {
                node: vec![0, 1, 2],
                key: "triple".into(),
                value: Some("amdgcn-amd-amdpal".into()),
            },
            EditRequest::AddEntry {
                container: vec![0],
                entry: NewEntryRequest {
                    strings: vec![("arch".into(), "gfx90a".into())],
                    data: vec![0, 255],
                    ..Default::default()
                },
            },
            EditRequest::Compress { node: vec![], method: CompressionMethod::Zstd, level: Some(-5), version: 1 },
        ];
        for r in requests {
            let text = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<EditRequest>(&text).unwrap(), r, "{text}");
        }
    }

    #[test]
    fn node_is_the_edited_node_or_the_container() {
        assert_eq!(EditRequest::Decompress { node: vec![0, 2] }.node(), &[0, 2]);
        assert_eq!(EditRequest::AddEntry { container: vec![1], entry: NewEntryRequest::default() }.node(), &[1]);
    }

    #[test]
    fn methods_round_trip_through_their_names() {
        for m in CompressionMethod::ALL {
            assert_eq!(CompressionMethod::from_name(m.name()), Some(m));
            assert_eq!(CompressionMethod::from_core(m.core()), m);
        }
        assert_eq!(CompressionMethod::Zstd.default_level(), 3);
        assert_eq!(CompressionMethod::from_name("lz4"), None);
    }

    #[test]
    fn descriptions_say_what_changes() {
        let c = EditRequest::Compress { node: vec![], method: CompressionMethod::Zstd, level: None, version: 3 };
        assert_eq!(c.describe(), "compressing with zstd level 3, format version 3");
        assert!(restates("compressed with zstd level 3, format version 3", &c.describe()));
        assert!(!restates("section .hip_fatbin is now 1881 bytes (was 4311)", &c.describe()));
        assert!(!restates("compressed with zstd level 3, format version 3", "decompressing"));
        assert_eq!(EditRequest::MoveEntry { node: vec![], to: 0 }.describe(), "moving the entry to position 1");
    }

    #[test]
    fn levels_are_checked_against_the_method() {
        assert_eq!(parse_level(CompressionMethod::Zstd, ""), Ok(None));
        assert_eq!(parse_level(CompressionMethod::Zstd, " 19 "), Ok(Some(19)));
        assert_eq!(parse_level(CompressionMethod::Zlib, "9"), Ok(Some(9)));
        let e = parse_level(CompressionMethod::Zlib, "12").unwrap_err();
        assert_eq!(e, "expected a zlib level from 0 to 9 (or nothing for 6), found '12'");
        assert!(parse_level(CompressionMethod::Zstd, "fast").is_err());
        assert!(parse_level(CompressionMethod::Zstd, "0").is_err());
    }

    #[test]
    fn flags_are_decimal_or_hex() {
        assert_eq!(parse_flags("7"), Ok(7));
        assert_eq!(parse_flags("0x10"), Ok(16));
        assert!(parse_flags("-1").unwrap_err().contains("found '-1'"));
        assert!(parse_flags("4294967296").is_err());
    }

    #[test]
    fn payload_names_follow_what_the_payload_is() {
        assert_eq!(payload_file_name("lib.so", NodeKind::CompressedBundle), "lib.so.hipfb");
        assert_eq!(payload_file_name("lib.so", NodeKind::Bundle), "lib.so.hipfb");
        assert_eq!(payload_file_name("a.out", NodeKind::OffloadBinary), "a.out.offbin");
        assert_eq!(payload_file_name("a.out", NodeKind::Section), "a.out.section.bin");
    }
}
