//! A file on another site, read by a worker with synchronous range requests (a dedicated worker
//! may block on `XMLHttpRequest`, as it does on `FileReaderSync` for a `Blob`).
//!
//! Reads go through a cache of [`BLOCK`]-byte blocks, one per worker (every reader of the file
//! in this worker shares it, so a member's local header read by one and its bytes by another
//! are fetched once): a small read is served from the block that holds it, a read going forward
//! block after block fetches [`READ_AHEAD_BLOCKS`] at once, and a large read (a member's whole
//! bytes for a download) is fetched as it is, around the cache. Every request is one closed range
//! (`wire::remote::range_header`); an answer that is not exactly the bytes asked for is an error
//! that says what came. A redirect is followed by the browser; the address it led to is kept
//! and, when it stops working (a signed URL that expired), resolved again from the original.
//!
//! [`BLOCK`]: crate::wire::remote::BLOCK
//! [`READ_AHEAD_BLOCKS`]: crate::wire::remote::READ_AHEAD_BLOCKS

use crate::wire::js::describe_error;
use crate::wire::remote::{
    block_bytes, blocks_for, blocks_to_fetch, check_range_answer, range_header, resolve_again, RemoteFile, BLOCK,
    CACHED_BLOCKS,
};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use web_sys::{XmlHttpRequest, XmlHttpRequestResponseType};

/// Reads larger than this many bytes are fetched as they are, not through the cache.
const DIRECT_OVER: u64 = 4 * BLOCK;
/// How often, at most, the bytes fetched are told to [`set_on_fetch`]'s listener.
const TELL_EVERY_MS: f64 = 250.0;

/// Who hears of the bytes fetched ([`set_on_fetch`]).
type FetchListener = Box<dyn Fn(u64)>;

/// The cache of one remote file in this worker.
struct Cache {
    file: RemoteFile,
    /// Where the last request ended up after redirects (`XMLHttpRequest.responseURL`).
    resolved: String,
    /// Cached blocks, least recently used first: (block number, bytes).
    blocks: VecDeque<(u64, Rc<Vec<u8>>)>,
    /// The last block fetched, to tell a reader going forward.
    previous: Option<u64>,
}

thread_local! {
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
    /// Bytes fetched by this worker, over every remote file it read.
    static FETCHED: Cell<u64> = const { Cell::new(0) };
    static LAST_TOLD: Cell<f64> = const { Cell::new(0.0) };
    static ON_FETCH: RefCell<Option<FetchListener>> = const { RefCell::new(None) };
}

/// Bytes this worker has fetched from remote files so far.
pub(crate) fn fetched() -> u64 {
    FETCHED.with(Cell::get)
}

/// Who hears how many bytes this worker has fetched, after a fetch (at most every
/// [`TELL_EVERY_MS`]): the explorer reports it to the page, a share worker to its explorer.
pub(crate) fn set_on_fetch(listener: impl Fn(u64) + 'static) {
    ON_FETCH.with(|l| *l.borrow_mut() = Some(Box::new(listener)));
}

fn count_fetched(n: u64) {
    let total = FETCHED.with(|f| {
        f.set(f.get() + n);
        f.get()
    });
    let now = js_sys::Date::now();
    if now - LAST_TOLD.with(Cell::get) >= TELL_EVERY_MS {
        LAST_TOLD.with(|t| t.set(now));
        ON_FETCH.with(|l| {
            if let Some(listener) = l.borrow().as_ref() {
                listener(total);
            }
        });
    }
}

/// Up to `len` bytes of `file` from `offset` (fewer at its end).
pub(crate) fn read_at(file: &RemoteFile, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let end = offset.saturating_add(len).min(file.size);
    if offset >= end {
        return Ok(Vec::new());
    }
    if end - offset > DIRECT_OVER {
        return with_cache(file, |cache| cache.fetch(offset, end));
    }
    with_cache(file, |cache| cache.read_cached(offset, end))
}

/// `f` of this worker's cache of `file` (a new one when it held another file).
fn with_cache<T>(file: &RemoteFile, f: impl FnOnce(&mut Cache) -> T) -> T {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|cache| cache.file != *file) {
            *c =
                Some(Cache { file: file.clone(), resolved: file.url.clone(), blocks: VecDeque::new(), previous: None });
        }
        f(c.as_mut().expect("the cache was just made"))
    })
}

impl Cache {
    /// Bytes `start..end` from cached blocks, fetching those missing.
    fn read_cached(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let needed = blocks_for(start, end - start, self.file.size);
        let count = self.file.size.div_ceil(BLOCK);
        let mut held: Vec<Rc<Vec<u8>>> = Vec::with_capacity((needed.end - needed.start) as usize);
        let mut block = needed.start;
        while block < needed.end {
            if let Some(bytes) = self.take(block) {
                held.push(bytes);
                block += 1;
                continue;
            }
            let run = blocks_to_fetch(block, needed.end, self.previous, count);
            let (from, to) =
                (block_bytes(run.start, self.file.size).start, block_bytes(run.end - 1, self.file.size).end);
            let bytes = self.fetch(from, to)?;
            self.previous = Some(run.end - 1);
            for number in run.clone() {
                let range = block_bytes(number, self.file.size);
                let piece = Rc::new(bytes[(range.start - from) as usize..(range.end - from) as usize].to_vec());
                if number < needed.end {
                    held.push(piece.clone());
                }
                self.keep(number, piece);
            }
            block = run.end;
        }
        let mut out = Vec::with_capacity((end - start) as usize);
        for (bytes, number) in held.iter().zip(needed) {
            let first = number * BLOCK;
            let (from, to) = (start.max(first) - first, end.min(first + bytes.len() as u64) - first);
            out.extend_from_slice(&bytes[from as usize..to as usize]);
        }
        Ok(out)
    }

    /// A cached block, now the most recently used.
    fn take(&mut self, number: u64) -> Option<Rc<Vec<u8>>> {
        let at = self.blocks.iter().position(|(n, _)| *n == number)?;
        let entry = self.blocks.remove(at)?;
        let bytes = entry.1.clone();
        self.blocks.push_back(entry);
        Some(bytes)
    }

    fn keep(&mut self, number: u64, bytes: Rc<Vec<u8>>) {
        self.blocks.retain(|(n, _)| *n != number);
        self.blocks.push_back((number, bytes));
        while self.blocks.len() > CACHED_BLOCKS {
            self.blocks.pop_front();
        }
    }

    /// Exactly bytes `start..end` of the file, in one request; from the original address
    /// again when the one it redirected to stopped working.
    fn fetch(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        match request(&self.resolved, start, end) {
            Ok((status, _, _)) if resolve_again(status, self.resolved != self.file.url) => {
                self.resolved = self.file.url.clone();
                self.answer(start, end)
            }
            Ok(answer) => self.checked(start, end, answer),
            Err(e) => Err(e),
        }
    }

    fn answer(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let answer = request(&self.resolved, start, end)?;
        self.checked(start, end, answer)
    }

    fn checked(
        &mut self,
        start: u64,
        end: u64,
        (status, bytes, url): (u16, Vec<u8>, String),
    ) -> Result<Vec<u8>, String> {
        check_range_answer(status, start, end, bytes.len() as u64)?;
        if !url.is_empty() {
            self.resolved = url;
        }
        Ok(bytes)
    }
}

/// One range request: (status, body, the address it ended at).
fn request(url: &str, start: u64, end: u64) -> Result<(u16, Vec<u8>, String), String> {
    let range = range_header(start, end).ok_or("an empty range is never fetched")?;
    let failed = |e: wasm_bindgen::JsValue| {
        let host = web_sys::Url::new(url).map(|u| u.host()).unwrap_or_else(|_| url.to_string());
        format!("the connection to {host} failed while reading bytes {start}..{end} of the file: {}", describe_error(e))
    };
    let xhr = XmlHttpRequest::new().map_err(failed)?;
    xhr.open_with_async("GET", url, false).map_err(failed)?;
    xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    xhr.set_request_header("Range", &range).map_err(failed)?;
    xhr.send().map_err(failed)?;
    let status = xhr.status().map_err(failed)?;
    let body = xhr.response().map_err(failed)?;
    let bytes =
        if body.is_null() || body.is_undefined() { Vec::new() } else { js_sys::Uint8Array::new(&body).to_vec() };
    count_fetched(bytes.len() as u64);
    Ok((status, bytes, xhr.response_url()))
}
