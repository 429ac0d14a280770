//! Undo and Redo of the active tab's edits (Ctrl+Z, Ctrl+Shift+Z; Cmd on macOS), disabled
//! when there is nothing to undo or redo.

use crate::page::state::FileRequest;
use crate::page::state::TabId;
use yew::prelude::*;

/// What the buttons need to know about the active tab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct History {
    pub tab: TabId,
    pub can_undo: bool,
    pub can_redo: bool,
}

#[derive(Properties, PartialEq)]
pub struct HistoryButtonsProps {
    pub history: Option<History>,
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn HistoryButtons(props: &HistoryButtonsProps) -> Html {
    let h = props.history;
    let undo = {
        let on_file = props.on_file.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(h) = h {
                on_file.emit(FileRequest::Undo(h.tab));
            }
        })
    };
    let redo = {
        let on_file = props.on_file.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(h) = h {
                on_file.emit(FileRequest::Redo(h.tab));
            }
        })
    };
    html! {
        <div class="history-buttons" role="group" aria-label="Edit history">
            <button type="button" class="undo" onclick={undo} disabled={!h.is_some_and(|h| h.can_undo)}
                aria-label="Undo" title="Undo the last edit (Ctrl+Z)">{"Undo"}</button>
            <button type="button" class="redo" onclick={redo} disabled={!h.is_some_and(|h| h.can_redo)}
                aria-label="Redo" title="Redo (Ctrl+Shift+Z)">{"Redo"}</button>
        </div>
    }
}
