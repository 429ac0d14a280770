//! The page's side of downloads: it turns a [`DownloadRequest`] about the active tab into a
//! job for the tab's worker, waits for the worker's verdict, and saves the result (a `Blob`,
//! an object URL and a temporary `<a download>` click). Bytes of the file itself are saved as
//! a slice of the file's `Blob`, never copied into the page; bytes the worker makes (a
//! decompressed image, a tar, a device archive) come back as a `Uint8Array`.

use crate::page::client::ExplorerWorker;
use crate::page::downloads::plan::{
    bytes_available, device_archive_name, file_download_name, images_tar_name, Plan, UNAVAILABLE,
};
use crate::page::state::{Action, DownloadNotice, DownloadRequest, DownloadStage, Tab};
use crate::wire::doc::{Doc, NodeId};
use crate::wire::download::{Refusal, TarItem};
use crate::wire::js::describe_error;
use crate::wire::messages::Job;
use crate::wire::messages::Source as FileSource;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};
use yew::Callback;

/// The context the page gives its download buttons: where to send requests, and the active
/// tab's document (the toolbar has no other way to know it).
#[derive(Clone, PartialEq)]
pub struct Downloader {
    pub request: Callback<DownloadRequest>,
    pub doc: Option<Rc<Doc>>,
}

/// What a download needs from the active tab: its explored document and selection, its
/// current file and its worker.
pub struct Source {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub file: FileSource,
    pub worker: Rc<ExplorerWorker>,
}

impl Source {
    /// The active tab as a download source, or why it cannot be one yet.
    pub fn of(
        tab: Option<&Tab>,
        file: Option<FileSource>,
        worker: Option<Rc<ExplorerWorker>>,
    ) -> Result<Source, String> {
        let tab = tab.ok_or("no file is open")?;
        let doc = tab.doc().cloned().ok_or_else(|| format!("{} has not been explored yet", tab.name))?;
        let file = file.ok_or_else(|| format!("{} is not open any more", tab.name))?;
        let worker = worker
            .ok_or_else(|| format!("the explorer of {} was stopped; re-open the file to download from it", tab.name))?;
        Ok(Source { doc, selected: tab.selected, file, worker })
    }
}

/// How the prepared bytes are saved.
enum SaveFrom {
    /// A `Blob` the page already has (the file or a slice of it), once the worker checked it.
    Blob(Blob),
    /// The bytes the worker sends back.
    WorkerBytes { mime: &'static str },
}

/// One download: its name, the worker's job, how to save the answer, how many parts.
struct Step {
    name: String,
    job: Job,
    save: SaveFrom,
    parts: u64,
}

thread_local! {
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

/// Starts a download; how it goes is reported as [`Action::Download`].
pub fn start(request: DownloadRequest, source: Result<Source, String>, dispatch: Callback<Action>) {
    let id = NEXT_ID.with(|n| {
        n.set(n.get().wrapping_add(1));
        n.get()
    });
    let step = source.and_then(|s| step_for(&request, &s).map(|step| (s.worker, step)));
    let (worker, step) = match step {
        Ok(found) => found,
        Err(reason) => {
            let stage = DownloadStage::Refused(Refusal::from(reason));
            dispatch.emit(Action::Download(DownloadNotice { id, name: what_was_asked(&request), stage }));
            return;
        }
    };
    let notify = {
        let (dispatch, name) = (dispatch.clone(), step.name.clone());
        move |stage: DownloadStage| dispatch.emit(Action::Download(DownloadNotice { id, name: name.clone(), stage }))
    };
    notify(DownloadStage::Preparing { done: 0, total: step.parts });
    wasm_bindgen_futures::spawn_local(async move {
        let progress = {
            let notify = notify.clone();
            move |done, total| notify(DownloadStage::Preparing { done, total })
        };
        let outcome = worker.prepare(step.job, progress).await.and_then(|data| {
            let blob = match step.save {
                SaveFrom::Blob(blob) => blob,
                SaveFrom::WorkerBytes { mime } => bytes_blob(&data, mime).map_err(Refusal::from)?,
            };
            save(&blob, &step.name).map_err(Refusal::from)?;
            Ok(blob.size() as u64)
        });
        notify(match outcome {
            Ok(size) => DownloadStage::Saved { size },
            Err(refusal) => DownloadStage::Refused(refusal),
        });
    });
}

/// A name for a request that could not even start.
fn what_was_asked(request: &DownloadRequest) -> String {
    match request {
        DownloadRequest::Selected | DownloadRequest::Node(_) => "the selected node".into(),
        DownloadRequest::File => "the file".into(),
        DownloadRequest::AllImages => "all device images".into(),
        DownloadRequest::DeviceArchive(t) => format!("the device archive for {t}"),
    }
}

fn step_for(request: &DownloadRequest, source: &Source) -> Result<Step, String> {
    let doc = &source.doc;
    match request {
        DownloadRequest::Selected => node_step(source, source.selected.ok_or("no node is selected")?),
        DownloadRequest::Node(node) => node_step(source, *node),
        DownloadRequest::File => {
            let name = file_download_name(&doc.name);
            let blob = match &source.file {
                FileSource::Blob(blob) => blob.clone(),
                FileSource::Remote(remote) => return remote_file_step(name, remote.size, doc),
            };
            let job = Job::Check { blob: blob.clone(), name: name.clone(), source_errors: doc.errors_within(0) };
            Ok(Step { name, job, save: SaveFrom::Blob(blob), parts: 1 })
        }
        DownloadRequest::AllImages => {
            let plan = Plan::of(doc);
            let mut members = Vec::new();
            for offer in plan.images() {
                if !bytes_available(doc, offer.span) {
                    return Err(format!("{}: {}", offer.name, UNAVAILABLE));
                }
                members.push(TarItem {
                    span: offer.span,
                    name: offer.name.clone(),
                    source_errors: offer.source_errors,
                });
            }
            if members.is_empty() {
                return Err(format!("{} has no device images", doc.name));
            }
            let parts = members.len() as u64;
            Ok(Step {
                name: images_tar_name(&doc.name),
                job: Job::Tar { members },
                save: SaveFrom::WorkerBytes { mime: "application/x-tar" },
                parts,
            })
        }
        DownloadRequest::DeviceArchive(target) => Ok(Step {
            name: device_archive_name(&doc.name, target),
            job: Job::DeviceArchive { target: target.clone() },
            save: SaveFrom::WorkerBytes { mime: "application/x-archive" },
            parts: 1,
        }),
    }
}

/// Largest remote file "Download file" fetches into the page (its bytes are held whole on the
/// way); a larger one is better downloaded from its address.
const REMOTE_FILE_DOWNLOAD_MAX: u64 = 1 << 30;

/// "Download file" of a file on another site: the worker fetches it by ranges and checks it.
fn remote_file_step(name: String, size: u64, doc: &Doc) -> Result<Step, String> {
    if size > REMOTE_FILE_DOWNLOAD_MAX {
        return Err(format!(
            "{name} is {size} bytes, read from another site by ranges; the page fetches files of at most 1 GiB whole: download it from its address instead"
        ));
    }
    let span = offload::tree::Span { space: 0, offset: 0, size };
    let job = Job::Span { span, name: name.clone(), source_errors: doc.errors_within(0) };
    Ok(Step { name, job, save: SaveFrom::WorkerBytes { mime: "application/octet-stream" }, parts: 1 })
}

/// A node's download: a slice of the file for space 0 (read by the worker for a remote file),
/// else the worker's bytes.
fn node_step(source: &Source, node: NodeId) -> Result<Step, String> {
    let doc = &source.doc;
    let plan = Plan::of(doc);
    let label = doc.nodes.get(node).map_or("the node", |n| n.label.as_str());
    let offer = plan.for_node(doc, node).map_err(|why| format!("{label} offers nothing to download: {why}"))?;
    let name = offer.name.clone();
    if let (0, FileSource::Blob(file)) = (offer.span.space, &source.file) {
        let slice =
            file.slice_with_f64_and_f64(offer.span.offset as f64, offer.span.end() as f64).map_err(describe_error)?;
        if slice.size() as u64 != offer.span.size {
            return Err(format!(
                "expected {} bytes at offset {} of the file, which has {}",
                offer.span.size,
                offer.span.offset,
                file.size()
            ));
        }
        let job = Job::Check { blob: slice.clone(), name: name.clone(), source_errors: offer.source_errors };
        return Ok(Step { name, job, save: SaveFrom::Blob(slice), parts: 1 });
    }
    let job = Job::Span { span: offer.span, name: name.clone(), source_errors: offer.source_errors };
    Ok(Step { name, job, save: SaveFrom::WorkerBytes { mime: "application/octet-stream" }, parts: 1 })
}

fn bytes_blob(data: &JsValue, mime: &str) -> Result<Blob, String> {
    let bytes: &js_sys::Uint8Array = data.dyn_ref().ok_or("the worker sent no bytes")?;
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(bytes), &options).map_err(describe_error)
}

/// How long an object URL lives after its click: the browser reads the `Blob` behind it after
/// the click returns, so revoking at once could cut the download short.
const REVOKE_AFTER_MS: i32 = 60_000;

/// Saves `blob` as `name`: an object URL, a temporary `<a download>` clicked, the URL revoked.
pub fn save(blob: &Blob, name: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let body = document.body().ok_or("no document body")?;
    let url = Url::create_object_url_with_blob(blob).map_err(describe_error)?;
    let link: HtmlAnchorElement =
        document.create_element("a").map_err(describe_error)?.dyn_into().map_err(|_| "not an anchor element")?;
    link.set_href(&url);
    link.set_download(name);
    link.set_hidden(true);
    body.append_child(&link).map_err(describe_error)?;
    link.click();
    link.remove();
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), REVOKE_AFTER_MS)
        .map_err(describe_error)?;
    Ok(())
}
