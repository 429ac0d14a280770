//! A bundle entry's ID, checked as it is typed: what the bundler would refuse (Apply is then
//! disabled), the warnings a reader of the ID would get, and the canonical form (features
//! sorted) one click away.

use super::form::EditFormProps;
use offload::edit::Edit;
use offload::edit::{canonical_entry_id, entry_id_problem};
use offload::ids::entry_id_diagnostics;
use offload::tree::Severity;
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub const ENTRY_ID_INPUT: &str = "edit-entry-id";

#[function_component]
pub fn EditEntryId(props: &EditFormProps) -> Html {
    let stored = props.doc.text(props.node, "id").unwrap_or("").to_string();
    let value = use_state(|| stored.clone());
    let problem = entry_id_problem(&value);
    // A refusal is the problem above, said once; otherwise the warnings and notes a reader of
    // the ID would get (which read IDs leniently, as LLVM does) do not stop the edit.
    let advice: Vec<(Severity, String)> = match problem {
        Some(_) => Vec::new(),
        None => entry_id_diagnostics(&value, None).into_iter().map(|d| (d.severity, d.message)).collect(),
    };
    let canonical = canonical_entry_id(&value).filter(|c| *c != *value && entry_id_problem(c).is_none());
    let unchanged = *value == stored;

    let oninput = {
        let value = value.clone();
        Callback::from(move |e: InputEvent| value.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let onsubmit = {
        let (props, value) = (props.clone(), value.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if entry_id_problem(&value).is_none() {
                props.send(Edit::SetEntryId { node: props.path(), id: (*value).clone() });
            }
        })
    };
    let use_canonical = canonical.clone().map(|id| {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| props.send(Edit::SetEntryId { node: props.path(), id: id.clone() }))
    });
    let problem_id = format!("{ENTRY_ID_INPUT}-problem");
    html! {
        <form class="edit-form edit-entry-id" aria-label="Edit the entry ID" {onsubmit}>
            <label for={ENTRY_ID_INPUT}>{"Entry ID"}</label>
            <div class="edit-row">
                <input id={ENTRY_ID_INPUT} type="text" class="mono" spellcheck="false" autocomplete="off"
                    value={(*value).clone()} {oninput}
                    aria-invalid={problem.is_some().to_string()}
                    aria-describedby={problem.is_some().then(|| problem_id.clone())} />
                <button type="submit" disabled={problem.is_some() || unchanged || props.busy}
                    aria-label="Apply the entry ID">{"Apply"}</button>
            </div>
            if let Some(p) = &problem {
                <p id={problem_id} class="field-problem">{ p }</p>
            }
            if !advice.is_empty() {
                <ul class="id-advice" aria-label="About this ID">
                    { for advice.iter().map(|(s, m)| html! {
                        <li class={classes!("diagnostic", s.as_str())}><span class="severity">{ s.as_str() }</span>{" "}{ m }</li>
                    }) }
                </ul>
            }
            if let (Some(id), Some(onclick)) = (canonical, use_canonical) {
                <button type="button" class="use-canonical" {onclick} disabled={props.busy}>
                    {"Use canonical form "}<code>{ id }</code>
                </button>
            }
        </form>
    }
}
