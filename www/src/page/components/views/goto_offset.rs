//! The hex view's "go to offset" box.

use crate::page::format::{hex_offset, parse_offset};
use crate::page::state::Action;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The box's id: the `g` key focuses it.
pub const GOTO_ID: &str = "goto-offset";

#[derive(Properties, PartialEq)]
pub struct GoToProps {
    pub size: u64,
    pub on_action: Callback<Action>,
}

/// "Go to offset": hex (`0x1000`, `1000h`) or decimal (`4096`).
#[function_component]
pub fn GoToOffset(props: &GoToProps) -> Html {
    let input = use_node_ref();
    let problem = use_state(|| None::<String>);
    let onsubmit = {
        let (input, problem, on_action, size) = (input.clone(), problem.clone(), props.on_action.clone(), props.size);
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(field) = input.cast::<HtmlInputElement>() else { return };
            match parse_offset(&field.value()) {
                Ok(offset) if offset < size => {
                    problem.set(None);
                    on_action.emit(Action::GoTo(offset));
                }
                Ok(offset) => {
                    problem.set(Some(format!("{} is past the end of this space ({} bytes)", hex_offset(offset), size)))
                }
                Err(why) => problem.set(Some(why)),
            }
        })
    };
    html! {
        <form class="goto" {onsubmit} role="search" aria-label="Go to offset">
            <input id={GOTO_ID} ref={input} type="text" inputmode="text" autocomplete="off" spellcheck="false"
                placeholder="0x1000 or 4096" aria-label="Offset to go to, hex (0x1000) or decimal"
                aria-invalid={problem.is_some().then_some("true")} aria-describedby="goto-problem" />
            <button type="submit">{"Go"}</button>
            <span id="goto-problem" class="problem" aria-live="polite">{ (*problem).clone().unwrap_or_default() }</span>
        </form>
    }
}
