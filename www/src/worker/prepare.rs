//! The worker's side of downloads: it holds the decompressed bytes and can block on reading the
//! file, so it reads what a download needs, builds tars and device archives, and explores every
//! result again before the page may save it ([`check_read_back`]).

use crate::wire::download::{Refusal, TarItem};
use crate::wire::messages::{Answer, Job, Source};
use crate::wire::settings::Settings;
use crate::worker::device_archive::device_archive;
use crate::worker::kept::{Explored, SourceReader};
use crate::worker::outbox::answer;
use crate::worker::read_back::check_read_back;
use object::read::ReadCache;
use offload::codec::truncated_md5;
use offload::explore::explore;
use offload::format::package::tar::{self, TarWriter};
use offload::tree::Tree;
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// Prepares one download and answers the page's request.
pub(crate) fn run(request: u32, job: Job, kept: &RefCell<Option<Explored>>) {
    let prepared = match kept.borrow().as_ref() {
        None => Err(Refusal::from("the file has not been explored yet".to_string())),
        Some(explored) => prepare(request, job, explored),
    };
    match prepared {
        Ok(data) => answer(request, Answer::Prepared(data)),
        Err(refusal) => answer(request, Answer::NotPrepared(refusal)),
    }
}

fn prepare(request: u32, job: Job, explored: &Explored) -> Result<JsValue, Refusal> {
    let options = explored.settings.options();
    match job {
        Job::Check { blob, name, source_errors } => {
            // Read through a cache, as exploring the file itself does: only what the explorer
            // needs is read, however large the blob.
            let cache = ReadCache::new(SourceReader::new(Source::Blob(blob)));
            let tree = explore(&cache, &name, &options);
            refuse_new_errors(&name, &tree, source_errors)?;
            Ok(JsValue::UNDEFINED)
        }
        Job::Span { span, name, source_errors } => {
            let bytes = explored.span_bytes(span)?;
            refuse_new_errors(&name, &explore(&bytes[..], &name, &options), source_errors)?;
            Ok(js_bytes(&bytes))
        }
        Job::Tar { members } => Ok(js_bytes(&images_tar(request, &members, explored)?)),
        // Handed to the editor worker before it gets here (`editing::device_archive`).
        Job::DeviceArchive { .. } => Err(Refusal::from("device archives are built by the editor worker".to_string())),
    }
}

/// The device-specific archive of `target` made from `file` (an archive), explored again
/// within `settings` and refused if it reads back with errors. The editor worker builds it:
/// the archive writer is not loaded to explore.
pub(crate) fn device_archive_download(file: &Source, target: &str, settings: &Settings) -> Result<JsValue, Refusal> {
    let options = settings.options();
    let input = SourceReader::new(file.clone()).read_at(0, file.size())?;
    let bytes = device_archive(&input, target, options.max_decompressed)?;
    refuse_new_errors(target, &explore(&bytes[..], target, &options), 0)?;
    Ok(js_bytes(&bytes))
}

fn refuse_new_errors(name: &str, tree: &Tree, source_errors: u32) -> Result<(), Refusal> {
    check_read_back(tree, source_errors).map_err(|errors| Refusal {
        reason: format!(
            "{name} does not read back as its source did ({} errors where the source had {source_errors}); it is not offered",
            errors.len()
        ),
        errors,
    })
}

/// Every image checked and added, progress posted after each, the tar read back and compared
/// with what went in (name, length, and a hash of the bytes, so the images need not be kept).
fn images_tar(request: u32, members: &[TarItem], explored: &Explored) -> Result<Vec<u8>, Refusal> {
    if members.is_empty() {
        return Err(Refusal::from("the file has no device images".to_string()));
    }
    let options = explored.settings.options();
    let total = members.len() as u64;
    let mut writer = TarWriter::new();
    let mut written = Vec::with_capacity(members.len());
    for (i, item) in members.iter().enumerate() {
        let bytes = explored.span_bytes(item.span).map_err(|e| format!("{}: {e}", item.name))?;
        refuse_new_errors(&item.name, &explore(&bytes[..], &item.name, &options), item.source_errors)?;
        writer.add(&item.name, &bytes).map_err(|e| e.to_string())?;
        written.push((item.name.as_str(), bytes.len(), truncated_md5(&bytes)));
        answer(request, Answer::Preparing { done: i as u64 + 1, total });
    }
    let out = writer.finish();
    let back = tar::read_files(&out).map_err(|e| format!("the tar does not read back: {e}"))?;
    let same = back.len() == written.len()
        && back.iter().zip(&written).all(|((name, data), (want, len, hash))| {
            name == want && data.len() == *len && truncated_md5(data) == *hash
        });
    if !same {
        return Err(Refusal::from("the tar does not read back as written".to_string()));
    }
    Ok(out)
}

fn js_bytes(bytes: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(bytes).into()
}
