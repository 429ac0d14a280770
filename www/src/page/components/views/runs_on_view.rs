//! "Runs on": the summary's first answer. One line per distinct target, grouped by vendor, with
//! how many images it has, their bytes and, where it matters, how it is reached (only as PTX,
//! through a generic target and which GPUs that covers). A search box answers "is my GPU in
//! here?" with the core's rules ([`offload::report::runs_on::query`]): exact, compatible (and why), or
//! absent (and why). "Check every library and kernel" asks the tab's worker the whole answer
//! ([`offload::report::fit`], shown by `fit_view`).

use crate::page::format::human_size;
use crate::page::state::{FileRequest, TabId};
use crate::wire::doc::Doc;
use offload::report::runs_on::{gpu_choices, query, RunsOnLine, Verdict};
use offload::report::targets::Vendor;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RunsOnProps {
    pub doc: Rc<Doc>,
    pub tab: TabId,
    pub on_file: Callback<FileRequest>,
}

const VENDORS: [Vendor; 3] = [Vendor::Amd, Vendor::Nvidia, Vendor::Other];

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Exact => "yes",
        Verdict::Compatible => "yes, compatible",
        Verdict::Absent => "no",
    }
}

/// One target's line: its name, images and bytes, and how it is reached where that matters.
pub fn runs_on_line(l: &RunsOnLine) -> Html {
    let images = format!("{} image{}", l.images, if l.images == 1 { "" } else { "s" });
    html! {
        <li class="runs-on-line" data-target={l.target.clone()}>
            <code class="runs-on-target">{ &l.target }</code>
            <span class="muted">{ format!(" {images}, {}", human_size(l.bytes)) }</span>
            if let Some(note) = &l.note {
                <span class="runs-on-note">{ format!(" — {note}") }</span>
            }
        </li>
    }
}

#[function_component]
pub fn RunsOnView(props: &RunsOnProps) -> Html {
    let question = use_state(String::new);
    // The GPUs to pick from as one types (AMD processors in each xnack/sramecc mode, NVIDIA sm_NN).
    let choices = use_memo((), |_| gpu_choices());
    let runs_on = &props.doc.runs_on;
    if runs_on.lines.is_empty() {
        return html! {};
    }
    let on_input = {
        let question = question.clone();
        Callback::from(move |e: InputEvent| question.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let answer = (!question.trim().is_empty()).then(|| query(runs_on, question.trim()));
    let check = {
        let (question, on_file, tab) = (question.clone(), props.on_file.clone(), props.tab);
        Callback::from(move |_: MouseEvent| on_file.emit(FileRequest::Fit(tab, question.trim().to_string())))
    };
    html! {
        <section class="runs-on" aria-labelledby="runs-on-title">
            <h3 id="runs-on-title">{"Runs on"}</h3>
            { for VENDORS.iter().map(|&vendor| {
                let lines: Vec<&RunsOnLine> = runs_on.lines.iter().filter(|l| l.vendor == vendor).collect();
                if lines.is_empty() {
                    return html! {};
                }
                html! {
                    <div class="runs-on-vendor">
                        <span class="runs-on-vendor-name">{ vendor.name() }</span>
                        <ul>{ for lines.into_iter().map(runs_on_line) }</ul>
                    </div>
                }
            }) }
            <div class="runs-on-search">
                <label for="runs-on-query">{"Is my GPU in here?"}</label>
                <input id="runs-on-query" type="search" list="gpu-choices" placeholder="gfx1201, gfx90a:xnack+, sm_89" value={(*question).clone()} oninput={on_input} />
                <datalist id="gpu-choices">{ for choices.iter().map(|gpu| html! { <option value={gpu.clone()} /> }) }</datalist>
                if let Some(a) = answer {
                    <p class={classes!("runs-on-answer", if a.verdict == Verdict::Absent { "verdict-no" } else { "verdict-yes" })} role="status">
                        <strong>{ format!("{}: {}", a.query, verdict_word(a.verdict)) }</strong>
                        { format!(" — {}", a.reason) }
                    </p>
                    <button type="button" class="fit-check" onclick={check}>{"Check every library and kernel"}</button>
                }
            </div>
        </section>
    }
}
