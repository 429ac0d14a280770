//! The page: the app the user sees, on the main thread.
//!
//! [`state`] holds everything the page shows in one reducer (tabs, selections, every version
//! of each file, the requests components make); the session (`session`) holds what the
//! reducer cannot — the files' `Blob`s and the worker of each tab, through its client
//! (`client`) — and turns the worker's reports into actions. Share links ([`share`]), `#url=`
//! links ([`remote`]), downloads ([`downloads`]), the settings ([`settings`]) and the keyboard
//! shortcuts ([`shortcuts`]) and which dropped files open together ([`opening`]) each have a module; the components (`components`) draw the state
//! and report what the user does.
//!
//! What needs no browser (the reducer, names, checks, geometry: [`hexgrid`], [`layout`]) builds
//! for any target and is tested natively; the rest builds for wasm32 only.
//!
//! Imports go one way: the page uses `wire` and the core, never `worker`; inside the page,
//! components use the state and the modules above, and nothing here uses the components.

pub mod downloads;
pub mod edit_input;
pub mod format;
pub mod hexgrid;
pub mod layout;
pub mod opening;
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
pub mod offline;
#[cfg(target_arch = "wasm32")]
pub mod session;
