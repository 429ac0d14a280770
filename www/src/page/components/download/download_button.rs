//! The inspector's "Download" button for the selected node: its accessible name says what is
//! downloaded, the file name it gets is shown beside it; a node that offers nothing says why.
//!
//! Every node's name is decided at once for a document ([`Plan::of`]: names are numbered in
//! tree order); that takes half a second on a wheel of 20,000 kernels, so it is done just
//! after the document is first shown rather than before, the button waiting for it.

use crate::page::downloads::plan::Plan;
use crate::page::downloads::save::Downloader;
use crate::page::state::DownloadRequest;
use crate::wire::doc::{Doc, NodeId};
use gloo_timers::callback::Timeout;
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
    let plan = use_state(|| None::<(Rc<Doc>, Rc<Plan>)>);
    {
        let plan = plan.clone();
        use_effect_with(props.doc.clone(), move |doc| {
            let doc = doc.clone();
            // After the browser has drawn what this document shows.
            let later = Timeout::new(0, move || {
                let made = Rc::new(Plan::of(&doc));
                plan.set(Some((doc, made)));
            });
            move || drop(later)
        });
    }
    let Some(downloader) = use_context::<Downloader>() else { return html! {} };
    let Some(plan) = (*plan).as_ref().filter(|(doc, _)| Rc::ptr_eq(doc, &props.doc)).map(|(_, plan)| plan.clone())
    else {
        return html! {
            <p class="download-node muted"><button type="button" disabled=true>{"Download"}</button>{" (naming the files…)"}</p>
        };
    };
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
