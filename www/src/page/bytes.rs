//! Where the hex view gets bytes: the file's own bytes (space 0) by slicing the `Blob` the user
//! gave (or, for a file on another site, by a range request), so that nothing but the visible
//! rows is ever copied into the page; decompressed spaces from the worker that holds them.

use crate::page::client::ExplorerWorker;
use crate::wire::doc::{FieldInfo, NodeId};
use crate::wire::messages::{RemoteFile, Source};
use futures::future::LocalBoxFuture;
use std::rc::Rc;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

pub trait ByteSource {
    /// Up to `len` bytes of `space` from `offset` (fewer at the end of what is available).
    fn read(&self, space: u32, offset: u64, len: u32) -> LocalBoxFuture<'static, Result<Vec<u8>, String>>;

    /// Every field of a node the document has without them ([`NodeInfo::fields_elided`]): only
    /// the explorer that made the document has them.
    ///
    /// [`NodeInfo::fields_elided`]: crate::wire::doc::NodeInfo::fields_elided
    fn fields(&self, _node: NodeId) -> LocalBoxFuture<'static, Result<Vec<FieldInfo>, String>> {
        Box::pin(async { Err("this view has no explorer to ask for the node's fields".to_string()) })
    }
}

/// A shared byte source; equal when it is the same source, so that views re-read only when
/// their tab's source changes.
#[derive(Clone)]
pub struct Bytes(pub Rc<dyn ByteSource>);

impl PartialEq for Bytes {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// An open file and the worker that explored it.
pub struct FileBytes {
    pub file: Source,
    pub worker: Option<Rc<ExplorerWorker>>,
}

pub async fn read_blob(file: &Blob, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let end = offset.saturating_add(len).min(file.size() as u64);
    let slice = file.slice_with_f64_and_f64(offset as f64, end as f64).map_err(|e| format!("{e:?}"))?;
    let buffer =
        JsFuture::from(slice.array_buffer()).await.map_err(|e| format!("the file could not be read: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Up to `len` bytes of a file on another site from `offset`, by one range request.
pub async fn read_remote(file: &RemoteFile, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let end = offset.saturating_add(len).min(file.size);
    if offset >= end {
        return Ok(Vec::new());
    }
    crate::page::remote::fetch_range(&file.url, offset, end).await
}

impl ByteSource for FileBytes {
    fn read(&self, space: u32, offset: u64, len: u32) -> LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        if space == 0 {
            return match self.file.clone() {
                Source::Blob(file) => Box::pin(async move { read_blob(&file, offset, len as u64).await }),
                Source::Remote(file) => Box::pin(async move { read_remote(&file, offset, len as u64).await }),
            };
        }
        let worker = self.worker.clone();
        Box::pin(async move {
            match worker {
                Some(w) => w.read(space, offset, len).await,
                None => Err("the explorer was stopped; open the file again to see decompressed bytes".into()),
            }
        })
    }

    fn fields(&self, node: NodeId) -> LocalBoxFuture<'static, Result<Vec<FieldInfo>, String>> {
        let worker = self.worker.clone();
        Box::pin(async move {
            match worker {
                Some(w) => w.fields(node).await,
                None => Err("the explorer was stopped; open the file again to see this node's fields".into()),
            }
        })
    }
}

/// Byte spaces held in memory: for tests, and for views drawn without a file.
pub struct MemoryBytes(pub Vec<Vec<u8>>);

impl ByteSource for MemoryBytes {
    fn read(&self, space: u32, offset: u64, len: u32) -> LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        let result = match self.0.get(space as usize) {
            Some(data) => {
                let start = offset.min(data.len() as u64) as usize;
                let end = offset.saturating_add(len as u64).min(data.len() as u64) as usize;
                Ok(data[start..end].to_vec())
            }
            None => Err(format!("there is no byte space {space}")),
        };
        Box::pin(async move { result })
    }
}
