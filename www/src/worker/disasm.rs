//! The disassembler worker: a binary of its own (`bin/disasm.rs`), which the page starts the
//! first time its Code view opens, so that neither the page nor its explorer workers carry the
//! disassembler. It answers each [`ToDisasm`] with the listing the Code view draws, and keeps
//! the last listing it made to analyse its functions when the view asks (one at a time: the
//! page shows one listing at a time, and asks for it again when it shows another).

use crate::wire::code::{FromDisasm, ToDisasm};
use crate::wire::messages::{decode, encode};
use crate::worker::code::{code_flow, code_listing, ptx_text, Analysable};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

thread_local! {
    /// The last listing made, by its id (the request that asked for it).
    static HELD: RefCell<Option<(u32, Analysable)>> = const { RefCell::new(None) };
}

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
            Ok((mut listing, held)) => {
                listing.id = request;
                HELD.with_borrow_mut(|h| *h = Some((request, held)));
                FromDisasm::Listing { request, listing }
            }
            Err(message) => FromDisasm::Failed { request, message },
        }),
        ToDisasm::Flow { request, listing, function } => Some(HELD.with_borrow(|held| {
            let flow = match held {
                Some((id, held)) if *id == listing => code_flow(held, function as usize),
                _ => {
                    return FromDisasm::Failed {
                        request,
                        message: "the listing is no longer held: show it again".into(),
                    }
                }
            };
            match flow {
                Some(flow) => FromDisasm::Flow { request, flow },
                None => FromDisasm::Failed { request, message: format!("the listing has no function {function}") },
            }
        })),
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
