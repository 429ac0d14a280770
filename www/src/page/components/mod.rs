//! The page's components, one per file. Each view takes the explored document and the tab's
//! state as props and reports what the user does as [`crate::state::Action`]s.

pub mod add_entry;
pub mod app;
pub mod container_chain;
pub mod diagnostics_list;
pub mod download_actions;
pub mod download_archives;
pub mod download_button;
pub mod download_status;
pub mod drop_overlay;
pub mod edit_compression;
pub mod edit_entry_id;
pub mod edit_offload_entry;
pub mod edit_panel;
pub mod edit_status;
pub mod edit_strings;
pub mod entry_actions;
pub mod explored_with;
pub mod goto_offset;
pub mod help_dialog;
pub mod hex_view;
pub mod history_buttons;
pub mod inspector;
pub mod layout_map;
pub mod loading;
pub mod progress;
pub mod remote_prompt;
pub mod sample_menu;
pub mod settings_dialog;
pub mod share_button;
pub mod space_picker;
pub mod summary;
pub mod tab_bar;
pub mod tab_view;
pub mod target_table;
pub mod toolbar;
pub mod tree_view;
pub mod welcome;

pub use app::App;

/// Moves keyboard focus to the element with this id, if it is on the page.
pub fn focus_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}
