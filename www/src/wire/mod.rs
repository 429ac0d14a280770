//! What passes between the page and its explorer worker, and the types both sides share.
//!
//! The core's own types cross as they are (its `serde` feature): the tree's spans, kinds,
//! values and diagnostics in the flat document ([`doc`]), the targets, and the edits
//! ([`edit`]). Added here is only what the boundary needs: the flat, index-based document the
//! views draw, the settings files are explored with, the downloads' requests and refusals, and
//! the messages themselves ([`messages`], with the browser-only parts).
//!
//! Imports go one way: `page` and `worker` use `wire`; `wire` uses the core and nothing else of
//! this crate.

pub mod code;
pub mod doc;
pub mod download;
pub mod edit;
pub mod loading;
pub mod remote;
pub mod settings;

#[cfg(target_arch = "wasm32")]
pub mod js;
#[cfg(target_arch = "wasm32")]
pub mod messages;
#[cfg(target_arch = "wasm32")]
pub mod scratch;
