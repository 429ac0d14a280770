//! How the latest download went: preparing (with progress), saved, or refused with the errors
//! its bytes read back with. A live region, so screen readers hear it too.

use crate::page::format::human_size;
use crate::page::state::Action;
use crate::page::state::{DownloadNotice, DownloadStage};
use crate::wire::download::Refusal;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DownloadStatusProps {
    pub notice: Option<DownloadNotice>,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn DownloadStatus(props: &DownloadStatusProps) -> Html {
    let Some(notice) = &props.notice else {
        return html! { <div class="download-status" role="status" aria-live="polite"></div> };
    };
    let dismiss = props.on_action.reform(|_: MouseEvent| Action::DismissDownload);
    let (class, body) = match &notice.stage {
        DownloadStage::Preparing { done, total } => (
            "preparing",
            html! {
                <>
                    { format!("Preparing {}… ", notice.name) }
                    if *total > 1 {
                        <progress max={total.to_string()} value={done.to_string()}>{ format!("{done} of {total}") }</progress>
                        { format!(" {done} of {total}") }
                    }
                </>
            },
        ),
        DownloadStage::Saved { size } => {
            ("saved", html! { { format!("Saved {} ({}).", notice.name, human_size(*size)) } })
        }
        DownloadStage::Refused(Refusal { reason, errors }) => (
            "refused",
            html! {
                <>
                    { format!("Not downloaded: {reason}") }
                    if !errors.is_empty() {
                        <ul class="download-errors" aria-label="Errors of the download">
                            { for errors.iter().map(|e| html! { <li class="diagnostic error">{ e }</li> }) }
                        </ul>
                    }
                </>
            },
        ),
    };
    html! {
        <div class={classes!("download-status", class)} role="status" aria-live="polite" data-download-name={notice.name.clone()}>
            <span class="download-message">{ body }</span>
            <button type="button" class="link" onclick={dismiss} aria-label="Dismiss the download message">{"Dismiss"}</button>
        </div>
    }
}
