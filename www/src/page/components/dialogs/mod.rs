//! The page's dialogs: the keyboard shortcuts, the settings, and the `#url=` prompt (asking,
//! fetching, or why a link could not be opened).
//!
//! Imports: only the page's state, settings, shortcuts and remote modules; no other component.

pub mod help_dialog;
pub mod remote_prompt;
pub mod settings_dialog;
