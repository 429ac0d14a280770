//! "Will it run on …": the answer of [`offload::report::fit`] for one GPU, made in the tab's worker —
//! yes or no for the whole file and for each library, the image each container would load and
//! by which rule (exact, target ID, generic, cubin of the same major, PTX JIT …), how many of
//! each library's kernels run and at what occupancy, and what the file needs of the runtime.

use crate::page::state::{Action, FitOutcome, TabId};
use offload::report::fit::{ContainerFit, Fit, LibraryFit};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FitViewProps {
    pub tab: TabId,
    pub outcome: FitOutcome,
    pub on_action: Callback<Action>,
}

fn yes_no(runs: bool) -> &'static str {
    if runs {
        "yes"
    } else {
        "no"
    }
}

fn container(c: &ContainerFit) -> Html {
    let loads = match &c.image {
        Some(i) => format!("loads {} ({})", i.target, i.rule.as_str()),
        None => c.reason.clone(),
    };
    html! { <li class={classes!("fit-container", yes_no(c.runs))}>{ format!("{}: {loads}", c.container) }</li> }
}

/// "N of M kernels run, occupancy a–b waves per SIMD".
pub fn kernel_summary(l: &LibraryFit) -> String {
    let running = l.kernels.iter().filter(|k| k.runs).count();
    let waves: Vec<u32> = l.kernels.iter().filter(|k| k.runs).filter_map(|k| k.occupancy).collect();
    let occupancy = match (waves.iter().min(), waves.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => format!(", occupancy {lo} waves per SIMD"),
        (Some(lo), Some(hi)) => format!(", occupancy {lo}–{hi} waves per SIMD"),
        _ => String::new(),
    };
    format!("{running} of {} kernels run{occupancy}", l.kernels.len())
}

fn library(l: &LibraryFit) -> Html {
    html! {
        <li class={classes!("fit-library", yes_no(l.runs))} data-library={l.library.clone()}>
            <strong>{ format!("{}: {}", l.library, yes_no(l.runs)) }</strong>
            { format!(" — {}", l.reason) }
            if !l.kernels.is_empty() {
                <span class="muted">{ format!(" ({})", kernel_summary(l)) }</span>
            }
            <ul>{ for l.containers.iter().map(container) }</ul>
        </li>
    }
}

fn answer(f: &Fit) -> Html {
    html! {
        <>
            <p class={classes!("fit-verdict", yes_no(f.runs))} role="status">
                <strong>{ format!("{}: {}", f.gpu, yes_no(f.runs)) }</strong>{ format!(" — {}", f.reason) }
            </p>
            <ul class="fit-libraries">{ for f.libraries.iter().map(library) }</ul>
            if !f.requirements.is_empty() {
                <p class="muted">{"What the file needs of the runtime or driver:"}</p>
                <ul class="fit-needs">
                    { for f.requirements.iter().map(|r| html! { <li>{ format!("{}: {} ({})", r.what, r.needs, r.source) }</li> }) }
                </ul>
            }
        </>
    }
}

#[function_component]
pub fn FitView(props: &FitViewProps) -> Html {
    let close = {
        let (on_action, id) = (props.on_action.clone(), props.tab);
        Callback::from(move |_: MouseEvent| on_action.emit(Action::Fit { id, fit: None }))
    };
    html! {
        <section class="fit" aria-labelledby="fit-title">
            <div class="compare-header">
                <h3 id="fit-title">{"Will it run?"}</h3>
                <button type="button" class="close-compare" onclick={close} aria-label="Close the answer">{"×"}</button>
            </div>
            { match &props.outcome {
                FitOutcome::Running(gpu) => html! { <p class="muted" role="status">{ format!("Checking every library and kernel for {gpu}…") }</p> },
                FitOutcome::Failed(m) => html! { <p class="field-problem" role="alert">{ m }</p> },
                FitOutcome::Done(f) => answer(f),
            } }
        </section>
    }
}
