//! What the reducer does not hold: the files the user opened (as `Blob`s, never copied), every
//! version edits made of them, and the worker exploring each. The reducer hears about
//! everything through actions.

use crate::bytes::{Bytes, FileBytes};
use crate::client::{Event, ExplorerWorker};
use crate::edit_request::{EditRequest, NodePath};
use crate::settings::Settings;
use crate::state::{Action, TabId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use web_sys::Blob;
use yew::Callback;

struct OpenFile {
    name: String,
    worker: Option<Rc<ExplorerWorker>>,
    /// The settings the worker explores with.
    settings: Settings,
    /// Shared with the worker's event handler, which adds the versions edits make.
    history: Rc<RefCell<History>>,
}

/// The versions of one tab's file, in step with the reducer's `Tab::versions`.
struct History {
    /// The file as opened, then one `Blob` per edit.
    files: Vec<Blob>,
    current: usize,
    /// An edit or a hash check is running: nothing else is started until it ends.
    busy: bool,
    /// The new container of the last edit that did not fit, and the name to save it under.
    payload: Option<(Blob, String)>,
    /// The hex view's byte source for the current version, made when first asked for.
    bytes: Option<Bytes>,
}

impl History {
    fn new(file: Blob) -> Rc<RefCell<History>> {
        Rc::new(RefCell::new(History { files: vec![file], current: 0, busy: false, payload: None, bytes: None }))
    }

    fn file(&self) -> Blob {
        self.files[self.current].clone()
    }

    /// An edit's result becomes the version after the current one; later ones are dropped.
    fn add(&mut self, file: Blob) {
        self.files.truncate(self.current + 1);
        self.files.push(file);
        self.current = self.files.len() - 1;
        self.bytes = None;
    }
}

#[derive(Default)]
pub struct Session {
    files: HashMap<TabId, OpenFile>,
    next_id: TabId,
    /// The address a tab's file was fetched from (a `#url=` link), for share links too big
    /// to carry the file.
    addresses: HashMap<TabId, String>,
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

impl Session {
    /// Opens a file in a new tab and starts exploring it within the limits of `settings`.
    /// `opened_at` is when the user asked (the drop, the pick, the sample click), for the
    /// first-render time.
    pub fn open(
        &mut self,
        file: Blob,
        name: String,
        opened_at: f64,
        settings: Settings,
        dispatch: &Callback<Action>,
    ) -> TabId {
        self.next_id += 1;
        let id = self.next_id;
        dispatch.emit(Action::Open { id, name: name.clone(), size: file.size() as u64, at_ms: opened_at, settings });
        self.files.insert(id, OpenFile { name, worker: None, settings, history: History::new(file) });
        self.start(id, settings, dispatch);
        id
    }

    /// A tab for a file that could not even be read, saying why.
    pub fn open_failed(
        &mut self,
        name: String,
        opened_at: f64,
        settings: Settings,
        message: String,
        dispatch: &Callback<Action>,
    ) {
        self.next_id += 1;
        let id = self.next_id;
        dispatch.emit(Action::Open { id, name: name.clone(), size: 0, at_ms: opened_at, settings });
        // Without even an empty Blob the tab cannot be re-opened; it still says why.
        if let Ok(file) = Blob::new() {
            self.files.insert(id, OpenFile { name, worker: None, settings, history: History::new(file) });
        }
        dispatch.emit(Action::Failed { id, message });
    }

    /// Starts (or restarts) the worker of a tab. A worker being replaced stops when its last
    /// handle goes (see `ExplorerWorker`'s `Drop`).
    fn start(&mut self, id: TabId, settings: Settings, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get_mut(&id) else { return };
        let events = {
            let (dispatch, history) = (dispatch.clone(), open.history.clone());
            move |event: Event| on_event(id, event, &history, &dispatch)
        };
        let file = open.history.borrow().file();
        let started = ExplorerWorker::spawn(events).and_then(|w| w.explore(&open.name, &file, settings).map(|_| w));
        {
            let mut history = open.history.borrow_mut();
            history.bytes = None;
            history.busy = false;
        }
        open.settings = settings;
        match started {
            Ok(worker) => open.worker = Some(Rc::new(worker)),
            Err(message) => dispatch.emit(Action::Failed { id, message }),
        }
    }

    /// Stops a tab's worker in the middle of its work; the tab stays, and can start again.
    pub fn cancel(&mut self, id: TabId, dispatch: &Callback<Action>) {
        if let Some(open) = self.files.get_mut(&id) {
            open.worker = None;
            {
                let mut history = open.history.borrow_mut();
                history.bytes = None;
                history.busy = false;
            }
            dispatch.emit(Action::Cancelled { id });
        }
    }

    /// Explores a tab's file again, from the start, within the limits of `settings`: after a
    /// cancellation or a failure, or to see the file with other settings.
    pub fn restart(&mut self, id: TabId, settings: Settings, dispatch: &Callback<Action>) {
        if self.files.contains_key(&id) {
            dispatch.emit(Action::Restarted { id, at_ms: now_ms(), settings });
            self.start(id, settings, dispatch);
        }
    }

    /// Closes a tab: its worker stops and its file is let go.
    pub fn close(&mut self, id: TabId, dispatch: &Callback<Action>) {
        self.files.remove(&id);
        self.addresses.remove(&id);
        dispatch.emit(Action::Close(id));
    }

    /// Remembers that a tab's file was fetched from `address`.
    pub fn set_address(&mut self, id: TabId, address: String) {
        self.addresses.insert(id, address);
    }

    /// The address a tab's file was fetched from, if it was.
    pub fn address(&self, id: TabId) -> Option<String> {
        self.addresses.get(&id).cloned()
    }

    /// The worker exploring the tab's file, while it runs (not after a cancellation).
    pub fn worker(&self, id: TabId) -> Option<Rc<ExplorerWorker>> {
        self.files.get(&id).and_then(|o| o.worker.clone())
    }

    /// Where the hex view reads the tab's current version: the same source until the version
    /// or the worker changes, so that the view re-reads only then.
    pub fn bytes(&self, id: TabId) -> Option<Bytes> {
        let open = self.files.get(&id)?;
        let mut history = open.history.borrow_mut();
        let file = history.file();
        let bytes =
            history.bytes.get_or_insert_with(|| Bytes(Rc::new(FileBytes { file, worker: open.worker.clone() })));
        Some(bytes.clone())
    }

    /// The tab's current file: the one opened, or the version its edits (and undo, redo) made;
    /// what a share link carries and "Download file" saves. Never copied.
    pub fn file(&self, id: TabId) -> Option<Blob> {
        self.files.get(&id).map(|o| o.history.borrow().file())
    }

    /// The tab's file name.
    pub fn name(&self, id: TabId) -> Option<String> {
        self.files.get(&id).map(|o| o.name.clone())
    }

    /// The new container of the tab's last edit that did not fit, and its file name.
    pub fn payload(&self, id: TabId) -> Option<(Blob, String)> {
        self.files.get(&id).and_then(|o| o.history.borrow().payload.clone())
    }

    /// Starts an edit of the tab's current file, unless one is running.
    pub fn edit(&mut self, id: TabId, request: EditRequest, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let what = request.describe();
        self.run(open, id, what, dispatch, |w, settings| w.edit(&request, settings));
    }

    /// Starts checking the hash of the compressed bundle at `node`.
    pub fn verify(&mut self, id: TabId, node: NodePath, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        self.run(open, id, "checking the hash".into(), dispatch, |w, settings| w.verify(node, settings));
    }

    fn run(
        &self,
        open: &OpenFile,
        id: TabId,
        what: String,
        dispatch: &Callback<Action>,
        send: impl FnOnce(&ExplorerWorker, Settings) -> Result<(), String>,
    ) {
        if open.history.borrow().busy {
            return;
        }
        dispatch.emit(Action::EditStarted { id, what });
        let Some(worker) = open.worker.as_ref() else {
            dispatch.emit(Action::EditFailed {
                id,
                message: "the explorer of this file was stopped: re-open the file first".into(),
                payload: None,
            });
            return;
        };
        {
            let mut history = open.history.borrow_mut();
            history.payload = None;
            history.busy = true;
        }
        if let Err(message) = send(worker, open.settings) {
            open.history.borrow_mut().busy = false;
            dispatch.emit(Action::EditFailed { id, message, payload: None });
        }
    }

    /// Shows the version before the current one.
    pub fn undo(&mut self, id: TabId, dispatch: &Callback<Action>) {
        let current = self.files.get(&id).map(|o| o.history.borrow().current);
        if let Some(current) = current.filter(|&c| c > 0) {
            self.switch(id, current - 1, dispatch);
        }
    }

    /// Shows the version after the current one, if an undo left one.
    pub fn redo(&mut self, id: TabId, dispatch: &Callback<Action>) {
        let current = self.files.get(&id).map(|o| o.history.borrow().current);
        if let Some(current) = current {
            self.switch(id, current + 1, dispatch);
        }
    }

    fn switch(&mut self, id: TabId, index: usize, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let file = {
            let mut history = open.history.borrow_mut();
            if history.busy || index >= history.files.len() {
                return;
            }
            history.current = index;
            history.bytes = None;
            history.payload = None;
            history.file()
        };
        // The page shows the version's tree at once; the worker explores the file again so
        // that the next edit and the decompressed bytes are that version's.
        if let Some(worker) = &open.worker {
            if let Err(message) = worker.switch(&file, open.settings) {
                dispatch.emit(Action::EditFailed { id, message, payload: None });
            }
        }
        dispatch.emit(Action::SwitchVersion { id, index });
    }
}

/// What a tab's worker reports, turned into actions; an edit's new file joins the history.
/// Borrows of the history end before dispatching, which may render at once.
fn on_event(id: TabId, event: Event, history: &RefCell<History>, dispatch: &Callback<Action>) {
    match event {
        Event::Progress { stage, bytes_read } => dispatch.emit(Action::Progress { id, stage, bytes_read }),
        Event::Explored(doc) => dispatch.emit(Action::Loaded { id, doc: Rc::new(doc) }),
        Event::Failed(message) => {
            history.borrow_mut().busy = false;
            dispatch.emit(Action::Failed { id, message });
        }
        Event::EditProgress(stage) => dispatch.emit(Action::EditProgress { id, stage }),
        Event::Edited(edited) => {
            {
                let mut h = history.borrow_mut();
                h.add(edited.file);
                h.busy = false;
            }
            dispatch.emit(Action::Edited {
                id,
                doc: Rc::new(edited.doc),
                mark: edited.mark,
                select: edited.select,
                notes: edited.notes,
            });
        }
        Event::EditFailed { message, payload } => {
            let name = payload.as_ref().map(|(_, name)| name.clone());
            {
                let mut h = history.borrow_mut();
                h.payload = payload;
                h.busy = false;
            }
            dispatch.emit(Action::EditFailed { id, message, payload: name });
        }
        Event::Verified { node, stored, computed } => {
            history.borrow_mut().busy = false;
            dispatch.emit(Action::Verified { id, node, stored, computed });
        }
    }
}
