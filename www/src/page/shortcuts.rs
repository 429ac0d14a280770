//! Keyboard shortcuts: one table that both the key handler and the help dialog read, so the
//! dialog always lists what the keys really do. Single keys without modifiers, ignored while
//! typing in a text box; the tree and the hex view have their own keys when focused.

use crate::page::state::View;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    OpenFile,
    OpenAddress,
    OpenSample,
    NextTab,
    PrevTab,
    CloseTab,
    FocusTree,
    FocusHex,
    GoToOffset,
    Download,
    Toggle(View),
    /// Maximise the view holding the focus (or last clicked), or restore the layout.
    Maximise,
    CopyLink,
    Settings,
    Help,
    Undo,
    Redo,
}

/// (key as `KeyboardEvent.key` spells it, command, what it does).
pub const SHORTCUTS: &[(&str, Command, &str)] = &[
    ("o", Command::OpenFile, "Open a file"),
    ("u", Command::OpenAddress, "Open a file from an address (URL)"),
    ("s", Command::OpenSample, "Open a sample"),
    ("]", Command::NextTab, "Next tab"),
    ("[", Command::PrevTab, "Previous tab"),
    ("w", Command::CloseTab, "Close the tab"),
    ("t", Command::FocusTree, "Focus the tree"),
    ("h", Command::FocusHex, "Focus the hex view"),
    ("g", Command::GoToOffset, "Go to an offset"),
    ("d", Command::Download, "Download the selected node's bytes"),
    ("1", Command::Toggle(View::Summary), "Show or hide the summary"),
    ("2", Command::Toggle(View::Tree), "Show or hide the tree"),
    ("3", Command::Toggle(View::Map), "Show or hide the layout map"),
    ("4", Command::Toggle(View::Hex), "Show or hide the hex view"),
    ("5", Command::Toggle(View::Inspector), "Show or hide the inspector"),
    ("6", Command::Toggle(View::Kernels), "Show or hide the kernels table"),
    ("7", Command::Toggle(View::Code), "Show or hide the code of the selected image"),
    ("m", Command::Maximise, "Maximise the view you are in, or restore the layout"),
    ("l", Command::CopyLink, "Copy a link to the file and its selected node"),
    (",", Command::Settings, "Settings: limits for the files opened next"),
    ("?", Command::Help, "Show this list"),
];

/// Keys of the focused tree (WAI-ARIA tree view), for the help dialog.
pub const TREE_KEYS: &[(&str, &str)] = &[
    ("↑ ↓", "Previous / next row"),
    ("→", "Expand, or go to the first child"),
    ("←", "Collapse, or go to the parent"),
    ("Home End", "First / last row"),
    ("Enter Space", "Expand or collapse (a package's \"other members\" row too)"),
];

/// Keys of a focused splitter between two views (drag it with the pointer too), for the help
/// dialog.
pub const SPLITTER_KEYS: &[(&str, &str)] = &[
    ("↑ ↓ ← →", "Move it (between stacked views: up and down; between columns: left and right)"),
    ("Home End", "All the way to either side"),
];

pub fn command_for(key: &str) -> Option<Command> {
    SHORTCUTS.iter().find(|(k, _, _)| *k == key).map(|(_, c, _)| *c)
}

/// Keys with Ctrl (Cmd on macOS) that undo and redo edits of the file, for the help dialog.
/// Inside a text box they undo typing instead, as everywhere.
pub const EDIT_SHORTCUTS: &[(&str, Command, &str)] = &[
    ("Ctrl+Z", Command::Undo, "Undo the last edit of the file (Cmd+Z on macOS)"),
    ("Ctrl+Shift+Z", Command::Redo, "Redo the edit undone last (Cmd+Shift+Z on macOS)"),
    ("Ctrl+Y", Command::Redo, "Redo, as on Windows"),
];

/// The edit command for a key pressed with Ctrl (`ctrl`) or Cmd (`meta`). Ctrl+Y redoes too,
/// as on Windows; Cmd+Y is left to the browser (its history on macOS).
pub fn edit_command_for(key: &str, ctrl: bool, meta: bool, shift: bool, alt: bool) -> Option<Command> {
    if alt || !(ctrl || meta) {
        return None;
    }
    if key.eq_ignore_ascii_case("z") {
        return Some(if shift { Command::Redo } else { Command::Undo });
    }
    (key == "y" && ctrl && !meta && !shift).then_some(Command::Redo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_has_its_number_key_and_keys_are_unique() {
        for v in View::ALL {
            assert_eq!(command_for(&v.key().to_string()), Some(Command::Toggle(v)));
        }
        for (i, (k, _, _)) in SHORTCUTS.iter().enumerate() {
            assert!(SHORTCUTS[i + 1..].iter().all(|(o, _, _)| o != k), "key {k} used twice");
        }
        assert_eq!(command_for("?"), Some(Command::Help));
        assert_eq!(command_for(","), Some(Command::Settings));
        assert_eq!(command_for("l"), Some(Command::CopyLink));
        assert_eq!(command_for("d"), Some(Command::Download));
        assert_eq!(command_for("m"), Some(Command::Maximise));
        assert_eq!(command_for("q"), None);
    }

    #[test]
    fn ctrl_or_cmd_z_undoes_and_with_shift_redoes() {
        assert_eq!(edit_command_for("z", true, false, false, false), Some(Command::Undo));
        assert_eq!(edit_command_for("z", false, true, false, false), Some(Command::Undo), "Cmd+Z");
        // With Shift held, browsers report the capital letter.
        assert_eq!(edit_command_for("Z", true, false, true, false), Some(Command::Redo));
        assert_eq!(edit_command_for("z", false, false, false, false), None, "plain z is not undo");
        assert_eq!(edit_command_for("z", true, false, false, true), None);
        assert_eq!(edit_command_for("y", true, false, false, false), Some(Command::Redo), "Ctrl+Y");
        assert_eq!(edit_command_for("y", false, true, false, false), None, "Cmd+Y is the browser's");
        assert_eq!(edit_command_for("y", false, false, false, false), None);
        assert!(
            EDIT_SHORTCUTS.iter().any(|(_, c, _)| *c == Command::Undo)
                && EDIT_SHORTCUTS.iter().any(|(_, c, _)| *c == Command::Redo)
        );
    }
}
