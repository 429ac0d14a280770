//! The `#url=` dialog: asks before fetching a file from an address (a link must not make the
//! page download anything unasked), then shows the download's progress with Cancel, or why a
//! link could not be opened. "Open URL…" asks for the address here too, and a `#pypi=` link
//! shows the wheel chosen, why, and the release's others to pick from. A modal `<dialog>` in
//! the page, never `window.confirm`.

use crate::page::format::capitalized;
use crate::page::remote::{progress_text, RemoteState};
use web_sys::HtmlDialogElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RemotePromptProps {
    pub state: Option<RemoteState>,
    /// "Open": fetch the file asked about.
    pub on_open: Callback<()>,
    /// "Open" in "Open URL…": the address typed.
    pub on_submit: Callback<String>,
    /// Another wheel of a `#pypi=` release picked: its index among the release's wheels.
    pub on_pick: Callback<usize>,
    /// "Cancel" or "Close", or Escape: stop whatever is going on and close.
    pub on_close: Callback<()>,
}

#[function_component]
pub fn RemotePrompt(props: &RemotePromptProps) -> Html {
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with(props.state.is_some(), move |&open| {
            if let Some(d) = dialog.cast::<HtmlDialogElement>() {
                if open && !d.open() {
                    let _ = d.show_modal();
                } else if !open && d.open() {
                    d.close();
                }
            }
        });
    }
    let open = props.on_open.reform(|_: MouseEvent| ());
    let close = props.on_close.reform(|_: MouseEvent| ());
    // Escape closes a modal dialog by itself; the page hears it as a Cancel. The close event
    // comes a task later, also when this component closed the dialog; by then another link may
    // have opened it again, and that one must stay.
    let on_dialog_close = {
        let (on_close, showing) = (props.on_close.clone(), props.state.is_some());
        Callback::from(move |e: Event| {
            let reopened = e.target_dyn_into::<HtmlDialogElement>().is_some_and(|d| d.open());
            if showing && !reopened {
                on_close.emit(())
            }
        })
    };
    let body = match &props.state {
        None => html! {},
        Some(RemoteState::Entering { address, problem }) => {
            let submit = {
                let on_submit = props.on_submit.clone();
                Callback::from(move |e: SubmitEvent| {
                    e.prevent_default();
                    let field = gloo_utils::document()
                        .get_element_by_id("remote-address")
                        .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(el).ok());
                    if let Some(field) = field {
                        on_submit.emit(field.value());
                    }
                })
            };
            html! {
                <form class="open-url-form" onsubmit={submit}>
                    <h2 id="remote-title">{"Open a file from an address"}</h2>
                    <label for="remote-address">{"Address (https, or http on this machine)"}</label>
                    <input id="remote-address" name="address" type="url" value={address.clone()} autofocus=true
                        placeholder="https://files.pythonhosted.org/packages/…/name-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"
                        aria-describedby="remote-address-hint" />
                    <p id="remote-address-hint" class="hint">{"Only the parts that are needed are downloaded (by range requests) where the host allows it; the host must let other sites read the file (Access-Control-Allow-Origin). The address goes into this page's link, so it can be shared."}</p>
                    if let Some(problem) = problem { <p class="problem" role="alert">{ capitalized(problem) }</p> }
                    <div class="actions">
                        <button type="submit" class="primary">{"Open"}</button>
                        <button type="button" onclick={close.clone()}>{"Cancel"}</button>
                    </div>
                </form>
            }
        }
        Some(RemoteState::AskingIndex { link }) => html! {
            <>
                <h2 id="remote-title">{ format!("Look up {} on a package index?", link.requirement()) }</h2>
                <p>{"The link you followed asks this page to read the list of this project's wheels from:"}</p>
                <p class="address"><code>{ link.index.clone() }</code></p>
                <p class="hint">{"Then it shows the wheel it chose, and why, before reading anything of it. Nothing is sent anywhere; only open links you trust."}</p>
                <div class="actions">
                    <button type="button" class="primary" onclick={open.clone()} autofocus=true>{"Look up"}</button>
                    <button type="button" onclick={close.clone()}>{"Cancel"}</button>
                </div>
            </>
        },
        Some(RemoteState::Resolving { package }) => html! {
            <>
                <h2 id="remote-title">{"Reading the package index"}</h2>
                <p class="address"><code>{ package.clone() }</code></p>
                <progress aria-label="Reading the package index"></progress>
                <div class="actions">
                    <button type="button" class="cancel" onclick={close.clone()}>{"Cancel"}</button>
                </div>
            </>
        },
        Some(RemoteState::Choosing { package, choice, .. }) => {
            let pick = {
                let on_pick = props.on_pick.clone();
                Callback::from(move |e: Event| {
                    if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                        if let Ok(index) = select.value().parse::<usize>() {
                            on_pick.emit(index);
                        }
                    }
                })
            };
            let wheel = &choice.wheels[choice.chosen.min(choice.wheels.len() - 1)];
            html! {
                <>
                    <h2 id="remote-title">{ format!("Open {package} {}?", choice.version) }</h2>
                    <p>{"The link asks this page to read this wheel from the package index:"}</p>
                    <p class="address"><code class="chosen-wheel">{ wheel.filename.clone() }</code></p>
                    <p class="wheel-why">{ capitalized(&choice.why) }</p>
                    <label for="remote-wheel">{ format!("Another of its {} wheels", choice.wheels.len()) }</label>
                    <select id="remote-wheel" onchange={pick}>
                        { for choice.wheels.iter().enumerate().map(|(i, w)| html! {
                            <option value={i.to_string()} selected={i == choice.chosen}>{ w.filename.clone() }</option>
                        }) }
                    </select>
                    <p class="hint">{"Only the parts of the wheel that can hold device code are downloaded (by range requests); nothing is sent anywhere."}</p>
                    <div class="actions">
                        <button type="button" class="primary" onclick={open.clone()} autofocus=true>{"Open"}</button>
                        <button type="button" onclick={close.clone()}>{"Cancel"}</button>
                    </div>
                </>
            }
        }
        Some(RemoteState::Asking { address, .. }) => html! {
            <>
                <h2 id="remote-title">{"Open a file from this address?"}</h2>
                <p>{"The link you followed asks this page to download and open:"}</p>
                <p class="address"><code>{ address.clone() }</code></p>
                <p class="hint">{"The file is read here, in your browser, like a dropped file; nothing is sent anywhere. Only open files from addresses you trust."}</p>
                <div class="actions">
                    <button type="button" class="primary" onclick={open} autofocus=true>{"Open"}</button>
                    <button type="button" onclick={close}>{"Cancel"}</button>
                </div>
            </>
        },
        Some(RemoteState::Fetching { address, bytes_read, total, note }) => html! {
            <>
                <h2 id="remote-title">{ if note.is_some() { "Downloading" } else { "Connecting" } }</h2>
                <p class="address"><code>{ address.clone() }</code></p>
                {
                    match total {
                        Some(total) if *total >= *bytes_read && *total > 0 => html! {
                            <progress max={total.to_string()} value={bytes_read.to_string()} aria-label="Download progress"></progress>
                        },
                        _ => html! { <progress aria-label="Download progress"></progress> },
                    }
                }
                <p role="status" class="remote-progress" data-bytes-read={bytes_read.to_string()}
                    title={total.map(|t| format!("{t} bytes")).unwrap_or_default()}>{ progress_text(*bytes_read, *total) }</p>
                if let Some(note) = note { <p class="remote-note">{ capitalized(note) }</p> }
                <div class="actions">
                    <button type="button" class="cancel" onclick={close} aria-label="Cancel the download">{"Cancel"}</button>
                </div>
            </>
        },
        Some(RemoteState::Failed { address, message }) => html! {
            <>
                <h2 id="remote-title">{ if address.is_some() { "The file could not be opened" } else { "This link could not be opened" } }</h2>
                if let Some(address) = address { <p class="address"><code>{ address.clone() }</code></p> }
                <p class="problem" role="alert">{ capitalized(message) }</p>
                <div class="actions">
                    <button type="button" onclick={close} autofocus=true>{"Close"}</button>
                </div>
            </>
        },
    };
    html! {
        <dialog ref={dialog} class="remote" aria-labelledby="remote-title" onclose={on_dialog_close}>
            { body }
        </dialog>
    }
}
