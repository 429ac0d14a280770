//! Comparing two files: the "Compare with…" control (another open tab, or this file as it was
//! before its edits) and the comparison's result ([`offload::report::diff`], made in the tab's worker):
//! targets added, removed and common, the size change per target, how many images differ byte
//! for byte, and the kernels added, removed or changed (registers, LDS, scratch).

use crate::page::format::human_size;
use crate::page::state::{Action, CompareOutcome, CompareWith, Comparison, FileRequest, TabId};
use offload::report::diff::{Diff, SizeChange};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareControlProps {
    pub tab: TabId,
    /// The other open tabs: (id, file name).
    pub others: Vec<(TabId, String)>,
    /// The version the tab shows: earlier versions can be compared with it.
    pub current: usize,
    pub on_file: Callback<FileRequest>,
    #[prop_or_default]
    pub busy: bool,
}

/// The choices of the "Compare with…" list, as (value, label).
pub fn choices(others: &[(TabId, String)], current: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if current > 0 {
        out.push(("v0".into(), "this file as opened (before its edits)".into()));
    }
    out.extend(others.iter().map(|(id, name)| (format!("t{id}"), name.clone())));
    out
}

fn parse_choice(value: &str) -> Option<CompareWith> {
    match value.split_at_checked(1)? {
        ("v", n) => n.parse().ok().map(CompareWith::Version),
        ("t", n) => n.parse().ok().map(CompareWith::Tab),
        _ => None,
    }
}

#[function_component]
pub fn CompareControl(props: &CompareControlProps) -> Html {
    let options = choices(&props.others, props.current);
    let chosen = use_state(|| None::<String>);
    if options.is_empty() {
        return html! {};
    }
    let value =
        (*chosen).clone().filter(|v| options.iter().any(|(o, _)| o == v)).unwrap_or_else(|| options[0].0.clone());
    let on_change = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| chosen.set(Some(e.target_unchecked_into::<HtmlSelectElement>().value())))
    };
    let on_compare = {
        let (on_file, tab, value) = (props.on_file.clone(), props.tab, value.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(with) = parse_choice(&value) {
                on_file.emit(FileRequest::Compare(tab, with));
            }
        })
    };
    html! {
        <div class="compare-control">
            <label for="compare-with">{"Compare with"}</label>
            <select id="compare-with" onchange={on_change}>
                { for options.iter().map(|(v, label)| html! { <option value={v.clone()} selected={*v == value}>{ label }</option> }) }
            </select>
            <button type="button" onclick={on_compare} disabled={props.busy}>{"Compare"}</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    pub tab: TabId,
    /// The file shown in the tab (the newer side).
    pub name: String,
    pub comparison: Comparison,
    pub on_action: Callback<Action>,
}

fn signed(delta: i128) -> String {
    let size = human_size(delta.unsigned_abs().min(u128::from(u64::MAX)) as u64);
    match delta {
        0 => "same".into(),
        d if d > 0 => format!("+{size}"),
        _ => format!("−{size}"),
    }
}

fn value(v: Option<u64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

fn size_row(s: &SizeChange) -> Html {
    html! {
        <tr data-target={s.target.clone()}>
            <th scope="row"><code>{ &s.target }</code></th>
            <td class="num">{ format!("{} ({})", human_size(s.old_bytes), s.old_images) }</td>
            <td class="num">{ format!("{} ({})", human_size(s.new_bytes), s.new_images) }</td>
            <td class="num">{ signed(s.delta()) }</td>
        </tr>
    }
}

fn target_list(what: &str, class: &str, ids: &[String]) -> Html {
    if ids.is_empty() {
        return html! {};
    }
    html! {
        <div class={classes!("compare-targets", class.to_string())}>
            <span class="compare-what">{ format!("{what} ({})", ids.len()) }</span>
            <ul>{ for ids.iter().map(|id| html! { <li><code>{ id }</code></li> }) }</ul>
        </div>
    }
}

fn result(d: &Diff, against: &str, name: &str) -> Html {
    let verdict = if d.is_equal() {
        "Equal: the same targets, and every device image the same byte for byte.".to_string()
    } else {
        format!(
            "Different: {} added, {} removed, {} common; {} of {} images differ.",
            d.targets.added.len(),
            d.targets.removed.len(),
            d.targets.common.len(),
            d.images_differing(),
            d.images.len()
        )
    };
    let k = &d.kernels;
    html! {
        <>
            <p class={classes!("compare-verdict", if d.is_equal() { "equal" } else { "different" })} role="status">{ verdict }</p>
            <p class="muted">{ format!("{against}: {} → {name}: {} ({})", human_size(d.old_size), human_size(d.new_size),
                signed(i128::from(d.new_size) - i128::from(d.old_size))) }</p>
            { target_list("added", "added", &d.targets.added) }
            { target_list("removed", "removed", &d.targets.removed) }
            <div class="table-scroll">
                <table class="compare-sizes">
                    <caption>{"Device images per target (bytes decompressed, and how many)"}</caption>
                    <thead><tr><th scope="col">{"Target"}</th><th scope="col" class="num">{"Before"}</th>
                        <th scope="col" class="num">{"After"}</th><th scope="col" class="num">{"Change"}</th></tr></thead>
                    <tbody>{ for d.sizes.iter().map(size_row) }</tbody>
                </table>
            </div>
            if !k.added.is_empty() || !k.removed.is_empty() || !k.changed.is_empty() {
                <div class="table-scroll">
                    <table class="compare-kernels">
                        <caption>{ format!("Kernels: {} added, {} removed, {} changed", k.added.len(), k.removed.len(), k.changed.len()) }</caption>
                        <thead><tr><th scope="col">{"Kernel"}</th><th scope="col">{"Target"}</th><th scope="col">{"Change"}</th></tr></thead>
                        <tbody>
                            { for k.added.iter().map(|r| html! { <tr class="added"><th scope="row"><code>{ &r.name }</code></th><td>{ &r.target }</td><td>{"added"}</td></tr> }) }
                            { for k.removed.iter().map(|r| html! { <tr class="removed"><th scope="row"><code>{ &r.name }</code></th><td>{ &r.target }</td><td>{"removed"}</td></tr> }) }
                            { for k.changed.iter().map(|c| {
                                let what = c.old.changes(&c.new).into_iter()
                                    .map(|(n, a, b)| format!("{n} {} → {}", value(a), value(b)))
                                    .collect::<Vec<_>>().join(", ");
                                html! { <tr class="changed"><th scope="row"><code>{ &c.name }</code></th><td>{ &c.target }</td><td>{ what }</td></tr> }
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </>
    }
}

#[function_component]
pub fn CompareView(props: &CompareViewProps) -> Html {
    let c = &props.comparison;
    let close = {
        let (on_action, id) = (props.on_action.clone(), props.tab);
        Callback::from(move |_: MouseEvent| on_action.emit(Action::Compare { id, comparison: None }))
    };
    html! {
        <section class="panel compare-panel" aria-labelledby="compare-title">
            <div class="compare-header">
                <h2 id="compare-title" class="panel-title">{ format!("Compared with {}", c.against) }</h2>
                <button type="button" class="close-compare" onclick={close} aria-label="Close the comparison">{"×"}</button>
            </div>
            { match &c.outcome {
                CompareOutcome::Running => html! { <p class="muted" role="status">{"Comparing: both files are read whole and explored…"}</p> },
                CompareOutcome::Failed(m) => html! { <p class="field-problem" role="alert">{ format!("The files could not be compared: {m}") }</p> },
                CompareOutcome::Done(d) => result(d, &c.against, &props.name),
            } }
        </section>
    }
}
