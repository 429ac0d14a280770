//! The splitter between two neighbouring panes of a tab ([`crate::page::panes`]): dragged with
//! a pointer, or focused and moved with the arrow keys (Home and End go to either end), it
//! moves room from one neighbour to the other. A `separator` in ARIA's sense, with its
//! position as a percentage.

use crate::page::panes::{Slot, KEY_STEP, MIN_FRACTION};
use crate::page::state::{Action, TabId};
use gloo_events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent, MouseEvent, PointerEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SplitterProps {
    pub tab: TabId,
    /// The pane before it (above, or to the left) and the one after it.
    pub first: Slot,
    pub second: Slot,
    /// Between columns (a vertical bar, dragged sideways) rather than between stacked panes.
    #[prop_or_default]
    pub columns: bool,
    /// The part of the two panes' room the first has now.
    pub fraction: f64,
    pub on_action: Callback<Action>,
}

/// What a drag started from: the pointer's position and the two panes' sizes then.
struct Drag {
    start: f64,
    first: f64,
    second: f64,
}

#[function_component]
pub fn Splitter(props: &SplitterProps) -> Html {
    let node = use_node_ref();
    // The window's listeners while a drag is under way (dropped when it ends).
    let dragging = use_mut_ref(|| None::<(EventListener, EventListener)>);
    let (id, first, second, columns) = (props.tab, props.first, props.second, props.columns);
    let resize = {
        let on_action = props.on_action.clone();
        move |fraction: f64| {
            on_action.emit(Action::ResizePanes { id, first, second, fraction });
        }
    };
    let coordinate = move |e: &MouseEvent| f64::from(if columns { e.client_x() } else { e.client_y() });
    let onpointerdown = {
        let (node, dragging, resize) = (node.clone(), dragging.clone(), resize.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let Some(el) = node.cast::<Element>() else { return };
            let size = |el: Option<Element>| {
                el.map(|el| {
                    let r = el.get_bounding_client_rect();
                    if columns {
                        r.width()
                    } else {
                        r.height()
                    }
                })
            };
            let (Some(a), Some(b)) = (size(el.previous_element_sibling()), size(el.next_element_sibling())) else {
                return;
            };
            e.prevent_default();
            let _ = el.dyn_ref::<web_sys::HtmlElement>().map(|el| el.focus());
            let drag = Drag { start: coordinate(&e), first: a, second: b };
            let resize = resize.clone();
            let window = gloo_utils::window();
            let on_move = EventListener::new(&window, "pointermove", move |e| {
                let e: &MouseEvent = e.unchecked_ref();
                let moved = coordinate(e) - drag.start;
                resize((drag.first + moved) / (drag.first + drag.second));
            });
            let ended = dragging.clone();
            let on_up = EventListener::new(&window, "pointerup", move |_| {
                ended.borrow_mut().take();
            });
            *dragging.borrow_mut() = Some((on_move, on_up));
        })
    };
    let onkeydown = {
        let fraction = props.fraction;
        Callback::from(move |e: KeyboardEvent| {
            let to = match e.key().as_str() {
                "ArrowUp" if !columns => fraction - KEY_STEP,
                "ArrowLeft" if columns => fraction - KEY_STEP,
                "ArrowDown" if !columns => fraction + KEY_STEP,
                "ArrowRight" if columns => fraction + KEY_STEP,
                "Home" => MIN_FRACTION,
                "End" => 1.0 - MIN_FRACTION,
                _ => return,
            };
            e.prevent_default();
            resize(to);
        })
    };
    html! {
        <div role="separator" tabindex="0" ref={node}
            class={classes!("splitter", if columns { "splitter-columns" } else { "splitter-rows" })}
            aria-orientation={if columns { "vertical" } else { "horizontal" }}
            aria-label={format!("Resize {} and {}", props.first.name(), props.second.name())}
            title={format!("Drag, or focus and use the arrow keys, to resize {} and {}", props.first.name(), props.second.name())}
            aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", props.fraction * 100.0)}
            {onpointerdown} {onkeydown}>
        </div>
    }
}
