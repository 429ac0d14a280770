//! The page's side of the disassembler worker: one for the whole page, started the first time
//! the Code view asks for a listing (so that exploring never fetches the disassembler), kept for
//! the listings asked later. Requests are numbered; each waits for its answer.
//!
//! The worker is started from `www/disasm_worker.js`, relative to the page's base URL, so that
//! the site works from any sub-path.

use crate::wire::code::{CodeFlow, CodeListing, FromDisasm, PtxText, ToDisasm};
use crate::wire::js::describe_error;
use crate::wire::messages::{decode, encode};
use futures::channel::oneshot;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};

const DISASM_SCRIPT: &str = "disasm_worker.js";

/// What the worker answered to one request.
pub enum Answer {
    Listing(CodeListing),
    Ptx(PtxText),
    Flow(CodeFlow),
}

type Reply = oneshot::Sender<Result<Answer, String>>;

#[derive(Default)]
struct Shared {
    ready: bool,
    /// Messages posted before the worker's code was loaded (it would drop them).
    queue: Vec<JsValue>,
    waiting: HashMap<u32, Reply>,
    next_request: u32,
}

struct DisasmWorker {
    worker: Worker,
    shared: Rc<RefCell<Shared>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

thread_local! {
    static WORKER: RefCell<Option<Rc<DisasmWorker>>> = const { RefCell::new(None) };
}

/// The listing of the AMDGPU code object `bytes`, at `file_offset` of its byte space.
pub async fn code_listing(bytes: Vec<u8>, file_offset: u64) -> Result<CodeListing, String> {
    match ask(|request| ToDisasm::CodeObject { request, bytes, file_offset }).await? {
        Answer::Listing(listing) => Ok(listing),
        _ => Err("the disassembler answered with something else than a listing".into()),
    }
}

/// The control flow and pressure of function `function` of the listing `listing` (its id).
pub async fn code_flow(listing: u32, function: u32) -> Result<CodeFlow, String> {
    match ask(|request| ToDisasm::Flow { request, listing, function }).await? {
        Answer::Flow(flow) => Ok(flow),
        _ => Err("the disassembler answered with something else than a function's flow".into()),
    }
}

/// The PTX text `bytes`, split by function.
pub async fn ptx_text(bytes: Vec<u8>) -> Result<PtxText, String> {
    match ask(|request| ToDisasm::Ptx { request, bytes }).await? {
        Answer::Ptx(ptx) => Ok(ptx),
        _ => Err("the disassembler answered with something else than PTX".into()),
    }
}

async fn ask(message: impl FnOnce(u32) -> ToDisasm) -> Result<Answer, String> {
    let worker = the_worker()?;
    let (tx, rx) = oneshot::channel();
    let request = {
        let mut s = worker.shared.borrow_mut();
        let request = s.next_request.wrapping_add(1);
        s.next_request = request;
        s.waiting.insert(request, tx);
        request
    };
    worker.send(encode(&message(request))?)?;
    rx.await.map_err(|_| "the disassembler worker stopped".to_string())?
}

/// The page's disassembler worker, started now if it is not yet.
fn the_worker() -> Result<Rc<DisasmWorker>, String> {
    WORKER.with(|cell| {
        if let Some(w) = cell.borrow().as_ref() {
            return Ok(w.clone());
        }
        let w = Rc::new(DisasmWorker::start()?);
        *cell.borrow_mut() = Some(w.clone());
        Ok(w)
    })
}

impl DisasmWorker {
    fn start() -> Result<DisasmWorker, String> {
        let worker = Worker::new(DISASM_SCRIPT)
            .map_err(|e| format!("the disassembler could not be started: {}", describe_error(e)))?;
        let shared = Rc::new(RefCell::new(Shared::default()));
        let on_message = {
            let (shared, worker) = (shared.clone(), worker.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| heard(&shared, &worker, e.data()))
        };
        let on_error = {
            let shared = shared.clone();
            Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| stopped(&shared, e.message()))
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(DisasmWorker { worker, shared, _on_message: on_message, _on_error: on_error })
    }

    fn send(&self, value: JsValue) -> Result<(), String> {
        let mut s = self.shared.borrow_mut();
        if s.ready {
            self.worker.post_message(&value).map_err(describe_error)
        } else {
            s.queue.push(value);
            Ok(())
        }
    }
}

fn heard(shared: &Rc<RefCell<Shared>>, worker: &Worker, data: JsValue) {
    let (request, answer) = match decode::<FromDisasm>(data) {
        Ok(FromDisasm::Ready) => {
            let mut s = shared.borrow_mut();
            s.ready = true;
            for value in std::mem::take(&mut s.queue) {
                let _ = worker.post_message(&value);
            }
            return;
        }
        Ok(FromDisasm::Listing { request, listing }) => (request, Ok(Answer::Listing(listing))),
        Ok(FromDisasm::Ptx { request, ptx }) => (request, Ok(Answer::Ptx(ptx))),
        Ok(FromDisasm::Flow { request, flow }) => (request, Ok(Answer::Flow(flow))),
        Ok(FromDisasm::Failed { request, message }) => (request, Err(message)),
        Err(_) => return,
    };
    if let Some(reply) = shared.borrow_mut().waiting.remove(&request) {
        let _ = reply.send(answer);
    }
}

/// The worker stopped on an error: every request waiting is told, and the next one starts a
/// new worker.
fn stopped(shared: &Rc<RefCell<Shared>>, message: String) {
    for (_, reply) in shared.borrow_mut().waiting.drain() {
        let _ = reply.send(Err(format!("the disassembler stopped: {message}")));
    }
    WORKER.with(|cell| cell.borrow_mut().take());
}
