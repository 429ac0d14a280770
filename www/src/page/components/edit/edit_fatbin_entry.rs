//! Compression of one NVIDIA fatbin entry: decompress a compressed entry (LZ4 or zstd; what
//! every CUDA driver reads), or compress a plain one with zstd (what `nvcc --compress-mode=size`
//! writes, read by CUDA 12.8 drivers and later). The images of a concatenated entry share its
//! payload: the form is offered on the concatenated entry, not on them.

use super::form::EditFormProps;
use offload::codec::Method;
use offload::edit::Edit;
use offload::tree::NodeKind;
use yew::prelude::*;

/// Whether the page offers whole-entry edits (remove, compress) on a fatbin entry: only on the
/// entries a container holds directly.
pub fn is_own_fatbin_entry(props: &EditFormProps) -> bool {
    let doc = &props.doc;
    let n = &doc.nodes[props.node];
    n.kind == NodeKind::FatbinEntry && n.parent.is_some_and(|p| doc.nodes[p].kind == NodeKind::Fatbin)
}

#[function_component]
pub fn EditFatbinEntry(props: &EditFormProps) -> Html {
    if !is_own_fatbin_entry(props) {
        return html! {
            <p class="muted">{"This image is part of a concatenated entry (nvcc --concat): edit the concatenated entry as a whole."}</p>
        };
    }
    let stored = props.doc.text(props.node, "compressed").unwrap_or("none").to_string();
    let send = |edit: fn(offload::edit::NodePath) -> Edit| {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| props.send(edit(props.path())))
    };
    html! {
        <div class="edit-form edit-compression" role="group" aria-label="Entry compression">
            <div class="edit-row">
                <span>{ format!("Stored: {}", if stored == "none" { "uncompressed" } else { stored.as_str() }) }</span>
                if stored == "none" {
                    <button type="button" onclick={send(|node| Edit::Compress { node, method: Method::Zstd, level: None, version: 0 })}
                        disabled={props.busy} aria-label="Compress the entry with zstd">{"Compress (zstd)"}</button>
                } else {
                    <button type="button" onclick={send(|node| Edit::Decompress { node })}
                        disabled={props.busy} aria-label="Decompress the entry">{"Decompress"}</button>
                }
            </div>
        </div>
    }
}
