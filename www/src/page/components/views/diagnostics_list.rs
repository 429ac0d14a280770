//! Every diagnostic of the file, in tree order, each with the byte it points at (a button that
//! shows it in the hex view).

use super::container_chain::short_label;
use crate::page::format::hex_offset;
use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DiagnosticsProps {
    pub doc: Rc<Doc>,
    #[prop_or_default]
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn Diagnostics(props: &DiagnosticsProps) -> Html {
    let doc = &props.doc;
    let all = doc.diagnostics();
    if all.is_empty() {
        return html! { <p class="empty">{"No diagnostics."}</p> };
    }
    html! {
        <div class="diagnostics">
            <h3>{ format!("Diagnostics ({})", all.len()) }</h3>
            <ul>
                { for all.into_iter().map(|(node, d)| {
                    let span = d.span.unwrap_or(doc.nodes[node].span);
                    let onclick = props.on_action.reform(move |_: MouseEvent| Action::SelectSpan { node, span });
                    html! {
                        <li class={classes!("diagnostic", d.severity.as_str())}>
                            <span class="severity">{ d.severity.as_str() }</span>{" "}
                            <span class="message">{ &d.message }</span>{" "}
                            <button type="button" class="link where" {onclick}
                                aria-label={format!("Show byte {} of space {}", hex_offset(span.offset), span.space)}>
                                { format!("at {} (space {}) in {}", hex_offset(span.offset), span.space, short_label(&doc.nodes[node].label)) }
                            </button>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
