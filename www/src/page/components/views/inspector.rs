//! The inspector: the selected node's place, its fields (offset, size, decoded value, raw bytes
//! as a hex dump) and its diagnostics. Clicking a field's offset shows its bytes in the hex view.

use crate::page::bytes::Bytes;
use crate::page::code::subject;
use crate::page::components::download::download_button::DownloadButton;
use crate::page::components::edit::edit_panel::EditPanel;
use crate::page::components::views::decompress_prompt::DecompressPrompt;
use crate::page::format::{hex_offset, hex_rows, human_size};
use crate::page::state::FileRequest;
use crate::page::state::{Action, EditStatus, TabId, Unpack, View};
use crate::wire::doc::{display_value, Doc, FieldInfo, NodeId, RAW_FIELD_LIMIT};
use offload::tree::Value;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
    /// The tab, for its edits.
    #[prop_or_default]
    pub tab: TabId,
    /// Nodes changed by the edits that made the shown version.
    #[prop_or_default]
    pub marked: Vec<NodeId>,
    #[prop_or_default]
    pub edit: EditStatus,
    /// Where decompressing a bundle listed from its header stands.
    #[prop_or_default]
    pub unpack: Unpack,
    /// Where edits go; without it the inspector only shows.
    #[prop_or_default]
    pub on_file: Option<Callback<FileRequest>>,
    /// Who has the fields of nodes the document came without
    /// ([`crate::wire::doc::NodeInfo::fields_elided`]).
    #[prop_or_default]
    pub bytes: Option<Bytes>,
}

/// The fields of a node sent without them, as the explorer's answer stands.
#[derive(Clone, PartialEq)]
enum Asked {
    Waiting,
    Got(Rc<Vec<FieldInfo>>),
    Failed(String),
}

/// The fields to show of node `id` of `doc`: its own, or for a node the document has only some
/// of (a kernel of a file with thousands), all of them once the explorer sends them, with where
/// that request stands. The node the answer is for is kept beside it, so that a late answer for
/// a node no longer selected is not shown for another.
#[hook]
fn use_fields(doc: &Rc<Doc>, id: Option<NodeId>, bytes: Option<Bytes>) -> (Rc<Vec<FieldInfo>>, Option<Asked>) {
    let asked = use_state(|| None::<(NodeId, Asked)>);
    let elided = id.filter(|&i| doc.nodes.get(i).is_some_and(|n| n.fields_elided));
    {
        let asked = asked.clone();
        use_effect_with((elided, bytes, doc.clone()), move |(elided, bytes, _)| {
            if let (Some(node), Some(bytes)) = (*elided, bytes.clone()) {
                asked.set(Some((node, Asked::Waiting)));
                wasm_bindgen_futures::spawn_local(async move {
                    let answer = bytes.0.fields(node).await;
                    asked.set(Some((node, answer.map_or_else(Asked::Failed, |f| Asked::Got(Rc::new(f))))));
                });
            }
        });
    }
    let own = || Rc::new(id.and_then(|i| doc.nodes.get(i)).map(|n| n.fields.clone()).unwrap_or_default());
    match (elided, (*asked).clone()) {
        (Some(node), Some((for_node, Asked::Got(fields)))) if for_node == node => (fields, None),
        (Some(node), Some((for_node, state))) if for_node == node => (own(), Some(state)),
        (Some(_), _) => (own(), Some(Asked::Waiting)),
        (None, _) => (own(), None),
    }
}

#[function_component]
pub fn Inspector(props: &InspectorProps) -> Html {
    let doc = &props.doc;
    let (fields, asked) = use_fields(doc, props.selected, props.bytes.clone());
    let Some((id, n)) = props.selected.and_then(|id| doc.nodes.get(id).map(|n| (id, n))) else {
        return html! {
            <section class="panel inspector" aria-labelledby="inspector-title">
                <h2 id="inspector-title" class="panel-title">{"Inspector"}</h2>
                <p class="empty">{"Select a node in the tree, the map or the hex view."}</p>
            </section>
        };
    };
    let space = doc.spaces.get(n.span.space as usize).map_or("unknown", |s| s.label.as_str());
    html! {
        <section class="panel inspector" aria-labelledby="inspector-title">
            <h2 id="inspector-title" class="panel-title">{"Inspector"}</h2>
            <h3 class={classes!("node-label", props.marked.contains(&id).then_some("edited"))}>
                { &n.label }
                if props.marked.contains(&id) {
                    {" "}<span class="badge edited" title="changed by an edit">{"edited"}</span>
                }
            </h3>
            <dl class="node-facts">
                <dt>{"Kind"}</dt><dd><span class={classes!("swatch", format!("kind-{}", n.kind.as_str()))} aria-hidden="true"></span>{ n.kind.as_str() }</dd>
                <dt>{"Byte space"}</dt><dd>{ format!("{} ({space})", n.span.space) }</dd>
                <dt>{"Offset"}</dt><dd>{ format!("{} ({})", hex_offset(n.span.offset), n.span.offset) }</dd>
                <dt>{"Size"}</dt><dd>{ format!("{} ({} bytes)", human_size(n.span.size), n.span.size) }</dd>
                <dt>{"End"}</dt><dd>{ hex_offset(n.span.end()) }</dd>
            </dl>
            if let Some(on_file) = &props.on_file {
                <DecompressPrompt doc={doc.clone()} node={id} tab={props.tab} unpack={props.unpack.clone()}
                    busy={props.edit.is_running()} on_file={on_file.clone()} />
            }
            <DownloadButton doc={doc.clone()} node={id} />
            if subject(doc, Some(id)).is_some() {
                <button type="button" class="show-code" title="Show this image's code in the Code view (7)"
                    onclick={props.on_action.reform(|_: MouseEvent| Action::ShowView(View::Code))}>{"Code"}</button>
            }
            { asked_note(asked.as_ref()) }
            if fields.is_empty() {
                <p class="empty">{"No fields."}</p>
            } else {
                <div class="table-scroll">
                    <table class="fields">
                        <caption>{ format!("Fields ({})", fields.len()) }</caption>
                        <thead>
                            <tr>
                                <th scope="col">{"Field"}</th>
                                <th scope="col">{"Offset"}</th>
                                <th scope="col" class="num">{"Size"}</th>
                                <th scope="col">{"Value"}</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for fields.iter().map(|info| field_rows(info, id, &props.on_action)) }
                        </tbody>
                    </table>
                </div>
            }
            if !n.diagnostics.is_empty() {
                <ul class="node-diagnostics" aria-label="Diagnostics of this node">
                    { for n.diagnostics.iter().map(|d| {
                        let at = d.span.map(|s| format!(" (at {} in space {})", hex_offset(s.offset), s.space)).unwrap_or_default();
                        html! {
                            <li class={classes!("diagnostic", d.severity.as_str())}>
                                <span class="severity">{ d.severity.as_str() }</span>{" "}{ &d.message }{ at }
                            </li>
                        }
                    }) }
                </ul>
            }
            if let Some(on_file) = &props.on_file {
                <EditPanel doc={doc.clone()} node={id} tab={props.tab} edit={props.edit.clone()} on_file={on_file.clone()} />
            }
        </section>
    }
}

/// Where asking the explorer for the node's other fields stands, when it was asked.
fn asked_note(asked: Option<&Asked>) -> Html {
    match asked {
        Some(Asked::Waiting) => html! { <p class="note muted" role="status">{"Reading this node's other fields…"}</p> },
        Some(Asked::Failed(why)) => {
            html! { <p class="note error" role="alert">{ format!("This node's other fields could not be read: {why}") }</p> }
        }
        Some(Asked::Got(_)) | None => html! {},
    }
}

/// A field's row: its name, offset (a link to its bytes), size and value, and under them, on a
/// line of their own as wide as those three columns, its raw bytes. In a Raw column of its own
/// the bytes took the room of the value or the value theirs: the inspector is a quarter of the
/// window, and the field names alone take a third of it.
fn field_rows(info: &FieldInfo, node: NodeId, on_action: &Callback<Action>) -> Html {
    let f = &info.field;
    let offset = match f.span {
        Some(span) => {
            let onclick = on_action.reform(move |_: MouseEvent| Action::SelectSpan { node, span });
            html! {
                <button type="button" class="link" {onclick}
                    aria-label={format!("Show the bytes of {} at {}", f.name, hex_offset(span.offset))}>
                    { hex_offset(span.offset) }
                </button>
            }
        }
        None => html! { <span class="muted" title="derived, not read from one place">{"—"}</span> },
    };
    let raw = match (&info.raw, f.span) {
        (Some(raw), _) => Some(raw_hex(raw)),
        (None, Some(s)) if s.size > RAW_FIELD_LIMIT => Some(html! { format!("{} bytes", s.size) }),
        _ => None,
    };
    let lines = if raw.is_some() { "2" } else { "1" };
    html! {
        <>
            <tr data-field={f.name.clone()} class={classes!(raw.is_some().then_some("with-raw"))}>
                <th scope="row" rowspan={lines}>{ &f.name }</th>
                <td class="mono offset">{ offset }</td>
                <td class="num">{ f.span.map(|s| s.size.to_string()).unwrap_or_default() }</td>
                <td class="value">{ value(&f.value) }</td>
            </tr>
            if let Some(raw) = raw {
                <tr class="raw-line" data-raw-of={f.name.clone()}>
                    <td colspan="3" class="mono raw" title={format!("Raw bytes of {}", f.name)}>{ raw }</td>
                </tr>
            }
        </>
    }
}

/// A field's raw bytes (at most [`RAW_FIELD_LIMIT`]) as rows of hex, each a line of its own,
/// their groups separated by spaces where a narrow column may wrap them (see
/// [`hex_rows`]); copied, they read as a hex dump.
fn raw_hex(raw: &[u8]) -> Html {
    html! {
        { for hex_rows(raw).into_iter().map(|groups| html! {
            <span class="raw-row">
                { for groups.into_iter().enumerate().map(|(i, group)| html! {
                    <>{ if i > 0 { " " } else { "" } }<span class="raw-group">{ group }</span></>
                }) }
            </span>
        }) }
    }
}

fn value(v: &Value) -> Html {
    match v {
        Value::Map(entries) => html! {
            <dl class="map-value">
                { for entries.iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd>{ v }</dd></> }) }
            </dl>
        },
        other => html! { { display_value(other) } },
    }
}
