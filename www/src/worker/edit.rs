//! The worker's side of editing: the current file is read whole, the core writes it again
//! with the edit, and the result is explored again and refused if that finds an error the file
//! did not have ("whatever is offered for download is parsed again first"). The new bytes
//! become a `Blob` here, so the page never copies them.

use crate::edit_request::{payload_file_name, EditRequest, NodePath};
use crate::model::{Doc, Span};
use crate::protocol::{EditedFile, FromWorker, Payload};
use crate::settings::Settings;
use crate::worker::{describe, post, BlobReader, Explored};
use offload::edit::{self, EditError};
use offload::explore::explore;
use offload::format::bundle::compressed::CompressedBundle;
use offload::tree::{Node, NodeKind, Severity, Tree};
use std::cell::RefCell;
use web_sys::Blob;

/// Edits are made on the whole file in memory: a worker's memory holds at most 4 GiB, and the
/// file, its edited copy and the decompressed bundles must fit in it together.
pub const MAX_EDIT_SIZE: u64 = 1 << 30;
/// The file is read in pieces this big, with progress between them.
const READ_PIECE: u64 = 16 << 20;

fn progress(stage: impl Into<String>) {
    post(&FromWorker::EditProgress { stage: stage.into() });
}

fn failed(message: impl Into<String>) -> FromWorker {
    FromWorker::EditFailed { message: message.into(), payload: None }
}

/// Applies `request` to the current file and answers with the new version or why not.
pub(crate) fn edit(kept: &RefCell<Option<Explored>>, request: &EditRequest, settings: &Settings) -> FromWorker {
    let started = js_sys::Date::now();
    let (file, name, tree) = {
        let kept = kept.borrow();
        let Some(k) = kept.as_ref() else { return failed("the file has not been explored yet") };
        // The tree the page shows is the one the edit's path refers to, as long as the
        // settings are the same; otherwise the file is explored again below.
        let tree = (k.settings == *settings).then(|| k.tree.clone());
        (k.file.clone(), k.name.clone(), tree)
    };
    let bytes = match read_whole(&file) {
        Ok(b) => b,
        Err(message) => return failed(message),
    };
    let tree = tree.unwrap_or_else(|| {
        progress("exploring");
        explore(&bytes[..], &name, &settings.options())
    });
    progress(request.describe());
    let core_edit = request.to_core();
    let edited = match edit::apply(&bytes, &tree, &core_edit) {
        Ok(e) => e,
        Err(EditError::DoesNotFit { message, payload, payload_kind }) => {
            return does_not_fit(&name, message, &payload, payload_kind)
        }
        Err(EditError::Invalid(message)) => return failed(message),
    };
    progress("reading the result back");
    let new_tree = explore(&edited.bytes[..], &name, &settings.options());
    let errors = edit::new_errors(&tree, &new_tree);
    if !errors.is_empty() {
        return failed(format!(
            "the edited file does not read back without errors, so it is not kept: {}",
            errors.join("; ")
        ));
    }
    // New warnings (an entry without a triple, bytes LLVM would not read) go with the result,
    // so the user sees them before downloading.
    let mut notes = edited.notes;
    notes.extend(
        edit::new_diagnostics(&tree, &new_tree, Severity::Warning).into_iter().map(|w| format!("new warning: {w}")),
    );
    let blob = match blob_of(&edited.bytes) {
        Ok(b) => b,
        Err(message) => return failed(message),
    };
    progress("preparing the views");
    let select = edit::selection_after(&core_edit, &tree, &new_tree, &edited.mark);
    let mut doc = doc_of(&new_tree, &edited.bytes);
    doc.explore_us = ((js_sys::Date::now() - started) * 1000.0) as u64;
    *kept.borrow_mut() = Some(Explored { tree: new_tree, file: blob.clone(), name, settings: *settings });
    FromWorker::Edited(Box::new(EditedFile { file: blob, doc, mark: edited.mark, select, notes }))
}

/// The edit could not be written back into a linked file; the new container alone is
/// offered instead.
fn does_not_fit(name: &str, message: String, payload: &[u8], kind: NodeKind) -> FromWorker {
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
    FromWorker::EditFailed { message, payload }
}

/// Every error diagnostic of a tree, with the label of its node.
fn error_messages(tree: &Tree) -> Vec<String> {
    tree.errors().into_iter().map(|(n, d)| format!("{}: {}", n.label, d.message)).collect()
}

/// Checks the hash of the compressed bundle at `node`.
pub(crate) fn verify(kept: &RefCell<Option<Explored>>, node: NodePath, settings: &Settings) -> FromWorker {
    let kept = kept.borrow();
    let Some(k) = kept.as_ref() else { return failed("the file has not been explored yet") };
    let Some(target) = k.tree.node_at(&node) else {
        return failed(format!("there is no node at {node:?} in the current file"));
    };
    if target.kind != NodeKind::CompressedBundle {
        return failed(format!("expected a compressed bundle, found '{}' ({})", target.label, target.kind.as_str()));
    }
    progress("decompressing and hashing");
    let bytes = match bytes_of(k, target) {
        Ok(b) => b,
        Err(message) => return failed(message),
    };
    let checked = CompressedBundle::parse(&bytes).and_then(|cb| cb.verify(settings.options().max_decompressed));
    match checked {
        Ok(v) => FromWorker::Verified { node, stored: v.stored, computed: v.computed },
        Err(e) => failed(format!("the hash could not be checked: {e}")),
    }
}

/// A node's bytes: from the file for space 0, from the explored tree for decompressed spaces.
fn bytes_of(k: &Explored, node: &Node) -> Result<Vec<u8>, String> {
    if node.span.space == 0 {
        return BlobReader::new(k.file.clone()).read_at(node.span.offset, node.span.size);
    }
    k.tree
        .bytes(&[], node.span)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| format!("the bytes of '{}' are not at hand", node.label))
}

/// The whole file, refused when it is too large to edit in memory.
fn read_whole(file: &Blob) -> Result<Vec<u8>, String> {
    let size = file.size() as u64;
    if size > MAX_EDIT_SIZE {
        return Err(format!(
            "the file is {size} bytes; edits are made in memory, on files of at most {MAX_EDIT_SIZE} bytes (1 GiB): use the offload command-line tool for this one"
        ));
    }
    let reader = BlobReader::new(file.clone());
    let mut out = Vec::with_capacity(size as usize);
    while (out.len() as u64) < size {
        progress(format!("reading the file ({} of {size} bytes)", out.len()));
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
        .map_err(|e| format!("the new file could not be made: {}", describe(e)))
}

fn doc_of(tree: &Tree, bytes: &[u8]) -> Doc {
    let targets = offload::targets::collect(tree);
    Doc::from_tree(tree, &targets, &|span: Span| tree.bytes(bytes, span.into()).map(<[u8]>::to_vec))
}
