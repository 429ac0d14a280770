//! Downloads on the page's side: what each node offers and under which name ([`plan`],
//! browser-free and tested natively), and how a download is asked of the worker and saved
//! (`save`, in the browser). The worker reads the bytes, builds tars and device archives, and
//! explores every result again before it may be saved (`crate::worker::prepare`).
//!
//! Imports go one way: `save` uses `plan`, the state and the page's client; `plan` uses the
//! flat document (`crate::wire::doc`) only.

pub mod plan;

#[cfg(target_arch = "wasm32")]
pub mod save;
