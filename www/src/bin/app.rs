//! The page's main thread: renders the app.
#[cfg(target_arch = "wasm32")]
fn main() {
    offload_www::page::offline::register_service_worker();
    yew::Renderer::<offload_www::page::components::app::App>::new().render();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Offload Explorer page runs in a browser: build it with `trunk build` (see README.md)");
}
