//! Offload Explorer, the web page: a Yew app (`bin/app.rs`) and an explorer Web Worker
//! (`bin/worker.rs`) built by Trunk from the repository's `index.html`.
//!
//! The page's logic that needs no browser — the model the views draw, the reducer, the hex
//! view's scrolling arithmetic, the layout map's geometry, offset parsing, shortcuts, the
//! settings' checks and storage format, share links' encoding, download names, the edit requests — builds for any target, so `cargo test --workspace`
//! checks it natively. Everything that touches the
//! DOM or workers builds only for `wasm32`.

pub mod download;
pub mod edit_request;
pub mod format;
pub mod hexgrid;
pub mod layout;
pub mod model;
pub mod remote;
pub mod samples;
pub mod settings;
pub mod share;
pub mod shortcuts;
pub mod state;

#[cfg(target_arch = "wasm32")]
pub mod bytes;
#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod edit_worker;
#[cfg(target_arch = "wasm32")]
pub mod offline;
#[cfg(target_arch = "wasm32")]
pub mod protocol;
#[cfg(target_arch = "wasm32")]
pub mod session;
#[cfg(target_arch = "wasm32")]
pub mod worker;
