//! Editing a file from the page: the inspector's edit section (`edit_panel`) with the status
//! line of the last edit and a form per kind of node, the actions on an entry as a whole, and
//! the undo and redo buttons. Every form sends the core's own `Edit` as a
//! [`crate::page::state::FileRequest::Edit`]; the worker applies it and the result becomes a
//! new version of the file.
//!
//! Imports: `edit_panel` uses the forms; the forms share their props (`form`) and use nothing
//! else of the components.

pub mod add_entry;
pub mod edit_compression;
pub mod edit_entry_id;
pub mod edit_fatbin_entry;
pub mod edit_offload_binary;
pub mod edit_offload_entry;
pub mod edit_panel;
pub mod edit_status;
pub mod edit_strings;
pub mod entry_actions;
pub mod form;
pub mod history_buttons;
