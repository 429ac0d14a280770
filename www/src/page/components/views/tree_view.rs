//! The tree of containers: a WAI-ARIA tree. Focus stays on the tree itself and
//! `aria-activedescendant` names the selected row, so the keys only change state (selection
//! follows focus) and the other views follow the selection.

use crate::page::format::human_size;
use crate::page::state::{Action, Nav, TabId};
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, ScrollIntoViewOptions, ScrollLogicalPosition};
use yew::prelude::*;

pub const TREE_ID: &str = "tree";

pub fn row_id(node: NodeId) -> String {
    format!("node-{node}")
}

#[derive(Properties, PartialEq)]
pub struct TreeProps {
    pub doc: Rc<Doc>,
    pub tab: TabId,
    pub selected: Option<NodeId>,
    pub expanded: Vec<bool>,
    pub on_action: Callback<Action>,
    /// Nodes changed by the edits that made the shown version.
    #[prop_or_default]
    pub marked: Vec<NodeId>,
}

#[function_component]
pub fn TreeView(props: &TreeProps) -> Html {
    let tree = use_node_ref();
    // Keep the selected row in sight, however it was selected.
    {
        let tree = tree.clone();
        use_effect_with(props.selected, move |selected| {
            if let (Some(id), Some(tree)) = (selected, tree.cast::<Element>()) {
                if let Ok(Some(row)) = tree.query_selector(&format!("#{} > .row", row_id(*id))) {
                    let options = ScrollIntoViewOptions::new();
                    options.set_block(ScrollLogicalPosition::Nearest);
                    row.scroll_into_view_with_scroll_into_view_options(&options);
                }
            }
        });
    }
    let onkeydown = {
        let (on_action, selected) = (props.on_action.clone(), props.selected);
        Callback::from(move |e: KeyboardEvent| {
            let action = match e.key().as_str() {
                "ArrowUp" => Action::Nav(Nav::Up),
                "ArrowDown" => Action::Nav(Nav::Down),
                "ArrowRight" => Action::Nav(Nav::Right),
                "ArrowLeft" => Action::Nav(Nav::Left),
                "Home" => Action::Nav(Nav::Home),
                "End" => Action::Nav(Nav::End),
                "Enter" | " " => match selected {
                    Some(id) => Action::Toggle(id),
                    None => return,
                },
                _ => return,
            };
            e.prevent_default();
            on_action.emit(action);
        })
    };
    // One handler for every row: the row or its twisty says what was clicked.
    let onclick = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(target) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
            if let Ok(Some(twisty)) = target.closest("[data-toggle]") {
                if let Some(id) = twisty.get_attribute("data-toggle").and_then(|v| v.parse().ok()) {
                    on_action.emit(Action::Toggle(id));
                }
                return;
            }
            if let Ok(Some(row)) = target.closest("[data-node]") {
                if let Some(id) = row.get_attribute("data-node").and_then(|v| v.parse().ok()) {
                    on_action.emit(Action::Select(id));
                }
            }
        })
    };
    let doc = &props.doc;
    html! {
        <section class="panel tree-panel" aria-labelledby="tree-title">
            <h2 id="tree-title" class="panel-title">{"Tree"}</h2>
            <ul role="tree" id={TREE_ID} ref={tree} tabindex="0" class="tree"
                aria-label={format!("Containers in {}", doc.name)}
                aria-activedescendant={props.selected.map(row_id)}
                {onkeydown} {onclick}>
                if !doc.nodes.is_empty() {
                    { item(props, 0, 1, 1) }
                }
            </ul>
        </section>
    }
}

fn item(props: &TreeProps, id: NodeId, pos: usize, set_size: usize) -> Html {
    let n = &props.doc.nodes[id];
    let has_children = !n.children.is_empty();
    let expanded = has_children && props.expanded.get(id).copied().unwrap_or(false);
    let selected = props.selected == Some(id);
    let edited = props.marked.contains(&id);
    let badge = n.worst.filter(|s| *s >= offload::tree::Severity::Warning).map(|s| {
        let own = n.diagnostics.iter().any(|d| d.severity == s);
        html! {
            <span class={classes!("badge", s.as_str())} title={if own { s.as_str().to_string() } else { format!("{} inside", s.as_str()) }}>
                { if s == offload::tree::Severity::Error { "error" } else { "warning" } }
            </span>
        }
    });
    html! {
        <li role="treeitem" id={row_id(id)} key={id} aria-level={(n.depth + 1).to_string()}
            aria-posinset={pos.to_string()} aria-setsize={set_size.to_string()}
            aria-selected={selected.to_string()} aria-expanded={has_children.then(|| expanded.to_string())}>
            <div class={classes!("row", selected.then_some("selected"), edited.then_some("edited"))} data-node={id.to_string()}
                title={format!("{}\n{} in space {} at {:#x}, {}", n.label, n.kind.as_str(), n.span.space, n.span.offset, human_size(n.span.size))}>
                if has_children {
                    <span class="twisty" data-toggle={id.to_string()} aria-hidden="true">{ if expanded { "▾" } else { "▸" } }</span>
                } else {
                    <span class="twisty leaf" aria-hidden="true"></span>
                }
                <span class={classes!("swatch", format!("kind-{}", n.kind.as_str()))} aria-hidden="true"></span>
                <span class="label">{ &n.label }</span>
                { for badge }
                if edited {
                    <span class="badge edited" title="changed by an edit">{"edited"}</span>
                }
            </div>
            if expanded {
                <ul role="group">
                    { for n.children.iter().enumerate().map(|(i, &c)| item(props, c, i + 1, n.children.len())) }
                </ul>
            }
        </li>
    }
}
