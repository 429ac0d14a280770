//! Values at the JavaScript boundary that both sides meet: an exception thrown by a browser
//! API, said as text.

use wasm_bindgen::{JsCast, JsValue};

/// The message of a JavaScript error (or the value itself when it is a string).
pub fn describe_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}
