//! The progress bar of a file being explored, shown only when exploring takes more than a
//! moment (so quick files never flash it), with its Cancel button. In a package it counts the
//! members ("member 120 of 4,099, 210 of 545 MiB") and lists the targets of the members read so
//! far, marked as such: a first answer to "which GPUs?" while the rest is read.

use super::runs_on_view::runs_on_line;
use crate::page::format::{human_size, thousands};
use crate::page::session::now_ms;
use crate::wire::messages::Loading;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::prelude::*;

/// Exploring shorter than this shows no progress bar.
pub const PROGRESS_DELAY: Duration = Duration::from_millis(150);

/// "Read 41.0 MiB of 2.1 GiB".
fn capitalized_fetched(fetched: u64, size: u64) -> String {
    let text = crate::page::remote::fetched_text(fetched, size);
    let mut chars = text.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

#[derive(Properties, PartialEq)]
pub struct DelayedProgressProps {
    pub name: String,
    pub size: u64,
    pub progress: Loading,
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
    let p = &props.progress;
    let (status, fraction) = match &p.members {
        Some(m) => (
            format!(
                "{}: member {} of {}, {} of {}",
                p.stage,
                thousands(m.members_done as u64),
                thousands(m.members as u64),
                human_size(m.bytes_done),
                human_size(m.bytes)
            ),
            (m.bytes > 0).then(|| m.bytes_done as f64 / m.bytes as f64),
        ),
        None => (format!("{}: {} of {} read", p.stage, human_size(p.bytes_read), human_size(props.size)), None),
    };
    let label = format!("Exploring {}", props.name);
    html! {
        <section class="notice progress-panel" aria-labelledby="progress-title">
            <h2 id="progress-title">{ &label }</h2>
            if let Some(f) = fraction {
                <progress aria-label={label.clone()} max="1" value={f.to_string()}></progress>
            } else {
                <progress aria-label={label.clone()}></progress>
            }
            <p role="status">{ status }</p>
            if let Some(fetched) = p.fetched {
                <p class="remote-fetched" data-fetched={fetched.to_string()}>{ format!("{} from its host (only the parts needed)", capitalized_fetched(fetched, props.size)) }</p>
            }
            <button type="button" class="cancel" onclick={cancel} aria-label={format!("Cancel exploring {}", props.name)}>{"Cancel"}</button>
            if let Some(found) = p.found.as_ref().filter(|f| !f.lines.is_empty()) {
                <section class="runs-on found-so-far" aria-labelledby="found-so-far-title">
                    <h3 id="found-so-far-title">{ format!("Targets found so far (in {} of the members)", p.members.map_or(0, |m| m.members_done)) }</h3>
                    <ul class="runs-on-lines">{ for found.lines.iter().map(runs_on_line) }</ul>
                </section>
            }
        </section>
    }
}
