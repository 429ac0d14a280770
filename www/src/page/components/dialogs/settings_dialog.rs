//! The settings dialog (`,`): the limits files are explored with. A native modal `<dialog>`
//! like the shortcuts dialog. What is typed stays a draft in this component until it is saved
//! and valid; the page's settings live in the reducer, which this dialog only asks to change.

use crate::page::settings::{SettingsDraft, SettingsProblems};
use crate::page::state::{Action, TabId};
use crate::wire::settings::{Settings, MAX_DECOMPRESSED_MIB, MAX_DEPTH, MAX_ENTRIES};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlDialogElement, HtmlElement, HtmlInputElement};
use yew::prelude::*;

pub const DECOMPRESSED_ID: &str = "setting-max-decompressed";
pub const DEPTH_ID: &str = "setting-max-depth";
pub const ENTRIES_ID: &str = "setting-max-entries";
pub const VERIFY_ID: &str = "setting-verify-all";

/// Checked settings to keep, and the tab to explore again with them, if asked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SavedSettings {
    pub settings: Settings,
    pub reopen: Option<TabId>,
}

#[derive(Properties, PartialEq)]
pub struct SettingsDialogProps {
    pub open: bool,
    /// The page's settings, which the form starts from each time it opens.
    pub settings: Settings,
    /// The active tab (its id and file name), which can be re-opened with the new settings.
    #[prop_or_default]
    pub active: Option<(TabId, String)>,
    pub on_action: Callback<Action>,
    pub on_save: Callback<SavedSettings>,
}

/// What is typed, and what was found wrong with it at the last save. Kept in a cell rather
/// than in `use_state`, whose handles hold the value of their render: a save right after an
/// edit (typing, then Enter) must check what was typed, not what was last drawn.
#[derive(Default)]
struct Form {
    draft: Option<SettingsDraft>,
    problems: SettingsProblems,
}

type FormCell = Rc<RefCell<Form>>;

#[function_component]
pub fn SettingsDialog(props: &SettingsDialogProps) -> Html {
    let dialog = use_node_ref();
    let form: FormCell = use_mut_ref(Form::default);
    let redraw = use_force_update();
    let (mib_input, depth_input, entries_input) = (use_node_ref(), use_node_ref(), use_node_ref());
    {
        // Opening shows the current settings, whatever was typed and dropped last time.
        let (dialog, form, redraw, settings) = (dialog.clone(), form.clone(), redraw.clone(), props.settings);
        use_effect_with(props.open, move |&open| {
            let Some(d) = dialog.cast::<HtmlDialogElement>() else { return };
            if open && !d.open() {
                *form.borrow_mut() =
                    Form { draft: Some(SettingsDraft::from(settings)), problems: SettingsProblems::default() };
                redraw.force_update();
                let _ = d.show_modal();
            } else if !open && d.open() {
                d.close();
            }
        });
    }

    // Saving checks the draft; a wrong field says why and takes the focus.
    let save = {
        let (form, redraw, on_save, settings) = (form.clone(), redraw.clone(), props.on_save.clone(), props.settings);
        let (mib_input, depth_input, entries_input) = (mib_input.clone(), depth_input.clone(), entries_input.clone());
        Callback::from(move |reopen: Option<TabId>| {
            let checked = form.borrow().draft.clone().unwrap_or_else(|| settings.into()).validate();
            match checked {
                Ok(settings) => on_save.emit(SavedSettings { settings, reopen }),
                Err(found) => {
                    let wrong = if found.max_decompressed_mib.is_some() {
                        &mib_input
                    } else if found.max_depth.is_some() {
                        &depth_input
                    } else {
                        &entries_input
                    };
                    if let Some(input) = wrong.cast::<HtmlElement>() {
                        let _ = input.focus();
                    }
                    form.borrow_mut().problems = found;
                    redraw.force_update();
                }
            }
        })
    };
    let editor = |change: fn(&mut SettingsDraft, &Event)| edit(form.clone(), redraw.clone(), props.settings, change);
    let on_mib = editor(|d, e| d.max_decompressed_mib = e.target_unchecked_into::<HtmlInputElement>().value())
        .reform(|e: InputEvent| e.into());
    let on_depth = editor(|d, e| d.max_depth = e.target_unchecked_into::<HtmlInputElement>().value())
        .reform(|e: InputEvent| e.into());
    let on_entries = editor(|d, e| d.max_entries = e.target_unchecked_into::<HtmlInputElement>().value())
        .reform(|e: InputEvent| e.into());
    let on_verify = editor(|d, e| d.verify_all = e.target_unchecked_into::<HtmlInputElement>().checked());
    let defaults = editor(|d, _| *d = SettingsDraft::from(Settings::default())).reform(|e: MouseEvent| e.into());
    let (draft, problems) = {
        let f = form.borrow();
        (f.draft.clone().unwrap_or_else(|| props.settings.into()), f.problems.clone())
    };
    let onsubmit = save.reform(|e: SubmitEvent| {
        e.prevent_default();
        None
    });
    let reopen = props.active.as_ref().map(|(id, name)| {
        let id = *id;
        let onclick = save.reform(move |_: MouseEvent| Some(id));
        html! { <button type="button" class="reopen" {onclick}>{ format!("Save and re-open {name}") }</button> }
    });
    let cancel = props.on_action.reform(|_: MouseEvent| Action::ShowSettings(false));
    let on_close = props.on_action.reform(|_: Event| Action::ShowSettings(false));
    let core = Settings::default();
    html! {
        <dialog ref={dialog} class="settings" aria-labelledby="settings-title" aria-describedby="settings-intro" onclose={on_close}>
            <h2 id="settings-title">{"Settings"}</h2>
            <p id="settings-intro">{"Limits for exploring files, kept in this browser. They apply to files opened from now on; an open file keeps the limits it was explored with until it is re-opened."}</p>
            <form {onsubmit} novalidate=true>
                { number_field(
                    DECOMPRESSED_ID, "Largest decompressed bundle (MiB)", &draft.max_decompressed_mib, problems.max_decompressed_mib.as_deref(),
                    &format!("A compressed bundle that would decompress to more is not decompressed; the file says so. From 1 to {MAX_DECOMPRESSED_MIB}; default {} ({} GiB).", core.max_decompressed_mib, core.max_decompressed_mib / 1024),
                    mib_input.clone(), on_mib,
                ) }
                { number_field(
                    DEPTH_ID, "Deepest nesting (levels)", &draft.max_depth, problems.max_depth.as_deref(),
                    &format!("Containers nested deeper (a bundle in a compressed bundle in a section…) are not explored; the file says so. From 1 to {MAX_DEPTH}; default {}.", core.max_depth),
                    depth_input.clone(), on_depth,
                ) }
                { number_field(
                    ENTRIES_ID, "Most entries per container", &draft.max_entries, problems.max_entries.as_deref(),
                    &format!("Entries beyond this under one bundle, archive or section are not shown; the file says how many. From 1 to {MAX_ENTRIES}; default {}.", core.max_entries),
                    entries_input.clone(), on_entries,
                ) }
                <div class="field check">
                    <input id={VERIFY_ID} type="checkbox" checked={draft.verify_all} onchange={on_verify} aria-describedby={format!("{VERIFY_ID}-hint")} />
                    <label for={VERIFY_ID}>{"Verify every compressed bundle"}</label>
                    <p id={format!("{VERIFY_ID}-hint")} class="hint">
                        { format!("Decompress every compressed bundle and check its hash, however large (slower). Otherwise those over {} MiB are listed from their header and their hash is not checked. Default: off.", Settings::header_only_above_mib()) }
                    </p>
                </div>
                <div class="actions">
                    <button type="submit" class="primary">{"Save"}</button>
                    { for reopen }
                    <button type="button" onclick={defaults}>{"Restore defaults"}</button>
                    <button type="button" onclick={cancel}>{"Cancel"}</button>
                </div>
            </form>
        </dialog>
    }
}

/// A callback that changes the draft with `change`. After a failed save each edit checks the
/// draft again, so that a message goes as soon as its field is fixed.
fn edit(
    form: FormCell,
    redraw: UseForceUpdateHandle,
    settings: Settings,
    change: fn(&mut SettingsDraft, &Event),
) -> Callback<Event> {
    Callback::from(move |event: Event| {
        let mut f = form.borrow_mut();
        let draft = f.draft.get_or_insert_with(|| settings.into());
        change(draft, &event);
        if f.problems != SettingsProblems::default() {
            f.problems = f.draft.as_ref().and_then(|d| d.validate().err()).unwrap_or_default();
        }
        drop(f);
        redraw.force_update();
    })
}

/// A labelled text box for a whole number, with its hint and, when it is wrong, why.
fn number_field(
    id: &str,
    label: &str,
    value: &str,
    problem: Option<&str>,
    hint: &str,
    input: NodeRef,
    oninput: Callback<InputEvent>,
) -> Html {
    let (hint_id, problem_id) = (format!("{id}-hint"), format!("{id}-problem"));
    html! {
        <div class="field">
            <label for={id.to_string()}>{ label }</label>
            <input id={id.to_string()} ref={input} type="text" inputmode="numeric" autocomplete="off" spellcheck="false"
                value={value.to_string()} {oninput} aria-invalid={problem.is_some().then_some("true")}
                aria-describedby={format!("{problem_id} {hint_id}")} />
            <p id={problem_id} class="problem" aria-live="polite">{ problem.unwrap_or_default() }</p>
            <p id={hint_id} class="hint">{ hint }</p>
        </div>
    }
}
