//! The page and its explorer workers, in one binary: fetched and compiled once, run in each.
//! On the page's main thread it renders the app; in a worker (started from `www/explorer.js`,
//! which the page hands its compiled module: `page::client`) it explores. The two have much in
//! common (the Rust runtime, formatting, collections, the core's types and the wire's), which
//! two binaries would each carry.
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
    // What workers of an earlier visit left in their scratch files, if they were stopped.
    offload_www::wire::scratch::sweep();
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
