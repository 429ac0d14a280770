//! The page's main thread: renders the app.
#[cfg(target_arch = "wasm32")]
fn main() {
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
