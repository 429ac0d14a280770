//! The page: one reducer for all state, the open files beside it, and the page-wide inputs —
//! drag and drop anywhere, the file picker, samples, keyboard shortcuts, settings, and share
//! links (a file or an address in the page's fragment, on load and on `hashchange`).

use super::dialogs::help_dialog::HelpDialog;
use super::dialogs::remote_prompt::RemotePrompt;
use super::dialogs::settings_dialog::{SavedSettings, SettingsDialog};
use super::download::download_status::DownloadStatus;
use super::drop_overlay::DropOverlay;
use super::edit::history_buttons::History;
use super::sample_menu::open_samples_menu;
use super::share_button::{ShareTarget, COPY_LINK_ID};
use super::tab_bar::TabBar;
use super::tab_view::TabView;
use super::toolbar::Toolbar;
use super::views::goto_offset::GOTO_ID;
use super::views::hex_view::HEX_GRID_ID;
use super::views::tree_view::TREE_ID;
use super::welcome::Welcome;
use crate::page::downloads::save::{self as download, Downloader, Source};
use crate::page::opening;
use crate::page::pypi;
use crate::page::remote::{self, FetchProblem, RemoteState};
use crate::page::session::{now_ms, Session};
use crate::page::settings;
use crate::page::share::{self, SharedLink};
use crate::page::shortcuts::{command_for, edit_command_for, Command};
use crate::page::state::{
    Action, AppState, CompareOutcome, CompareWith, Comparison, DownloadRequest, FileRequest, FitOutcome,
    KernelsDecoding, Tab, TabId, View,
};
use crate::wire::messages::CompanionFile;
use crate::wire::remote::WholeWhy;
use crate::wire::settings::Settings;
use gloo_events::{EventListener, EventListenerOptions};
use offload::edit::NodePath;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Blob, DragEvent, FileList, HtmlElement, HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().reduce(action))
    }
}

pub const FILE_INPUT_ID: &str = "file-input";

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| AppState::with_settings(settings::load()));
    let session = use_mut_ref(Session::default);
    let dragging = use_state(|| false);
    // Handlers installed once (keys, downloads, file requests) read the tabs as they are when
    // asked through this: the active tab, and the version each tab shows.
    let state_now = use_mut_ref(AppState::default);
    *state_now.borrow_mut() = (*state).clone();
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

    let open_files = open_files_handler(session.clone(), dispatch.clone(), settings_now.clone());

    let on_file_request = {
        let (session, dispatch, settings_now, state_now) =
            (session.clone(), dispatch.clone(), settings_now.clone(), state_now.clone());
        Callback::from(move |request: FileRequest| {
            let tab = |id| state_now.borrow().tab(id).cloned();
            file_request(request, &session, tab, *settings_now.borrow(), &dispatch)
        })
    };

    // Saved settings go to the reducer first, so that the tab re-opened with them records them.
    let on_save_settings = {
        let (session, dispatch, settings_now, state_now) =
            (session.clone(), dispatch.clone(), settings_now.clone(), state_now.clone());
        Callback::from(move |saved: SavedSettings| {
            dispatch.emit(Action::SetSettings(saved.settings));
            dispatch.emit(Action::ShowSettings(false));
            *settings_now.borrow_mut() = saved.settings;
            if let Some(id) = saved.reopen {
                let version = state_now.borrow().tab(id).map_or(0, |t| t.current);
                session.borrow_mut().restart(id, saved.settings, version, &dispatch);
            }
        })
    };

    let (on_remote_open, on_remote_close, on_remote_submit, on_remote_pick) =
        use_remote_prompt(state.remote.clone(), session.clone(), dispatch.clone(), settings_now.clone());

    use_share_links(session.clone(), dispatch.clone(), settings_now.clone());
    let on_download = download_handler(session.clone(), dispatch.clone(), state_now.clone());
    let downloader =
        Downloader { request: on_download.clone(), doc: state.active_tab().and_then(|t| t.doc().cloned()) };

    use_drag_and_drop(dragging.setter(), open_files.clone());
    use_early_files(open_files.clone());
    use_shortcuts(dispatch.clone(), on_file_request.clone(), on_download, state_now);

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

    let history = state.active_tab().filter(|t| t.doc().is_some()).map(|t| History {
        tab: t.id,
        can_undo: t.can_undo(),
        can_redo: t.can_redo(),
    });
    let active = state.active_tab().cloned();
    let bytes = active.as_ref().and_then(|t| session.borrow().bytes(t.id, t.current));
    let share_target = active.as_ref().and_then(|tab| share_target(tab, &session.borrow()));
    html! {
        <ContextProvider<Downloader> context={downloader}>
        <div class="app">
            <Toolbar views={state.views} on_action={dispatch.clone()} on_file={on_file_request.clone()} share={share_target}
                history={history} />
            <input id={FILE_INPUT_ID} class="hidden-input" type="file" multiple=true tabindex="-1"
                aria-label="Choose files to open" onchange={on_input_change} />
            <DownloadStatus notice={state.download.clone()} on_action={dispatch.clone()} />
            <TabBar tabs={state.tabs.clone()} active={state.active} on_action={dispatch.clone()} on_file={on_file_request.clone()} />
            <main class="main" id="main">
                {
                    match (active, bytes) {
                        (Some(tab), Some(bytes)) => html! {
                            <TabView key={tab.id} tab={tab.clone()} views={state.views} settings={state.settings} bytes={bytes}
                                on_action={dispatch.clone()} on_file={on_file_request.clone()}
                                others={state.tabs.iter().filter(|t| t.id != tab.id && t.doc().is_some()).map(|t| (t.id, t.name.clone())).collect::<Vec<_>>()} />
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
            <RemotePrompt state={state.remote.clone()} on_open={on_remote_open} on_close={on_remote_close}
                on_submit={on_remote_submit} on_pick={on_remote_pick} />
        </div>
        </ContextProvider<Downloader>>
    }
}

/// Opens every file of a drop or a pick in a tab of its own, with the settings of now; `.kpack`
/// archives dropped with binaries go with each of them instead ([`opening::split_drop`]).
fn open_files_handler(
    session: Rc<RefCell<Session>>,
    dispatch: Callback<Action>,
    settings_now: Rc<RefCell<Settings>>,
) -> Callback<FileList> {
    Callback::from(move |files: FileList| {
        let at = now_ms();
        let settings = *settings_now.borrow();
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        let names: Vec<String> = files.iter().map(|f| f.name()).collect();
        let (opened, companions) = opening::split_drop(&names);
        let companions: Vec<CompanionFile> = companions
            .into_iter()
            .map(|i| CompanionFile { name: names[i].clone(), file: files[i].clone().into() })
            .collect();
        for i in opened {
            let (file, name) = (files[i].clone().into(), names[i].clone());
            session.borrow_mut().open_with(file, name, companions.clone(), at, settings, &dispatch);
        }
    })
}

/// Starts a download from the active tab as it is when asked: its shown version and worker.
fn download_handler(
    session: Rc<RefCell<Session>>,
    dispatch: Callback<Action>,
    state_now: Rc<RefCell<AppState>>,
) -> Callback<DownloadRequest> {
    Callback::from(move |request: DownloadRequest| {
        let tab = state_now.borrow().active_tab().cloned();
        let session = session.borrow();
        let file = tab.as_ref().and_then(|t| session.file(t.id, t.current));
        let source = Source::of(tab.as_ref(), file, tab.as_ref().and_then(|t| session.worker(t.id)));
        download::start(request, source, dispatch.clone());
    })
}

/// What "Copy link" shares of a tab: its shown version, the selected node's path, and the
/// address the file came from, if it was fetched.
fn share_target(tab: &Tab, session: &Session) -> Option<ShareTarget> {
    Some(ShareTarget {
        id: tab.id,
        name: tab.name.clone(),
        file: session.file(tab.id, tab.current)?,
        selection: tab.doc().zip(tab.selected).map(|(doc, node)| doc.path_of(node)).unwrap_or_default(),
        address: session.address(tab.id),
    })
}

/// The remote dialog's answers: Open fetches the file the prompt asks about (an address, or
/// the wheel a `#pypi=` link chose), Cancel aborts what is under way and closes the prompt, an
/// address typed in "Open URL…" is opened (and put in the page's link), another wheel picked
/// replaces the chosen one.
#[hook]
fn use_remote_prompt(
    asked: Option<RemoteState>,
    session: Rc<RefCell<Session>>,
    dispatch: Callback<Action>,
    settings_now: Rc<RefCell<Settings>>,
) -> (Callback<()>, Callback<()>, Callback<String>, Callback<usize>) {
    // The `#url=` download under way, which Cancel aborts.
    let remote_fetch = use_mut_ref(|| None::<AbortController>);
    let fetch = {
        let (dispatch, remote_fetch, session) = (dispatch.clone(), remote_fetch.clone(), session.clone());
        move |address: String, selection: NodePath| {
            let settings = *settings_now.borrow();
            fetch_remote_file(address, selection, settings, session.clone(), dispatch.clone(), remote_fetch.clone());
        }
    };
    let on_open = {
        let (fetch, asked, dispatch) = (fetch.clone(), asked.clone(), dispatch.clone());
        Callback::from(move |()| match asked.clone() {
            Some(RemoteState::Asking { address, selection }) => fetch(address, selection),
            Some(RemoteState::AskingIndex { link }) => resolve_pypi(link, dispatch.clone()),
            Some(RemoteState::Choosing { choice, selection, .. }) => {
                if let Some(wheel) = choice.wheels.get(choice.chosen) {
                    fetch(wheel.url.clone(), selection)
                }
            }
            _ => {}
        })
    };
    let on_submit = {
        let dispatch = dispatch.clone();
        Callback::from(move |typed: String| {
            let typed = typed.trim().to_string();
            match remote::resolve_address(&typed) {
                Ok(url) => {
                    // The page's link names the file, so that it can be shared; pushed, not
                    // assigned, so that no hashchange opens it a second time.
                    let hash = share::remote_fragment(&url.href(), &[]);
                    if let Ok(history) = gloo_utils::window().history() {
                        let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&format!("#{hash}")));
                    }
                    fetch(url.href(), Vec::new());
                }
                Err(problem) => dispatch
                    .emit(Action::Remote(Some(RemoteState::Entering { address: typed, problem: Some(problem) }))),
            }
        })
    };
    let on_pick = {
        let (dispatch, asked) = (dispatch.clone(), asked.clone());
        Callback::from(move |index: usize| {
            if let Some(RemoteState::Choosing { package, mut choice, selection }) = asked.clone() {
                if index != choice.chosen && index < choice.wheels.len() {
                    let first = choice.wheels[choice.chosen].filename.clone();
                    choice.why = format!("picked by you (the link's choice was {first}: {})", choice.why);
                    choice.chosen = index;
                }
                dispatch.emit(Action::Remote(Some(RemoteState::Choosing { package, choice, selection })));
            }
        })
    };
    let on_close = Callback::from(move |()| {
        if let Some(controller) = remote_fetch.borrow_mut().take() {
            controller.abort();
        }
        PYPI_GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
        dispatch.emit(Action::Remote(None));
    });
    (on_open, on_close, on_submit, on_pick)
}

thread_local! {
    /// Counts the remote dialogs closed: a package index read that ends after its dialog was
    /// closed opens nothing.
    static PYPI_GENERATION: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Resolves a `#pypi=` link to one of its release's wheels and shows the choice.
fn resolve_pypi(link: pypi::PypiLink, dispatch: Callback<Action>) {
    let package = link.requirement();
    let generation = PYPI_GENERATION.with(|g| g.get());
    dispatch.emit(Action::Remote(Some(RemoteState::Resolving { package: package.clone() })));
    wasm_bindgen_futures::spawn_local(async move {
        let chosen = pypi::release_files(&link).await.and_then(|files| pypi::choose(&link, &files));
        if PYPI_GENERATION.with(|g| g.get()) != generation {
            return;
        }
        let state = match chosen {
            Ok(choice) => RemoteState::Choosing { package: link.name.clone(), choice, selection: Vec::new() },
            Err(message) => RemoteState::Failed { address: Some(package), message },
        };
        dispatch.emit(Action::Remote(Some(state)));
    });
}

/// Does what a component asks of the files; `tab` looks a tab up as it is now (requests about
/// a file are about the version the tab shows).
fn file_request(
    request: FileRequest,
    session: &Rc<RefCell<Session>>,
    tab: impl Fn(TabId) -> Option<Tab>,
    settings: Settings,
    dispatch: &Callback<Action>,
) {
    let version = |id| tab(id).map_or(0, |t| t.current);
    match request {
        FileRequest::PickFile => click_file_input(),
        FileRequest::OpenAddress => {
            dispatch.emit(Action::Remote(Some(RemoteState::Entering { address: String::new(), problem: None })))
        }
        FileRequest::OpenSample(file) => open_sample(file, settings, session.clone(), dispatch.clone()),
        FileRequest::Cancel(id) => session.borrow_mut().cancel(id, dispatch),
        FileRequest::Restart(id) => session.borrow_mut().restart(id, settings, version(id), dispatch),
        FileRequest::Close(id) => session.borrow_mut().close(id, dispatch),
        FileRequest::Edit(id, edit) => session.borrow_mut().edit(id, edit, version(id), dispatch),
        FileRequest::Verify(id, node) => session.borrow_mut().verify(id, node, dispatch),
        FileRequest::Decompress(id, node) => session.borrow_mut().decompress(id, node, dispatch),
        FileRequest::CancelWork(id) => session.borrow_mut().cancel_work(id, version(id), dispatch),
        FileRequest::Undo(id) => {
            if let Some(index) = tab(id).and_then(|t| t.undo_version()) {
                session.borrow_mut().switch(id, index, dispatch);
            }
        }
        FileRequest::Redo(id) => {
            if let Some(index) = tab(id).and_then(|t| t.redo_version()) {
                session.borrow_mut().switch(id, index, dispatch);
            }
        }
        FileRequest::DownloadPayload(id) => save_payload(&session.borrow(), id, dispatch),
        FileRequest::Compare(id, with) => {
            let old = match with {
                CompareWith::Tab(other) => {
                    tab(other).and_then(|t| Some((session.borrow().file(other, t.current)?, t.name)))
                }
                CompareWith::Version(v) => {
                    let file = tab(id).map(|t| t.name).unwrap_or_default();
                    let name = if v == 0 { format!("{file} as opened") } else { format!("{file} after edit {v}") };
                    session.borrow().file(id, v).map(|f| (f, name))
                }
            };
            compare(id, old, session.borrow().worker(id), settings, dispatch.clone());
        }
        FileRequest::Fit(id, gpu) => fit(id, gpu, session.borrow().worker(id), dispatch.clone()),
        FileRequest::DecodeKernels(id) => decode_kernels(id, session.borrow().worker(id), dispatch.clone()),
    }
}

/// Asks the tab's worker for the kernels of every image, each decoded; its progress and answer
/// go to the reducer.
fn decode_kernels(id: TabId, worker: Option<Rc<crate::page::client::ExplorerWorker>>, dispatch: Callback<Action>) {
    let Some(worker) = worker else {
        let failed = KernelsDecoding::Failed("the explorer of this file was stopped: re-open the file first".into());
        dispatch.emit(Action::DecodeKernels { id, decoding: Some(failed) });
        return;
    };
    dispatch.emit(Action::DecodeKernels { id, decoding: Some(KernelsDecoding::Running(None)) });
    wasm_bindgen_futures::spawn_local(async move {
        let decoding = match worker.decode_kernels().await {
            Ok(d) => KernelsDecoding::Done(Rc::new(d)),
            Err(message) => KernelsDecoding::Failed(message),
        };
        dispatch.emit(Action::DecodeKernels { id, decoding: Some(decoding) });
    });
}

/// Asks the tab's worker what of its file runs on `gpu`; the answer goes to the reducer.
fn fit(id: TabId, gpu: String, worker: Option<Rc<crate::page::client::ExplorerWorker>>, dispatch: Callback<Action>) {
    let Some(worker) = worker else {
        let fit = FitOutcome::Failed("the explorer of this file was stopped: re-open the file first".into());
        dispatch.emit(Action::Fit { id, fit: Some(fit) });
        return;
    };
    dispatch.emit(Action::Fit { id, fit: Some(FitOutcome::Running(gpu.clone())) });
    wasm_bindgen_futures::spawn_local(async move {
        let fit = match worker.fit(&gpu).await {
            Ok(f) => FitOutcome::Done(Rc::new(f)),
            Err(message) => FitOutcome::Failed(message),
        };
        dispatch.emit(Action::Fit { id, fit: Some(fit) });
    });
}

/// Compares the tab's file with `old` (a file and its name) in the tab's worker; the
/// comparison's progress and result go to the reducer.
fn compare(
    id: TabId,
    old: Option<(crate::wire::messages::Source, String)>,
    worker: Option<Rc<crate::page::client::ExplorerWorker>>,
    settings: Settings,
    dispatch: Callback<Action>,
) {
    let (Some((blob, against)), Some(worker)) = (old, worker) else {
        let comparison = Comparison {
            against: String::new(),
            outcome: CompareOutcome::Failed("that file is no longer open, or its explorer was stopped".into()),
        };
        dispatch.emit(Action::Compare { id, comparison: Some(comparison) });
        return;
    };
    let running = Comparison { against: against.clone(), outcome: CompareOutcome::Running };
    dispatch.emit(Action::Compare { id, comparison: Some(running) });
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = match worker.compare(&blob, &against, settings).await {
            Ok(d) => CompareOutcome::Done(Rc::new(d)),
            Err(message) => CompareOutcome::Failed(message),
        };
        dispatch.emit(Action::Compare { id, comparison: Some(Comparison { against, outcome }) });
    });
}

/// Saves the new container of the tab's last edit that did not fit in its linked file.
fn save_payload(session: &Session, id: TabId, dispatch: &Callback<Action>) {
    let Some(payload) = session.payload(id) else { return };
    if let Err(message) = download::save(&payload.blob, &payload.name) {
        dispatch.emit(Action::EditFailed { id, message, payload: None });
    }
}

fn click_file_input() {
    click_id(FILE_INPUT_ID);
}

/// Moves keyboard focus to the element with this id, if it is on the page.
fn focus_id(id: &str) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        if let Ok(el) = el.dyn_into::<HtmlElement>() {
            let _ = el.focus();
        }
    }
}

/// Clicks the element with this id, as a shortcut for its button.
fn click_id(id: &str) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        if let Ok(el) = el.dyn_into::<HtmlElement>() {
            el.click();
        }
    }
}

/// Opens what the page's fragment links to, now and whenever it changes (a share link
/// followed while the page is open). Other fragments are left alone.
#[hook]
fn use_share_links(session: Rc<RefCell<Session>>, dispatch: Callback<Action>, settings: Rc<RefCell<Settings>>) {
    use_effect_with((), move |_| {
        let open_current = move || {
            let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
            open_link(&hash, *settings.borrow(), &session, &dispatch);
        };
        open_current();
        let listener = EventListener::new(&gloo_utils::window(), "hashchange", move |_| open_current());
        move || drop(listener)
    });
}

/// Opens a share link: a file it carries at once, an address after asking.
fn open_link(fragment: &str, settings: Settings, session: &Rc<RefCell<Session>>, dispatch: &Callback<Action>) {
    let failed = |address: Option<String>, message: String| {
        dispatch.emit(Action::Remote(Some(RemoteState::Failed { address, message })))
    };
    if let Some(link) = pypi::parse_link(fragment) {
        return match link {
            Ok(link) => dispatch.emit(Action::Remote(Some(RemoteState::AskingIndex { link }))),
            Err(message) => failed(None, message),
        };
    }
    match share::parse_fragment(fragment) {
        Ok(None) => {}
        Err(e) => failed(None, e.to_string()),
        Ok(Some(SharedLink::File { name, bytes, selection })) => {
            let at = now_ms();
            let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
            match Blob::new_with_u8_array_sequence(&parts) {
                Ok(blob) => {
                    let id = session.borrow_mut().open(blob, name, at, settings, dispatch);
                    dispatch.emit(Action::SelectPath { id, path: selection });
                }
                Err(e) => failed(None, format!("the file in the link could not be kept: {e:?}")),
            }
        }
        Ok(Some(SharedLink::Remote { address, selection })) => match remote::resolve_address(&address) {
            Ok(url) => dispatch.emit(Action::Remote(Some(RemoteState::Asking { address: url.href(), selection }))),
            Err(message) => failed(Some(address), message),
        },
    }
}

/// Downloads the file a `#url=` link names (the user said Open), showing its progress, and
/// opens it in a tab with the link's selection.
fn fetch_remote_file(
    address: String,
    selection: NodePath,
    settings: Settings,
    session: Rc<RefCell<Session>>,
    dispatch: Callback<Action>,
    download: Rc<RefCell<Option<AbortController>>>,
) {
    let failed = |address: &str, message: String| {
        Action::Remote(Some(RemoteState::Failed { address: Some(address.to_string()), message }))
    };
    let url = match remote::resolve_address(&address) {
        Ok(url) => url,
        Err(message) => return dispatch.emit(failed(&address, message)),
    };
    let controller = match AbortController::new() {
        Ok(c) => c,
        Err(e) => return dispatch.emit(failed(&address, format!("the download could not be started: {e:?}"))),
    };
    *download.borrow_mut() = Some(controller.clone());
    dispatch.emit(Action::Remote(Some(RemoteState::Fetching {
        address: address.clone(),
        bytes_read: 0,
        total: None,
        note: None,
    })));
    let at = now_ms();
    wasm_bindgen_futures::spawn_local(async move {
        let signal = controller.signal();
        // A piece read just before Cancel must not bring the closed dialog back.
        let progress = {
            let (dispatch, address, signal) = (dispatch.clone(), address.clone(), signal.clone());
            move |bytes_read, total, whole: Option<WholeWhy>| {
                if !signal.aborted() {
                    dispatch.emit(Action::Remote(Some(RemoteState::Fetching {
                        address: address.clone(),
                        bytes_read,
                        total,
                        note: whole.map(|why| why.text().to_string()),
                    })));
                }
            }
        };
        let result = remote::open_remote(&url, &signal, progress).await;
        if signal.aborted() {
            return;
        }
        download.borrow_mut().take();
        let name = remote::file_name_for(&url.pathname(), &url.hostname());
        match result {
            Ok(remote::Opened::Ranges(file)) => {
                dispatch.emit(Action::Remote(None));
                let id = session.borrow_mut().open_remote(file, name, at, settings, &dispatch);
                session.borrow_mut().set_address(id, address);
                dispatch.emit(Action::SelectPath { id, path: selection });
            }
            Ok(remote::Opened::Whole(blob, _)) => {
                dispatch.emit(Action::Remote(None));
                let id = session.borrow_mut().open(blob, name, at, settings, &dispatch);
                session.borrow_mut().set_address(id, address);
                dispatch.emit(Action::SelectPath { id, path: selection });
            }
            Err(FetchProblem::Cancelled) => dispatch.emit(Action::Remote(None)),
            Err(FetchProblem::Failed(message)) => dispatch.emit(failed(&address, message)),
        }
    });
}

/// Fetches a sample shipped with the page (relative to the page, so any sub-path works) and
/// opens it with `settings`.
fn open_sample(file: &'static str, settings: Settings, session: Rc<RefCell<Session>>, dispatch: Callback<Action>) {
    let at = now_ms();
    wasm_bindgen_futures::spawn_local(async move {
        let fetched: Result<Blob, String> = async {
            let window = web_sys::window().ok_or("no window")?;
            let response = JsFuture::from(window.fetch_with_str(&format!("samples/{file}")))
                .await
                .map_err(|e| format!("{e:?}"))?;
            let response: web_sys::Response = response.dyn_into().map_err(|_| "not a response")?;
            if !response.ok() {
                return Err(format!("HTTP {}", response.status()));
            }
            let blob =
                JsFuture::from(response.blob().map_err(|e| format!("{e:?}"))?).await.map_err(|e| format!("{e:?}"))?;
            Ok(blob.unchecked_into())
        }
        .await;
        match fetched {
            Ok(blob) => {
                session.borrow_mut().open(blob, file.to_string(), at, settings, &dispatch);
            }
            Err(e) => session.borrow_mut().open_failed(
                file.to_string(),
                at,
                settings,
                format!("the sample could not be fetched: {e}"),
                &dispatch,
            ),
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

/// Files dropped on the page's static shell before this code had loaded (kept by `www/shell.js`
/// in `window.offloadEarlyDrop`) open in tabs as soon as the app starts.
#[hook]
fn use_early_files(open_files: Callback<FileList>) {
    use_effect_with((), move |_| {
        let kept = js_sys::Reflect::get(&gloo_utils::window(), &"offloadEarlyDrop".into()).ok();
        let early = kept.and_then(|v| v.dyn_into::<web_sys::DataTransfer>().ok());
        if let Some(files) = early.as_ref().and_then(|dt| dt.files()).filter(|f| f.length() > 0) {
            open_files.emit(files);
        }
    });
}

/// Page-wide single-key shortcuts (see `crate::shortcuts`), ignored while typing.
#[hook]
fn use_shortcuts(
    dispatch: Callback<Action>,
    on_file: Callback<FileRequest>,
    on_download: Callback<DownloadRequest>,
    state: Rc<RefCell<AppState>>,
) {
    use_effect_with((), move |_| {
        let document = gloo_utils::document();
        // The view last pressed with a pointer, which `m` maximises when no view has the focus
        // (clicking text in a view does not focus it).
        let last_pressed = Rc::new(RefCell::new(None::<View>));
        let pressed = {
            let last_pressed = last_pressed.clone();
            EventListener::new(&document, "pointerdown", move |e| {
                let view = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|el| view_of(&el));
                if view.is_some() {
                    *last_pressed.borrow_mut() = view;
                }
            })
        };
        // Not passive (gloo's default): a handled key must not also type into what it focused.
        let listener = EventListener::new_with_options(
            &document,
            "keydown",
            EventListenerOptions::enable_prevent_default(),
            move |e| {
                let e: &KeyboardEvent = e.unchecked_ref();
                if e.default_prevented() || typing(e) {
                    return;
                }
                // Ctrl+Z and Ctrl+Shift+Z (Cmd on macOS) undo and redo edits of the file; Ctrl+Y redoes.
                if let Some(command) =
                    edit_command_for(&e.key(), e.ctrl_key(), e.meta_key(), e.shift_key(), e.alt_key())
                {
                    if let Some(id) = active_tab(&state) {
                        e.prevent_default();
                        on_file.emit(if command == Command::Redo {
                            FileRequest::Redo(id)
                        } else {
                            FileRequest::Undo(id)
                        });
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
                    Command::OpenAddress => on_file.emit(FileRequest::OpenAddress),
                    Command::OpenSample => open_samples_menu(),
                    Command::NextTab => dispatch.emit(Action::NextTab),
                    Command::PrevTab => dispatch.emit(Action::PrevTab),
                    Command::CloseTab => {
                        if let Some(id) = active_tab(&state) {
                            on_file.emit(FileRequest::Close(id));
                        }
                    }
                    Command::FocusTree => focus_id(TREE_ID),
                    Command::FocusHex => focus_id(HEX_GRID_ID),
                    Command::GoToOffset => focus_id(GOTO_ID),
                    Command::Download => on_download.emit(DownloadRequest::Selected),
                    Command::Toggle(view) => dispatch.emit(Action::ToggleView(view)),
                    Command::Maximise => {
                        let maximised = state.borrow().active_tab().and_then(|t| t.panes.maximised);
                        let view = maximised.or_else(|| view_in_use(&last_pressed));
                        if let (Some(id), Some(view)) = (active_tab(&state), view) {
                            dispatch.emit(Action::ToggleMaximised { id, view });
                        }
                    }
                    Command::CopyLink => click_id(COPY_LINK_ID),
                    Command::Settings => dispatch.emit(Action::ShowSettings(true)),
                    Command::Help => dispatch.emit(Action::Help(true)),
                    // Keys with Ctrl or Cmd, handled above.
                    Command::Undo | Command::Redo => {}
                }
            },
        );
        move || drop((listener, pressed))
    });
}

/// The view holding the focus, else the one last pressed with a pointer (see `use_shortcuts`).
fn view_in_use(last_pressed: &RefCell<Option<View>>) -> Option<View> {
    let focused = gloo_utils::document().active_element().and_then(|el| view_of(&el));
    focused.or(*last_pressed.borrow())
}

/// The view an element is in (its pane's `data-view`).
fn view_of(el: &web_sys::Element) -> Option<View> {
    let pane = el.closest("[data-view]").ok().flatten()?;
    View::from_slug(&pane.get_attribute("data-view")?)
}

/// The active tab as the page shows it now.
fn active_tab(state: &RefCell<AppState>) -> Option<TabId> {
    state.borrow().active
}

/// Whether a key press is text going into a form field, or meant for the open dialog.
fn typing(e: &KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    // Inside an open dialog (shortcuts, settings) only its own keys apply.
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || el.closest("[contenteditable], dialog[open]").ok().flatten().is_some()
}
