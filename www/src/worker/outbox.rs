//! How the worker speaks to its page: every message goes through [`post`], which falls back to
//! a plain failure report when a message cannot be encoded, so the page is never left waiting
//! without a word.

use crate::wire::messages::{encode, transferables, Answer, FromWorker, Report};
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Posts `message` to the page.
pub(crate) fn post(message: &FromWorker) {
    match encode(message) {
        Ok(v) => {
            let _ = scope().post_message_with_transfer(&v, &transferables(&v));
        }
        Err(e) => {
            let fallback = Report::Failed { message: format!("could not send a result to the page: {e}") };
            if let Ok(v) = encode(&FromWorker::Report(fallback)) {
                let _ = scope().post_message(&v);
            }
        }
    }
}

/// Passes on to the page a message another worker (the editor) encoded for it.
pub(crate) fn relay(message: &wasm_bindgen::JsValue) {
    let _ = scope().post_message(message);
}

/// Tells the page's session what happened to the file.
pub(crate) fn report(report: Report) {
    post(&FromWorker::Report(report));
}

/// Answers the page's request number `request`.
pub(crate) fn answer(request: u32, answer: Answer) {
    post(&FromWorker::Answer { request, answer });
}

/// Makes `handler` the worker's message handler for as long as the worker lives (its page
/// keeps it; so does the handler).
pub(crate) fn listen(handler: impl Fn(web_sys::MessageEvent) + 'static) {
    let on_message = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(handler);
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
}
