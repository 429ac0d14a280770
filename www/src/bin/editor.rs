//! The editor Web Worker: makes the edits its explorer worker hands it (loaded on the first edit).
#[cfg(target_arch = "wasm32")]
fn main() {
    offload_www::worker::editor::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the editor worker runs in a browser: build it with `trunk build` (see README.md)");
}
