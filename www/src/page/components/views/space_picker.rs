//! Which byte space the hex view shows: the file, or one of the decompressed bundles.

use crate::page::format::human_size;
use crate::page::state::Action;
use crate::wire::doc::Doc;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SpacePickerProps {
    pub doc: Rc<Doc>,
    pub space: u32,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn SpacePicker(props: &SpacePickerProps) -> Html {
    let onchange = props.on_action.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::ShowSpace(select.value().parse().unwrap_or(0))
    });
    html! {
        <select class="space-picker" aria-label="Byte space shown" {onchange}>
            { for props.doc.spaces.iter().enumerate().map(|(i, s)| html! {
                <option value={i.to_string()} selected={i as u32 == props.space}>
                    { format!("space {i}: {} ({})", s.label, human_size(s.size)) }
                </option>
            }) }
        </select>
    }
}
