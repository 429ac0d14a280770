//! The tree of containers: a WAI-ARIA tree. Focus stays on the tree itself and
//! `aria-activedescendant` names the active row, so the keys only change state (selection
//! follows focus) and the other views follow the selection.
//!
//! The rows are [`tree_rows::visible_rows`]: a flat list (each row says its level, position and
//! set size), in which a package's members with device code come first and the others wait behind
//! one group row. A wheel has tens of thousands of rows, so only those in view and a few screens
//! around them are in the page (all of them, for a small tree); two spacers stand for the rest,
//! and every row is one line high, so where a row is follows from its index.

use crate::page::format::{human_size, thousands};
use crate::page::state::{Action, Nav, TabId};
use crate::page::tree_rows::{self, DeviceCode, GroupSummary, Groups, Row, RowKey, ROW_HEIGHT};
use crate::wire::doc::{Doc, NodeId};
use offload::tree::Severity;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement};
use yew::prelude::*;

pub const TREE_ID: &str = "tree";

pub fn row_id(node: NodeId) -> String {
    RowKey::Node(node).element_id()
}

#[derive(Properties, PartialEq)]
pub struct TreeProps {
    pub doc: Rc<Doc>,
    pub tab: TabId,
    pub selected: Option<NodeId>,
    pub expanded: Vec<bool>,
    /// Each package's group of members without device code: open or not, and its filter.
    #[prop_or_default]
    pub groups: Groups,
    /// The active row is this package's group row rather than the selected node's.
    #[prop_or_default]
    pub active_group: Option<NodeId>,
    pub on_action: Callback<Action>,
    /// Nodes changed by the edits that made the shown version.
    #[prop_or_default]
    pub marked: Vec<NodeId>,
}

/// The rows as shown and what each group row says, computed once per change of the document,
/// the expanded nodes or the groups (not on every scroll).
struct Shown {
    rows: Vec<Row>,
    groups: BTreeMap<NodeId, GroupSummary>,
}

#[function_component]
pub fn TreeView(props: &TreeProps) -> Html {
    let tree = use_node_ref();
    let (above, below) = (use_node_ref(), use_node_ref());
    // (scroll position, height) of the tree, in pixels.
    let scroll = use_state_eq(|| (0.0_f64, 0.0_f64));
    let shown = use_shown(props);
    let active = props.active_group.map(RowKey::Others).or(props.selected.map(RowKey::Node));
    let drawn = tree_rows::window(shown.rows.len(), scroll.0, scroll.1);
    use_spacers(&above, &below, drawn.start, shown.rows.len() - drawn.end);
    use_measured_height(&tree, &scroll);
    use_active_row_in_view(&tree, &scroll, active, &shown);
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let el: Element = e.target_unchecked_into();
            scroll.set((f64::from(el.scroll_top()), f64::from(el.client_height())));
        })
    };
    let doc = &props.doc;
    html! {
        <section class="panel tree-panel" aria-labelledby="tree-title">
            <h2 id="tree-title" class="panel-title">{"Tree"}</h2>
            <ul role="tree" id={TREE_ID} ref={tree} tabindex="0" class="tree"
                aria-label={format!("Containers in {}", doc.name)}
                aria-activedescendant={active.map(RowKey::element_id)}
                data-rows={shown.rows.len().to_string()}
                onkeydown={on_key(props, active)} onclick={on_click(props)} {onscroll}>
                <li key="above" class="tree-spacer" role="none" aria-hidden="true" ref={above}></li>
                { for shown.rows[drawn].iter().map(|row| draw_row(props, &shown, row, active)) }
                <li key="below" class="tree-spacer" role="none" aria-hidden="true" ref={below}></li>
            </ul>
        </section>
    }
}

/// The rows as shown, recomputed when the document, the expanded nodes or the groups change.
#[hook]
fn use_shown(props: &TreeProps) -> Rc<Shown> {
    // The document is compared by address: a new document is a new `Rc`.
    let doc_key = Rc::as_ptr(&props.doc) as usize;
    let device = {
        let doc = props.doc.clone();
        use_memo(doc_key, move |_| DeviceCode::of(&doc))
    };
    let doc = props.doc.clone();
    use_memo((doc_key, props.expanded.clone(), props.groups.clone()), move |(_, expanded, groups)| {
        let rows = tree_rows::visible_rows(&doc, &device, expanded, groups);
        let groups = tree_rows::group_summaries(&doc, &device, &rows, groups);
        Shown { rows, groups }
    })
}

/// Sizes the spacers that stand for the rows not drawn, through the CSS object model: the page's
/// Content-Security-Policy refuses `style` attributes.
#[hook]
fn use_spacers(above: &NodeRef, below: &NodeRef, rows_above: usize, rows_below: usize) {
    let (above, below) = (above.clone(), below.clone());
    use_effect_with((rows_above, rows_below), move |&(rows_above, rows_below)| {
        for (spacer, rows) in [(above, rows_above), (below, rows_below)] {
            if let Some(el) = spacer.cast::<HtmlElement>() {
                let _ = el.style().set_property("height", &format!("{}px", rows as f64 * ROW_HEIGHT));
            }
        }
    });
}

/// Keeps the tree's height known (the window of rows drawn depends on it) as the panel is
/// resized.
#[hook]
fn use_measured_height(tree: &NodeRef, scroll: &UseStateHandle<(f64, f64)>) {
    let (tree, scroll) = (tree.clone(), scroll.clone());
    use_effect(move || {
        if let Some(el) = tree.cast::<Element>() {
            scroll.set((f64::from(el.scroll_top()), f64::from(el.client_height())));
        }
    });
}

/// Scrolls the active row into view whenever it changes, however it was chosen (keys, a click
/// in another view); its place is its index times the row height, drawn or not.
#[hook]
fn use_active_row_in_view(
    tree: &NodeRef,
    scroll: &UseStateHandle<(f64, f64)>,
    active: Option<RowKey>,
    shown: &Rc<Shown>,
) {
    let (tree, scroll, shown) = (tree.clone(), scroll.clone(), shown.clone());
    use_effect_with(active, move |active| {
        let Some(el) = tree.cast::<Element>() else { return };
        let Some(index) = active.and_then(|key| tree_rows::index_of(&shown.rows, key)) else { return };
        let height = f64::from(el.client_height());
        if let Some(to) = tree_rows::scroll_to_show(index, f64::from(el.scroll_top()), height) {
            el.set_scroll_top(to.round() as i32);
            // Drawn now, not on the scroll event to come.
            scroll.set((f64::from(el.scroll_top()), height));
        }
    });
}

/// Keys on the tree move its active row; keys typed into a group's filter are the filter's.
fn on_key(props: &TreeProps, active: Option<RowKey>) -> Callback<KeyboardEvent> {
    let on_action = props.on_action.clone();
    Callback::from(move |e: KeyboardEvent| {
        if e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()).is_some() {
            return;
        }
        let action = match e.key().as_str() {
            "ArrowUp" => Action::Nav(Nav::Up),
            "ArrowDown" => Action::Nav(Nav::Down),
            "ArrowRight" => Action::Nav(Nav::Right),
            "ArrowLeft" => Action::Nav(Nav::Left),
            "Home" => Action::Nav(Nav::Home),
            "End" => Action::Nav(Nav::End),
            "Enter" | " " => match active {
                Some(RowKey::Node(id)) => Action::Toggle(id),
                Some(RowKey::Others(package)) => Action::ToggleOthers(package),
                None => return,
            },
            _ => return,
        };
        e.prevent_default();
        on_action.emit(action);
    })
}

/// One handler for every row: the row or its twisty says what was clicked.
fn on_click(props: &TreeProps) -> Callback<MouseEvent> {
    let on_action = props.on_action.clone();
    Callback::from(move |e: MouseEvent| {
        let Some(target) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let number = |selector: &str, attribute: &str| -> Option<NodeId> {
            target.closest(selector).ok().flatten()?.get_attribute(attribute)?.parse().ok()
        };
        if target.closest("input").ok().flatten().is_some() {
            return;
        }
        let action = if let Some(id) = number("[data-toggle]", "data-toggle") {
            Action::Toggle(id)
        } else if let Some(package) = number("[data-toggle-others]", "data-toggle-others") {
            Action::ToggleOthers(package)
        } else if let Some(id) = number("[data-node]", "data-node") {
            Action::Select(id)
        } else if let Some(package) = number("[data-others]", "data-others") {
            Action::SelectOthers(package)
        } else {
            return;
        };
        on_action.emit(action);
    })
}

fn draw_row(props: &TreeProps, shown: &Shown, row: &Row, active: Option<RowKey>) -> Html {
    let is_active = active == Some(row.key);
    match row.key {
        RowKey::Node(id) => node_row(props, row, id, is_active),
        RowKey::Others(package) => {
            others_row(props, row, package, shown.groups.get(&package).copied().unwrap_or_default(), is_active)
        }
    }
}

/// A row's indentation: a step per level.
fn indent(row: &Row) -> Html {
    html! { <span class="indent" aria-hidden="true">{ for (0..row.depth).map(|_| html! { <span class="step"></span> }) }</span> }
}

fn twisty_sign(open: bool) -> &'static str {
    if open {
        "▾"
    } else {
        "▸"
    }
}

fn severity_badge(worst: Option<Severity>, own: bool) -> Option<Html> {
    worst.filter(|s| *s >= Severity::Warning).map(|s| {
        let title = if own { s.as_str().to_string() } else { format!("{} inside", s.as_str()) };
        html! {
            <span class={classes!("badge", s.as_str())} {title}>
                { if s == Severity::Error { "error" } else { "warning" } }
            </span>
        }
    })
}

fn node_row(props: &TreeProps, row: &Row, id: NodeId, selected: bool) -> Html {
    let n = &props.doc.nodes[id];
    let has_children = !n.children.is_empty();
    let expanded = has_children && props.expanded.get(id).copied().unwrap_or(false);
    let edited = props.marked.contains(&id);
    let own = n.worst.is_some_and(|s| n.diagnostics.iter().any(|d| d.severity == s));
    html! {
        <li role="treeitem" id={row_id(id)} key={row_id(id)} aria-level={row.level().to_string()}
            aria-posinset={row.position.to_string()} aria-setsize={row.set_size.to_string()}
            aria-selected={selected.to_string()} aria-expanded={has_children.then(|| expanded.to_string())}>
            <div class={classes!("row", selected.then_some("selected"), edited.then_some("edited"))} data-node={id.to_string()}
                title={format!("{}\n{} in space {} at {:#x}, {}", n.label, n.kind.as_str(), n.span.space, n.span.offset, human_size(n.span.size))}>
                { indent(row) }
                if has_children {
                    <span class="twisty" data-toggle={id.to_string()} aria-hidden="true">{ twisty_sign(expanded) }</span>
                } else {
                    <span class="twisty leaf" aria-hidden="true"></span>
                }
                <span class={classes!("swatch", format!("kind-{}", n.kind.as_str()))} aria-hidden="true"></span>
                <span class="label">{ &n.label }</span>
                { for severity_badge(n.worst, own) }
                if edited {
                    <span class="badge edited" title="changed by an edit">{"edited"}</span>
                }
            </div>
        </li>
    }
}

/// The row that holds a package's members without device code: their count, and once open, a
/// box that filters them by name.
fn others_row(props: &TreeProps, row: &Row, package: NodeId, summary: GroupSummary, selected: bool) -> Html {
    let group = props.groups.get(&package).cloned().unwrap_or_default();
    let count = summary.members;
    let label = format!("{} other member{}", thousands(count as u64), if count == 1 { "" } else { "s" });
    let on_filter = props.on_action.reform(move |e: InputEvent| Action::FilterOthers {
        package,
        filter: e.target_unchecked_into::<HtmlInputElement>().value(),
    });
    let element_id = RowKey::Others(package).element_id();
    html! {
        <li role="treeitem" key={element_id.clone()} id={element_id} aria-level={row.level().to_string()}
            aria-posinset={row.position.to_string()} aria-setsize={row.set_size.to_string()}
            aria-selected={selected.to_string()} aria-expanded={group.open.to_string()}>
            <div class={classes!("row", "others", selected.then_some("selected"))} data-others={package.to_string()}
                title={format!("Members of {} without device code, in package order", props.doc.nodes[package].label)}>
                { indent(row) }
                <span class="twisty" data-toggle-others={package.to_string()} aria-hidden="true">{ twisty_sign(group.open) }</span>
                <span class="swatch kind-package-member" aria-hidden="true"></span>
                <span class="label">{ label }</span>
                { for severity_badge(summary.worst, false) }
                if group.open {
                    <input type="search" class="others-filter" placeholder="Filter by name" aria-label="Filter other members"
                        value={group.filter.clone()} oninput={on_filter} />
                    if !group.filter.trim().is_empty() {
                        <span class="muted others-shown">{ format!("{} shown", thousands(summary.shown as u64)) }</span>
                    }
                }
            </div>
        </li>
    }
}
