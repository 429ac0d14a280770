//! Decompressing on demand: a compressed bundle larger than the size decompressed on opening
//! is listed from its header only, and its entries have no bytes yet. When such an entry is
//! selected, the bundle is decompressed (and its hash checked) in the tab's worker, with its
//! progress and a Cancel button here; the bundle node itself offers the same with a button.
//! After a Cancel, nothing starts again on selection until the button is pressed.

use crate::page::format::human_size;
use crate::page::state::{FileRequest, TabId, Unpack};
use crate::wire::doc::{Doc, NodeId};
use offload::tree::{NodeKind, Severity};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DecompressPromptProps {
    pub doc: Rc<Doc>,
    pub node: NodeId,
    pub tab: TabId,
    pub unpack: Unpack,
    /// Another edit or check is running in the tab's worker.
    pub busy: bool,
    pub on_file: Callback<FileRequest>,
}

/// The compressed bundle at or above `node` whose bytes were not decompressed (only its bundle
/// header was), and its uncompressed size.
pub fn listed_bundle(doc: &Doc, node: NodeId) -> Option<(NodeId, u64)> {
    let mut at = Some(node);
    while let Some(id) = at {
        let n = doc.nodes.get(id)?;
        if n.kind == NodeKind::CompressedBundle {
            let header_only = n.children.iter().map(|&c| &doc.nodes[c]).find(|c| {
                c.kind == NodeKind::Decompressed
                    && doc.spaces.get(c.span.space as usize).is_some_and(|s| s.available < s.size)
            })?;
            return Some((id, header_only.span.size));
        }
        at = n.parent;
    }
    None
}

#[function_component]
pub fn DecompressPrompt(props: &DecompressPromptProps) -> Html {
    let listed = listed_bundle(&props.doc, props.node);
    // An entry of such a bundle selected: decompress it now, unless the user cancelled that,
    // the worker is busy, or the bundle already says it cannot be (over the size limit).
    {
        let (doc, node, tab, on_file) = (props.doc.clone(), props.node, props.tab, props.on_file.clone());
        let may_start = matches!(props.unpack, Unpack::Idle | Unpack::Done { .. }) && !props.busy;
        use_effect_with((Rc::as_ptr(&props.doc), props.node), move |_| {
            if let Some((bundle, _)) = listed.filter(|&(bundle, _)| bundle != node && may_start) {
                if !doc.nodes[bundle].diagnostics.iter().any(|d| d.severity == Severity::Error) {
                    on_file.emit(FileRequest::Decompress(tab, doc.path_of(bundle)));
                }
            }
        });
    }
    let Some((bundle, size)) = listed else { return html! {} };
    let label = &props.doc.nodes[bundle].label;
    let start = {
        let (tab, path) = (props.tab, props.doc.path_of(bundle));
        props.on_file.reform(move |_: MouseEvent| FileRequest::Decompress(tab, path.clone()))
    };
    let button = html! {
        <button type="button" class="decompress" onclick={start} disabled={props.busy}>
            { format!("Decompress and verify ({})", human_size(size)) }
        </button>
    };
    match &props.unpack {
        Unpack::Running { done, total } => {
            let tab = props.tab;
            let cancel = props.on_file.reform(move |_: MouseEvent| FileRequest::CancelWork(tab));
            let total = if *total == 0 { size } else { *total };
            html! {
                <div class="decompress-prompt running" role="status" aria-busy="true">
                    <p>{ format!("Decompressing {label}: {} of {}…", human_size(*done), human_size(total)) }</p>
                    <progress class="work-progress" max={total.to_string()} value={done.to_string()}
                        aria-label="Decompression progress"></progress>
                    {" "}<button type="button" class="cancel-work" onclick={cancel}>{"Cancel"}</button>
                </div>
            }
        }
        Unpack::Failed(message) => html! {
            <div class="decompress-prompt failed" role="alert">
                <p><span class="severity">{"error"}</span>{" "}{ format!("Decompressing {label} failed: {message}") }</p>
                { button }
            </div>
        },
        other => html! {
            <div class="decompress-prompt" role="status">
                <p>
                    if matches!(other, Unpack::Cancelled) { {"Decompression cancelled. "} }
                    { format!("{label} was listed from its header only: its {} are not decompressed yet.", human_size(size)) }
                </p>
                { button }
            </div>
        },
    }
}
