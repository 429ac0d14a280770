//! The drop target shown while files are dragged over the page.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DropOverlayProps {
    pub visible: bool,
}

#[function_component]
pub fn DropOverlay(props: &DropOverlayProps) -> Html {
    if !props.visible {
        return html! {};
    }
    html! {
        <div class="drop-overlay" role="status" aria-live="polite">
            <div class="drop-target">
                <p class="drop-title">{"Drop to open"}</p>
                <p>{"Each file opens in its own tab. Nothing leaves this computer."}</p>
            </div>
        </div>
    }
}
