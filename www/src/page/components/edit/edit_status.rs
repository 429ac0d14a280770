//! The status line of a tab's last edit: what is running, what an edit did (its notes), why it
//! was refused (with the new container alone to download when it did not fit in a linked
//! file), and the result of a hash check; work under way can be cancelled.

use crate::page::format::capitalized;
use crate::page::state::FileRequest;
use crate::page::state::{EditStatus, TabId};
use crate::wire::doc::Doc;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EditStatusProps {
    pub status: EditStatus,
    pub tab: TabId,
    pub doc: Rc<Doc>,
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn EditStatusLine(props: &EditStatusProps) -> Html {
    match &props.status {
        EditStatus::Idle => html! { <div class="edit-status idle" role="status"></div> },
        EditStatus::Running { what, stage } => {
            let tab = props.tab;
            let cancel = props.on_file.reform(move |_: MouseEvent| FileRequest::CancelWork(tab));
            html! {
                <div class="edit-status running" role="status" aria-busy="true">
                    <span class="spinner" aria-hidden="true"></span>
                    { format!("{}: {stage}…", capitalized(what)) }
                    {" "}<button type="button" class="cancel-work" onclick={cancel}>{"Cancel"}</button>
                </div>
            }
        }
        EditStatus::Cancelled { what } => html! {
            <div class="edit-status cancelled" role="status">
                <p>{ format!("Cancelled: {what}. Nothing was changed.") }</p>
            </div>
        },
        EditStatus::Done { what, notes } => html! {
            <div class="edit-status done" role="status">
                <p>{ format!("Done: {what}.") }</p>
                if !notes.is_empty() {
                    <ul class="edit-notes">{ for notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                }
            </div>
        },
        EditStatus::Failed { what, message, payload } => {
            let tab = props.tab;
            let download = props.on_file.reform(move |_: MouseEvent| FileRequest::DownloadPayload(tab));
            html! {
                <div class="edit-status failed" role="alert">
                    <p>
                        <span class="severity">{"error"}</span>{" "}
                        { if what.is_empty() { String::new() } else { format!("{}: ", capitalized(what)) } }
                        <span class="edit-error">{ message }</span>
                    </p>
                    if let Some(name) = payload {
                        <p>
                            {"The file is unchanged. The new container can still be saved on its own: "}
                            <button type="button" class="download-payload" onclick={download}
                                aria-label={format!("Download the payload alone as {name}")}>
                                { format!("Download the payload alone ({name})") }
                            </button>
                        </p>
                    }
                </div>
            }
        }
        EditStatus::Verified(v) => {
            let label = props.doc.node_at(&v.node).map(|id| props.doc.nodes[id].label.clone()).unwrap_or_default();
            let (class, verdict) = if v.matches() {
                ("verified ok", "the hash matches")
            } else {
                ("verified mismatch", "the hash does NOT match")
            };
            let (stored, computed) = (v.stored, v.computed);
            html! {
                <div class={classes!("edit-status", class)} role="status" data-verify={v.matches().to_string()}>
                    <p>{ format!("{label}: {verdict}: stored 0x{stored:016x}, computed 0x{computed:016x} (the first 8 bytes of the MD5 of the decompressed bundle).") }</p>
                </div>
            }
        }
    }
}
