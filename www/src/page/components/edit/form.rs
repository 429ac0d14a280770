//! What every edit form gets as props (the node, and where to send its edit), and what the
//! forms ask of a node to decide what they offer.

use crate::page::state::{FileRequest, TabId};
use crate::wire::doc::{Doc, NodeId};
use offload::edit::{Edit, NodePath};
use offload::tree::NodeKind;
use std::rc::Rc;
use yew::prelude::*;

/// What every edit form gets: the node, and where to send its edit.
#[derive(Properties, PartialEq, Clone)]
pub struct EditFormProps {
    pub doc: Rc<Doc>,
    pub node: NodeId,
    pub tab: TabId,
    /// An edit is running: the forms' buttons wait.
    pub busy: bool,
    pub on_file: Callback<FileRequest>,
}

impl EditFormProps {
    /// The node's path: how the core's edits name it.
    pub fn path(&self) -> NodePath {
        self.doc.path_of(self.node)
    }

    pub fn send(&self, edit: Edit) {
        self.on_file.emit(FileRequest::Edit(self.tab, edit));
    }

    pub fn kind(&self) -> NodeKind {
        self.doc.nodes[self.node].kind
    }
}

/// Whether a bundle node is a binary bundle (which has its own header and can be compressed),
/// rather than the entries of a bundled object.
pub fn is_binary_bundle(doc: &Doc, node: NodeId) -> bool {
    doc.nodes[node].kind == NodeKind::Bundle && doc.field(node, "magic").is_some()
}

/// Whether a bundle entry belongs to a bundled object, whose entries are sections of a host
/// object: the page does not rewrite those (the core refuses), `offload bundle --type=o` does.
pub fn in_bundled_object(doc: &Doc, node: NodeId) -> bool {
    let n = &doc.nodes[node];
    n.kind == NodeKind::BundleEntry
        && n.parent.is_some_and(|p| doc.nodes[p].kind == NodeKind::Bundle && !is_binary_bundle(doc, p))
}
