//! "Download file": saves the active tab's current file, edits included, under its name.

use super::app::FileRequest;
use crate::state::TabId;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SaveFileButtonProps {
    pub tab: Option<TabId>,
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn SaveFileButton(props: &SaveFileButtonProps) -> Html {
    let tab = props.tab;
    let onclick = {
        let on_file = props.on_file.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(id) = tab {
                on_file.emit(FileRequest::DownloadFile(id));
            }
        })
    };
    html! {
        <button type="button" class="save-file" {onclick} disabled={tab.is_none()}
            title="Download the file as it is now, with its edits">{"Download file"}</button>
    }
}
