//! What the reducer does not hold: the files the user opened (as `Blob`s, never copied) and
//! the worker exploring each. The reducer hears about everything through actions.

use crate::bytes::{Bytes, FileBytes};
use crate::client::{Event, ExplorerWorker};
use crate::settings::Settings;
use crate::state::{Action, TabId};
use std::collections::HashMap;
use std::rc::Rc;
use web_sys::Blob;
use yew::Callback;

struct OpenFile {
    name: String,
    file: Blob,
    worker: Option<Rc<ExplorerWorker>>,
    bytes: Bytes,
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
    pub fn open(&mut self, file: Blob, name: String, opened_at: f64, settings: Settings, dispatch: &Callback<Action>) -> TabId {
        self.next_id += 1;
        let id = self.next_id;
        dispatch.emit(Action::Open { id, name: name.clone(), size: file.size() as u64, at_ms: opened_at, settings });
        let bytes = Bytes(Rc::new(FileBytes { file: file.clone(), worker: None }));
        self.files.insert(id, OpenFile { name, file, worker: None, bytes });
        self.start(id, settings, dispatch);
        id
    }

    /// A tab for a file that could not even be read, saying why.
    pub fn open_failed(&mut self, name: String, opened_at: f64, settings: Settings, message: String, dispatch: &Callback<Action>) {
        self.next_id += 1;
        let id = self.next_id;
        dispatch.emit(Action::Open { id, name: name.clone(), size: 0, at_ms: opened_at, settings });
        let file = Blob::new().expect("an empty Blob");
        let bytes = Bytes(Rc::new(FileBytes { file: file.clone(), worker: None }));
        self.files.insert(id, OpenFile { name, file, worker: None, bytes });
        dispatch.emit(Action::Failed { id, message });
    }

    /// Starts (or restarts) the worker of a tab. A worker being replaced stops when its last
    /// handle goes (see `ExplorerWorker`'s `Drop`).
    fn start(&mut self, id: TabId, settings: Settings, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get_mut(&id) else { return };
        let events = {
            let dispatch = dispatch.clone();
            move |event: Event| match event {
                Event::Progress { stage, bytes_read } => dispatch.emit(Action::Progress { id, stage, bytes_read }),
                Event::Explored(doc) => dispatch.emit(Action::Loaded { id, doc: Rc::new(doc) }),
                Event::Failed(message) => dispatch.emit(Action::Failed { id, message }),
            }
        };
        let started = ExplorerWorker::spawn(events).and_then(|w| w.explore(&open.name, &open.file, settings).map(|_| w));
        match started {
            Ok(worker) => {
                let worker = Rc::new(worker);
                open.bytes = Bytes(Rc::new(FileBytes { file: open.file.clone(), worker: Some(worker.clone()) }));
                open.worker = Some(worker);
            }
            Err(message) => dispatch.emit(Action::Failed { id, message }),
        }
    }

    /// Stops a tab's worker in the middle of its work; the tab stays, and can start again.
    pub fn cancel(&mut self, id: TabId, dispatch: &Callback<Action>) {
        if let Some(open) = self.files.get_mut(&id) {
            open.worker = None;
            open.bytes = Bytes(Rc::new(FileBytes { file: open.file.clone(), worker: None }));
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

    /// The file a tab shows now, as it shows it (what a share link carries and "Download file"
    /// saves), never copied.
    pub fn file(&self, id: TabId) -> Option<Blob> {
        self.files.get(&id).map(|o| o.file.clone())
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

    pub fn bytes(&self, id: TabId) -> Option<Bytes> {
        self.files.get(&id).map(|o| o.bytes.clone())
    }
}
