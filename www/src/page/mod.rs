//! The page: the app the user sees, on the main thread. [`state`] holds everything it shows in
//! one reducer; the session keeps what the reducer cannot (the files' `Blob`s and each tab's
//! worker, through its client) and turns the worker's reports into actions; the components draw
//! the state and report what the user does. The page uses `wire` and the core, never `worker`;
//! nothing here uses the components.
//!
//! See `docs/ARCHITECTURE.md` for the map.

pub mod code;
pub mod downloads;
pub mod edit_input;
pub mod format;
pub mod hexgrid;
pub mod layout;
pub mod opening;
pub mod panes;
pub mod pypi;
pub mod remote;
pub mod samples;
pub mod settings;
pub mod share;
pub mod shortcuts;
pub mod state;
pub mod tree_rows;

#[cfg(target_arch = "wasm32")]
pub mod bytes;
#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod disasm_client;
#[cfg(target_arch = "wasm32")]
pub mod offline;
#[cfg(target_arch = "wasm32")]
pub mod session;
