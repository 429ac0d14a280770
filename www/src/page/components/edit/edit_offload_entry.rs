//! An offload entry: its strings (see `edit_strings`), its image kind and offload kind as
//! choices named as LLVM names them, and its flags as a number.

use super::edit_strings::EditStrings;
use super::form::EditFormProps;
use crate::page::edit_input::parse_flags;
use offload::edit::Edit;
use offload::format::offload_binary::{ImageKind, OffloadKind};
use offload::tree::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Image kinds LLVM defines (0 to 6, SPIR-V included), as (value, name).
pub fn image_kinds() -> Vec<(u16, &'static str)> {
    (0..=6u16).map(|k| (k, ImageKind(k).name())).collect()
}

/// Offload kinds an entry can have: LLVM 22's bit flags, and 3, which older LLVM wrote for HIP.
pub fn offload_kinds() -> Vec<(u16, String)> {
    [1u16, 2, 4, 8, 3]
        .into_iter()
        .map(|k| {
            let name = OffloadKind(k).name();
            (k, if k == 3 { format!("{name} (3, as older LLVM wrote it)") } else { format!("{name} ({k})") })
        })
        .collect()
}

/// The number a two-byte kind field holds: its raw bytes when the inspector has them (they
/// tell 3 from 4, which have the same name), else the number of its name.
fn kind_number(props: &EditFormProps, field: &str, from_name: impl Fn(&str) -> Option<u16>) -> u16 {
    let info = props.doc.nodes[props.node].fields.iter().find(|f| f.field.name == field);
    if let Some(raw) = info.and_then(|f| f.raw.as_ref()).filter(|r| r.len() == 2) {
        return u16::from_le_bytes([raw[0], raw[1]]);
    }
    match info.map(|f| &f.field.value) {
        Some(Value::Text(t)) => from_name(t).unwrap_or(0),
        Some(Value::Uint(n)) => *n as u16,
        _ => 0,
    }
}

fn select_value(e: &Event) -> Option<u16> {
    e.target_unchecked_into::<HtmlSelectElement>().value().parse().ok()
}

#[function_component]
pub fn EditOffloadEntry(props: &EditFormProps) -> Html {
    let image_kind = kind_number(props, "image_kind", |n| ImageKind::from_name(n).map(|k| k.0));
    let offload_kind = kind_number(props, "offload_kind", |n| OffloadKind::from_name(n).map(|k| k.0));
    let flags = match props.doc.field(props.node, "flags") {
        Some(Value::Uint(n)) => *n as u32,
        _ => 0,
    };
    let image = use_state(|| image_kind);
    let offload = use_state(|| offload_kind);
    let flags_text = use_state(|| flags.to_string());
    let flags_parsed = parse_flags(&flags_text);

    let on_image = {
        let image = image.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                image.set(v);
            }
        })
    };
    let on_offload = {
        let offload = offload.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                offload.set(v);
            }
        })
    };
    let on_flags = {
        let flags_text = flags_text.clone();
        Callback::from(move |e: InputEvent| flags_text.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let apply_image = {
        let (props, image) = (props.clone(), image.clone());
        Callback::from(move |_: MouseEvent| props.send(Edit::SetImageKind { node: props.path(), kind: *image }))
    };
    let apply_offload = {
        let (props, offload) = (props.clone(), offload.clone());
        Callback::from(move |_: MouseEvent| props.send(Edit::SetOffloadKind { node: props.path(), kind: *offload }))
    };
    let apply_flags = {
        let (props, flags_text) = (props.clone(), flags_text.clone());
        Callback::from(move |_: MouseEvent| {
            if let Ok(flags) = parse_flags(&flags_text) {
                props.send(Edit::SetFlags { node: props.path(), flags });
            }
        })
    };
    html! {
        <div class="edit-form edit-offload-entry">
            <EditStrings ..props.clone() />
            <table class="edit-kinds">
                <caption>{"Kinds and flags"}</caption>
                <tbody>
                    <tr>
                        <th scope="row"><label for="edit-image-kind">{"Image kind"}</label></th>
                        <td>
                            <select id="edit-image-kind" onchange={on_image}>
                                { for image_kinds().into_iter().map(|(k, name)| html! {
                                    <option value={k.to_string()} selected={k == *image}>{ format!("{name} ({k})") }</option>
                                }) }
                            </select>
                        </td>
                        <td><button type="button" onclick={apply_image} disabled={*image == image_kind || props.busy}
                            aria-label="Apply the image kind">{"Apply"}</button></td>
                    </tr>
                    <tr>
                        <th scope="row"><label for="edit-offload-kind">{"Offload kind"}</label></th>
                        <td>
                            <select id="edit-offload-kind" onchange={on_offload}>
                                { for offload_kinds().into_iter().map(|(k, name)| html! {
                                    <option value={k.to_string()} selected={k == *offload}>{ name }</option>
                                }) }
                            </select>
                        </td>
                        <td><button type="button" onclick={apply_offload} disabled={*offload == offload_kind || props.busy}
                            aria-label="Apply the offload kind">{"Apply"}</button></td>
                    </tr>
                    <tr>
                        <th scope="row"><label for="edit-flags">{"Flags"}</label></th>
                        <td>
                            <input id="edit-flags" type="text" inputmode="numeric" class="mono" value={(*flags_text).clone()} oninput={on_flags}
                                aria-invalid={flags_parsed.is_err().to_string()} />
                            if let Err(p) = &flags_parsed {
                                <p class="field-problem">{ p }</p>
                            }
                        </td>
                        <td><button type="button" onclick={apply_flags} disabled={flags_parsed.clone().map_or(true, |f| f == flags) || props.busy}
                            aria-label="Apply the flags">{"Apply"}</button></td>
                    </tr>
                </tbody>
            </table>
        </div>
    }
}
