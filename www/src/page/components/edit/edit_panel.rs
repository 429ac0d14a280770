//! The inspector's edit section: the status line of the tab's last edit and, for the selected
//! node, the forms that can change it. Each form sends an [`EditRequest`] to the tab's worker
//! (through [`FileRequest::Edit`]); the result is a new version of the file.

use super::app::FileRequest;
use super::edit_compression::EditCompression;
use super::edit_entry_id::EditEntryId;
use super::edit_offload_entry::EditOffloadEntry;
use super::edit_status::EditStatusLine;
use super::entry_actions::EntryActions;
use crate::edit_request::EditRequest;
use crate::model::{Doc, NodeId};
use crate::state::{EditStatus, TabId};
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
    pub fn path(&self) -> Vec<usize> {
        self.doc.path_of(self.node)
    }

    pub fn send(&self, edit: EditRequest) {
        self.on_file.emit(FileRequest::Edit(self.tab, edit));
    }

    pub fn kind(&self) -> &str {
        &self.doc.nodes[self.node].kind
    }
}

#[derive(Properties, PartialEq)]
pub struct EditPanelProps {
    pub doc: Rc<Doc>,
    pub node: NodeId,
    pub tab: TabId,
    pub edit: EditStatus,
    pub on_file: Callback<FileRequest>,
}

/// Whether a bundle node is a binary bundle (which has its own header and can be compressed),
/// rather than the entries of a bundled object.
pub fn is_binary_bundle(doc: &Doc, node: NodeId) -> bool {
    doc.nodes[node].kind == "bundle" && doc.field(node, "magic").is_some()
}

/// Whether a bundle entry belongs to a bundled object, whose entries are sections of a host
/// object: the page does not rewrite those (the core refuses), `offload bundle --type=o` does.
pub fn in_bundled_object(doc: &Doc, node: NodeId) -> bool {
    let n = &doc.nodes[node];
    n.kind == "bundle-entry" && n.parent.is_some_and(|p| doc.nodes[p].kind == "bundle" && !is_binary_bundle(doc, p))
}

#[function_component]
pub fn EditPanel(props: &EditPanelProps) -> Html {
    let form = EditFormProps {
        doc: props.doc.clone(),
        node: props.node,
        tab: props.tab,
        busy: props.edit.is_running(),
        on_file: props.on_file.clone(),
    };
    // Forms start again from the file's values whenever the file or the selection changes.
    let key = format!("{:p}-{}", Rc::as_ptr(&props.doc), props.node);
    let kind = props.doc.nodes[props.node].kind.as_str();
    if in_bundled_object(&props.doc, props.node) {
        return html! {
            <section class="edit-panel" aria-labelledby="edit-title">
                <h3 id="edit-title" class="edit-title">{"Edit"}</h3>
                <EditStatusLine status={props.edit.clone()} tab={props.tab} doc={props.doc.clone()} on_file={props.on_file.clone()} />
                <p class="muted">{"The entries of a bundled object are sections of the host object: rewrite them with "}<code>{"offload bundle --type=o"}</code>{", not in the page."}</p>
            </section>
        };
    }
    let specific = match kind {
        "bundle-entry" => html! { <EditEntryId key={key.clone()} ..form.clone() /> },
        "offload-entry" => html! { <EditOffloadEntry key={key.clone()} ..form.clone() /> },
        "compressed-bundle" => html! { <EditCompression key={key.clone()} ..form.clone() /> },
        "bundle" if is_binary_bundle(&props.doc, props.node) => {
            html! { <EditCompression key={key.clone()} ..form.clone() /> }
        }
        _ => html! {},
    };
    html! {
        <section class="edit-panel" aria-labelledby="edit-title">
            <h3 id="edit-title" class="edit-title">{"Edit"}</h3>
            <EditStatusLine status={props.edit.clone()} tab={props.tab} doc={props.doc.clone()} on_file={props.on_file.clone()} />
            { specific }
            <EntryActions key={format!("actions-{key}")} ..form />
        </section>
    }
}
