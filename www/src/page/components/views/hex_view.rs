//! The hex view: one byte space at a time, only the rows on screen rendered (see
//! `crate::hexgrid`), their bytes read on demand from the file or the worker. The selected
//! node's bytes and its fields' bytes are highlighted; clicking a byte selects the innermost
//! node there; "go to offset" jumps anywhere.

use super::goto_offset::GoToOffset;
use super::space_picker::SpacePicker;
use crate::page::bytes::Bytes;
use crate::page::format::{ascii, human_size};
use crate::page::hexgrid::{Grid, BYTES_PER_ROW};
use crate::page::state::{Action, HexState};
use crate::wire::doc::{span_contains, Doc, NodeId};
use gloo_events::{EventListener, EventListenerOptions};
use offload::tree::Span;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent, WheelEvent};
use yew::prelude::*;

pub const HEX_GRID_ID: &str = "hex-grid";

#[derive(Properties, PartialEq)]
pub struct HexProps {
    pub doc: Rc<Doc>,
    pub hex: HexState,
    pub selected: Option<NodeId>,
    pub bytes: Bytes,
    pub on_action: Callback<Action>,
}

/// Bytes read for the rows around the screen.
#[derive(PartialEq)]
struct Window {
    /// Where the bytes were read: after an edit or undo the tab reads another version.
    source: Bytes,
    space: u32,
    start: u64,
    data: Vec<u8>,
    error: Option<String>,
}

impl Window {
    fn byte(&self, space: u32, offset: u64) -> Option<u8> {
        if space != self.space || offset < self.start {
            return None;
        }
        self.data.get((offset - self.start) as usize).copied()
    }

    fn covers(&self, space: u32, start: u64, end: u64, available: u64) -> bool {
        space == self.space && start >= self.start && end.min(available) <= self.start + self.data.len() as u64
    }
}

/// What the native scroll, wheel and key listeners need to know about the current render.
#[derive(Default)]
struct ScrollCtl {
    grid: Option<Grid>,
    first: u64,
    viewport: f64,
    /// The scroll position last set by us and the row it stands for: when the browser reports
    /// that position, the row is ours, not one recomputed from whole pixels.
    expected: Option<(f64, u64)>,
}

#[function_component]
pub fn HexView(props: &HexProps) -> Html {
    let doc = &props.doc;
    let space = props.hex.space.min(doc.spaces.len().saturating_sub(1) as u32);
    let info = doc.spaces.get(space as usize).cloned();
    let size = info.as_ref().map_or(0, |s| s.size);
    let available = info.as_ref().map_or(0, |s| s.available);
    let grid = Grid::new(size);

    let scroller = use_node_ref();
    let spacer = use_node_ref();
    let first = use_state_eq(|| 0u64);
    let viewport = use_state_eq(|| 320.0f64);
    let window = use_state(|| None::<Rc<Window>>);
    let latest_request = use_mut_ref(|| (u32::MAX, 0u64));
    let ctl = use_mut_ref(ScrollCtl::default);
    {
        let mut c = ctl.borrow_mut();
        c.grid = Some(grid);
        c.first = *first;
        c.viewport = *viewport;
    }

    // The scrolling area is as tall as the rows (or as tall as allowed); set through the CSSOM,
    // which the CSP allows, rather than a style attribute, which it does not.
    {
        let spacer = spacer.clone();
        use_effect_with(grid.spacer, move |height| {
            if let Some(el) = spacer.cast::<HtmlElement>() {
                let _ = el.style().set_property("height", &format!("{height}px"));
            }
        });
    }
    // Measure the viewport after every render and on window resizes.
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect(move || {
            if let Some(el) = scroller.cast::<Element>() {
                viewport.set(el.client_height().max(1) as f64);
            }
        });
    }
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo_utils::window(), "resize", move |_| {
                if let Some(el) = scroller.cast::<Element>() {
                    viewport.set(el.client_height().max(1) as f64);
                }
            });
            move || drop(listener)
        });
    }
    // Scroll to what another view asked for.
    {
        let (scroller, first, ctl) = (scroller.clone(), first.clone(), ctl.clone());
        let reveal = props.hex.reveal;
        use_effect_with((space, props.hex.reveal_seq), move |_| {
            let row = {
                let c = ctl.borrow();
                let grid = c.grid.unwrap_or(grid);
                grid.reveal(c.first, reveal.unwrap_or(0), c.viewport)
            };
            scroll_to_row(&scroller, &ctl, &first, row);
        });
    }
    // Wheel and keys move by rows, also when the scrollbar is scaled (where one pixel stands
    // for many rows). Native listeners: the wheel one must be able to prevent scrolling.
    {
        let (scroller, first, ctl) = (scroller.clone(), first.clone(), ctl.clone());
        use_effect_with((), move |_| {
            let el = scroller.cast::<Element>();
            let listeners = el.map(|el| {
                let options = EventListenerOptions::enable_prevent_default();
                let wheel = {
                    let (scroller, first, ctl) = (scroller.clone(), first.clone(), ctl.clone());
                    EventListener::new_with_options(&el, "wheel", options, move |e| {
                        let e: &WheelEvent = e.unchecked_ref();
                        let (scaled, current) = {
                            let c = ctl.borrow();
                            (c.grid.is_some_and(|g| g.scaled()), c.first)
                        };
                        if !scaled || e.ctrl_key() {
                            return;
                        }
                        e.prevent_default();
                        let rows = match e.delta_mode() {
                            0 => (e.delta_y() / crate::page::hexgrid::ROW_HEIGHT).round() as i64, // pixels
                            1 => e.delta_y().round() as i64,                                      // lines
                            _ => (e.delta_y() * 20.0).round() as i64,                             // pages
                        };
                        scroll_to_row(&scroller, &ctl, &first, current.saturating_add_signed(rows));
                    })
                };
                let keys = EventListener::new_with_options(&el, "keydown", options, move |e| {
                    let e: &KeyboardEvent = e.unchecked_ref();
                    let (rows, current, page) = {
                        let c = ctl.borrow();
                        (c.grid.map_or(0, |g| g.rows), c.first, Grid::full_rows(c.viewport) as i64)
                    };
                    let target = match e.key().as_str() {
                        "ArrowDown" => current.saturating_add(1),
                        "ArrowUp" => current.saturating_sub(1),
                        "PageDown" => current.saturating_add_signed(page - 1),
                        "PageUp" => current.saturating_add_signed(1 - page),
                        "Home" => 0,
                        "End" => rows,
                        _ => return,
                    };
                    e.prevent_default();
                    scroll_to_row(&scroller, &ctl, &first, target);
                });
                (wheel, keys)
            });
            move || drop(listeners)
        });
    }
    let onscroll = {
        let (first, viewport, ctl) = (first.clone(), viewport.clone(), ctl.clone());
        Callback::from(move |e: Event| {
            let el: Element = e.target_unchecked_into();
            let top = el.scroll_top() as f64;
            let height = el.client_height().max(1) as f64;
            viewport.set(height);
            let mut c = ctl.borrow_mut();
            let row = match c.expected.take() {
                Some((expected_top, row)) if (expected_top - top).abs() < 1.0 => row,
                _ => c.grid.map_or(0, |g| g.first_row(top, height)),
            };
            first.set(row);
        })
    };

    let rendered = grid.rendered_rows(*viewport);
    // Read the rows on screen and a screen's worth either side, unless already at hand.
    {
        let (window, latest, bytes) = (window.clone(), latest_request.clone(), props.bytes.clone());
        let start = first.saturating_sub(rendered) * BYTES_PER_ROW;
        let end = ((*first + 2 * rendered) * BYTES_PER_ROW).min(size);
        let have = window.as_ref().is_some_and(|w| {
            w.source == props.bytes
                && w.covers(
                    space,
                    first.saturating_mul(BYTES_PER_ROW),
                    ((*first + rendered) * BYTES_PER_ROW).min(size),
                    available,
                )
        });
        use_effect_with((space, start, end, have, bytes), move |(space, start, end, have, bytes)| {
            if !*have && end > start {
                let (space, start, len) = (*space, *start, (*end - *start) as u32);
                *latest.borrow_mut() = (space, start);
                let from = bytes.clone();
                let source = bytes.0.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let result = source.read(space, start, len).await;
                    if *latest.borrow() == (space, start) {
                        let (data, error) = match result {
                            Ok(d) => (d, None),
                            Err(e) => (Vec::new(), Some(e)),
                        };
                        window.set(Some(Rc::new(Window { source: from, space, start, data, error })));
                    }
                });
            }
        });
    }

    let selected_span = props.selected.and_then(|s| doc.nodes.get(s)).map(|n| n.span).filter(|s| s.space == space);
    let field_spans: Vec<Span> = props
        .selected
        .and_then(|s| doc.nodes.get(s))
        .map(|n| n.fields.iter().filter_map(|f| f.field.span).filter(|s| s.space == space && s.size > 0).collect())
        .unwrap_or_default();
    let cursor = props.hex.cursor;
    let marked = props.hex.marked;
    let digits = format!("{:x}", size.saturating_sub(1)).len().max(8);
    let win = (*window).clone();

    let onclick = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            let offset = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|el| el.closest("[data-offset]").ok().flatten())
                .and_then(|el| el.get_attribute("data-offset"))
                .and_then(|v| v.parse().ok());
            if let Some(offset) = offset {
                on_action.emit(Action::SelectAt { space, offset });
            }
        })
    };

    let rows = (0..rendered).map(|r| *first + r).filter(|&row| row < grid.rows).map(|row| {
        let base = row * BYTES_PER_ROW;
        let cells: Vec<(u64, Option<u8>, Classes)> = (base..base + BYTES_PER_ROW)
            .filter(|&o| o < size)
            .map(|o| {
                let value = win.as_ref().and_then(|w| w.byte(space, o));
                let classes = classes!(
                    selected_span.is_some_and(|s| span_contains(&s, space, o)).then_some("in-node"),
                    field_spans.iter().any(|s| span_contains(s, space, o)).then_some("in-field"),
                    marked.is_some_and(|s| span_contains(&s, space, o)).then_some("in-mark"),
                    (cursor == Some(o)).then_some("cursor"),
                    (o >= available).then_some("unavailable"),
                );
                (o, value, classes)
            })
            .collect();
        html! {
            <div class="hex-row" key={row}>
                <span class="hex-offset">{ format!("{base:0digits$x}") }</span>
                <span class="hex-bytes">
                    { for cells.iter().map(|(o, v, c)| html! {
                        <span class={classes!("byte", c.clone())} data-offset={o.to_string()}>{ v.map_or_else(|| "··".to_string(), |b| format!("{b:02x}")) }</span>
                    }) }
                </span>
                <span class="hex-text">
                    { for cells.iter().map(|(o, v, c)| html! {
                        <span class={classes!("char", c.clone())} data-offset={o.to_string()}>{ v.map_or(' ', ascii).to_string() }</span>
                    }) }
                </span>
            </div>
        }
    });

    let error = win.as_ref().and_then(|w| w.error.clone());
    html! {
        <section class="panel hex-panel" aria-labelledby="hex-title">
            <div class="hex-header">
                <h2 id="hex-title" class="panel-title">{"Hex"}</h2>
                <SpacePicker doc={doc.clone()} space={space} on_action={props.on_action.clone()} />
                <GoToOffset size={size} on_action={props.on_action.clone()} />
                <span class="hex-legend" aria-hidden="true">
                    <span class="byte in-node">{"node"}</span>{" "}<span class="byte in-field">{"field"}</span>
                </span>
            </div>
            if available < size {
                <p class="note">{ format!("Only the first {} of this space's {} were decompressed (the bundle header); the rest shows as ··.", human_size(available), human_size(size)) }</p>
            }
            if let Some(e) = error {
                <p class="note error" role="alert">{ format!("These bytes could not be read: {e}") }</p>
            }
            <div class="hex-scroll" id={HEX_GRID_ID} ref={scroller} tabindex="0" {onscroll} {onclick}
                role="region" aria-label={format!("Bytes of space {space}, {}", human_size(size))}
                data-space={space.to_string()} data-first-row={first.to_string()}>
                <div class="hex-spacer" ref={spacer}>
                    <div class="hex-window">
                        { for rows }
                    </div>
                </div>
            </div>
        </section>
    }
}

/// Scrolls so that `row` is the first row on screen.
fn scroll_to_row(scroller: &NodeRef, ctl: &Rc<RefCell<ScrollCtl>>, first: &UseStateHandle<u64>, row: u64) {
    let Some(el) = scroller.cast::<Element>() else { return };
    let mut c = ctl.borrow_mut();
    let Some(grid) = c.grid else { return };
    let viewport = c.viewport;
    // Clamp through a round trip of the arithmetic: the row that position really shows.
    let top = grid.scroll_top_for(row, viewport).round();
    let row = row.min(grid.first_row(f64::MAX, viewport));
    c.expected = Some((top, row));
    c.first = row;
    drop(c);
    el.set_scroll_top(top as i32);
    first.set(row);
}
