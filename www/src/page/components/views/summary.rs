//! The summary: what the file is and the limits it was explored with, what it runs on, its
//! device targets, what each target costs, the container chain of the selection, and every
//! diagnostic with where it points.

use super::compare_view::CompareControl;
use super::container_chain::Chain;
use super::diagnostics_list::Diagnostics;
use super::explored_with::ExploredWith;
use super::fit_view::FitView;
use super::runs_on_view::RunsOnView;
use super::target_sizes::TargetSizes;
use super::target_table::TargetTable;
use crate::page::format::human_size;
use crate::page::state::{Action, FileRequest, FitOutcome, TabId};
use crate::wire::doc::{display_value, Doc, NodeId};
use crate::wire::settings::Settings;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub first_render_ms: Option<f64>,
    /// The settings the file was explored with, and the page's settings now.
    pub settings: Settings,
    pub current_settings: Settings,
    /// Explore the file again with the current settings.
    pub on_reopen: Callback<MouseEvent>,
    pub on_action: Callback<Action>,
    /// The tab, and where its edits go (dropping targets).
    pub tab: TabId,
    pub on_file: Callback<FileRequest>,
    /// An edit is running.
    #[prop_or_default]
    pub busy: bool,
    /// The other open tabs (id, file name) and the version shown, for "Compare with…".
    #[prop_or_default]
    pub others: Vec<(TabId, String)>,
    #[prop_or_default]
    pub current: usize,
    /// The last "will it run on …" answer of this tab.
    #[prop_or_default]
    pub fit: Option<FitOutcome>,
}

#[function_component]
pub fn Summary(props: &SummaryProps) -> Html {
    let doc = &props.doc;
    let container = doc.nodes.first().and_then(|n| n.field("container")).map(display_value);
    let timing = match props.first_render_ms {
        Some(ms) => {
            format!("explored in {:.0} ms, on screen {:.0} ms after opening", doc.explore_us as f64 / 1000.0, ms)
        }
        None => format!("explored in {:.0} ms", doc.explore_us as f64 / 1000.0),
    };
    html! {
        <section class="panel summary" aria-labelledby="summary-title">
            <h2 id="summary-title" class="panel-title">{"Summary"}</h2>
            <p class="file-line">
                <strong class="file-name">{ &doc.name }</strong>
                { format!(" — {}", human_size(doc.size)) }
                { container.map(|c| format!(", {c}")).unwrap_or_default() }
                { format!(", {} byte space{}", doc.spaces.len(), if doc.spaces.len() == 1 { "" } else { "s" }) }
                <span class="timing" data-first-render-ms={props.first_render_ms.map(|ms| format!("{ms:.1}"))}>{ format!(" ({timing})") }</span>
            </p>
            <CompareControl tab={props.tab} others={props.others.clone()} current={props.current} on_file={props.on_file.clone()} busy={props.busy} />
            <ExploredWith used={props.settings} current={props.current_settings} on_reopen={props.on_reopen.clone()} on_action={props.on_action.clone()} />
            <RunsOnView doc={doc.clone()} tab={props.tab} on_file={props.on_file.clone()} />
            if let Some(outcome) = &props.fit {
                <FitView tab={props.tab} outcome={outcome.clone()} on_action={props.on_action.clone()} />
            }
            <TargetTable doc={doc.clone()} selected={props.selected} on_action={props.on_action.clone()} />
            <TargetSizes doc={doc.clone()} tab={props.tab} on_file={props.on_file.clone()} busy={props.busy} />
            <Chain doc={doc.clone()} selected={props.selected} on_action={props.on_action.clone()} />
            <Diagnostics doc={doc.clone()} on_action={props.on_action.clone()} />
        </section>
    }
}
