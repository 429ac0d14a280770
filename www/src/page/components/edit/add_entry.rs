//! "Add image from file…": a new entry holding a file's bytes, at the end of a bundle (its
//! entry ID asked for and checked) or of an offload binary or section (its triple, arch, image
//! kind and offload kind asked for and checked).

use super::edit_offload_entry::{image_kinds, offload_kinds};
use super::form::EditFormProps;
use crate::page::bytes::read_blob;
use crate::wire::doc::NodeId;
use offload::edit::{entry_id_problem, string_problem};
use offload::edit::{Edit, NewEntry};
use offload::format::offload_binary::{ImageKind, OffloadKind};
use offload::tree::{NodeKind, Value};
use web_sys::{File, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NewEntryKind {
    /// An entry of a binary or text bundle: an entry ID.
    BundleEntry,
    /// An entry of an offload binary: strings and kinds.
    OffloadEntry,
}

#[derive(Properties, PartialEq)]
pub struct AddEntryProps {
    pub kind: NewEntryKind,
    pub form: EditFormProps,
}

/// The strings and kinds of an offload entry already in (or near) the container, as defaults.
fn neighbour(props: &EditFormProps) -> Option<NodeId> {
    let doc = &props.doc;
    let inside = (props.node..doc.nodes[props.node].subtree_end).find(|&i| doc.nodes[i].kind == NodeKind::OffloadEntry);
    inside.or_else(|| doc.nodes.iter().position(|n| n.kind == NodeKind::OffloadEntry))
}

fn string_of(props: &EditFormProps, node: Option<NodeId>, key: &str) -> Option<String> {
    match props.doc.field(node?, "strings")? {
        Value::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()),
        _ => None,
    }
}

/// Whether the bundle already has an entry with this ID (the core refuses a second one, as
/// the bundler keeps only the last of the same ID).
fn has_entry(props: &EditFormProps, id: &str) -> bool {
    let doc = &props.doc;
    doc.nodes[props.node]
        .children
        .iter()
        .any(|&c| doc.nodes[c].kind == NodeKind::BundleEntry && doc.text(c, "id") == Some(id))
}

fn text_input(setter: &UseStateHandle<String>) -> Callback<InputEvent> {
    let setter = setter.clone();
    Callback::from(move |e: InputEvent| setter.set(e.target_unchecked_into::<HtmlInputElement>().value()))
}

fn select_input(setter: &UseStateHandle<u16>) -> Callback<Event> {
    let setter = setter.clone();
    Callback::from(move |e: Event| {
        if let Ok(v) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
            setter.set(v);
        }
    })
}

#[function_component]
pub fn AddEntry(props: &AddEntryProps) -> Html {
    let form = &props.form;
    let near = neighbour(form);
    let id = use_state(String::new);
    let triple = use_state(|| string_of(form, near, "triple").unwrap_or_else(|| "amdgcn-amd-amdhsa".into()));
    let arch = use_state(String::new);
    let image_kind = use_state(|| ImageKind::OBJECT.0);
    let offload_kind = use_state(|| {
        near.and_then(|n| form.doc.text(n, "offload_kind"))
            .and_then(OffloadKind::from_name)
            .map_or(OffloadKind::OPENMP.0, |k| k.0)
    });
    let file = use_state(|| None::<File>);
    let error = use_state(|| None::<String>);

    let problem = match props.kind {
        NewEntryKind::BundleEntry if has_entry(form, &id) => Some(format!("the bundle already has an entry '{}'", *id)),
        NewEntryKind::BundleEntry => entry_id_problem(&id),
        NewEntryKind::OffloadEntry => string_problem("triple", &triple).or_else(|| string_problem("arch", &arch)),
    };
    let on_file = {
        let file = file.clone();
        Callback::from(move |e: Event| {
            file.set(e.target_unchecked_into::<HtmlInputElement>().files().and_then(|f| f.get(0)))
        })
    };
    let add = {
        let (form, kind, file, error) = (form.clone(), props.kind, file.clone(), error.clone());
        let (id, triple, arch, image_kind, offload_kind) =
            ((*id).clone(), (*triple).clone(), (*arch).clone(), *image_kind, *offload_kind);
        Callback::from(move |_: MouseEvent| {
            let Some(chosen) = (*file).clone() else { return };
            let mut entry = NewEntry { image_kind, offload_kind, ..Default::default() };
            match kind {
                NewEntryKind::BundleEntry => entry.id = id.clone(),
                NewEntryKind::OffloadEntry => {
                    entry.strings = vec![("triple".into(), triple.clone()), ("arch".into(), arch.clone())]
                }
            }
            let (form, error) = (form.clone(), error.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match read_blob(&chosen, 0, chosen.size() as u64).await {
                    Ok(data) => {
                        error.set(None);
                        entry.data = data;
                        form.send(Edit::AddEntry { container: form.path(), entry });
                    }
                    Err(e) => error.set(Some(format!("{} could not be read: {e}", chosen.name()))),
                }
            });
        })
    };
    let fields = match props.kind {
        NewEntryKind::BundleEntry => html! {
            <div class="edit-row">
                <label for="add-entry-id">{"Entry ID"}</label>
                <input id="add-entry-id" type="text" class="mono" spellcheck="false" autocomplete="off" value={(*id).clone()}
                    oninput={text_input(&id)} placeholder="hipv4-amdgcn-amd-amdhsa--gfx90a" />
            </div>
        },
        NewEntryKind::OffloadEntry => html! {
            <>
                <div class="edit-row">
                    <label for="add-triple">{"Triple"}</label>
                    <input id="add-triple" type="text" class="mono" spellcheck="false" value={(*triple).clone()} oninput={text_input(&triple)} />
                    <label for="add-arch">{"Arch"}</label>
                    <input id="add-arch" type="text" class="mono" spellcheck="false" value={(*arch).clone()} oninput={text_input(&arch)} placeholder="gfx90a" />
                </div>
                <div class="edit-row">
                    <label for="add-image-kind">{"Image kind"}</label>
                    <select id="add-image-kind" onchange={select_input(&image_kind)}>
                        { for image_kinds().into_iter().map(|(k, name)| html! { <option value={k.to_string()} selected={k == *image_kind}>{ name }</option> }) }
                    </select>
                    <label for="add-offload-kind">{"Offload kind"}</label>
                    <select id="add-offload-kind" onchange={select_input(&offload_kind)}>
                        { for offload_kinds().into_iter().map(|(k, name)| html! { <option value={k.to_string()} selected={k == *offload_kind}>{ name }</option> }) }
                    </select>
                </div>
            </>
        },
    };
    let typed = match props.kind {
        NewEntryKind::BundleEntry => !id.is_empty(),
        NewEntryKind::OffloadEntry => !arch.is_empty(),
    };
    html! {
        <fieldset class="add-entry">
            <legend>{"Add image from file…"}</legend>
            { fields }
            if typed {
                if let Some(p) = &problem {
                    <p class="field-problem">{ p }</p>
                }
            }
            <div class="edit-row">
                <label for="add-entry-file">{"Image file"}</label>
                <input id="add-entry-file" type="file" onchange={on_file} />
                <button type="button" onclick={add} disabled={problem.is_some() || file.is_none() || form.busy}>{"Add image"}</button>
            </div>
            if let Some(e) = &*error {
                <p class="field-problem">{ e }</p>
            }
        </fieldset>
    }
}
