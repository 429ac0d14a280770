//! One tab per open file, each with its close button.

use crate::page::state::FileRequest;
use crate::page::state::{Action, Status, Tab, TabId};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TabBarProps {
    pub tabs: Vec<Tab>,
    pub active: Option<TabId>,
    pub on_action: Callback<Action>,
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn TabBar(props: &TabBarProps) -> Html {
    if props.tabs.is_empty() {
        return html! {};
    }
    html! {
        <nav class="tab-bar" aria-label="Open files">
            <div role="tablist" aria-label="Open files">
                { for props.tabs.iter().map(|tab| {
                    let id = tab.id;
                    let selected = props.active == Some(id);
                    let activate = props.on_action.reform(move |_: MouseEvent| Action::Activate(id));
                    let close = props.on_file.reform(move |_: MouseEvent| FileRequest::Close(id));
                    let (status_class, status_text) = status_of(tab);
                    html! {
                        <div class={classes!("tab", selected.then_some("active"))} key={id}>
                            <button type="button" role="tab" id={format!("tab-{id}")} aria-selected={selected.to_string()}
                                aria-controls="tab-panel" tabindex={if selected { "0" } else { "-1" }} onclick={activate}
                                title={tab.name.clone()}>
                                <span class={classes!("status-dot", status_class)} aria-hidden="true"></span>
                                <span class="tab-name">{ &tab.name }</span>
                                if tab.is_edited() {
                                    <span class="badge edited tab-edited" title="edited: the file shown differs from the file opened">{"edited"}</span>
                                }
                                <span class="visually-hidden">{ status_text }</span>
                            </button>
                            <button type="button" class="tab-close" aria-label={format!("Close {}", tab.name)} title="Close (w)" onclick={close}>{"×"}</button>
                        </div>
                    }
                }) }
            </div>
        </nav>
    }
}

fn status_of(tab: &Tab) -> (&'static str, &'static str) {
    match &tab.status {
        Status::Loading(_) => ("loading", ", exploring"),
        Status::Failed(_) => ("error", ", failed"),
        Status::Cancelled => ("cancelled", ", cancelled"),
        Status::Ready(doc) => match doc.nodes.first().and_then(|n| n.worst) {
            Some(offload::tree::Severity::Error) => ("error", ", has errors"),
            Some(offload::tree::Severity::Warning) => ("warning", ", has warnings"),
            _ => ("ok", ""),
        },
    }
}
