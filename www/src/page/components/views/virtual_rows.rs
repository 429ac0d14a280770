//! A scrolling list of fixed-height rows of which only those on screen are in the page: the
//! Code view's listings, which can have hundreds of thousands of lines. The list is as tall as
//! all its rows (set through the CSSOM, which the page's CSP allows, not a style attribute);
//! a sticky window at its top shows the rows the scroll position stands for.
//!
//! The owner draws each row (`render`), hears keys and clicks on the list, and asks for a row to
//! be brought into view (`reveal`, with a number that changes with every request).

use web_sys::{Element, HtmlElement};
use yew::prelude::*;

/// Row height in CSS pixels; `.code-row` in style.css has the same height.
pub const ROW_HEIGHT: f64 = 20.0;

#[derive(Properties, PartialEq)]
pub struct VirtualRowsProps {
    pub count: usize,
    pub render: Callback<usize, Html>,
    /// A row to bring into view, and a number that changes with every request.
    pub reveal: (Option<usize>, u32),
    pub id: AttrValue,
    pub label: AttrValue,
    #[prop_or_default]
    pub onkeydown: Callback<KeyboardEvent>,
    #[prop_or_default]
    pub onclick: Callback<MouseEvent>,
}

#[function_component]
pub fn VirtualRows(props: &VirtualRowsProps) -> Html {
    let scroller = use_node_ref();
    let spacer = use_node_ref();
    let first = use_state_eq(|| 0usize);
    let viewport = use_state_eq(|| 400.0f64);
    {
        let spacer = spacer.clone();
        use_effect_with(props.count, move |&count| {
            if let Some(el) = spacer.cast::<HtmlElement>() {
                let _ = el.style().set_property("height", &format!("{}px", count as f64 * ROW_HEIGHT));
            }
        });
    }
    // Measured after every render and whenever the panes change size (a window `resize`, which
    // `pane::panes_resized` also sends): a list that grows, maximised or dragged taller,
    // draws the rows it now has room for without waiting for a scroll.
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect(move || measure(&scroller, &viewport));
    }
    {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        use_effect_with((), move |_| {
            let listener = gloo_events::EventListener::new(&gloo_utils::window(), "resize", move |_| {
                measure(&scroller, &viewport)
            });
            move || drop(listener)
        });
    }
    {
        let (scroller, first, viewport) = (scroller.clone(), first.clone(), *viewport);
        let (row, seq) = props.reveal;
        use_effect_with(seq, move |_| {
            if let Some(row) = row {
                bring_into_view(&scroller, &first, row, viewport);
            }
        });
    }
    let onscroll = {
        let first = first.clone();
        Callback::from(move |e: Event| {
            let el: Element = e.target_unchecked_into();
            first.set((f64::from(el.scroll_top()) / ROW_HEIGHT).floor().max(0.0) as usize);
        })
    };
    let shown = ((*viewport / ROW_HEIGHT).ceil() as usize + 1).min(props.count);
    let start = (*first).min(props.count.saturating_sub(shown));
    html! {
        <div class="code-scroll" id={props.id.clone()} ref={scroller} tabindex="0" role="region"
            aria-label={props.label.clone()} data-first-row={start.to_string()} data-rows={props.count.to_string()}
            {onscroll} onkeydown={props.onkeydown.clone()} onclick={props.onclick.clone()}>
            <div class="code-spacer" ref={spacer}>
                <div class="code-window">
                    { for (start..start + shown).map(|row| props.render.emit(row)) }
                </div>
            </div>
        </div>
    }
}

/// Keeps the list's visible height, in CSS pixels.
fn measure(scroller: &NodeRef, viewport: &UseStateHandle<f64>) {
    if let Some(el) = scroller.cast::<Element>() {
        viewport.set(f64::from(el.client_height().max(1)));
    }
}

/// Scrolls so that `row` is on screen, a third of the way down, unless it is already.
fn bring_into_view(scroller: &NodeRef, first: &UseStateHandle<usize>, row: usize, viewport: f64) {
    let Some(el) = scroller.cast::<Element>() else { return };
    let top = (f64::from(el.scroll_top()) / ROW_HEIGHT).floor() as usize;
    let full = ((viewport / ROW_HEIGHT).floor() as usize).max(1);
    if row >= top && row < top + full {
        return;
    }
    let to = row.saturating_sub(full / 3);
    el.set_scroll_top((to as f64 * ROW_HEIGHT) as i32);
    first.set(to);
}

/// Rows a page-down key moves by, for a list this tall.
pub fn page_rows(list: &Element) -> usize {
    ((f64::from(list.client_height()) / ROW_HEIGHT).floor() as usize).saturating_sub(1).max(1)
}

/// The number in attribute `name` of the clicked element or the nearest one around it: rows
/// and their parts say what a click on them means through `data-` attributes, so one handler on
/// the list serves every row drawn.
pub fn clicked(e: &MouseEvent, name: &str) -> Option<usize> {
    let target: Element = wasm_bindgen::JsCast::dyn_into(e.target()?).ok()?;
    target.closest(&format!("[{name}]")).ok().flatten()?.get_attribute(name)?.parse().ok()
}
