//! One line of the diagnostics list ([`super::diagnostics_list`]) standing for many diagnostics
//! that are one message but for their numbers, as `offload list` groups them: "508 × note: the
//! fatbin address is 0 …". It opens to each of them, put in the page only once opened
//! (TensorFlow's wheel has 508 such notes; listed one by one they were 2,000 elements of the
//! summary's first render).

use super::container_chain::short_label;
use super::opened_once::use_opened_once;
use crate::page::format::hex_offset;
use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use offload::tree::Diagnostic;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DiagnosticGroupProps {
    pub doc: Rc<Doc>,
    /// The group's diagnostics, in tree order: each node and the diagnostic's index on it.
    pub members: Rc<Vec<(NodeId, usize)>>,
    pub on_action: Callback<Action>,
}

/// One diagnostic's line: its severity (where `severity`), its message and a button showing the
/// byte it points at.
pub fn diagnostic_line(doc: &Doc, node: NodeId, d: &Diagnostic, on_action: &Callback<Action>, severity: bool) -> Html {
    let span = d.span.unwrap_or(doc.nodes[node].span);
    let onclick = on_action.reform(move |_: MouseEvent| Action::SelectSpan { node, span });
    html! {
        <li class={classes!("diagnostic", d.severity.as_str())}>
            if severity {
                <span class="severity">{ d.severity.as_str() }</span>{" "}
            }
            <span class="message">{ &d.message }</span>{" "}
            <button type="button" class="link where" {onclick}
                aria-label={format!("Show byte {} of space {}", hex_offset(span.offset), span.space)}>
                { format!("at {} (space {}) in {}", hex_offset(span.offset), span.space, short_label(&doc.nodes[node].label)) }
            </button>
        </li>
    }
}

/// A group's line, listing its diagnostics once opened.
#[function_component]
pub fn DiagnosticGroup(props: &DiagnosticGroupProps) -> Html {
    let (opened, ontoggle) = use_opened_once();
    let doc = &props.doc;
    let diagnostic = |&(node, i): &(NodeId, usize)| doc.nodes.get(node).and_then(|n| n.diagnostics.get(i));
    let Some(first) = props.members.first().and_then(diagnostic) else { return html! {} };
    let identical = props.members.iter().filter_map(diagnostic).all(|d| d.message == first.message);
    let severity = first.severity.as_str();
    html! {
        <li class={classes!("diagnostic", "group", severity)}>
            <details {ontoggle}>
                <summary>
                    <span class="severity">{ severity }</span>{" "}
                    <span class="count">{ format!("{} ×", offload::util::bytes::thousands(props.members.len() as u64)) }</span>{" "}
                    <span class="message">{ &first.message }</span>
                    if !identical {
                        {" "}<span class="muted">{"(numbers differ; the first is shown)"}</span>
                    }
                </summary>
                if opened {
                    <ul>
                        { for props.members.iter().filter_map(|&(node, i)| Some((node, diagnostic(&(node, i))?)))
                            .map(|(node, d)| diagnostic_line(doc, node, d, &props.on_action, false)) }
                    </ul>
                }
            </details>
        </li>
    }
}
