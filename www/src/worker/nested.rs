//! A worker the explorer worker starts itself: the editor ([`super::editing`]). Nested dedicated
//! workers are their parent's own: when the page terminates the explorer (Cancel, closing the
//! tab), they stop with it.
//!
//! A worker drops what it is sent before its code has loaded, so messages wait here until it
//! says it is ready; the explorer's own loader holds them itself ([`Nested::post_held`]).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions};

pub(crate) struct Nested {
    worker: Worker,
    ready: bool,
    queued: Vec<JsValue>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl Nested {
    /// Starts the worker at `script` (a loader Trunk writes next to the explorer's own script,
    /// so relative to it); `heard` gets each message it posts, `stopped` why it stopped.
    pub(crate) fn start(
        script: &str,
        heard: impl Fn(JsValue) + 'static,
        stopped: impl Fn(String) + 'static,
    ) -> Result<Nested, String> {
        Nested::of(Worker::new(script).map_err(|e| format!("{e:?}"))?, heard, stopped)
    }

    /// Starts the worker at `script` like [`Nested::start`], with `options` (a module worker).
    pub(crate) fn start_with(
        script: &str,
        options: &WorkerOptions,
        heard: impl Fn(JsValue) + 'static,
        stopped: impl Fn(String) + 'static,
    ) -> Result<Nested, String> {
        Nested::of(Worker::new_with_options(script, options).map_err(|e| format!("{e:?}"))?, heard, stopped)
    }

    fn of(
        worker: Worker,
        heard: impl Fn(JsValue) + 'static,
        stopped: impl Fn(String) + 'static,
    ) -> Result<Nested, String> {
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| heard(event.data()));
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| stopped(event.message()));
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Nested { worker, ready: false, queued: Vec::new(), _on_message: on_message, _on_error: on_error })
    }

    /// Posts `message` now, or once the worker is ready.
    pub(crate) fn post(&mut self, message: JsValue) -> Result<(), String> {
        if self.ready {
            self.worker.post_message(&message).map_err(|e| format!("{e:?}"))
        } else {
            self.queued.push(message);
            Ok(())
        }
    }

    /// Posts `message` now, before the worker is ready: what its loader waits for (its code).
    pub(crate) fn post_first(&mut self, message: &JsValue) -> Result<(), String> {
        self.worker.post_message(message).map_err(|e| format!("{e:?}"))
    }

    /// Posts `message` now, to a worker whose loader holds what comes before its code listens
    /// (`www/explorer.js`): its parent need not be free to hear that it is ready.
    pub(crate) fn post_held(&self, message: &JsValue) -> Result<(), String> {
        self.worker.post_message(message).map_err(|e| format!("{e:?}"))
    }

    /// Stops the worker at once.
    pub(crate) fn terminate(&self) {
        self.worker.terminate();
    }

    /// The worker's code is loaded: what waited for it is posted, in order.
    pub(crate) fn now_ready(&mut self) {
        self.ready = true;
        for message in std::mem::take(&mut self.queued) {
            let _ = self.worker.post_message(&message);
        }
    }
}
