//! The inspector's edit section: the status line of the tab's last edit and, for the selected
//! node, the forms that can change it. Each form sends the core's [`offload::edit::Edit`] to
//! the tab's worker (through [`FileRequest::Edit`]); the result is a new version of the file.

use super::edit_compression::EditCompression;
use super::edit_entry_id::EditEntryId;
use super::edit_fatbin_entry::EditFatbinEntry;
use super::edit_offload_binary::EditOffloadBinary;
use super::edit_offload_entry::EditOffloadEntry;
use super::edit_status::EditStatusLine;
use super::entry_actions::EntryActions;
use super::form::{in_bundled_object, is_binary_bundle, EditFormProps};
use crate::page::state::{EditStatus, FileRequest, TabId};
use crate::wire::doc::{Doc, NodeId};
use offload::tree::NodeKind;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EditPanelProps {
    pub doc: Rc<Doc>,
    pub node: NodeId,
    pub tab: TabId,
    pub edit: EditStatus,
    pub on_file: Callback<FileRequest>,
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
    let kind = props.doc.nodes[props.node].kind;
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
        NodeKind::BundleEntry => html! { <EditEntryId key={key.clone()} ..form.clone() /> },
        NodeKind::OffloadEntry => html! { <EditOffloadEntry key={key.clone()} ..form.clone() /> },
        NodeKind::FatbinEntry => html! { <EditFatbinEntry key={key.clone()} ..form.clone() /> },
        NodeKind::OffloadBinary => html! { <EditOffloadBinary key={key.clone()} ..form.clone() /> },
        NodeKind::CompressedBundle => html! { <EditCompression key={key.clone()} ..form.clone() /> },
        NodeKind::Bundle if is_binary_bundle(&props.doc, props.node) => {
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
