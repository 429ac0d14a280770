//! The progress bar of a file being explored, shown only when exploring takes more than a
//! moment (so quick files never flash it), with its Cancel button.

use crate::page::format::human_size;
use crate::page::session::now_ms;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::prelude::*;

/// Exploring shorter than this shows no progress bar.
pub const PROGRESS_DELAY: Duration = Duration::from_millis(150);

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
