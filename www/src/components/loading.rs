//! A file being explored, a file whose explorer failed, or one that was cancelled. The progress
//! bar appears only when exploring takes more than a moment, so quick files never flash it.

use super::app::FileRequest;
use crate::format::human_size;
use crate::session::now_ms;
use crate::state::{Status, Tab};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::prelude::*;

/// Exploring shorter than this shows no progress bar.
pub const PROGRESS_DELAY: Duration = Duration::from_millis(150);

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
        Status::Loading { stage, bytes_read } => html! {
            <DelayedProgress key={id} name={tab.name.clone()} size={tab.size} stage={stage.clone()} bytes_read={*bytes_read} opened_at={tab.opened_at}
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

#[derive(Properties, PartialEq)]
pub struct DelayedProgressProps {
    pub name: String,
    pub size: u64,
    pub stage: String,
    pub bytes_read: u64,
    /// `performance.now()` when the file was opened: the delay counts from then, so switching
    /// back to a busy tab shows its progress at once.
    pub opened_at: f64,
    pub on_cancel: Callback<()>,
}

#[function_component]
pub fn DelayedProgress(props: &DelayedProgressProps) -> Html {
    let remaining_ms = PROGRESS_DELAY.as_secs_f64() * 1000.0 - (now_ms() - props.opened_at);
    let shown = use_state(|| remaining_ms <= 0.0);
    {
        let shown = shown.clone();
        use_effect_with((), move |_| {
            let alive = Rc::new(Cell::new(true));
            if !*shown {
                let still = alive.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    yew::platform::time::sleep(Duration::from_secs_f64(remaining_ms.max(0.0) / 1000.0)).await;
                    if still.get() {
                        shown.set(true);
                    }
                });
            }
            move || alive.set(false)
        });
    }
    if !*shown {
        return html! { <p class="visually-hidden" role="status">{ format!("Opening {}", props.name) }</p> };
    }
    let cancel = props.on_cancel.reform(|_: MouseEvent| ());
    html! {
        <section class="notice progress-panel" aria-labelledby="progress-title">
            <h2 id="progress-title">{ format!("Exploring {}", props.name) }</h2>
            <progress aria-label={format!("Exploring {}", props.name)}></progress>
            <p role="status">{ format!("{}: {} of {} read", props.stage, human_size(props.bytes_read), human_size(props.size)) }</p>
            <button type="button" class="cancel" onclick={cancel} aria-label={format!("Cancel exploring {}", props.name)}>{"Cancel"}</button>
        </section>
    }
}
