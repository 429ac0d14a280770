//! The top bar: open a file, open a sample, copy a link, show or hide views, download, settings, keyboard
//! shortcuts.

use super::download::download_actions::DownloadActions;
use super::sample_menu::SampleMenu;
use super::share_button::{ShareButton, ShareTarget};
use crate::page::state::FileRequest;

use super::edit::history_buttons::{History, HistoryButtons};
use crate::page::state::{Action, View};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ToolbarProps {
    pub views: [bool; 7],
    pub on_action: Callback<Action>,
    pub on_file: Callback<FileRequest>,
    /// What "Copy link" shares: the active tab, if any.
    #[prop_or_default]
    pub share: Option<ShareTarget>,
    /// What can be undone and redone in the active tab.
    #[prop_or_default]
    pub history: Option<History>,
}

#[function_component]
pub fn Toolbar(props: &ToolbarProps) -> Html {
    let pick = props.on_file.reform(|_: MouseEvent| FileRequest::PickFile);
    let address = props.on_file.reform(|_: MouseEvent| FileRequest::OpenAddress);
    let help = props.on_action.reform(|_: MouseEvent| Action::Help(true));
    let settings = props.on_action.reform(|_: MouseEvent| Action::ShowSettings(true));
    html! {
        <header class="toolbar">
            <h1 class="brand">{"Offload Explorer"}</h1>
            <button type="button" onclick={pick} title="Open files (o)">{"Open file…"}</button>
            <button type="button" class="open-url" onclick={address} title="Open a file from an address (u)">{"Open URL…"}</button>
            <SampleMenu on_file={props.on_file.clone()} />
            <HistoryButtons history={props.history} on_file={props.on_file.clone()} />
            <ShareButton target={props.share.clone()} />
            <div class="view-toggles" role="group" aria-label="Views">
                { for View::ALL.iter().map(|&v| {
                    let pressed = props.views[v as usize];
                    let onclick = props.on_action.reform(move |_: MouseEvent| Action::ToggleView(v));
                    html! {
                        <button type="button" class="toggle" aria-pressed={pressed.to_string()} {onclick}
                            title={format!("Show or hide the {} ({})", v.name().to_ascii_lowercase(), v.key())}>
                            { v.name() }
                        </button>
                    }
                }) }
            </div>
            <DownloadActions />
            <span class="privacy">{"Files are read in this browser; nothing is uploaded."}</span>
            <button type="button" class="settings-button" onclick={settings} title="Limits for exploring files (,)">{"Settings"}</button>
            <button type="button" class="help-button" onclick={help} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">{"?"}</button>
        </header>
    }
}
