//! "Open sample": a disclosure menu of the samples shipped with the page.

use crate::page::samples::samples;
use crate::page::state::FileRequest;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The menu's id: the `s` key opens it ([`open_samples_menu`]).
pub const SAMPLES_MENU_ID: &str = "samples-menu";

#[derive(Properties, PartialEq)]
pub struct SampleMenuProps {
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn SampleMenu(props: &SampleMenuProps) -> Html {
    let details = use_node_ref();
    let close = {
        let details = details.clone();
        move || {
            if let Some(d) = details.cast::<web_sys::Element>() {
                let _ = d.remove_attribute("open");
            }
        }
    };
    let onkeydown = {
        let close = close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                close();
                if let Some(summary) = e
                    .current_target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .and_then(|d| d.query_selector("summary").ok().flatten())
                {
                    let _ = summary.unchecked_into::<web_sys::HtmlElement>().focus();
                }
            }
        })
    };
    // A click anywhere else closes the menu, as menus do.
    {
        let details = details.clone();
        use_effect_with((), move |_| {
            let listener = gloo_events::EventListener::new(&gloo_utils::document(), "click", move |e| {
                let Some(menu) = details.cast::<web_sys::Element>() else { return };
                let inside = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
                    .is_some_and(|n| menu.contains(Some(&n)));
                if !inside {
                    let _ = menu.remove_attribute("open");
                }
            });
            move || drop(listener)
        });
    }
    html! {
        <details class="menu" id={SAMPLES_MENU_ID} ref={details} {onkeydown}>
            <summary title="Open a sample (s)">{"Open sample"}</summary>
            <ul class="menu-list" aria-label="Samples">
                { for samples().into_iter().map(|s| {
                    let on_file = props.on_file.clone();
                    let close = close.clone();
                    let onclick = Callback::from(move |_: MouseEvent| {
                        close();
                        on_file.emit(FileRequest::OpenSample(s.file));
                    });
                    html! {
                        <li>
                            <button type="button" class="sample" {onclick} data-sample={s.file}>
                                <span class="sample-file">{ s.file }</span>
                                <span class="sample-title">{ s.title }</span>
                            </button>
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}

/// Opens the menu and focuses its first sample, as the `s` key does.
pub fn open_samples_menu() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Some(menu) = document.get_element_by_id(SAMPLES_MENU_ID) {
        let _ = menu.set_attribute("open", "");
        if let Ok(Some(first)) = menu.query_selector("button") {
            if let Ok(first) = first.dyn_into::<web_sys::HtmlElement>() {
                let _ = first.focus();
            }
        }
    }
}
