//! The disassembler worker: a binary of its own (`bin/disasm.rs`), which the page starts the
//! first time its Code view opens, so that neither the page nor its explorer workers carry the
//! disassembler. It answers each [`ToDisasm`] with the listing the Code view draws.

use crate::wire::code::{FromDisasm, ToDisasm};
use crate::wire::messages::{decode, encode};
use crate::worker::code::{code_listing, ptx_text};
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

/// Entry point of the disassembler binary: listens to the page, then says it is ready.
pub fn run() {
    let on_message =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
            if let Some(answer) = answer(e.data()) {
                post(&answer);
            }
        });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&FromDisasm::Ready);
}

fn answer(message: wasm_bindgen::JsValue) -> Option<FromDisasm> {
    match decode::<ToDisasm>(message).ok()? {
        ToDisasm::CodeObject { request, bytes, file_offset } => Some(match code_listing(&bytes, file_offset) {
            Ok(listing) => FromDisasm::Listing { request, listing },
            Err(message) => FromDisasm::Failed { request, message },
        }),
        ToDisasm::Ptx { request, bytes } => Some(FromDisasm::Ptx { request, ptx: ptx_text(&bytes) }),
    }
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: &FromDisasm) {
    if let Ok(v) = encode(message) {
        let _ = scope().post_message(&v);
    }
}
