//! Offload Explorer, the web page: a Yew app, its explorer Web Workers and the editor worker an
//! explorer starts on the first edit, built by Trunk from the repository's `index.html`. The page
//! and its explorers are one binary (`bin/app.rs`: it renders on the main thread and explores in
//! a worker); the editor is the other (`bin/editor.rs`). The crate is laid out by side of the
//! worker boundary: [`page`] and [`worker`] never import each other and share only [`wire`] (the
//! messages, and the types both sides read) and the core. What needs no browser builds for any
//! target, so `cargo test --workspace` checks it natively; what touches the DOM or workers builds
//! only for `wasm32`.
//!
//! See `docs/ARCHITECTURE.md` for the map.

pub mod page;
pub mod wire;
pub mod worker;
