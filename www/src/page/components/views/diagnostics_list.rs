//! Every diagnostic of the file, in tree order, each with the byte it points at (a button that
//! shows it in the hex view). More than [`GROUP_OVER`] warnings or notes that are one message but
//! for their numbers (`offload::report::diagnostics::pattern`) are one line where the first of them
//! is, opening to them all ([`super::diagnostic_group`]).

use super::diagnostic_group::{diagnostic_line, DiagnosticGroup};
use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use offload::report::diagnostics::pattern;
use offload::tree::{Diagnostic, Severity};
use std::collections::HashMap;
use std::rc::Rc;
use yew::prelude::*;

/// Diagnostics of one message (but for numbers) past this many are one line.
pub const GROUP_OVER: usize = 10;

/// A line of the list: one diagnostic, or a group of them (each a node and the diagnostic's
/// index on it), in the order of their first.
enum Line<'d> {
    One(NodeId, &'d Diagnostic),
    Group(Vec<(NodeId, usize)>),
}

/// The file's diagnostics as the list shows them, in tree order.
fn lines(doc: &Doc) -> Vec<Line<'_>> {
    let all: Vec<(NodeId, usize, &Diagnostic, String)> = (doc.nodes.iter().enumerate())
        .flat_map(|(id, n)| n.diagnostics.iter().enumerate().map(move |(i, d)| (id, i, d, pattern(&d.message))))
        .collect();
    let mut groups: HashMap<(u8, &str), Vec<(NodeId, usize)>> = HashMap::new();
    for (node, i, d, pattern) in &all {
        groups.entry((d.severity as u8, pattern.as_str())).or_default().push((*node, *i));
    }
    let mut lines = Vec::new();
    for (node, _, d, pattern) in &all {
        if d.severity == Severity::Error {
            // Errors each have their line, as they matter one by one.
            lines.push(Line::One(*node, d));
            continue;
        }
        match groups.get_mut(&(d.severity as u8, pattern.as_str())) {
            Some(members) if members.len() > GROUP_OVER => lines.push(Line::Group(std::mem::take(members))),
            // Taken by its first: a later member of a group.
            Some(members) if members.is_empty() => {}
            _ => lines.push(Line::One(*node, d)),
        }
    }
    lines
}

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
    let total = doc.nodes.iter().map(|n| n.diagnostics.len()).sum::<usize>();
    if total == 0 {
        return html! { <p class="empty">{"No diagnostics."}</p> };
    }
    html! {
        <div class="diagnostics">
            <h3>{ format!("Diagnostics ({total})") }</h3>
            <ul>
                { for lines(doc).into_iter().map(|line| match line {
                    Line::Group(members) => html! {
                        <DiagnosticGroup doc={doc.clone()} members={Rc::new(members)} on_action={props.on_action.clone()} />
                    },
                    Line::One(node, d) => diagnostic_line(doc, node, d, &props.on_action, true),
                }) }
            </ul>
        </div>
    }
}
