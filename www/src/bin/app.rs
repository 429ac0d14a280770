//! The page and its explorer worker, in one binary: loaded once, run twice. On the page's main
//! thread it renders the app; in the worker the page starts from the same script
//! (`page::opening::WorkerScript::Explorer`), it explores. The two have much in common (the
//! Rust runtime, formatting, the core's types and the wire's), which two binaries would each
//! carry, and the browser fetches the shared script and wasm once.
#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::JsCast;
    if js_sys::global().is_instance_of::<web_sys::DedicatedWorkerGlobalScope>() {
        offload_www::worker::run();
    } else {
        start_page();
    }
}

#[cfg(target_arch = "wasm32")]
fn start_page() {
    offload_www::page::offline::register_service_worker();
    // The static shell index.html shows while this code loads gives way to the app.
    if let Some(shell) = gloo_utils::document().get_element_by_id("shell") {
        shell.remove();
    }
    yew::Renderer::<offload_www::page::components::app::App>::new().render();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Offload Explorer page runs in a browser: build it with `trunk build` (see README.md)");
}
