//! The summary's line about the limits a file was explored with, so that a diagnostic saying a
//! limit stopped the explorer can be read next to the limit itself; when the page's settings
//! have changed since, a button explores the file again with them.

use crate::page::state::Action;
use crate::wire::settings::Settings;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExploredWithProps {
    /// What the file was explored with.
    pub used: Settings,
    /// The page's settings now.
    pub current: Settings,
    pub on_reopen: Callback<MouseEvent>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn ExploredWith(props: &ExploredWithProps) -> Html {
    let open_settings = props.on_action.reform(|_: MouseEvent| Action::ShowSettings(true));
    html! {
        <p class="explored-with">
            <span class="limits">{ format!("Limits: {}.", props.used.describe()) }</span>{" "}
            if props.used == props.current {
                <button type="button" class="link" onclick={open_settings} title="Settings (,)">{"Change the limits"}</button>
            } else {
                <span class="stale">{"The settings have changed since."}</span>{" "}
                <button type="button" class="link reopen" onclick={props.on_reopen.clone()}>{"Re-open with the current settings"}</button>
            }
        </p>
    }
}
