//! The summary: what the file is, its device targets, the container chain of the selection,
//! and every diagnostic with where it points.

use crate::format::{hex_offset, human_size};
use crate::model::{Doc, NodeId};
use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub first_render_ms: Option<f64>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn Summary(props: &SummaryProps) -> Html {
    let doc = &props.doc;
    let container = doc.nodes.first().and_then(|n| n.fields.iter().find(|f| f.name == "container")).map(|f| f.value.display());
    let timing = match props.first_render_ms {
        Some(ms) => format!("explored in {:.0} ms, on screen {:.0} ms after opening", doc.explore_us as f64 / 1000.0, ms),
        None => format!("explored in {:.0} ms", doc.explore_us as f64 / 1000.0),
    };
    html! {
        <section class="panel summary" aria-labelledby="summary-title">
            <h2 id="summary-title" class="panel-title">{"Summary"}</h2>
            <p class="file-line">
                <strong class="file-name">{ &doc.name }</strong>
                { format!(" — {}", human_size(doc.size)) }
                { container.map(|c| format!(", {c}")).unwrap_or_default() }
                { format!(", {} byte space{}", doc.spaces.len(), if doc.spaces.len() == 1 { "" } else { "s" }) }
                <span class="timing" data-first-render-ms={props.first_render_ms.map(|ms| format!("{ms:.1}"))}>{ format!(" ({timing})") }</span>
            </p>
            <TargetTable doc={doc.clone()} selected={props.selected} on_action={props.on_action.clone()} />
            <Chain doc={doc.clone()} selected={props.selected} on_action={props.on_action.clone()} />
            <Diagnostics doc={doc.clone()} on_action={props.on_action.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PartProps {
    doc: Rc<Doc>,
    #[prop_or_default]
    selected: Option<NodeId>,
    on_action: Callback<Action>,
}

#[function_component]
fn TargetTable(props: &PartProps) -> Html {
    let doc = &props.doc;
    if doc.targets.is_empty() {
        return html! { <p class="empty" id="targets">{"No device targets found."}</p> };
    }
    let selected_target = props.selected.and_then(|s| doc.target_of(s));
    html! {
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
                    { for doc.targets.iter().enumerate().map(|(i, t)| {
                        let node = t.node;
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
        </div>
    }
}

/// The containers from the file down to the selected target (or node).
#[function_component]
fn Chain(props: &PartProps) -> Html {
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
                            <button type="button" class={classes!("crumb", format!("kind-{}", n.kind))} {onclick}
                                aria-current={(Some(id) == props.selected).then_some("true")} title={n.label.clone()}>
                                <span class="crumb-kind">{ &n.kind }</span>{" "}{ short_label(&n.label) }
                            </button>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}

/// A label without its trailing "(size)" part, to keep the chain short.
fn short_label(label: &str) -> &str {
    match label.rfind(" (") {
        Some(i) if label.ends_with(')') && i > 0 => &label[..i],
        _ => label,
    }
}

#[function_component]
fn Diagnostics(props: &PartProps) -> Html {
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
