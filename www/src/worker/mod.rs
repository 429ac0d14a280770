//! The explorer worker: reads the file by slices (`FileReaderSync` on `Blob.slice`, which a
//! worker may block on), explores it with the core, sends the page the flattened tree, and then
//! answers requests for the bytes of decompressed spaces, which only it holds.

use crate::model::{Doc, Span};
use crate::protocol::{decode, encode, FromWorker, ToWorker};
use crate::settings::Settings;
use object::read::{ReadCache, ReadCacheOps, ReadRef};
use offload::explore::explore;
use offload::tree::Tree;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, FileReaderSync, MessageEvent};

/// Largest single read from the file: big reads are split so that progress can be reported.
const READ_CHUNK: u64 = 16 << 20;
/// Progress is reported after at least this many more bytes were read.
const PROGRESS_STEP: u64 = 4 << 20;

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub(crate) fn post(message: &FromWorker) {
    match encode(message) {
        Ok(v) => {
            let _ = scope().post_message(&v);
        }
        Err(e) => {
            let fallback = FromWorker::Failed { message: format!("could not send a result to the page: {e}") };
            if let Ok(v) = encode(&fallback) {
                let _ = scope().post_message(&v);
            }
        }
    }
}

/// A file read on demand through `FileReaderSync`, for `object::ReadCache`.
pub(crate) struct BlobReader {
    blob: Blob,
    pos: u64,
    read_so_far: u64,
    reported: u64,
}

impl BlobReader {
    pub(crate) fn new(blob: Blob) -> BlobReader {
        BlobReader { blob, pos: 0, read_so_far: 0, reported: 0 }
    }

    pub(crate) fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, String> {
        let end = offset.saturating_add(len).min(self.blob.size() as u64);
        let slice = self.blob.slice_with_f64_and_f64(offset as f64, end as f64).map_err(describe)?;
        let buffer = FileReaderSync::new().map_err(describe)?.read_as_array_buffer(&slice).map_err(describe)?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }
}

impl ReadCacheOps for BlobReader {
    fn len(&mut self) -> Result<u64, ()> {
        Ok(self.blob.size() as u64)
    }

    fn seek(&mut self, pos: u64) -> Result<u64, ()> {
        self.pos = pos;
        Ok(pos)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let want = (buf.len() as u64).min(READ_CHUNK);
        let bytes = self.read_at(self.pos, want).map_err(|_| ())?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        self.pos += bytes.len() as u64;
        self.read_so_far += bytes.len() as u64;
        if self.read_so_far - self.reported >= PROGRESS_STEP {
            self.reported = self.read_so_far;
            post(&FromWorker::Progress { stage: "reading and decompressing".into(), bytes_read: self.read_so_far });
        }
        Ok(bytes.len())
    }

    fn read_exact(&mut self, mut buf: &mut [u8]) -> Result<(), ()> {
        while !buf.is_empty() {
            let n = self.read(buf)?;
            if n == 0 {
                return Err(());
            }
            buf = &mut buf[n..];
        }
        Ok(())
    }
}

pub(crate) fn describe(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// What the worker keeps after exploring: the tree (with the bytes of decompressed spaces) and
/// the file, to answer byte requests.
pub(crate) struct Explored {
    pub(crate) tree: Tree,
    pub(crate) file: Blob,
    /// The file's name, and the settings it was explored with (an edit made with other
    /// settings explores it again).
    pub(crate) name: String,
    /// The limits it was explored with: downloads are explored again within the same ones.
    pub(crate) settings: Settings,
}

/// Explores `file` within the limits of `settings` and returns the page's model, keeping what
/// later byte requests need.
fn explore_file(name: &str, file: Blob, settings: &Settings, kept: &RefCell<Option<Explored>>) -> Doc {
    let started = js_sys::Date::now();
    post(&FromWorker::Progress { stage: "reading and decompressing".into(), bytes_read: 0 });
    let cache = ReadCache::new(BlobReader { blob: file.clone(), pos: 0, read_so_far: 0, reported: 0 });
    let tree = explore(&cache, name, &settings.options());
    let targets = offload::targets::collect(&tree);
    post(&FromWorker::Progress { stage: "preparing the views".into(), bytes_read: file.size() as u64 });
    let read_raw = |span: Span| -> Option<Vec<u8>> {
        if span.space == 0 {
            (&cache).read_bytes_at(span.offset, span.size).ok().map(<[u8]>::to_vec)
        } else {
            tree.bytes(&[], span.into()).map(<[u8]>::to_vec)
        }
    };
    let mut doc = Doc::from_tree(&tree, &targets, &read_raw);
    doc.explore_us = ((js_sys::Date::now() - started) * 1000.0) as u64;
    *kept.borrow_mut() = Some(Explored { tree, file, name: name.to_string(), settings: *settings });
    doc
}

fn read_bytes(kept: &RefCell<Option<Explored>>, space: u32, offset: u64, len: u32) -> Result<Vec<u8>, String> {
    let kept = kept.borrow();
    let explored = kept.as_ref().ok_or("the file has not been explored")?;
    if space == 0 {
        let reader = BlobReader { blob: explored.file.clone(), pos: 0, read_so_far: 0, reported: 0 };
        return reader.read_at(offset, len as u64);
    }
    let space_info =
        explored.tree.spaces.get(space as usize).ok_or_else(|| format!("there is no byte space {space}"))?;
    let data = space_info.data.as_deref().unwrap_or(&[]);
    let start = offset.min(data.len() as u64) as usize;
    let end = offset.saturating_add(len as u64).min(data.len() as u64) as usize;
    Ok(data[start..end].to_vec())
}

/// Entry point of the worker binary.
pub fn run() {
    let kept = Rc::new(RefCell::new(None::<Explored>));
    let on_message =
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| match decode::<ToWorker>(event.data()) {
            Ok(ToWorker::Explore { name, file, settings }) => {
                let doc = explore_file(&name, file, &settings, &kept);
                post(&FromWorker::Explored(doc));
            }
            Ok(ToWorker::Read { request, space, offset, len }) => match read_bytes(&kept, space, offset, len) {
                Ok(data) => post(&FromWorker::Bytes { request, data }),
                Err(message) => post(&FromWorker::ReadFailed { request, message }),
            },
            Ok(ToWorker::Prepare { request, job }) => crate::download::prepare::run(request, job, &kept),
            Ok(ToWorker::Edit { edit, settings }) => post(&crate::edit_worker::edit(&kept, &edit, &settings)),
            Ok(ToWorker::Verify { node, settings }) => post(&crate::edit_worker::verify(&kept, node, &settings)),
            Ok(ToWorker::Switch { file, settings }) => {
                let name = kept.borrow().as_ref().map(|k| k.name.clone()).unwrap_or_default();
                explore_file(&name, file, &settings, &kept);
            }
            Err(e) => {
                post(&FromWorker::Failed { message: format!("the worker got a message it does not understand: {e}") })
            }
        });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as its page keeps it; so does its handler.
    on_message.forget();
    post(&FromWorker::Ready);
}
