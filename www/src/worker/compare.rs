//! Two files compared in the worker ([`offload::report::diff`]): the current file of this tab, and
//! another one the page hands over as its `Blob` (another tab's file, or another version of
//! this one). Both are read whole and explored with every compressed container decompressed,
//! so that images compare byte for byte and their kernels are decoded. The editor worker does
//! it (the explorer hands it the files): the diff's code is not loaded to explore.

use crate::wire::messages::Source;
use crate::wire::settings::Settings;
use crate::worker::edit::read_whole_quietly;
use offload::explore::{explore, Options};
use offload::report::diff::{diff, Diff};

/// `old` (named `old_name`) compared with `file` (named `name`, the tab's current file).
pub(crate) fn compare(
    file: &Source,
    name: &str,
    old: &Source,
    old_name: &str,
    settings: &Settings,
) -> Result<Diff, String> {
    let quiet = |_: u64, _: u64| {};
    let new = read_whole_quietly(file, &quiet).map_err(|e| format!("{name}: {e}"))?;
    let old_bytes = read_whole_quietly(old, &quiet).map_err(|e| format!("{old_name}: {e}"))?;
    let options = Options { verify_all: true, ..settings.options() };
    let new_tree = explore(&new[..], name, &options);
    let old_tree = explore(&old_bytes[..], old_name, &options);
    Ok(diff(&old_bytes, &old_tree, &new, &new_tree))
}
