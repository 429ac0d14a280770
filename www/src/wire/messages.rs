//! Messages between the page and its explorer worker (and between the explorer and its editor),
//! sent with `postMessage`: each is encoded with postcard into bytes posted as one `Uint8Array`,
//! beside the JS values it refers to — the file goes over as the `Blob` it is (a reference, not
//! a copy), a download's bytes as the `Uint8Array` they are ([`encode`], [`decode`]). 64-bit
//! numbers stay exact.
//!
//! What the worker sends is of two sorts, kept apart so that each side handles one whole
//! enum: [`Report`]s about the tab's file, which the page's session turns into actions as they
//! are, and [`Answer`]s to numbered requests, which the page's client hands to whoever asked.

use crate::wire::doc::{DecodedKernels, Doc, FieldInfo};
use crate::wire::download::{Refusal, TarItem};
use crate::wire::edit::Verified;
pub use crate::wire::loading::Loading;
pub use crate::wire::remote::RemoteFile;
use crate::wire::settings::Settings;
use offload::edit::{Edit, NodePath};
use offload::explore::shares::{Share, ShareMember};
use offload::explore::Progress;
use offload::report::diff::Diff;
use offload::report::fit::Fit;
use offload::report::targets::Target;
use offload::tree::Span;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// A file the workers read: a `Blob` the page has (a dropped, picked or fetched file, or a
/// version an edit made), or a file on another site, read by range requests.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Source {
    Blob(#[serde(with = "js_slots")] web_sys::Blob),
    Remote(RemoteFile),
}

impl Source {
    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            Source::Blob(blob) => blob.size() as u64,
            Source::Remote(remote) => remote.size,
        }
    }

    /// The `Blob`, when the page has one.
    pub fn blob(&self) -> Option<&web_sys::Blob> {
        match self {
            Source::Blob(blob) => Some(blob),
            Source::Remote(_) => None,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub enum ToWorker {
    /// Explore this file within the limits of `settings`; the worker reads the parts it needs
    /// by slicing it.
    Explore {
        name: String,
        file: Source,
        /// Files opened with it that its contents refer to: the `.kpack` archives of a kpack'd
        /// ROCm build ([`offload::explore::Companion`]).
        companions: Vec<CompanionFile>,
        settings: Settings,
    },
    /// Send the bytes `offset..offset+len` of a byte space of the explored file.
    Read { request: u32, space: u32, offset: u64, len: u32 },
    /// Send every field of a node of the document that came without them
    /// ([`crate::wire::doc::NodeInfo::fields_elided`]): `Fields` or `FieldsFailed`.
    Fields { request: u32, node: usize },
    /// Apply an edit to the current file; on success the result becomes the current file.
    Edit { edit: Edit, settings: Settings },
    /// Check the hash of the compressed bundle at this path of the current file.
    Verify { node: NodePath, settings: Settings },
    /// Decompress the compressed bundle at this path of the current file (or the one above it)
    /// that was listed from its header only: `Decompressing` reports, then `Decompressed`.
    Decompress { node: NodePath },
    /// Make another version of the file the current one (undo, redo, or a new worker after
    /// Cancel): explore it, without sending the page a tree (the page keeps each version's).
    Switch {
        name: String,
        file: Source,
        /// The files it refers to, for a worker that does not hold them yet; `None` keeps the
        /// worker's (they are read whole, so undo and redo do not read them again).
        companions: Option<Vec<CompanionFile>>,
        settings: Settings,
    },
    /// Prepare a download (see [`Job`]): the answer is `Prepared` or `NotPrepared`.
    Prepare { request: u32, job: Job },
    /// Compare `old` (another file, or another version of this one) with the current file:
    /// the answer is `Compared` or `NotCompared`.
    Compare { request: u32, old: Source, old_name: String, settings: Settings },
    /// Will the current file run on `gpu` ([`offload::report::fit`]): `Fitted` or `NotFitted`.
    Fit { request: u32, gpu: String },
    /// The kernels of every image of the current file, each decoded: `DecodingKernels` reports,
    /// then `KernelsDecoded` or `NotDecoded`.
    DecodeKernels { request: u32 },
    /// From an explorer to a worker it started for a share of a package's members
    /// ([`offload::explore::shares`]): explore the members `share` of `file` within
    /// `settings`, reporting [`FromShare`]s to the explorer (never to the page). Of a remote
    /// file, `held` brings the bytes of the share's small planned reads (small members whole)
    /// that the explorer fetched already, `(start, bytes)`: not fetched again.
    ExploreShare { file: Source, settings: Settings, share: Vec<ShareMember>, held: Vec<(u64, Vec<u8>)> },
}

/// What a share worker tells the explorer that started it ([`ToWorker::ExploreShare`]).
#[derive(Serialize, Deserialize, Debug)]
pub enum FromShare {
    /// Members done so far (counted over the share), and the device targets found in the
    /// members done since the last report, with the image kind of each.
    Progress { progress: Progress, found: Vec<(Target, Option<String>)> },
    /// What the share's members hold.
    Explored(Share),
    /// Bytes this share worker has fetched from a remote file so far.
    Fetched(u64),
}

/// A file opened together with the tab's file for it to refer to (a `.kpack` archive).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct CompanionFile {
    pub name: String,
    #[serde(with = "js_slots")]
    pub file: web_sys::Blob,
}

/// What the explorer worker hands to its editor worker (`crate::worker::editor`), a worker of its
/// own loaded on first use: the work whose code exploring a file does not need. Edits report to
/// the page's session; the others answer the page's request `request`.
#[derive(Serialize, Deserialize)]
pub enum EditorJob {
    Edit(EditJob),
    /// `old` compared with `file` (the tab's current file), as `ToWorker::Compare` asks.
    Compare {
        request: u32,
        file: Source,
        name: String,
        old: Source,
        old_name: String,
        settings: Settings,
    },
    /// The download `Job::DeviceArchive` of `file`, explored within `settings`.
    DeviceArchive {
        request: u32,
        file: Source,
        target: String,
        settings: Settings,
    },
}

/// An edit the explorer worker hands to its editor worker (`crate::worker::editor`: a worker of
/// its own, loaded on the first edit, so that exploring a file does not load the core's writers),
/// with what the editor needs to explore the file as the explorer did, so that the edit's paths
/// name the same nodes: the file, the files it refers to, the limits, and the bundle that was
/// decompressed on demand, if any.
#[derive(Serialize, Deserialize)]
pub struct EditJob {
    pub name: String,
    pub file: Source,
    pub companions: Vec<CompanionBytes>,
    pub settings: Settings,
    pub decompressed: Option<Span>,
    pub edit: Edit,
}

/// A companion file's name and bytes, as the explorer holds them.
#[derive(Serialize, Deserialize)]
pub struct CompanionBytes {
    pub name: String,
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
}

/// A download the worker prepares: it reads the bytes, explores them again and refuses them
/// when they read back with errors their source did not have.
#[derive(Serialize, Deserialize)]
pub enum Job {
    /// Check bytes the page already has as a `Blob` (the file, or a slice of it); nothing is
    /// sent back but the verdict, the page saves its own `Blob`.
    Check {
        #[serde(with = "js_slots")]
        blob: web_sys::Blob,
        name: String,
        source_errors: u32,
    },
    /// The bytes of a span of a decompressed space, checked.
    Span { span: Span, name: String, source_errors: u32 },
    /// A tar of these spans under these names, each checked, the tar read back.
    Tar { members: Vec<TarItem> },
    /// The device-specific archive of one target of the explored archive.
    DeviceArchive { target: String },
}

/// A new version of the file, made by an edit.
#[derive(Serialize, Deserialize, Debug)]
pub struct EditedFile {
    /// Made in the worker from the new bytes; a `Blob` crosses to the page as a reference.
    #[serde(with = "js_slots")]
    pub file: web_sys::Blob,
    pub doc: Doc,
    /// The node to mark as edited.
    pub mark: NodePath,
    /// The node to select (`offload::edit::selection_after`): a moved or added entry.
    pub select: NodePath,
    pub notes: Vec<String>,
}

/// A new container that did not fit in its linked file, offered on its own.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Payload {
    #[serde(with = "js_slots")]
    pub blob: web_sys::Blob,
    /// The name to save it under.
    pub name: String,
}

#[derive(Serialize, Deserialize, Debug)]
pub enum FromWorker {
    /// The worker's code is loaded and it listens.
    Ready,
    /// Something about the file: for the page's session.
    Report(Report),
    /// The answer to request number `request`: for the page's client.
    Answer { request: u32, answer: Answer },
    /// From a share worker to the explorer that started it: never posted to the page.
    Share(FromShare),
}

/// What the explorer worker reads of a message from the editor worker before relaying it to the
/// page untouched: whether the editor is ready, an edit's new version of the file (which the
/// explorer keeps), and which request an answer is for. Only this much is decoded — postcard
/// reads a message's start and leaves the rest — so the explorer spends no time decoding the
/// new version's document, which only the page reads. The variants mirror those of
/// [`FromWorker`] and [`Report`], in order, up to `Edited`; variants with fields are read as
/// unit variants, which consumes only their index, and answers only as far as their request
/// number (`www/tests/messages.rs` checks the mirror).
#[derive(Deserialize, Debug)]
pub enum FromNested {
    Ready,
    Report(NestedReport),
    /// An answer, read up to the number of the request it answers.
    Answer {
        request: u32,
    },
}

/// [`Report`]'s variants up to `Edited`; see [`FromNested`].
#[derive(Deserialize, Debug)]
pub enum NestedReport {
    Progress,
    Explored,
    Failed,
    EditProgress,
    Edited(EditedVersion),
}

/// The start of an [`EditedFile`]: the new version's `Blob`.
#[derive(Deserialize, Debug)]
pub struct EditedVersion {
    #[serde(with = "js_slots")]
    pub file: web_sys::Blob,
}

/// What happens to the file the worker explores.
#[derive(Serialize, Deserialize, Debug)]
pub enum Report {
    Progress(Loading),
    Explored(Doc),
    /// The worker stopped without a result (it could not read the file, or it crashed: the
    /// page's client reports a worker's error event as this too).
    Failed {
        message: String,
    },
    EditProgress {
        stage: String,
    },
    Edited(Box<EditedFile>),
    /// An edit or a hash check was refused; `payload` is the new container alone when it did
    /// not fit in a linked file.
    EditFailed {
        message: String,
        payload: Option<Payload>,
    },
    Verified(Verified),
    /// How far decompressing a bundle the user asked for has got, in bytes.
    Decompressing {
        done: u64,
        total: u64,
    },
    /// The file explored again with the bundle at `node` decompressed (its hash checked).
    Decompressed {
        doc: Box<Doc>,
        node: NodePath,
    },
    /// How far decoding every image for the Kernels view has got.
    DecodingKernels(Progress),
}

/// The answer to a read or a download request.
#[derive(Serialize, Deserialize, Debug)]
pub enum Answer {
    Bytes(#[serde(with = "serde_bytes")] Vec<u8>),
    ReadFailed(String),
    /// A download's progress: `done` of `total` steps (images of a tar).
    Preparing {
        done: u64,
        total: u64,
    },
    /// A download passed its checks; a `Uint8Array` of its bytes, or `undefined` for
    /// [`Job::Check`].
    Prepared(#[serde(with = "js_slots")] JsValue),
    /// A download is refused.
    NotPrepared(Refusal),
    /// Two files compared ([`offload::report::diff`]).
    Compared(Box<Diff>),
    /// Why two files could not be compared.
    NotCompared(String),
    /// What of the file runs on a GPU.
    Fitted(Box<Fit>),
    /// Why that could not be answered (a GPU name the rules do not know).
    NotFitted(String),
    KernelsDecoded(Box<DecodedKernels>),
    NotDecoded(String),
    /// A node's fields, in the document's order.
    Fields(Vec<FieldInfo>),
    FieldsFailed(String),
}

/// JS values that cannot be serialized — the `Blob`s of files (references, not copies) and a
/// download's `Uint8Array` — travel beside the message's bytes; the message holds their index.
mod js_slots {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::cell::RefCell;
    use wasm_bindgen::{JsCast, JsValue};

    thread_local! {
        /// The values of the message being encoded or decoded, by index.
        pub(super) static SLOTS: RefCell<Vec<JsValue>> = const { RefCell::new(Vec::new()) };
    }

    pub fn serialize<S: Serializer, T: AsRef<JsValue>>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        let index = SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            slots.push(value.as_ref().clone());
            slots.len() - 1
        });
        s.serialize_u32(index as u32)
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: JsCast>(d: D) -> Result<T, D::Error> {
        let index = u32::deserialize(d)? as usize;
        let value = SLOTS.with(|slots| slots.borrow().get(index).cloned());
        value
            .map(JsCast::unchecked_into)
            .ok_or_else(|| D::Error::custom(format!("no JS value {index} came with the message")))
    }
}

/// A message as it is posted: a JS array of the message's bytes (postcard: compact, and one
/// copy across the boundary however large the document) and the JS values it refers to.
pub fn encode<T: Serialize>(message: &T) -> Result<JsValue, String> {
    js_slots::SLOTS.with(|slots| slots.borrow_mut().clear());
    let bytes = postcard::to_allocvec(message).map_err(|e| format!("the message could not be encoded: {e}"));
    let values = js_slots::SLOTS.with(|slots| std::mem::take(&mut *slots.borrow_mut()));
    let posted = js_sys::Array::new();
    posted.push(&js_sys::Uint8Array::from(&bytes?[..]));
    for value in values {
        posted.push(&value);
    }
    Ok(posted.into())
}

/// What of a message [`encode`] made is moved rather than copied when it is posted: the buffer
/// of its bytes, which the sender does not read again. A document of a file with 100,000
/// kernels is some 200 MiB, which a copy would hold twice while it crosses.
pub fn transferables(encoded: &JsValue) -> js_sys::Array {
    use wasm_bindgen::JsCast;
    let bytes = encoded.dyn_ref::<js_sys::Array>().map(|posted| posted.get(0));
    let buffer = bytes.and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok()).map(|b| b.buffer());
    buffer.map_or_else(js_sys::Array::new, |b| js_sys::Array::of1(&b))
}

/// The message [`encode`] made.
pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    use wasm_bindgen::JsCast;
    let posted: js_sys::Array =
        value.dyn_into().map_err(|v| format!("expected a message (an array of its bytes and values), found {v:?}"))?;
    let bytes =
        posted.get(0).dyn_into::<js_sys::Uint8Array>().map_err(|_| "expected the message's bytes first")?.to_vec();
    js_slots::SLOTS.with(|slots| *slots.borrow_mut() = (1..posted.length()).map(|i| posted.get(i)).collect());
    let message = postcard::from_bytes(&bytes).map_err(|e| format!("the message could not be decoded: {e}"));
    js_slots::SLOTS.with(|slots| slots.borrow_mut().clear());
    message
}
