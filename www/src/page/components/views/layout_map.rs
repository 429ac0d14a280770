//! The layout map: every byte space as a band of regions drawn to scale and coloured by node
//! kind, one row per nesting level; decompressed spaces below the space they came from. SVG,
//! so that sizes are attributes (the page's CSP allows no inline styles) and each region carries
//! a `<title>` tooltip with its offset and size.

use crate::page::format::{hex_offset, human_size};
use crate::page::layout::{legend, space_maps_around, SpaceMap, MAX_BANDS};
use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Width of the drawing in SVG units (stretched to the panel's width).
const WIDTH: f64 = 1000.0;
const ROW: f64 = 10.0;
/// Narrowest region drawn, so that a 4-byte header in a 1 GiB file can still be clicked.
const MIN_WIDTH: f64 = 2.0;

#[derive(Properties, PartialEq)]
pub struct LayoutMapProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
    /// Nodes changed by the edits that made the shown version.
    #[prop_or_default]
    pub marked: Vec<NodeId>,
}

#[function_component]
pub fn LayoutMap(props: &LayoutMapProps) -> Html {
    let doc = &props.doc;
    // Past MAX_BANDS spaces the bands follow the selection, so it is part of the memo's key.
    let around = (doc.spaces.len() > MAX_BANDS).then_some(props.selected).flatten();
    let maps = use_memo((doc.clone(), around), |(doc, around)| space_maps_around(doc, *around));
    let hidden = doc.spaces.len().saturating_sub(maps.len());
    let kinds = legend(doc, &maps);
    let onclick = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            let node = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|el| el.closest("[data-node]").ok().flatten())
                .and_then(|el| el.get_attribute("data-node"))
                .and_then(|v| v.parse().ok());
            if let Some(node) = node {
                on_action.emit(Action::Select(node));
            }
        })
    };
    html! {
        <section class="panel map-panel" aria-labelledby="map-title">
            <h2 id="map-title" class="panel-title">{"Layout map"}</h2>
            <div class="map-scroll" {onclick}>
                { for maps.iter().map(|m| band(doc, m, props.selected, &props.marked)) }
                if hidden > 0 {
                    <p class="muted map-more">{ format!("{hidden} more byte spaces are not drawn: select a node to see the spaces that lead to it") }</p>
                }
            </div>
            <ul class="legend" aria-label="Legend">
                { for kinds.iter().map(|k| html! {
                    <li><span class={classes!("swatch", format!("kind-{}", k.as_str()))} aria-hidden="true"></span>{ k.as_str() }</li>
                }) }
                if !props.marked.is_empty() {
                    <li class="edited-legend"><span class="badge edited">{"edited"}</span>{ format!(" {} region{} changed by edits (outlined)", props.marked.len(), if props.marked.len() == 1 { "" } else { "s" }) }</li>
                }
            </ul>
        </section>
    }
}

fn band(doc: &Doc, map: &SpaceMap, selected: Option<NodeId>, marked: &[NodeId]) -> Html {
    let space = &doc.spaces[map.space as usize];
    let origin =
        space.origin.map(|o| format!(" — from space {} at {} ({})", o.space, hex_offset(o.offset), human_size(o.size)));
    let height = (map.levels.max(1) as f64) * ROW;
    html! {
        <figure class={classes!("band", format!("indent-{}", map.indent.min(4)))} data-space={map.space.to_string()}>
            <figcaption>
                <span class="space-id">{ format!("space {}", map.space) }</span>{" "}
                { &space.label }{ format!(", {}", human_size(space.size)) }{ origin.unwrap_or_default() }
            </figcaption>
            <svg class="map" viewBox={format!("0 0 {WIDTH} {height}")} preserveAspectRatio="none"
                height={format!("{height}")} role="img"
                aria-label={format!("Layout of space {}: {} regions", map.space, map.regions.len())}>
                { for map.regions.iter().map(|r| {
                    let n = &doc.nodes[r.node];
                    let is_selected = selected == Some(r.node);
                    let in_selection = selected.is_some_and(|s| doc.is_within(r.node, s));
                    let edited = marked.contains(&r.node);
                    html! {
                        <rect class={classes!("region", format!("kind-{}", n.kind.as_str()), is_selected.then_some("selected"), in_selection.then_some("in-selection"), edited.then_some("edited"))}
                            data-node={r.node.to_string()}
                            x={format!("{:.3}", r.x * WIDTH)} y={format!("{:.1}", r.level as f64 * ROW)}
                            width={format!("{:.3}", (r.width * WIDTH).max(MIN_WIDTH))} height={format!("{:.1}", ROW - 1.0)}
                            vector-effect="non-scaling-stroke">
                            <title>{ format!("{}{}\n{} at {} in space {}, {} ({} bytes)", n.label, if edited { " (edited)" } else { "" }, n.kind.as_str(), hex_offset(n.span.offset), n.span.space, human_size(n.span.size), n.span.size) }</title>
                        </rect>
                    }
                }) }
            </svg>
        </figure>
    }
}
