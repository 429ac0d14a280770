//! What the reducer does not hold: the files the user opened (as `Blob`s, never copied), the
//! `Blob` of every version edits made of them, and the worker exploring each. The reducer hears
//! about everything through actions; the worker's reports reach it from here, each turned into
//! the action it means.
//!
//! The history of a file's versions is the reducer's (`Tab::versions`, `Tab::current`): the
//! session keeps only each version's `Blob`, at the reducer's index, and is told which version
//! a request is about.

use crate::page::bytes::{Bytes, FileBytes};
use crate::page::client::ExplorerWorker;
use crate::page::state::{Action, KernelsDecoding, TabId};
use crate::wire::edit::describe;
use crate::wire::messages::{CompanionFile, Payload, RemoteFile, Report, Source};
use crate::wire::settings::Settings;
use offload::edit::{Edit, NodePath};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use web_sys::Blob;
use yew::Callback;

struct OpenFile {
    name: String,
    /// Files opened with it that it refers to (`.kpack` archives), explored with every version.
    companions: Vec<CompanionFile>,
    worker: Option<Rc<ExplorerWorker>>,
    /// The settings the worker explores with.
    settings: Settings,
    /// Shared with the worker's report handler, which adds the versions edits make.
    versions: Rc<RefCell<Versions>>,
}

/// The `Blob` of each version of a tab's file, indexed like the reducer's `Tab::versions`, and
/// what the session must remember about the work under way on them.
struct Versions {
    /// The file as opened (a `Blob`, or a remote file read by ranges), then one `Blob` per edit.
    blobs: Vec<Source>,
    /// An edit or a hash check is running: nothing else is started until it ends.
    running: Option<Running>,
    /// The new container of the last edit that did not fit.
    payload: Option<Payload>,
    /// The hex view's byte source, made when first asked for, and the version it reads.
    bytes: Option<(usize, Bytes)>,
}

/// The work a tab's worker is doing on its file.
enum Running {
    /// An edit of version `from`: its result becomes the version after it, and the versions
    /// that were after it (undone) are dropped, as the reducer drops them.
    Edit {
        from: usize,
    },
    Verify,
    Decompress,
}

impl Versions {
    fn new(file: Source) -> Rc<RefCell<Versions>> {
        Rc::new(RefCell::new(Versions { blobs: vec![file], running: None, payload: None, bytes: None }))
    }

    /// The file of `version` (the last one if the reducer knows more: never the case).
    fn blob(&self, version: usize) -> Source {
        self.blobs
            .get(version)
            .or(self.blobs.last())
            .cloned()
            .expect("a file has at least the version it was opened as")
    }

    /// An edit's result becomes the version after the one edited.
    fn add_edited(&mut self, file: Blob) {
        let from = match self.running.take() {
            Some(Running::Edit { from }) => from,
            _ => self.blobs.len() - 1,
        };
        self.blobs.truncate(from + 1);
        self.blobs.push(Source::Blob(file));
        self.bytes = None;
    }

    /// The worker was replaced or stopped: what it was doing will not end, and its bytes go.
    fn worker_gone(&mut self) {
        self.bytes = None;
        self.running = None;
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
        self.open_with(file, name, Vec::new(), opened_at, settings, dispatch)
    }

    /// Opens a file like [`Session::open`], explored with the `companions` it refers to (the
    /// `.kpack` archives dropped with a kpack'd binary).
    pub fn open_with(
        &mut self,
        file: Blob,
        name: String,
        companions: Vec<CompanionFile>,
        opened_at: f64,
        settings: Settings,
        dispatch: &Callback<Action>,
    ) -> TabId {
        self.open_source(Source::Blob(file), name, companions, opened_at, settings, dispatch)
    }

    /// Opens a file on another site, read by range requests, like [`Session::open`]; its
    /// address is kept for share links.
    pub fn open_remote(
        &mut self,
        file: RemoteFile,
        name: String,
        opened_at: f64,
        settings: Settings,
        dispatch: &Callback<Action>,
    ) -> TabId {
        let address = file.url.clone();
        let id = self.open_source(Source::Remote(file), name, Vec::new(), opened_at, settings, dispatch);
        self.set_address(id, address);
        id
    }

    fn open_source(
        &mut self,
        file: Source,
        name: String,
        companions: Vec<CompanionFile>,
        opened_at: f64,
        settings: Settings,
        dispatch: &Callback<Action>,
    ) -> TabId {
        self.next_id += 1;
        let id = self.next_id;
        dispatch.emit(Action::Open { id, name: name.clone(), size: file.size(), at_ms: opened_at, settings });
        self.files.insert(id, OpenFile { name, companions, worker: None, settings, versions: Versions::new(file) });
        self.start(id, settings, 0, dispatch);
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
            let versions = Versions::new(Source::Blob(file));
            self.files.insert(id, OpenFile { name, companions: Vec::new(), worker: None, settings, versions });
        }
        dispatch.emit(Action::Failed { id, message });
    }

    /// Starts (or restarts) the worker of a tab on `version` of its file. A worker being
    /// replaced stops when its last handle goes (see `ExplorerWorker`'s `Drop`).
    fn start(&mut self, id: TabId, settings: Settings, version: usize, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get_mut(&id) else { return };
        let reports = {
            let (dispatch, versions) = (dispatch.clone(), open.versions.clone());
            move |report: Report| on_report(id, report, &versions, &dispatch)
        };
        let file = open.versions.borrow().blob(version);
        let started = ExplorerWorker::spawn(reports)
            .and_then(|w| w.explore(&open.name, &file, &open.companions, settings).map(|_| w));
        open.versions.borrow_mut().worker_gone();
        open.settings = settings;
        match started {
            Ok(worker) => open.worker = Some(Rc::new(worker)),
            Err(message) => dispatch.emit(Action::Failed { id, message }),
        }
    }

    /// Stops the edit, hash check or decompression a tab's worker is doing, by replacing the
    /// worker (a synchronous parse cannot be interrupted otherwise). The new worker explores the
    /// shown `version` again without sending a tree: the page keeps the one it shows.
    pub fn cancel_work(&mut self, id: TabId, version: usize, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get_mut(&id) else { return };
        if open.versions.borrow().running.is_none() {
            return;
        }
        let reports = {
            let (dispatch, versions) = (dispatch.clone(), open.versions.clone());
            move |report: Report| on_report(id, report, &versions, &dispatch)
        };
        let file = open.versions.borrow().blob(version);
        let started = ExplorerWorker::spawn(reports)
            .and_then(|w| w.switch(&open.name, &file, Some(&open.companions), open.settings).map(|_| w));
        open.versions.borrow_mut().worker_gone();
        dispatch.emit(Action::WorkCancelled { id });
        match started {
            Ok(worker) => open.worker = Some(Rc::new(worker)),
            Err(message) => {
                open.worker = None;
                dispatch.emit(Action::Failed { id, message });
            }
        }
    }

    /// Stops a tab's worker in the middle of its work; the tab stays, and can start again.
    pub fn cancel(&mut self, id: TabId, dispatch: &Callback<Action>) {
        if let Some(open) = self.files.get_mut(&id) {
            open.worker = None;
            open.versions.borrow_mut().worker_gone();
            dispatch.emit(Action::Cancelled { id });
        }
    }

    /// Explores `version` of a tab's file again, from the start, within the limits of
    /// `settings`: after a cancellation or a failure, or to see the file with other settings.
    pub fn restart(&mut self, id: TabId, settings: Settings, version: usize, dispatch: &Callback<Action>) {
        if self.files.contains_key(&id) {
            dispatch.emit(Action::Restarted { id, at_ms: now_ms(), settings });
            self.start(id, settings, version, dispatch);
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

    /// Where the hex view reads `version` of the tab's file: the same source until the version
    /// or the worker changes, so that the view re-reads only then.
    pub fn bytes(&self, id: TabId, version: usize) -> Option<Bytes> {
        let open = self.files.get(&id)?;
        let mut versions = open.versions.borrow_mut();
        if versions.bytes.as_ref().is_some_and(|(v, _)| *v == version) {
            return versions.bytes.as_ref().map(|(_, b)| b.clone());
        }
        let bytes = Bytes(Rc::new(FileBytes { file: versions.blob(version), worker: open.worker.clone() }));
        versions.bytes = Some((version, bytes.clone()));
        Some(bytes)
    }

    /// `version` of the tab's file: the one opened, or one its edits made; what a share link
    /// carries and "Download file" saves. Never copied.
    pub fn file(&self, id: TabId, version: usize) -> Option<Source> {
        self.files.get(&id).map(|o| o.versions.borrow().blob(version))
    }

    /// The new container of the tab's last edit that did not fit, and its file name.
    pub fn payload(&self, id: TabId) -> Option<Payload> {
        self.files.get(&id).and_then(|o| o.versions.borrow().payload.clone())
    }

    /// Starts an edit of `version` (the one shown) of the tab's file, unless one is running.
    pub fn edit(&mut self, id: TabId, edit: Edit, version: usize, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let what = describe(&edit);
        self.run(open, id, what, Running::Edit { from: version }, dispatch, |w, settings| w.edit(&edit, settings));
    }

    /// Starts checking the hash of the compressed bundle at `node`.
    pub fn verify(&mut self, id: TabId, node: NodePath, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let what = "checking the hash".to_string();
        self.run(open, id, what, Running::Verify, dispatch, |w, settings| w.verify(node, settings));
    }

    /// Starts decompressing the compressed bundle at (or above) `node`, listed from its header.
    pub fn decompress(&mut self, id: TabId, node: NodePath, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let Some(worker) = open.worker.as_ref() else { return };
        if open.versions.borrow().running.is_some() {
            return;
        }
        open.versions.borrow_mut().running = Some(Running::Decompress);
        dispatch.emit(Action::DecompressStarted { id });
        if let Err(message) = worker.decompress(node) {
            open.versions.borrow_mut().running = None;
            dispatch.emit(Action::Failed { id, message });
        }
    }

    fn run(
        &self,
        open: &OpenFile,
        id: TabId,
        what: String,
        work: Running,
        dispatch: &Callback<Action>,
        send: impl FnOnce(&ExplorerWorker, Settings) -> Result<(), String>,
    ) {
        if open.versions.borrow().running.is_some() {
            return;
        }
        dispatch.emit(Action::EditStarted { id, what });
        let Some(worker) = open.worker.as_ref() else {
            let message = "the explorer of this file was stopped: re-open the file first".into();
            dispatch.emit(Action::EditFailed { id, message, payload: None });
            return;
        };
        {
            let mut versions = open.versions.borrow_mut();
            versions.payload = None;
            versions.running = Some(work);
        }
        if let Err(message) = send(worker, open.settings) {
            open.versions.borrow_mut().running = None;
            dispatch.emit(Action::EditFailed { id, message, payload: None });
        }
    }

    /// Shows another version of the tab's file (undo, redo): `index` as the reducer counts
    /// versions, from the file as opened.
    pub fn switch(&mut self, id: TabId, index: usize, dispatch: &Callback<Action>) {
        let Some(open) = self.files.get(&id) else { return };
        let file = {
            let mut versions = open.versions.borrow_mut();
            if versions.running.is_some() || index >= versions.blobs.len() {
                return;
            }
            versions.payload = None;
            versions.blobs[index].clone()
        };
        // The page shows the version's tree at once; the worker explores the file again so
        // that the next edit and the decompressed bytes are that version's.
        if let Some(worker) = &open.worker {
            if let Err(message) = worker.switch(&open.name, &file, None, open.settings) {
                dispatch.emit(Action::EditFailed { id, message, payload: None });
            }
        }
        dispatch.emit(Action::SwitchVersion { id, index });
    }
}

/// What a tab's worker reports, turned into actions; an edit's new file joins the versions.
/// Borrows of the versions end before dispatching, which may render at once.
fn on_report(id: TabId, report: Report, versions: &RefCell<Versions>, dispatch: &Callback<Action>) {
    match report {
        Report::Progress(progress) => dispatch.emit(Action::Progress { id, progress }),
        Report::Explored(doc) => dispatch.emit(Action::Loaded { id, doc: Rc::new(doc) }),
        Report::Failed { message } => {
            versions.borrow_mut().running = None;
            dispatch.emit(Action::Failed { id, message });
        }
        Report::EditProgress { stage } => dispatch.emit(Action::EditProgress { id, stage }),
        Report::Edited(edited) => {
            let edited = *edited;
            versions.borrow_mut().add_edited(edited.file);
            let doc = Rc::new(edited.doc);
            dispatch.emit(Action::Edited { id, doc, mark: edited.mark, select: edited.select, notes: edited.notes });
        }
        Report::EditFailed { message, payload } => {
            let name = payload.as_ref().map(|p| p.name.clone());
            {
                let mut v = versions.borrow_mut();
                v.payload = payload;
                v.running = None;
            }
            dispatch.emit(Action::EditFailed { id, message, payload: name });
        }
        Report::Decompressing { done, total } => dispatch.emit(Action::DecompressProgress { id, done, total }),
        Report::DecodingKernels(progress) => {
            dispatch.emit(Action::DecodeKernels { id, decoding: Some(KernelsDecoding::Running(Some(progress))) })
        }
        Report::Decompressed { doc, node } => {
            {
                let mut v = versions.borrow_mut();
                v.running = None;
                // The worker now holds the bundle's bytes: the hex view reads afresh.
                v.bytes = None;
            }
            dispatch.emit(Action::Decompressed { id, doc: Rc::new(*doc), node });
        }
        Report::Verified(verified) => {
            versions.borrow_mut().running = None;
            dispatch.emit(Action::Verified { id, verified });
        }
    }
}
