//! Actions on the selected node as a whole: remove or move an entry among its container's
//! entries (a fatbin entry is removed, not moved), replace a node's contents with a file's
//! bytes, add an entry from a file (see `add_entry`).

use super::add_entry::{AddEntry, NewEntryKind};
use super::edit_fatbin_entry::is_own_fatbin_entry;
use super::form::{is_binary_bundle, EditFormProps};
use crate::page::bytes::read_blob;
use crate::wire::doc::{Doc, NodeId};
use offload::edit::{Edit, NodePath};
use offload::tree::{NodeKind, Value};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The entry's position among the entries it can be moved between, and how many there are.
/// A version 1 offload binary holds one entry: moving it moves the binary among the binaries
/// of its section.
fn position(doc: &Doc, node: NodeId) -> Option<(usize, usize)> {
    let n = &doc.nodes[node];
    let parent = n.parent?;
    let p = &doc.nodes[parent];
    let of_kind = |container: NodeId, kind: NodeKind| -> Vec<NodeId> {
        doc.nodes[container].children.iter().copied().filter(|&c| doc.nodes[c].kind == kind).collect()
    };
    let (siblings, me) = if n.kind == NodeKind::OffloadEntry
        && p.kind == NodeKind::OffloadBinary
        && doc.field(parent, "version") == Some(&Value::Uint(1))
    {
        (of_kind(p.parent?, NodeKind::OffloadBinary), parent)
    } else {
        (of_kind(parent, n.kind), node)
    };
    Some((siblings.iter().position(|&s| s == me)?, siblings.len()))
}

/// What can be added to a node, if anything.
fn new_entry_kind(doc: &Doc, node: NodeId) -> Option<NewEntryKind> {
    let n = &doc.nodes[node];
    let holds_binaries = || n.children.iter().any(|&c| doc.nodes[c].kind == NodeKind::OffloadBinary);
    match n.kind {
        NodeKind::Bundle if is_binary_bundle(doc, node) => Some(NewEntryKind::BundleEntry),
        NodeKind::TextBundle => Some(NewEntryKind::BundleEntry),
        NodeKind::OffloadBinary => Some(NewEntryKind::OffloadEntry),
        NodeKind::Section | NodeKind::File if holds_binaries() => Some(NewEntryKind::OffloadEntry),
        _ => None,
    }
}

#[function_component]
pub fn EntryActions(props: &EditFormProps) -> Html {
    let read_error = use_state(|| None::<String>);
    let kind = props.kind();
    let own_fatbin_entry = is_own_fatbin_entry(props);
    let is_entry = matches!(kind, NodeKind::BundleEntry | NodeKind::OffloadEntry) || own_fatbin_entry;
    let replaceable =
        matches!(kind, NodeKind::Image | NodeKind::BundleEntry | NodeKind::OffloadEntry | NodeKind::ArchiveMember)
            || own_fatbin_entry;
    let adds = new_entry_kind(&props.doc, props.node);
    if !is_entry && !replaceable && adds.is_none() {
        return html! {};
    }
    let send = |edit: fn(NodePath) -> Edit| {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| props.send(edit(props.path())))
    };
    // Fatbin entries are not moved: the CUDA runtime picks an image by architecture, not order.
    let moves = position(&props.doc, props.node).filter(|_| !own_fatbin_entry).map(|(index, count)| {
        let move_to = |to: usize| {
            let props = props.clone();
            Callback::from(move |_: MouseEvent| props.send(Edit::MoveEntry { node: props.path(), to }))
        };
        html! {
            <>
                <button type="button" onclick={move_to(index.saturating_sub(1))} disabled={index == 0 || props.busy}>{"Move up"}</button>
                <button type="button" onclick={move_to(index + 1)} disabled={index + 1 >= count || props.busy}>{"Move down"}</button>
            </>
        }
    });
    let on_replace = {
        let (props, read_error) = (props.clone(), read_error.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            // The same file can be chosen again.
            input.set_value("");
            let (props, read_error) = (props.clone(), read_error.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match read_blob(&file, 0, file.size() as u64).await {
                    Ok(data) => {
                        read_error.set(None);
                        props.send(Edit::ReplaceContent { node: props.path(), data });
                    }
                    Err(e) => read_error.set(Some(format!("{} could not be read: {e}", file.name()))),
                }
            });
        })
    };
    let replace_id = format!("replace-{}", props.node);
    html! {
        <div class="edit-form entry-actions" role="group" aria-label="Entry actions">
            if is_entry {
                <div class="edit-row">
                    <button type="button" class="remove-entry" onclick={send(|node| Edit::RemoveEntry { node })} disabled={props.busy}>{"Remove entry"}</button>
                    { moves.unwrap_or_default() }
                </div>
            }
            if replaceable {
                <div class="edit-row">
                    <label for={replace_id.clone()}>{"Replace contents from file…"}</label>
                    <input id={replace_id} type="file" onchange={on_replace} disabled={props.busy} />
                </div>
            }
            if let Some(e) = &*read_error {
                <p class="field-problem">{ e }</p>
            }
            if let Some(kind) = adds {
                <AddEntry kind={kind} form={props.clone()} />
            }
        </div>
    }
}
