//! The page: one reducer for all state, the open files beside it, and the page-wide inputs —
//! drag and drop anywhere, the file picker, samples, keyboard shortcuts, settings.

use super::drop_overlay::DropOverlay;
use super::help_dialog::HelpDialog;
use super::history_buttons::History;
use super::settings_dialog::{SavedSettings, SettingsDialog};
use super::tab_bar::TabBar;
use super::tab_view::TabView;
use super::toolbar::Toolbar;
use super::welcome::Welcome;
use super::focus_id;
use crate::edit_request::{EditRequest, NodePath};
use crate::session::{now_ms, Session};
use crate::settings::{self, Settings};
use crate::shortcuts::{command_for, edit_command_for, Command};
use crate::state::{Action, AppState, TabId};
use gloo_events::{EventListener, EventListenerOptions};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DragEvent, FileList, HtmlElement, HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().reduce(action))
    }
}

/// What components ask the page to do with files, beyond plain state changes.
#[derive(Clone, Debug, PartialEq)]
pub enum FileRequest {
    PickFile,
    OpenSample(&'static str),
    Cancel(TabId),
    Restart(TabId),
    Close(TabId),
    /// Edits of the file (see `crate::session`): a change, a hash check, undo and redo.
    Edit(TabId, EditRequest),
    Verify(TabId, NodePath),
    Undo(TabId),
    Redo(TabId),
    /// Save the tab's current file, or the payload of its last edit that did not fit.
    DownloadFile(TabId),
    DownloadPayload(TabId),
}

pub const FILE_INPUT_ID: &str = "file-input";
pub const SAMPLES_MENU_ID: &str = "samples-menu";

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| AppState::with_settings(settings::load()));
    let session = use_mut_ref(Session::default);
    let dragging = use_state(|| false);
    // The key handler is installed once; it reads the current tab through this.
    let active_now = use_mut_ref(|| None::<TabId>);
    *active_now.borrow_mut() = state.active;
    // Files dropped go through a listener installed once: it reads the settings through this.
    let settings_now = use_mut_ref(Settings::default);
    *settings_now.borrow_mut() = state.settings;
    // The browser keeps a copy of the settings (the reducer's are the ones that count). Where
    // it cannot (storage disabled), they last as long as the page.
    use_effect_with(state.settings, |s| {
        let _ = settings::save(s);
    });

    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        Callback::from(move |a| d.dispatch(a))
    };

    let open_files = {
        let (session, dispatch, settings_now) = (session.clone(), dispatch.clone(), settings_now.clone());
        Callback::from(move |files: FileList| {
            let at = now_ms();
            let settings = *settings_now.borrow();
            for i in 0..files.length() {
                if let Some(f) = files.get(i) {
                    let name = f.name();
                    session.borrow_mut().open(f.into(), name, at, settings, &dispatch);
                }
            }
        })
    };

    let on_file_request = {
        let (session, dispatch, settings_now) = (session.clone(), dispatch.clone(), settings_now.clone());
        Callback::from(move |request: FileRequest| match request {
            FileRequest::PickFile => click_file_input(),
            FileRequest::OpenSample(file) => open_sample(file, *settings_now.borrow(), session.clone(), dispatch.clone()),
            FileRequest::Cancel(id) => session.borrow_mut().cancel(id, &dispatch),
            FileRequest::Restart(id) => session.borrow_mut().restart(id, *settings_now.borrow(), &dispatch),
            FileRequest::Close(id) => session.borrow_mut().close(id, &dispatch),
            FileRequest::Edit(id, edit) => session.borrow_mut().edit(id, edit, &dispatch),
            FileRequest::Verify(id, node) => session.borrow_mut().verify(id, node, &dispatch),
            FileRequest::Undo(id) => session.borrow_mut().undo(id, &dispatch),
            FileRequest::Redo(id) => session.borrow_mut().redo(id, &dispatch),
            FileRequest::DownloadFile(id) => save_current_file(&session.borrow(), id, &dispatch),
            FileRequest::DownloadPayload(id) => save_payload(&session.borrow(), id, &dispatch),
        })
    };

    // Saved settings go to the reducer first, so that the tab re-opened with them records them.
    let on_save_settings = {
        let (session, dispatch, settings_now) = (session.clone(), dispatch.clone(), settings_now.clone());
        Callback::from(move |saved: SavedSettings| {
            dispatch.emit(Action::SetSettings(saved.settings));
            dispatch.emit(Action::ShowSettings(false));
            *settings_now.borrow_mut() = saved.settings;
            if let Some(id) = saved.reopen {
                session.borrow_mut().restart(id, saved.settings, &dispatch);
            }
        })
    };

    use_drag_and_drop(dragging.setter(), open_files.clone());
    use_shortcuts(dispatch.clone(), on_file_request.clone(), active_now);

    let on_input_change = {
        let open_files = open_files.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(files) = input.files() {
                open_files.emit(files);
            }
            // The same file can be picked again later.
            input.set_value("");
        })
    };

    let history = state.active_tab().filter(|t| t.doc().is_some()).map(|t| History { tab: t.id, can_undo: t.can_undo(), can_redo: t.can_redo() });
    let active = state.active_tab().cloned();
    let bytes = active.as_ref().and_then(|t| session.borrow().bytes(t.id));
    html! {
        <div class="app">
            <Toolbar views={state.views} on_action={dispatch.clone()} on_file={on_file_request.clone()}
                active={state.active} history={history} />
            <input id={FILE_INPUT_ID} class="hidden-input" type="file" multiple=true tabindex="-1"
                aria-label="Choose files to open" onchange={on_input_change} />
            <TabBar tabs={state.tabs.clone()} active={state.active} on_action={dispatch.clone()} on_file={on_file_request.clone()} />
            <main class="main" id="main">
                {
                    match (active, bytes) {
                        (Some(tab), Some(bytes)) => html! {
                            <TabView key={tab.id} tab={tab.clone()} views={state.views} settings={state.settings} bytes={bytes}
                                on_action={dispatch.clone()} on_file={on_file_request.clone()} />
                        },
                        _ => html! { <Welcome on_file={on_file_request.clone()} /> },
                    }
                }
            </main>
            <DropOverlay visible={*dragging} />
            <HelpDialog open={state.help_open} on_action={dispatch.clone()} />
            <SettingsDialog open={state.settings_open} settings={state.settings}
                active={state.active_tab().map(|t| (t.id, t.name.clone()))}
                on_action={dispatch.clone()} on_save={on_save_settings} />
        </div>
    }
}

/// Saves the tab's current file (its edits included) under the tab's name.
fn save_current_file(session: &Session, id: TabId, dispatch: &Callback<Action>) {
    let (Some(file), Some(name)) = (session.file(id), session.name(id)) else { return };
    if let Err(message) = crate::save_blob::save_blob(&file, &name) {
        dispatch.emit(Action::EditFailed { id, message, payload: None });
    }
}

/// Saves the new container of the tab's last edit that did not fit in its linked file.
fn save_payload(session: &Session, id: TabId, dispatch: &Callback<Action>) {
    let Some((blob, name)) = session.payload(id) else { return };
    if let Err(message) = crate::save_blob::save_blob(&blob, &name) {
        dispatch.emit(Action::EditFailed { id, message, payload: None });
    }
}

fn click_file_input() {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(FILE_INPUT_ID)) {
        if let Ok(input) = el.dyn_into::<HtmlElement>() {
            input.click();
        }
    }
}

/// Fetches a sample shipped with the page (relative to the page, so any sub-path works) and
/// opens it with `settings`.
fn open_sample(file: &'static str, settings: Settings, session: Rc<RefCell<Session>>, dispatch: Callback<Action>) {
    let at = now_ms();
    wasm_bindgen_futures::spawn_local(async move {
        let fetched: Result<Blob, String> = async {
            let window = web_sys::window().ok_or("no window")?;
            let response = JsFuture::from(window.fetch_with_str(&format!("samples/{file}"))).await.map_err(|e| format!("{e:?}"))?;
            let response: web_sys::Response = response.dyn_into().map_err(|_| "not a response")?;
            if !response.ok() {
                return Err(format!("HTTP {}", response.status()));
            }
            let blob = JsFuture::from(response.blob().map_err(|e| format!("{e:?}"))?).await.map_err(|e| format!("{e:?}"))?;
            Ok(blob.unchecked_into())
        }
        .await;
        match fetched {
            Ok(blob) => {
                session.borrow_mut().open(blob, file.to_string(), at, settings, &dispatch);
            }
            Err(e) => session.borrow_mut().open_failed(file.to_string(), at, settings, format!("the sample could not be fetched: {e}"), &dispatch),
        }
    });
}

/// Files dropped anywhere on the page open in new tabs; while files are dragged over the page,
/// the drop overlay shows.
#[hook]
fn use_drag_and_drop(set_dragging: UseStateSetter<bool>, open_files: Callback<FileList>) {
    use_effect_with((), move |_| {
        let document = gloo_utils::document();
        // dragenter/dragleave fire for every element crossed: count them.
        let depth = Rc::new(Cell::new(0i32));
        let carries_files = |e: &DragEvent| e.data_transfer().is_some_and(|dt| dt.types().includes(&"Files".into(), 0));
        let active = EventListenerOptions::enable_prevent_default();
        let listeners = vec![
            {
                let (depth, set) = (depth.clone(), set_dragging.clone());
                EventListener::new_with_options(&document, "dragenter", active, move |e| {
                    let e: &DragEvent = e.unchecked_ref();
                    if carries_files(e) {
                        e.prevent_default();
                        depth.set(depth.get() + 1);
                        set.set(true);
                    }
                })
            },
            EventListener::new_with_options(&document, "dragover", active, move |e| {
                let e: &DragEvent = e.unchecked_ref();
                if carries_files(e) {
                    // Without this the browser would open the file itself.
                    e.prevent_default();
                    if let Some(dt) = e.data_transfer() {
                        dt.set_drop_effect("copy");
                    }
                }
            }),
            {
                let (depth, set) = (depth.clone(), set_dragging.clone());
                EventListener::new(&document, "dragleave", move |_| {
                    depth.set((depth.get() - 1).max(0));
                    if depth.get() == 0 {
                        set.set(false);
                    }
                })
            },
            {
                let (depth, set) = (depth.clone(), set_dragging.clone());
                EventListener::new_with_options(&document, "drop", active, move |e| {
                    let e: &DragEvent = e.unchecked_ref();
                    e.prevent_default();
                    depth.set(0);
                    set.set(false);
                    if let Some(files) = e.data_transfer().and_then(|dt| dt.files()) {
                        open_files.emit(files);
                    }
                })
            },
        ];
        move || drop(listeners)
    });
}

/// Page-wide single-key shortcuts (see `crate::shortcuts`), ignored while typing.
#[hook]
fn use_shortcuts(dispatch: Callback<Action>, on_file: Callback<FileRequest>, active: Rc<RefCell<Option<TabId>>>) {
    use_effect_with((), move |_| {
        let document = gloo_utils::document();
        // Not passive (gloo's default): a handled key must not also type into what it focused.
        let listener = EventListener::new_with_options(&document, "keydown", EventListenerOptions::enable_prevent_default(), move |e| {
            let e: &KeyboardEvent = e.unchecked_ref();
            if e.default_prevented() || typing(e) {
                return;
            }
            // Ctrl+Z and Ctrl+Shift+Z (Cmd on macOS) undo and redo edits of the file.
            if let Some(command) = edit_command_for(&e.key(), e.ctrl_key() || e.meta_key(), e.shift_key(), e.alt_key()) {
                if let Some(id) = *active.borrow() {
                    e.prevent_default();
                    on_file.emit(if command == Command::Redo { FileRequest::Redo(id) } else { FileRequest::Undo(id) });
                }
                return;
            }
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            let Some(command) = command_for(&e.key()) else { return };
            e.prevent_default();
            match command {
                Command::OpenFile => on_file.emit(FileRequest::PickFile),
                Command::OpenSample => open_samples_menu(),
                Command::NextTab => dispatch.emit(Action::NextTab),
                Command::PrevTab => dispatch.emit(Action::PrevTab),
                Command::CloseTab => {
                    if let Some(id) = *active.borrow() {
                        on_file.emit(FileRequest::Close(id));
                    }
                }
                Command::FocusTree => focus_id(super::tree_view::TREE_ID),
                Command::FocusHex => focus_id(super::hex_view::HEX_GRID_ID),
                Command::GoToOffset => focus_id(super::hex_view::GOTO_ID),
                Command::Toggle(view) => dispatch.emit(Action::ToggleView(view)),
                Command::Settings => dispatch.emit(Action::ShowSettings(true)),
                Command::Help => dispatch.emit(Action::Help(true)),
                // Keys with Ctrl or Cmd, handled above.
                Command::Undo | Command::Redo => {}
            }
        });
        move || drop(listener)
    });
}

/// Whether a key press is text going into a form field, or meant for the open dialog.
fn typing(e: &KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    // Inside an open dialog (shortcuts, settings) only its own keys apply.
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.closest("[contenteditable], dialog[open]").ok().flatten().is_some()
}

pub fn open_samples_menu() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Some(menu) = document.get_element_by_id(SAMPLES_MENU_ID) {
        let _ = menu.set_attribute("open", "");
        if let Ok(Some(first)) = menu.query_selector("button") {
            if let Ok(first) = first.dyn_into::<HtmlElement>() {
                let _ = first.focus();
            }
        }
    }
}
