//! An offload entry's string map as a table: change a value, remove a key, add a key. `triple`
//! and `arch` are checked as they are typed (`offload::edit::string_problem`); a row whose
//! value is refused says why and cannot be applied.

use super::form::EditFormProps;
use offload::edit::string_problem;
use offload::edit::Edit;
use offload::tree::Value;
use web_sys::HtmlInputElement;
use yew::prelude::*;

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

#[function_component]
pub fn EditStrings(props: &EditFormProps) -> Html {
    let stored: Vec<(String, String)> = match props.doc.field(props.node, "strings") {
        Some(Value::Map(m)) => m.clone(),
        _ => Vec::new(),
    };
    let values = use_state(|| stored.iter().map(|(_, v)| v.clone()).collect::<Vec<String>>());
    let new_key = use_state(String::new);
    let new_value = use_state(String::new);

    let rows = stored.iter().enumerate().map(|(i, (key, old))| {
        let value = values.get(i).cloned().unwrap_or_default();
        let problem = string_problem(key, &value);
        let oninput = {
            let values = values.clone();
            Callback::from(move |e: InputEvent| {
                let mut v = (*values).clone();
                if let Some(slot) = v.get_mut(i) {
                    *slot = input_value(&e);
                }
                values.set(v);
            })
        };
        let apply = {
            let (props, key, value) = (props.clone(), key.clone(), value.clone());
            Callback::from(move |_: MouseEvent| props.send(Edit::SetString { node: props.path(), key: key.clone(), value: Some(value.clone()) }))
        };
        let remove = {
            let (props, key) = (props.clone(), key.clone());
            Callback::from(move |_: MouseEvent| props.send(Edit::SetString { node: props.path(), key: key.clone(), value: None }))
        };
        let problem_id = format!("string-problem-{i}");
        html! {
            <tr data-key={key.clone()}>
                <th scope="row" class="mono">{ key }</th>
                <td>
                    <input type="text" class="mono" spellcheck="false" autocomplete="off" value={value.clone()} {oninput}
                        aria-label={format!("Value of {key}")} aria-invalid={problem.is_some().to_string()}
                        aria-describedby={problem.is_some().then(|| problem_id.clone())} />
                    if let Some(p) = &problem {
                        <p id={problem_id} class="field-problem">{ p }</p>
                    }
                </td>
                <td class="row-buttons">
                    <button type="button" onclick={apply} disabled={problem.is_some() || value == *old || props.busy}
                        aria-label={format!("Apply {key}")}>{"Apply"}</button>
                    <button type="button" onclick={remove} disabled={props.busy}
                        aria-label={format!("Remove {key}")}>{"Remove"}</button>
                </td>
            </tr>
        }
    });

    let key_taken = stored.iter().any(|(k, _)| *k == *new_key);
    let new_problem = if new_key.is_empty() {
        None
    } else if key_taken {
        Some(format!("the entry already has a key '{}': change its value above", *new_key))
    } else {
        string_problem(&new_key, &new_value)
    };
    let add = {
        let (props, key, value) = (props.clone(), new_key.clone(), new_value.clone());
        Callback::from(move |_: MouseEvent| {
            props.send(Edit::SetString { node: props.path(), key: (*key).clone(), value: Some((*value).clone()) })
        })
    };
    let on_new_key = {
        let k = new_key.clone();
        Callback::from(move |e: InputEvent| k.set(input_value(&e)))
    };
    let on_new_value = {
        let v = new_value.clone();
        Callback::from(move |e: InputEvent| v.set(input_value(&e)))
    };
    html! {
        <table class="edit-strings">
            <caption>{"Strings"}</caption>
            <thead>
                <tr><th scope="col">{"Key"}</th><th scope="col">{"Value"}</th><th scope="col"><span class="visually-hidden">{"Actions"}</span></th></tr>
            </thead>
            <tbody>
                { for rows }
                <tr class="new-string">
                    <td><input type="text" class="mono" spellcheck="false" autocomplete="off" value={(*new_key).clone()} oninput={on_new_key}
                        aria-label="New key" placeholder="new key" /></td>
                    <td>
                        <input type="text" class="mono" spellcheck="false" autocomplete="off" value={(*new_value).clone()} oninput={on_new_value}
                            aria-label="Value of the new key" placeholder="value" aria-invalid={new_problem.is_some().to_string()} />
                        if let Some(p) = &new_problem {
                            <p class="field-problem">{ p }</p>
                        }
                    </td>
                    <td class="row-buttons">
                        <button type="button" onclick={add} disabled={new_key.is_empty() || new_problem.is_some() || props.busy}
                            aria-label="Add key">{"Add"}</button>
                    </td>
                </tr>
            </tbody>
        </table>
    }
}
