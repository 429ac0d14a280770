//! Saving a `Blob` as a file: a download through an `<a download>` to an object URL, which
//! needs no request to any server and no permission.

use std::time::Duration;
use wasm_bindgen::JsCast;
use web_sys::{Blob, HtmlAnchorElement, Url};

/// How long the object URL lives after the click: the browser starts the download from it
/// after the click's task, so it must not be revoked at once.
const URL_LIFETIME: Duration = Duration::from_secs(60);

/// Starts the download of `blob` as `name`.
pub fn save_blob(blob: &Blob, name: &str) -> Result<(), String> {
    let describe = |e: wasm_bindgen::JsValue| format!("the download could not be started: {e:?}");
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let url = Url::create_object_url_with_blob(blob).map_err(describe)?;
    let anchor: HtmlAnchorElement = document.create_element("a").map_err(describe)?.dyn_into().map_err(|_| "not an anchor".to_string())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.set_class_name("hidden-input");
    let body = document.body().ok_or("no body")?;
    body.append_child(&anchor).map_err(describe)?;
    anchor.click();
    anchor.remove();
    wasm_bindgen_futures::spawn_local(async move {
        yew::platform::time::sleep(URL_LIFETIME).await;
        let _ = Url::revoke_object_url(&url);
    });
    Ok(())
}
