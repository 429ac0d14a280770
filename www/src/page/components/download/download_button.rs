//! The inspector's "Download" button for the selected node: its accessible name says what is
//! downloaded, the file name it gets is shown beside it; a node that offers nothing says why.

use crate::page::downloads::plan::Plan;
use crate::page::downloads::save::Downloader;
use crate::page::state::DownloadRequest;
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DownloadButtonProps {
    pub doc: Rc<Doc>,
    pub node: NodeId,
}

#[function_component]
pub fn DownloadButton(props: &DownloadButtonProps) -> Html {
    // One plan per document: selecting another node does not recompute every name.
    let plan = use_memo(props.doc.clone(), |doc| Plan::of(doc));
    let Some(downloader) = use_context::<Downloader>() else { return html! {} };
    match plan.for_node(&props.doc, props.node) {
        Ok(offer) => {
            let node = props.node;
            let onclick = downloader.request.reform(move |_: MouseEvent| DownloadRequest::Node(node));
            html! {
                <p class="download-node">
                    <button type="button" {onclick} aria-label={format!("Download {}", offer.what)} title="Download these bytes (d)">{"Download"}</button>
                    {" as "}<span class="mono download-name">{ &offer.name }</span>
                </p>
            }
        }
        Err(why) => html! {
            <p class="download-node muted">{ format!("Nothing to download: {why}.") }</p>
        },
    }
}
