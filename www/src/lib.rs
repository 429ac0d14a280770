//! Offload Explorer, the web page: a Yew app, its explorer Web Workers and the editor worker an
//! explorer starts on the first edit, built by Trunk from the repository's `index.html`. The page
//! and its explorers are one binary (`bin/app.rs`: it renders on the main thread and explores in
//! a worker); the editor is the other (`bin/editor.rs`).
//!
//! The crate is laid out by side of the worker boundary:
//!
//! | module | what lives there |
//! |---|---|
//! | [`wire`] | the messages between page and worker, and the types both sides share: the core's own (via its `serde` feature), the flat document the views draw, the settings |
//! | [`worker`] | the explorer worker: dispatch, exploring, edits (handed to the editor worker), download preparation, the bytes it keeps |
//! | [`page`] | the page: state (one reducer), session, worker client, share and `#url=` links, downloads, settings, shortcuts, components |
//!
//! Imports go one way: `page` and `worker` use `wire` (and the core), never each other; `wire`
//! uses only the core.
//!
//! What needs no browser — the flat document, the reducer, the hex view's and the layout map's
//! geometry, names and checks of downloads, the tar writer, share links' encoding, the
//! settings' checks — builds for any target, so `cargo test --workspace` checks it natively.
//! Everything that touches the DOM or workers builds only for `wasm32`.

pub mod page;
pub mod wire;
pub mod worker;
