//! The summary's table of device targets; a row's button selects its target.

use crate::page::components::download::download_archives::DownloadArchives;
use crate::page::format::human_size;
use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use yew::prelude::*;

/// Rows drawn before "Show all": a table of every image of a wheel (thousands) made the page
/// lay out tens of thousands of cells on every change.
pub const MAX_ROWS: usize = 200;

#[derive(Properties, PartialEq)]
pub struct TargetTableProps {
    pub doc: Rc<Doc>,
    #[prop_or_default]
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn TargetTable(props: &TargetTableProps) -> Html {
    let doc = &props.doc;
    if doc.targets.is_empty() {
        return html! { <p class="empty" id="targets">{"No device targets found."}</p> };
    }
    let selected_target = props.selected.and_then(|s| doc.target_of(s));
    let show_all = use_state_eq(|| false);
    // A wheel holds thousands of images: the first rows, and the selected one, until asked.
    let shown = |i: usize| *show_all || i < MAX_ROWS || selected_target == Some(i);
    let more = doc.targets.len().saturating_sub(MAX_ROWS);
    let show_more = {
        let show_all = show_all.clone();
        Callback::from(move |_: MouseEvent| show_all.set(true))
    };
    html! {
        <>
        <div class="table-scroll">
            <table class="targets" id="targets">
                <caption>{ format!("Device targets ({})", doc.targets.len()) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{"Target ID"}</th>
                        <th scope="col">{"Kind"}</th>
                        <th scope="col">{"Processor"}</th>
                        <th scope="col">{"Features"}</th>
                        <th scope="col" class="num">{"Image"}</th>
                        <th scope="col" class="num">{"Stored"}</th>
                        <th scope="col">{"Compressed"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for doc.targets.iter().enumerate().filter(|(i, _)| shown(*i)).map(|(i, info)| {
                        let (t, node) = (&info.target, info.node);
                        let onclick = props.on_action.reform(move |_: MouseEvent| Action::Select(node.unwrap_or(0)));
                        let dash = || "—".to_string();
                        html! {
                            <tr class={classes!((selected_target == Some(i)).then_some("selected"))} data-target-id={t.target_id.clone()}>
                                <th scope="row">
                                    <button type="button" class="link target-id" {onclick} disabled={node.is_none()}
                                        aria-label={format!("Select target {}", t.target_id)}>{ &t.target_id }</button>
                                </th>
                                <td>{ &t.offload_kind }</td>
                                <td>{ &t.processor }</td>
                                <td>{ if t.features.is_empty() { dash() } else { t.features.clone() } }</td>
                                <td class="num" title={format!("{} bytes", t.image_size)}>{ human_size(t.image_size) }</td>
                                <td class="num">{ t.stored_size.map(human_size).unwrap_or_else(dash) }</td>
                                <td>{ t.compression.clone().unwrap_or_else(|| "no".into()) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            if more > 0 && !*show_all {
                <button type="button" class="link show-all-targets" onclick={show_more}>
                    { format!("Show all {} device targets ({} more)", doc.targets.len(), more) }
                </button>
            }
        </div>
        <DownloadArchives doc={doc.clone()} />
        </>
    }
}
