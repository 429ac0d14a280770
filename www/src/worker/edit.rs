//! The worker's side of editing: the current file is read whole, the core writes it again
//! with the edit, and the result is explored again and refused if that finds an error the file
//! did not have ("whatever is offered for download is parsed again first"). The new bytes
//! become a `Blob` here, so the page never copies them. Hash checks of compressed bundles are
//! answered here too: they run on the same current file.

use crate::wire::doc::Doc;
use crate::wire::edit::{describe, Verified};
use crate::wire::js::describe_error;
use crate::wire::messages::{EditedFile, Payload, Report, Source};
use crate::wire::settings::Settings;
use crate::worker::kept::{take_companions, Explored, SourceReader};
use crate::worker::outbox::report;
use crate::worker::read_back::{error_messages, payload_file_name};
use offload::edit::{self, Edit, EditError, Edited, NodePath};
use offload::explore::{explore, explore_with_companions, Companion};
use offload::format::bundle::compressed::CompressedBundle;
use offload::tree::{NodeKind, Severity, Tree};
use std::cell::RefCell;
use web_sys::Blob;

/// Edits are made on the whole file in memory: a worker's memory holds at most 4 GiB, and the
/// file, its edited copy and the decompressed bundles must fit in it together.
pub const MAX_EDIT_SIZE: u64 = 1 << 30;
/// The file is read in pieces this big, with progress between them.
const READ_PIECE: u64 = 16 << 20;

fn progress(stage: impl Into<String>) {
    report(Report::EditProgress { stage: stage.into() });
}

fn failed(message: impl Into<String>) -> Report {
    Report::EditFailed { message: message.into(), payload: None }
}

/// The current file as an edit needs it: its bytes, its name, and the tree its paths refer to.
struct Current {
    bytes: Vec<u8>,
    name: String,
    tree: Tree,
}

/// Applies `edit` to the current file and answers with the new version or why not.
pub(crate) fn edit(kept: &RefCell<Option<Explored>>, edit: &Edit, settings: &Settings) -> Report {
    let started = js_sys::Date::now();
    let current = match current(kept, settings) {
        Ok(c) => c,
        Err(message) => return failed(message),
    };
    progress(describe(edit));
    let edited = match edit::apply(&current.bytes, &current.tree, edit) {
        Ok(e) => e,
        Err(EditError::DoesNotFit { message, payload, payload_kind }) => {
            return does_not_fit(&current.name, message, &payload, payload_kind)
        }
        Err(EditError::Invalid(message)) => return failed(message),
    };
    progress("reading the result back");
    // The files the tab was opened with (`.kpack` archives) are joined with every version.
    let new_tree = {
        let kept = kept.borrow();
        let companions = kept.as_ref().map_or(&[][..], |k| &k.companions[..]);
        explore_with_companions(&edited.bytes[..], &current.name, &settings.options(), &Companion::all(companions))
    };
    let errors = edit::new_errors(&current.tree, &new_tree);
    if !errors.is_empty() {
        let errors = errors.join("; ");
        return failed(format!("the edited file does not read back without errors, so it is not kept: {errors}"));
    }
    let blob = match blob_of(&edited.bytes) {
        Ok(b) => b,
        Err(message) => return failed(message),
    };
    progress("preparing the views");
    let file = new_version(edit, &current.tree, &new_tree, edited, blob.clone(), started);
    let name = current.name;
    let companions = take_companions(kept);
    let mut explored = Explored::new(new_tree, Source::Blob(blob), name, *settings, settings.options());
    explored.companions = companions;
    *kept.borrow_mut() = Some(explored);
    Report::Edited(Box::new(file))
}

/// The current file read whole, and the tree the page shows for it, which is the one the
/// edit's path refers to as long as the settings are the same (otherwise it is explored again).
fn current(kept: &RefCell<Option<Explored>>, settings: &Settings) -> Result<Current, String> {
    let (file, name, tree) = {
        let kept = kept.borrow();
        let k = kept.as_ref().ok_or("the file has not been explored yet")?;
        (k.file.clone(), k.name.clone(), (k.settings == *settings).then(|| k.tree.clone()))
    };
    let bytes = read_whole(&file)?;
    let tree = tree.unwrap_or_else(|| {
        progress("exploring");
        let kept = kept.borrow();
        let companions = kept.as_ref().map_or(&[][..], |k| &k.companions[..]);
        explore_with_companions(&bytes[..], &name, &settings.options(), &Companion::all(companions))
    });
    Ok(Current { bytes, name, tree })
}

/// The new version for the page: its file, document, marked and selected nodes, and notes.
/// New warnings (an entry without a triple, bytes LLVM would not read) go with it, so the user
/// sees them before downloading.
fn new_version(edit: &Edit, tree: &Tree, new_tree: &Tree, edited: Edited, file: Blob, started: f64) -> EditedFile {
    let mut notes = edited.notes;
    let warnings = edit::new_diagnostics(tree, new_tree, Severity::Warning);
    notes.extend(warnings.into_iter().map(|w| format!("new warning: {w}")));
    let select = edit::selection_after(edit, tree, new_tree, &edited.mark);
    let mut doc = Doc::of_bytes(new_tree, &edited.bytes);
    doc.explore_us = ((js_sys::Date::now() - started) * 1000.0) as u64;
    EditedFile { file, doc, mark: edited.mark, select, notes }
}

/// The edit could not be written back into a linked file; the new container alone is
/// offered instead.
fn does_not_fit(name: &str, message: String, payload: &[u8], kind: NodeKind) -> Report {
    // Like every download, the payload is read back first, and not offered if that fails.
    let file_name = payload_file_name(name, kind);
    let errors = error_messages(&explore(payload, &file_name, &Settings::default().options()));
    if !errors.is_empty() {
        return failed(format!(
            "{message} (the new container alone does not read back without errors either, so it is not offered: {})",
            errors.join("; ")
        ));
    }
    let payload = blob_of(payload).ok().map(|blob| Payload { blob, name: file_name });
    Report::EditFailed { message, payload }
}

/// Checks the hash of the compressed bundle at `node`.
pub(crate) fn verify(kept: &RefCell<Option<Explored>>, node: NodePath, settings: &Settings) -> Report {
    let kept = kept.borrow();
    let Some(k) = kept.as_ref() else { return failed("the file has not been explored yet") };
    let Some(target) = k.tree.node_at(&node) else {
        return failed(format!("there is no node at {node:?} in the current file"));
    };
    if target.kind != NodeKind::CompressedBundle {
        return failed(format!("expected a compressed bundle, found '{}' ({})", target.label, target.kind.as_str()));
    }
    progress("decompressing and hashing");
    let bytes = match k.node_bytes(target) {
        Ok(b) => b,
        Err(message) => return failed(message),
    };
    let checked = CompressedBundle::parse(&bytes).and_then(|cb| cb.verify(settings.options().max_decompressed));
    match checked {
        Ok(v) => Report::Verified(Verified { node, stored: v.stored, computed: v.computed }),
        Err(e) => failed(format!("the hash could not be checked: {e}")),
    }
}

/// The whole file, refused when it is too large to edit in memory, reporting progress.
fn read_whole(file: &Source) -> Result<Vec<u8>, String> {
    read_whole_quietly(file, &|done, size| progress(format!("reading the file ({done} of {size} bytes)")))
}

/// The whole file, refused when it is too large to hold in memory; `piece` hears
/// `(bytes read, size)` before each piece.
pub(crate) fn read_whole_quietly(file: &Source, piece: &dyn Fn(u64, u64)) -> Result<Vec<u8>, String> {
    let size = file.size();
    if size > MAX_EDIT_SIZE {
        return Err(format!(
            "the file is {size} bytes; edits are made in memory, on files of at most {MAX_EDIT_SIZE} bytes (1 GiB): use the offload command-line tool for this one"
        ));
    }
    let reader = SourceReader::new(file.clone());
    let mut out = Vec::with_capacity(size as usize);
    while (out.len() as u64) < size {
        piece(out.len() as u64, size);
        let piece = reader.read_at(out.len() as u64, READ_PIECE)?;
        if piece.is_empty() {
            return Err(format!("the file ended after {} of its {size} bytes", out.len()));
        }
        out.extend_from_slice(&piece);
    }
    Ok(out)
}

fn blob_of(bytes: &[u8]) -> Result<Blob, String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("the new file could not be made: {}", describe_error(e)))
}
