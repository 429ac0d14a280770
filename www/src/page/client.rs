//! The page's side of an explorer worker: one worker per open file, so that cancelling (which
//! terminates the worker, the only way to stop a synchronous parse) or closing one file never
//! disturbs another, and several files are explored in parallel.
//!
//! Written on web-sys rather than gloo-worker because cancelling needs `Worker.terminate()`,
//! which gloo-worker's bridge does not expose while a worker is busy, and because gloo-worker
//! starts workers from `blob:` URLs, which the page's Content-Security-Policy does not allow.

use crate::edit_request::{EditRequest, NodePath};
use crate::model::Doc;
use crate::protocol::{decode, encode, EditedFile, FromWorker, Job, ToWorker};
use crate::settings::Settings;
use futures::channel::oneshot;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

/// The worker script Trunk writes (`data-loader-shim`), relative to the page's base URL so the
/// site works from any sub-path.
pub const WORKER_SCRIPT: &str = "worker_loader.js";

/// What a worker reports about its file.
#[derive(Debug)]
pub enum Event {
    Progress {
        stage: String,
        bytes_read: u64,
    },
    Explored(Doc),
    Failed(String),
    EditProgress(String),
    Edited(Box<EditedFile>),
    /// An edit or a hash check was refused; `payload` is the new container alone (and the
    /// name to save it under) when it did not fit in a linked file.
    EditFailed {
        message: String,
        payload: Option<(Blob, String)>,
    },
    Verified {
        node: NodePath,
        stored: u64,
        computed: u64,
    },
}

type Reply = oneshot::Sender<Result<Vec<u8>, String>>;

/// A download the worker could not prepare: why, and the errors its bytes read back with.
#[derive(Clone, Debug, PartialEq)]
pub struct NotPrepared {
    pub reason: String,
    pub errors: Vec<String>,
}

/// Where the worker's answer to a `Prepare` goes, and who hears its progress.
struct JobReply {
    done: oneshot::Sender<Result<JsValue, NotPrepared>>,
    progress: Box<dyn Fn(u64, u64)>,
}

struct Shared {
    ready: bool,
    /// Messages posted before the worker's code was loaded (it would drop them).
    queue: Vec<JsValue>,
    replies: HashMap<u32, Reply>,
    jobs: HashMap<u32, JobReply>,
    next_request: u32,
}

pub struct ExplorerWorker {
    worker: Worker,
    shared: Rc<RefCell<Shared>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl ExplorerWorker {
    /// Starts a worker; `on_event` hears its progress and result.
    pub fn spawn(on_event: impl Fn(Event) + 'static) -> Result<ExplorerWorker, String> {
        let worker =
            Worker::new(WORKER_SCRIPT).map_err(|e| format!("the explorer worker could not be started: {e:?}"))?;
        let shared = Rc::new(RefCell::new(Shared {
            ready: false,
            queue: Vec::new(),
            replies: HashMap::new(),
            jobs: HashMap::new(),
            next_request: 0,
        }));
        let on_event = Rc::new(on_event);

        let on_message = {
            let (shared, worker, on_event) = (shared.clone(), worker.clone(), on_event.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
                let message = match decode::<FromWorker>(event.data()) {
                    Ok(m) => m,
                    Err(e) => return on_event(Event::Failed(format!("unreadable message from the worker: {e}"))),
                };
                match message {
                    FromWorker::Ready => {
                        let queued = {
                            let mut s = shared.borrow_mut();
                            s.ready = true;
                            std::mem::take(&mut s.queue)
                        };
                        for m in queued {
                            let _ = worker.post_message(&m);
                        }
                    }
                    FromWorker::Progress { stage, bytes_read } => on_event(Event::Progress { stage, bytes_read }),
                    FromWorker::Explored(doc) => on_event(Event::Explored(doc)),
                    FromWorker::Failed { message } => on_event(Event::Failed(message)),
                    FromWorker::Bytes { request, data } => reply(&shared, request, Ok(data)),
                    FromWorker::ReadFailed { request, message } => reply(&shared, request, Err(message)),
                    FromWorker::Preparing { request, done, total } => {
                        if let Some(job) = shared.borrow().jobs.get(&request) {
                            (job.progress)(done, total);
                        }
                    }
                    FromWorker::Prepared { request, data } => job_done(&shared, request, Ok(data)),
                    FromWorker::NotPrepared { request, reason, errors } => {
                        job_done(&shared, request, Err(NotPrepared { reason, errors }))
                    }
                    FromWorker::EditProgress { stage } => on_event(Event::EditProgress(stage)),
                    FromWorker::Edited(edited) => on_event(Event::Edited(edited)),
                    FromWorker::EditFailed { message, payload } => {
                        on_event(Event::EditFailed { message, payload: payload.map(|p| (p.blob, p.name)) })
                    }
                    FromWorker::Verified { node, stored, computed } => {
                        on_event(Event::Verified { node, stored, computed })
                    }
                }
            })
        };
        let on_error = {
            let on_event = on_event.clone();
            Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
                event.prevent_default();
                let message = event.message();
                on_event(Event::Failed(if message.is_empty() {
                    "the explorer worker stopped".into()
                } else {
                    format!("the explorer worker stopped: {message}")
                }));
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(ExplorerWorker { worker, shared, _on_message: on_message, _on_error: on_error })
    }

    fn send(&self, message: &ToWorker) -> Result<(), String> {
        let value = encode(message)?;
        let mut s = self.shared.borrow_mut();
        if s.ready {
            self.worker.post_message(&value).map_err(|e| format!("{e:?}"))
        } else {
            s.queue.push(value);
            Ok(())
        }
    }

    /// Asks the worker to explore `file` within the limits of `settings`.
    pub fn explore(&self, name: &str, file: &Blob, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Explore { name: name.to_string(), file: file.clone(), settings })
    }

    /// Asks the worker to prepare a download; `progress` hears `(done, total)` as it goes. The
    /// answer is the download's bytes (a `Uint8Array`), `undefined` when the page holds them
    /// itself ([`Job::Check`]), or why it is refused.
    pub async fn prepare(&self, job: Job, progress: impl Fn(u64, u64) + 'static) -> Result<JsValue, NotPrepared> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut s = self.shared.borrow_mut();
            s.next_request = s.next_request.wrapping_add(1);
            let r = s.next_request;
            s.jobs.insert(r, JobReply { done: tx, progress: Box::new(progress) });
            r
        };
        let stopped = |reason: String| NotPrepared { reason, errors: Vec::new() };
        self.send(&ToWorker::Prepare { request, job }).map_err(stopped)?;
        rx.await.map_err(|_| stopped("the explorer worker was stopped".to_string()))?
    }

    /// Asks the worker to apply an edit to its current file.
    pub fn edit(&self, edit: &EditRequest, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Edit { edit: edit.clone(), settings })
    }

    /// Asks the worker to check the hash of the compressed bundle at `node`.
    pub fn verify(&self, node: NodePath, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Verify { node, settings })
    }

    /// Makes `file` (another version) the worker's current file.
    pub fn switch(&self, file: &Blob, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Switch { file: file.clone(), settings })
    }

    /// The bytes `offset..offset+len` of a byte space (fewer where the space ends or was only
    /// partly decompressed).
    pub async fn read(&self, space: u32, offset: u64, len: u32) -> Result<Vec<u8>, String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut s = self.shared.borrow_mut();
            s.next_request = s.next_request.wrapping_add(1);
            let r = s.next_request;
            s.replies.insert(r, tx);
            r
        };
        self.send(&ToWorker::Read { request, space, offset, len })?;
        rx.await.map_err(|_| "the explorer worker was stopped".to_string())?
    }
}

fn reply(shared: &Rc<RefCell<Shared>>, request: u32, result: Result<Vec<u8>, String>) {
    if let Some(tx) = shared.borrow_mut().replies.remove(&request) {
        let _ = tx.send(result);
    }
}

fn job_done(shared: &Rc<RefCell<Shared>>, request: u32, result: Result<JsValue, NotPrepared>) {
    let job = shared.borrow_mut().jobs.remove(&request);
    if let Some(job) = job {
        let _ = job.done.send(result);
    }
}

impl Drop for ExplorerWorker {
    /// A worker stops with the tab that owns it (closed or cancelled), even in the middle of a
    /// parse; pending byte requests then fail.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
