//! The keyboard shortcuts dialog (`?`), a native modal `<dialog>`: it traps focus and closes
//! with Escape by itself.

use crate::page::shortcuts::{EDIT_SHORTCUTS, SHORTCUTS, SPLITTER_KEYS, TREE_KEYS};
use crate::page::state::Action;
use web_sys::HtmlDialogElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HelpDialogProps {
    pub open: bool,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn HelpDialog(props: &HelpDialogProps) -> Html {
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with(props.open, move |&open| {
            if let Some(d) = dialog.cast::<HtmlDialogElement>() {
                if open && !d.open() {
                    let _ = d.show_modal();
                } else if !open && d.open() {
                    d.close();
                }
            }
        });
    }
    let on_close = props.on_action.reform(|_: Event| Action::Help(false));
    let close = props.on_action.reform(|_: MouseEvent| Action::Help(false));
    html! {
        <dialog ref={dialog} class="help" aria-labelledby="help-title" onclose={on_close}>
            <h2 id="help-title">{"Keyboard shortcuts"}</h2>
            <table class="keys">
                <caption>{"Anywhere on the page (except while typing)"}</caption>
                <tbody>
                    { for SHORTCUTS.iter().map(|(key, _, what)| html! {
                        <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                    }) }
                </tbody>
            </table>
            <table class="keys">
                <caption>{"Edits of the file (outside text boxes)"}</caption>
                <tbody>
                    { for EDIT_SHORTCUTS.iter().map(|(key, _, what)| html! {
                        <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                    }) }
                </tbody>
            </table>
            <table class="keys">
                <caption>{"In the tree"}</caption>
                <tbody>
                    { for TREE_KEYS.iter().map(|(key, what)| html! {
                        <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                    }) }
                </tbody>
            </table>
            <table class="keys">
                <caption>{"On a splitter between two views"}</caption>
                <tbody>
                    { for SPLITTER_KEYS.iter().map(|(key, what)| html! {
                        <tr><td><kbd>{ *key }</kbd></td><td>{ *what }</td></tr>
                    }) }
                </tbody>
            </table>
            <p>{"In the hex view, the arrow and page keys scroll; click a byte to select what is there."}</p>
            <button type="button" onclick={close} autofocus=true>{"Close"}</button>
        </dialog>
    }
}
