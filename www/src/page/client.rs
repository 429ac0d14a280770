//! The page's side of an explorer worker: one worker per open file, so that cancelling (which
//! terminates the worker, the only way to stop a synchronous parse) or closing one file never
//! disturbs another, and several files are explored in parallel.
//!
//! The client routes what the worker sends: answers to its numbered requests (reads of bytes,
//! downloads) go to whoever asked; reports about the file go, as they are, to the handler given
//! to [`ExplorerWorker::spawn`] (the session).
//!
//! Written on web-sys rather than gloo-worker because cancelling needs `Worker.terminate()`,
//! which gloo-worker's bridge does not expose while a worker is busy, and because gloo-worker
//! starts workers from `blob:` URLs, which the page's Content-Security-Policy does not allow.

use crate::wire::doc::{DecodedKernels, FieldInfo, NodeId};
use crate::wire::download::Refusal;
use crate::wire::messages::{decode, encode, Answer, CompanionFile, FromWorker, Job, Report, Source, ToWorker};
use crate::wire::settings::Settings;
use futures::channel::oneshot;
use offload::edit::{Edit, NodePath};
use offload::report::diff::Diff;
use offload::report::fit::Fit;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The explorer's script (`www/explorer.js`, an ES module), relative to the page's base URL so
/// that the site works from any sub-path. It waits for the page's own compiled module as its
/// first message and runs it; the page's binary explores when it runs in a worker
/// (`www/src/bin/app.rs`).
const EXPLORER_SCRIPT: &str = "explorer.js";

/// The requests of one kind waiting for their answer, by request number.
type Waiting<T> = HashMap<u32, oneshot::Sender<Result<T, String>>>;

/// Where the worker's answer to a `Prepare` goes, and who hears its progress.
struct JobReply {
    done: oneshot::Sender<Result<JsValue, Refusal>>,
    progress: Box<dyn Fn(u64, u64)>,
}

struct Shared {
    ready: bool,
    /// Messages posted before the worker's code was loaded (it would drop them).
    queue: Vec<JsValue>,
    replies: Waiting<Vec<u8>>,
    jobs: HashMap<u32, JobReply>,
    compares: Waiting<Diff>,
    fits: Waiting<Fit>,
    decoded: Waiting<DecodedKernels>,
    fields: Waiting<Vec<FieldInfo>>,
    next_request: u32,
}

impl Shared {
    fn next_request(&mut self) -> u32 {
        self.next_request = self.next_request.wrapping_add(1);
        self.next_request
    }
}

pub struct ExplorerWorker {
    worker: Worker,
    shared: Rc<RefCell<Shared>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl ExplorerWorker {
    /// Starts an explorer worker; `on_report` hears what happens to its file (a worker that
    /// stops on an error is reported as [`Report::Failed`]).
    pub fn spawn(on_report: impl Fn(Report) + 'static) -> Result<ExplorerWorker, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(EXPLORER_SCRIPT, &options)
            .map_err(|e| format!("the explorer worker could not be started: {e:?}"))?;
        // Its code: the module this page runs, compiled once (the worker's first message).
        worker
            .post_message(&wasm_bindgen::module())
            .map_err(|e| format!("the explorer worker could not be given its code: {e:?}"))?;
        let shared = Rc::new(RefCell::new(Shared {
            ready: false,
            queue: Vec::new(),
            replies: HashMap::new(),
            jobs: HashMap::new(),
            compares: HashMap::new(),
            fits: HashMap::new(),
            decoded: HashMap::new(),
            fields: HashMap::new(),
            next_request: 0,
        }));
        let on_report: Rc<dyn Fn(Report)> = Rc::new(on_report);
        let on_message = message_handler(shared.clone(), worker.clone(), on_report.clone());
        let on_error = error_handler(on_report);
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

    /// Asks the worker to explore `file`, with the `companions` it refers to, within the limits
    /// of `settings`.
    pub fn explore(
        &self,
        name: &str,
        file: &Source,
        companions: &[CompanionFile],
        settings: Settings,
    ) -> Result<(), String> {
        let companions = companions.to_vec();
        self.send(&ToWorker::Explore { name: name.to_string(), file: file.clone(), companions, settings })
    }

    /// Asks the worker to prepare a download; `progress` hears `(done, total)` as it goes. The
    /// answer is the download's bytes (a `Uint8Array`), `undefined` when the page holds them
    /// itself ([`Job::Check`]), or why it is refused.
    pub async fn prepare(&self, job: Job, progress: impl Fn(u64, u64) + 'static) -> Result<JsValue, Refusal> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut s = self.shared.borrow_mut();
            let r = s.next_request();
            s.jobs.insert(r, JobReply { done: tx, progress: Box::new(progress) });
            r
        };
        self.send(&ToWorker::Prepare { request, job }).map_err(Refusal::from)?;
        rx.await.map_err(|_| Refusal::from("the explorer worker was stopped".to_string()))?
    }

    /// Compares `old` (another file or version, named `old_name`) with the worker's current
    /// file, both read whole and explored within `settings`.
    pub async fn compare(&self, old: &Source, old_name: &str, settings: Settings) -> Result<Diff, String> {
        let old_name = old_name.to_string();
        self.ask(|s| &mut s.compares, |request| ToWorker::Compare { request, old: old.clone(), old_name, settings })
            .await
    }

    /// What of the worker's current file runs on `gpu` (`gfx1201`, `gfx90a:xnack+`, `sm_89`).
    pub async fn fit(&self, gpu: &str) -> Result<Fit, String> {
        self.ask(|s| &mut s.fits, |request| ToWorker::Fit { request, gpu: gpu.to_string() }).await
    }

    /// The kernels of every image of the worker's current file, each decoded.
    pub async fn decode_kernels(&self) -> Result<DecodedKernels, String> {
        self.ask(|s| &mut s.decoded, |request| ToWorker::DecodeKernels { request }).await
    }

    /// Asks the worker to apply an edit to its current file.
    pub fn edit(&self, edit: &Edit, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Edit { edit: edit.clone(), settings })
    }

    /// Asks the worker to check the hash of the compressed bundle at `node`.
    pub fn verify(&self, node: NodePath, settings: Settings) -> Result<(), String> {
        self.send(&ToWorker::Verify { node, settings })
    }

    /// Asks the worker to decompress the compressed bundle at (or above) `node`, listed from
    /// its header only.
    pub fn decompress(&self, node: NodePath) -> Result<(), String> {
        self.send(&ToWorker::Decompress { node })
    }

    /// Makes `file` (another version) the worker's current file.
    /// `companions` go to a worker that does not hold them yet (`None`: keep the worker's).
    pub fn switch(
        &self,
        name: &str,
        file: &Source,
        companions: Option<&[CompanionFile]>,
        settings: Settings,
    ) -> Result<(), String> {
        let (name, file, companions) = (name.to_string(), file.clone(), companions.map(<[_]>::to_vec));
        self.send(&ToWorker::Switch { name, file, companions, settings })
    }

    /// The bytes `offset..offset+len` of a byte space (fewer where the space ends or was only
    /// partly decompressed).
    pub async fn read(&self, space: u32, offset: u64, len: u32) -> Result<Vec<u8>, String> {
        self.ask(|s| &mut s.replies, |request| ToWorker::Read { request, space, offset, len }).await
    }

    /// Every field of node `node` of the document, sent without them.
    pub async fn fields(&self, node: NodeId) -> Result<Vec<FieldInfo>, String> {
        self.ask(|s| &mut s.fields, |request| ToWorker::Fields { request, node }).await
    }

    /// Sends the message `message` makes for a new request number and waits for the answer,
    /// which [`route`] hands to the requests `waiting` keeps.
    async fn ask<T>(
        &self,
        waiting: fn(&mut Shared) -> &mut Waiting<T>,
        message: impl FnOnce(u32) -> ToWorker,
    ) -> Result<T, String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut s = self.shared.borrow_mut();
            let r = s.next_request();
            waiting(&mut s).insert(r, tx);
            r
        };
        self.send(&message(request))?;
        rx.await.map_err(|_| "the explorer worker was stopped".to_string())?
    }
}

/// The worker's messages: the queue is sent once it is ready, reports go to `on_report`,
/// answers to whoever asked.
fn message_handler(
    shared: Rc<RefCell<Shared>>,
    worker: Worker,
    on_report: Rc<dyn Fn(Report)>,
) -> Closure<dyn Fn(MessageEvent)> {
    Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| match decode::<FromWorker>(event.data()) {
        Ok(FromWorker::Ready) => {
            let queued = {
                let mut s = shared.borrow_mut();
                s.ready = true;
                std::mem::take(&mut s.queue)
            };
            for m in queued {
                let _ = worker.post_message(&m);
            }
        }
        Ok(FromWorker::Report(report)) => on_report(report),
        Ok(FromWorker::Answer { request, answer }) => route(&shared, request, answer),
        // Share workers speak to the explorer that started them, never to the page.
        Ok(FromWorker::Share(_)) => {}
        Err(e) => on_report(Report::Failed { message: format!("unreadable message from the worker: {e}") }),
    })
}

/// A worker that stops on an error (it crashed, or its script could not load).
fn error_handler(on_report: Rc<dyn Fn(Report)>) -> Closure<dyn Fn(ErrorEvent)> {
    Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
        event.prevent_default();
        let message = event.message();
        let message = if message.is_empty() {
            "the explorer worker stopped".into()
        } else {
            format!("the explorer worker stopped: {message}")
        };
        on_report(Report::Failed { message });
    })
}

/// Hands an answer to the request it answers.
fn route(shared: &RefCell<Shared>, request: u32, answer: Answer) {
    match answer {
        Answer::Bytes(data) => reply(shared, |s| &mut s.replies, request, Ok(data)),
        Answer::ReadFailed(message) => reply(shared, |s| &mut s.replies, request, Err(message)),
        Answer::Preparing { done, total } => {
            if let Some(job) = shared.borrow().jobs.get(&request) {
                (job.progress)(done, total);
            }
        }
        Answer::Prepared(data) => job_done(shared, request, Ok(data)),
        Answer::NotPrepared(refusal) => job_done(shared, request, Err(refusal)),
        Answer::Compared(d) => reply(shared, |s| &mut s.compares, request, Ok(*d)),
        Answer::NotCompared(message) => reply(shared, |s| &mut s.compares, request, Err(message)),
        Answer::Fitted(f) => reply(shared, |s| &mut s.fits, request, Ok(*f)),
        Answer::NotFitted(message) => reply(shared, |s| &mut s.fits, request, Err(message)),
        Answer::KernelsDecoded(d) => reply(shared, |s| &mut s.decoded, request, Ok(*d)),
        Answer::NotDecoded(message) => reply(shared, |s| &mut s.decoded, request, Err(message)),
        Answer::Fields(f) => reply(shared, |s| &mut s.fields, request, Ok(f)),
        Answer::FieldsFailed(message) => reply(shared, |s| &mut s.fields, request, Err(message)),
    }
}

/// Hands `result` to request `request` among those `waiting` keeps, if it still waits.
fn reply<T>(
    shared: &RefCell<Shared>,
    waiting: fn(&mut Shared) -> &mut Waiting<T>,
    request: u32,
    result: Result<T, String>,
) {
    let tx = waiting(&mut shared.borrow_mut()).remove(&request);
    if let Some(tx) = tx {
        let _ = tx.send(result);
    }
}

fn job_done(shared: &RefCell<Shared>, request: u32, result: Result<JsValue, Refusal>) {
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
        // A worker stopped in the middle of a large member leaves its scratch file full.
        crate::wire::scratch::sweep();
    }
}
