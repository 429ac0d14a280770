//! Offline use: the service worker (`www/sw.js`, its file list written in by
//! `scripts/sw-manifest.mjs` after every build) keeps the app shell, so that after one visit
//! the page opens and explores files with no network.

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// The service worker's script, next to `index.html`. Resolved against the page's base URL,
/// so its scope is the sub-path the site is served from, whatever that is.
pub const SERVICE_WORKER_SCRIPT: &str = "sw.js";

/// Registers the service worker where the browser has them (secure contexts: https and this
/// machine). Failing to register only means no offline use, so it is not reported.
pub fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    let navigator = window.navigator();
    // `navigator.serviceWorker` is absent over plain http to another machine.
    if !js_sys::Reflect::has(&navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false) {
        return;
    }
    let base = gloo_utils::document().base_uri().ok().flatten().unwrap_or_default();
    let Ok(script) = web_sys::Url::new_with_base(SERVICE_WORKER_SCRIPT, &base) else { return };
    let registration = navigator.service_worker().register(&script.href());
    wasm_bindgen_futures::spawn_local(async move {
        let _ = JsFuture::from(registration).await;
    });
}
