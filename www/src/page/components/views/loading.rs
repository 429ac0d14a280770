//! A tab whose file is not explored (yet): its progress, its failure, or its cancellation.

use super::progress::DelayedProgress;
use crate::page::state::FileRequest;
use crate::page::state::{Status, Tab};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LoadingProps {
    pub tab: Tab,
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn Loading(props: &LoadingProps) -> Html {
    let tab = &props.tab;
    let id = tab.id;
    match &tab.status {
        Status::Loading(progress) => html! {
            <DelayedProgress key={id} name={tab.name.clone()} size={tab.size} progress={progress.clone()} opened_at={tab.opened_at}
                on_cancel={props.on_file.reform(move |_| FileRequest::Cancel(id))} />
        },
        Status::Failed(message) => html! {
            <section class="notice error" role="alert" aria-labelledby="notice-title">
                <h2 id="notice-title">{ format!("{} could not be explored", tab.name) }</h2>
                <p class="message">{ message }</p>
                <div class="actions">
                    <button type="button" onclick={props.on_file.reform(move |_: MouseEvent| FileRequest::Restart(id))}>{"Try again"}</button>
                    <button type="button" onclick={props.on_file.reform(move |_: MouseEvent| FileRequest::Close(id))}>{"Close"}</button>
                </div>
            </section>
        },
        Status::Cancelled => html! {
            <section class="notice" aria-labelledby="notice-title">
                <h2 id="notice-title">{ format!("Exploring {} was cancelled", tab.name) }</h2>
                <div class="actions">
                    <button type="button" onclick={props.on_file.reform(move |_: MouseEvent| FileRequest::Restart(id))}>{"Explore again"}</button>
                    <button type="button" onclick={props.on_file.reform(move |_: MouseEvent| FileRequest::Close(id))}>{"Close"}</button>
                </div>
            </section>
        },
        Status::Ready(_) => html! {},
    }
}
