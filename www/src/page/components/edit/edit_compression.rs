//! Compression of a bundle: on a compressed bundle, compress it again with another method,
//! level or format version, decompress it, or check its hash; on an uncompressed bundle,
//! compress it (zstd at its default level, format version 3, unless chosen otherwise).

use super::form::EditFormProps;
use crate::page::edit_input::parse_level;
use offload::codec::Method;
use offload::edit::Edit;
use offload::format::bundle::compressed::{DEFAULT_VERSION, VERSIONS};
use offload::tree::{NodeKind, Value};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[function_component]
pub fn EditCompression(props: &EditFormProps) -> Html {
    let compressed = props.kind() == NodeKind::CompressedBundle;
    let stored_method = props.doc.text(props.node, "method").and_then(Method::from_name);
    let stored_version = match props.doc.field(props.node, "version") {
        Some(Value::Uint(v)) => Some(*v as u16),
        _ => None,
    };
    let method = use_state(|| stored_method.unwrap_or(Method::Zstd));
    let version = use_state(|| stored_version.filter(|v| VERSIONS.contains(v)).unwrap_or(DEFAULT_VERSION));
    let level_text = use_state(String::new);
    let level = parse_level(*method, &level_text);

    let on_method = {
        let method = method.clone();
        Callback::from(move |e: Event| {
            if let Some(m) = Method::from_name(&e.target_unchecked_into::<HtmlSelectElement>().value()) {
                method.set(m);
            }
        })
    };
    let on_version = {
        let version = version.clone();
        Callback::from(move |e: Event| {
            if let Ok(v) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
                version.set(v);
            }
        })
    };
    let on_level = {
        let level_text = level_text.clone();
        Callback::from(move |e: InputEvent| level_text.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let compress = {
        let (props, method, version, level) = (props.clone(), method.clone(), version.clone(), level.clone());
        Callback::from(move |_: MouseEvent| {
            if let Ok(level) = level {
                props.send(Edit::Compress { node: props.path(), method: *method, level, version: *version });
            }
        })
    };
    let decompress = {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| props.send(Edit::Decompress { node: props.path() }))
    };
    let verify = {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| {
            props.on_file.emit(crate::page::state::FileRequest::Verify(props.tab, props.path()))
        })
    };
    let (compress_label, compress_name) = if compressed {
        ("Apply", "Compress again with this method, level and version")
    } else {
        ("Compress", "Compress")
    };
    html! {
        <div class="edit-form edit-compression" role="group" aria-label="Compression">
            <div class="edit-row">
                <label for="edit-method">{"Method"}</label>
                <select id="edit-method" onchange={on_method}>
                    { for Method::ALL.iter().map(|m| html! {
                        <option value={m.name()} selected={*m == *method}>{ m.name() }</option>
                    }) }
                </select>
                <label for="edit-level">{"Level"}</label>
                <input id="edit-level" type="text" inputmode="numeric" class="level" value={(*level_text).clone()} oninput={on_level}
                    placeholder={format!("default ({})", method.default_level())} aria-invalid={level.is_err().to_string()} />
                <label for="edit-version">{"Format version"}</label>
                <select id="edit-version" onchange={on_version}>
                    { for VERSIONS.iter().map(|v| html! {
                        <option value={v.to_string()} selected={*v == *version}>{ v.to_string() }</option>
                    }) }
                </select>
            </div>
            if let Err(p) = &level {
                <p class="field-problem">{ p }</p>
            }
            <div class="edit-row">
                <button type="button" onclick={compress} disabled={level.is_err() || props.busy} aria-label={compress_name}>{ compress_label }</button>
                if compressed {
                    <button type="button" onclick={decompress} disabled={props.busy}>{"Decompress"}</button>
                    <button type="button" onclick={verify} disabled={props.busy} aria-label="Verify the hash">{"Verify"}</button>
                }
            </div>
        </div>
    }
}
