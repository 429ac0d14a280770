//! The explorer Web Worker: parses and decompresses off the page's main thread.
#[cfg(target_arch = "wasm32")]
fn main() {
    offload_www::worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the explorer worker runs in a browser: build it with `trunk build` (see README.md)");
}
