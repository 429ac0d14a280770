//! Two files compared in the worker ([`offload::diff`]): the current file of this tab, and
//! another one the page hands over as its `Blob` (another tab's file, or another version of
//! this one). Both are read whole and explored with every compressed container decompressed,
//! so that images compare byte for byte and their kernels are decoded.

use crate::wire::settings::Settings;
use crate::worker::edit::read_whole_quietly;
use crate::worker::kept::Explored;
use offload::diff::{diff, Diff};
use offload::explore::{explore, Options};
use std::cell::RefCell;
use web_sys::Blob;

/// `old` (named `old_name`) compared with the tab's current file.
pub(crate) fn compare(
    kept: &RefCell<Option<Explored>>,
    old: &Blob,
    old_name: &str,
    settings: &Settings,
) -> Result<Diff, String> {
    let (file, name) = {
        let kept = kept.borrow();
        let k = kept.as_ref().ok_or("the file has not been explored yet")?;
        (k.file.clone(), k.name.clone())
    };
    let quiet = |_: u64, _: u64| {};
    let new = read_whole_quietly(&file, &quiet).map_err(|e| format!("{name}: {e}"))?;
    let old_bytes = read_whole_quietly(old, &quiet).map_err(|e| format!("{old_name}: {e}"))?;
    let options = Options { verify_all: true, ..settings.options() };
    let new_tree = explore(&new[..], &name, &options);
    let old_tree = explore(&old_bytes[..], old_name, &options);
    Ok(diff(&old_bytes, &old_tree, &new, &new_tree))
}
