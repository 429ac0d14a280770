//! The Code view's legend: the colour of each instruction class (style.css's `--code-…`
//! custom properties, one set for the light theme and one for the dark).

use crate::page::code::{class_name, CLASS_SLUGS};
use yew::prelude::*;

#[function_component]
pub fn CodeLegend() -> Html {
    html! {
        <ul class="legend code-legend" aria-label="Instruction classes">
            { for CLASS_SLUGS.iter().enumerate().map(|(slot, slug)| html! {
                <li class={format!("code-class-{slug}")}>
                    <span class="code-swatch" aria-hidden="true"></span>{ class_name(slot) }
                </li>
            }) }
        </ul>
    }
}
