//! Edits as they cross the worker boundary: the page sends the core's own [`Edit`] (its
//! `serde` feature carries it), naming nodes by their path of child indices from the tree's
//! root ([`crate::wire::doc::Doc::path_of`]); the worker applies it as it is. Both sides say
//! the same thing about an edit while it runs ([`describe`]), and a hash check answers with
//! one [`Verified`].

use offload::edit::{Edit, NodePath};
use serde::{Deserialize, Serialize};

/// The answer to a hash check: the stored and the computed truncated MD5 of the compressed
/// bundle at `node`. The worker sends it, the reducer keeps it as the tab's edit status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    pub node: NodePath,
    pub stored: u64,
    pub computed: u64,
}

impl Verified {
    pub fn matches(&self) -> bool {
        self.stored == self.computed
    }
}

/// The node an edit is about (for an added entry, its container).
pub fn edited_node(edit: &Edit) -> &[usize] {
    match edit {
        Edit::SetEntryId { node, .. }
        | Edit::SetString { node, .. }
        | Edit::SetImageKind { node, .. }
        | Edit::SetOffloadKind { node, .. }
        | Edit::SetFlags { node, .. }
        | Edit::RemoveEntry { node }
        | Edit::MoveEntry { node, .. }
        | Edit::ReplaceContent { node, .. }
        | Edit::Compress { node, .. }
        | Edit::Decompress { node }
        | Edit::OffloadBinaryToV1 { node } => node,
        Edit::AddEntry { container, .. } => container,
        Edit::DropTargets { .. } => &[],
    }
}

/// What the page says while an edit runs (the worker's first progress report says it too).
pub fn describe(edit: &Edit) -> String {
    match edit {
        Edit::SetEntryId { id, .. } => format!("setting the entry ID to {id}"),
        Edit::SetString { key, value: Some(v), .. } => format!("setting {key} to {v}"),
        Edit::SetString { key, value: None, .. } => format!("removing {key}"),
        Edit::SetImageKind { kind, .. } => format!("setting the image kind to {kind}"),
        Edit::SetOffloadKind { kind, .. } => format!("setting the offload kind to {kind}"),
        Edit::SetFlags { flags, .. } => format!("setting the flags to {flags}"),
        Edit::RemoveEntry { .. } => "removing the entry".into(),
        Edit::MoveEntry { to, .. } => format!("moving the entry to position {}", to + 1),
        Edit::AddEntry { entry, .. } => format!("adding an entry of {} bytes", entry.data.len()),
        Edit::ReplaceContent { data, .. } => format!("replacing the contents with {} bytes", data.len()),
        Edit::Compress { method, level, version, .. } => {
            let level = level.unwrap_or_else(|| method.default_level());
            format!("compressing with {} level {level}, format version {version}", method.name())
        }
        Edit::Decompress { .. } => "decompressing".into(),
        Edit::DropTargets { targets } => format!("removing every image of {}", targets.join(", ")),
        Edit::OffloadBinaryToV1 { .. } => "writing the offload binary as version 1 binaries".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offload::codec::Method;
    use offload::edit::NewEntry;

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn edits_survive_serialization() {
        let entry =
            NewEntry { strings: vec![("arch".into(), "gfx90a".into())], data: vec![0, 255], ..Default::default() };
        let edits = [
            Edit::SetString { node: vec![0, 1, 2], key: "triple".into(), value: Some("amdgcn-amd-amdpal".into()) },
            Edit::AddEntry { container: vec![0], entry },
            Edit::Compress { node: vec![], method: Method::Zstd, level: Some(-5), version: 1 },
        ];
        for e in edits {
            let text = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<Edit>(&text).unwrap(), e, "{text}");
        }
        let verified = Verified { node: vec![0, 2], stored: u64::MAX, computed: 1 };
        let text = serde_json::to_string(&verified).unwrap();
        assert_eq!(serde_json::from_str::<Verified>(&text).unwrap(), verified);
        assert!(!verified.matches());
    }

    #[test]
    fn node_is_the_edited_node_or_the_container() {
        assert_eq!(edited_node(&Edit::Decompress { node: vec![0, 2] }), &[0, 2]);
        assert_eq!(edited_node(&Edit::AddEntry { container: vec![1], entry: NewEntry::default() }), &[1]);
    }

    /// The page's method box lists the methods by name and reads the choice back by name.
    #[test]
    fn methods_round_trip_through_their_names() {
        for m in Method::ALL {
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::Zstd.default_level(), 3);
        assert_eq!(Method::from_name("lz4"), None);
    }

    #[test]
    fn descriptions_say_what_changes() {
        let c = Edit::Compress { node: vec![], method: Method::Zstd, level: None, version: 3 };
        assert_eq!(describe(&c), "compressing with zstd level 3, format version 3");
        assert_eq!(describe(&Edit::MoveEntry { node: vec![], to: 0 }), "moving the entry to position 1");
    }
}
