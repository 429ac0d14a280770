//! The containers from the file down to the selected target (or node): section → compressed
//! bundle → decompressed bundle → bundle → entry, each a button that selects it.

use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ChainProps {
    pub doc: Rc<Doc>,
    #[prop_or_default]
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn Chain(props: &ChainProps) -> Html {
    let doc = &props.doc;
    let Some(selected) = props.selected else { return html! {} };
    let end = props.selected.and_then(|s| doc.target_of(s)).and_then(|t| doc.targets[t].node).unwrap_or(selected);
    let mut chain: Vec<NodeId> = doc.ancestors(end).into_iter().rev().collect();
    chain.push(end);
    html! {
        <nav class="chain" aria-label="Container chain">
            <ol>
                { for chain.into_iter().map(|id| {
                    let n = &doc.nodes[id];
                    let onclick = props.on_action.reform(move |_: MouseEvent| Action::Select(id));
                    html! {
                        <li>
                            <button type="button" class={classes!("crumb", format!("kind-{}", n.kind.as_str()))} {onclick}
                                aria-current={(Some(id) == props.selected).then_some("true")} title={n.label.clone()}>
                                <span class="crumb-kind">{ n.kind.as_str() }</span>{" "}{ short_label(&n.label) }
                            </button>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}

/// A label without its trailing "(size)" part, to keep the chain short.
pub fn short_label(label: &str) -> &str {
    match label.rfind(" (") {
        Some(i) if label.ends_with(')') && i > 0 => &label[..i],
        _ => label,
    }
}
