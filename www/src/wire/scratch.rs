//! The scratch files the workers inflate large package members into (`worker::scratch`), named
//! here so that the page can sweep what a stopped worker left.
//!
//! A worker stopped while it explores (Cancel, a closed tab) cannot empty its file: the browser
//! closes its handle, and the file keeps up to a library's inflated bytes. The page sweeps the
//! scratch files when it starts and when it stops a worker: a file that a worker holds (a
//! synchronous access handle locks it) refuses to be removed and is let be.

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::FileSystemDirectoryHandle;

/// How many scratch file names workers share: more than the workers one tab starts, so that a
/// second tab finds free ones too.
pub const NAMES: usize = 12;

/// The name of scratch file `n`.
pub fn name(n: usize) -> String {
    format!("offload-scratch-{n}")
}

/// The origin's private directory, where the browser gives the page one (not on an insecure
/// origin, nor in some private windows or older engines).
pub async fn private_directory() -> Option<FileSystemDirectoryHandle> {
    use wasm_bindgen::JsCast;
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let storage = js_sys::Reflect::get(&navigator, &"storage".into()).ok()?;
    // Looked up rather than called blindly: calling what is not there would throw.
    if storage.is_undefined() || !has_function(&storage, "getDirectory") {
        return None;
    }
    let storage: web_sys::StorageManager = storage.unchecked_into();
    let directory = JsFuture::from(storage.get_directory()).await.ok()?;
    directory.dyn_into::<FileSystemDirectoryHandle>().ok()
}

/// Whether `object` has a method `name`.
pub fn has_function(object: &JsValue, name: &str) -> bool {
    js_sys::Reflect::get(object, &name.into()).is_ok_and(|f| f.is_function())
}

/// Removes, in the background, the scratch files no worker holds.
pub fn sweep() {
    wasm_bindgen_futures::spawn_local(async {
        let Some(directory) = private_directory().await else { return };
        for n in 0..NAMES {
            // Refused for a file in use (or already gone): nothing to do.
            let _ = JsFuture::from(directory.remove_entry(&name(n))).await;
        }
    });
}
