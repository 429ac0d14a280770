//! A file on another site, read by a worker with synchronous range requests (a dedicated worker
//! may block on `XMLHttpRequest`, as it does on `FileReaderSync` for a `Blob`).
//!
//! What is fetched is what the CLI fetches of the same file: the core plans it
//! (`offload::explore::fetch_plan`). Reads go through a cache of extents, one per worker (every
//! reader of the file in this worker shares it): only the bytes missing are fetched, exactly
//! where no plan says more; of a zip ([`prepare`], [`plan_share`]) the local headers of the
//! members explored are fetched together first, a read in the bytes planned for a member fetches
//! through them (a [`WINDOW`] at most), and a read past them follows the core's rule (to the
//! member's end or a window further, for the inflater reading in order and for members named as
//! libraries). Requests are at most [`BLOCKING_PIECE`] bytes ([`PIECE`] when several are made
//! at once); a large read (a member's whole bytes for a
//! download) is fetched as it is, around the cache. Every request is one closed range
//! (`wire::remote::range_header`); an answer that is not exactly the bytes asked for is an error
//! that says what came. A redirect is followed by the browser; the address it led to is kept
//! and, when it stops working (a signed URL that expired), resolved again from the original.
//!
//! Unlike the CLI, a worker fetches one request at a time when the explorer needs its bytes
//! (its requests block), but for a zip's local headers, fetched before the explorer starts, and
//! a share's small planned reads, before a share worker starts, [`PARALLEL`] at a time by
//! asynchronous `fetch`es: the same bytes, in more round trips.
//!
//! [`WINDOW`]: offload::explore::fetch_plan::WINDOW
//! [`PIECE`]: crate::wire::remote::PIECE
//! [`BLOCKING_PIECE`]: crate::wire::remote::BLOCKING_PIECE

use crate::wire::js::describe_error;
use crate::wire::remote::{
    check_range_answer, pieces, pieces_of, range_header, reads_within, resolve_again, Extents, ReadPlan, RemoteFile,
    BLOCKING_PIECE, CACHE_BUDGET,
};
use offload::explore::fetch_plan::{self, MemberSpan, SEQUENTIAL_READ};
use offload::explore::shares::ShareMember;
use offload::format::package::{self, zip, Kind};
use std::cell::{Cell, RefCell};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{XmlHttpRequest, XmlHttpRequestResponseType};

/// Requests [`fetch_in_parallel`] makes at once (as the CLI fetches a zip's local headers).
const PARALLEL: usize = 16;
/// Bytes of a share's first members' planned reads fetched before it is explored, in parallel
/// ([`plan_share`]): the explorer's requests block, one at a time, between inflating a member
/// and the next (on the cupy-rocm-5-0 wheel at 100 Mbit/s and 50 ms, they were most of the
/// time). Within the cache's budget with room for a window read ahead.
const FETCH_FIRST: u64 = 32 << 20;
/// Reads larger than this many bytes are fetched as they are, not through the cache.
const DIRECT_OVER: u64 = 16 << 20;
/// How often, at most, the bytes fetched are told to [`set_on_fetch`]'s listener.
const TELL_EVERY_MS: f64 = 250.0;

/// Who hears of the bytes fetched ([`set_on_fetch`]).
type FetchListener = Box<dyn Fn(u64)>;

/// The cache of one remote file in this worker.
struct Cache {
    file: RemoteFile,
    /// Where the last request ended up after redirects (`XMLHttpRequest.responseURL`).
    resolved: String,
    extents: Extents,
    /// What the explorer will read of a zip's members ([`prepare`], [`plan_share`]).
    plan: ReadPlan,
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

/// Up to `len` bytes of `file` from `offset` (fewer at its end), for a reader that may read
/// anywhere (headers, section tables).
pub(crate) fn read_at(file: &RemoteFile, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    read(file, offset, len, false)
}

/// Up to `len` bytes of `file` from `offset` for the explorer's owned reads: one of at least
/// [`SEQUENTIAL_READ`] bytes is the inflater's, reading a member in order (as in the CLI).
pub(crate) fn read_owned(file: &RemoteFile, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    read(file, offset, len, len >= SEQUENTIAL_READ)
}

/// Bytes `offset..offset + len` of `file` when this worker's cache holds them all, without
/// fetching anything.
pub(crate) fn held(file: &RemoteFile, offset: u64, len: u64) -> Option<Vec<u8>> {
    let end = offset.saturating_add(len).min(file.size);
    with_cache(file, |cache| cache.extents.gaps(offset, end).is_empty().then(|| cache.extents.copy(offset, end)))
}

fn read(file: &RemoteFile, offset: u64, len: u64, sequential: bool) -> Result<Vec<u8>, String> {
    let end = offset.saturating_add(len).min(file.size);
    if offset >= end {
        return Ok(Vec::new());
    }
    if end - offset > DIRECT_OVER {
        return with_cache(file, |cache| cache.fetch(offset, end));
    }
    with_cache(file, |cache| cache.read_cached(offset, end, sequential))
}

/// Prepares this worker's cache of `file` for the explorer when it is a zip, as the CLI's
/// reader does: reads its central directory, fetches the local headers of the members explored
/// (with the small members between them) in as few requests as touch, and plans what the
/// explorer reads of each member. Anything else is read as asked; a zip whose directory does
/// not read is left to the explorer, which says why.
pub(crate) async fn prepare(file: &RemoteFile) -> Result<(), String> {
    let input = object::read::ReadCache::new(Reads { file, pos: 0 });
    let head = object::ReadRef::read_bytes_at(&input, 0, file.size.min(fetch_plan::HEAD)).unwrap_or(&[]);
    if package::detect(head) != Some(Kind::Zip) {
        return Ok(());
    }
    let Ok((directory, directory_start)) = zip::central_members(&input) else { return Ok(()) };
    let first = fetch_plan::first_fetch(&directory, directory_start);
    fetch_in_parallel(file, &fetch_plan::merged(first.headers, file.size)).await?;
    let Ok(listing) = zip::read_skipping(&input, true) else { return Ok(()) };
    let (reads, spans) = fetch_plan::planned(&listing.members);
    with_cache(file, |cache| cache.plan = ReadPlan::new(&reads, spans));
    Ok(())
}

/// `file` read through this worker's cache, for `object::ReadCache`: what [`prepare`] lists a
/// zip with (the explorer's own reader, `kept::SourceReader`, reads through this module too).
struct Reads<'f> {
    file: &'f RemoteFile,
    pos: u64,
}

impl object::read::ReadCacheOps for Reads<'_> {
    fn len(&mut self) -> Result<u64, ()> {
        Ok(self.file.size)
    }

    fn seek(&mut self, pos: u64) -> Result<u64, ()> {
        self.pos = pos;
        Ok(pos)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let bytes = read_at(self.file, self.pos, buf.len() as u64).map_err(|_| ())?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        self.pos += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), ()> {
        match self.read(buf)? {
            n if n == buf.len() => Ok(()),
            _ => Err(()),
        }
    }
}

/// Fetches `spans` (`start..end`) into this worker's cache of `file`, [`PARALLEL`] requests at a
/// time: a zip's local headers, one small span per member explored, would take a round trip
/// each through the blocking requests.
async fn fetch_in_parallel(file: &RemoteFile, spans: &[(u64, u64)]) -> Result<(), String> {
    let failed = |e: JsValue| format!("a range request failed: {}", describe_error(e));
    for batch in spans.chunks(PARALLEL) {
        let (url, wanted) = with_cache(file, |cache| {
            let gaps = batch.iter().flat_map(|&(a, b)| cache.extents.gaps(a, b));
            (cache.resolved.clone(), gaps.flat_map(|(a, b)| pieces(a, b)).collect::<Vec<_>>())
        });
        let requests = js_sys::Array::new();
        for &(start, end) in &wanted {
            let request: JsValue = start_fetch(&url, start, end)?.into();
            requests.push(&request);
        }
        let answers: js_sys::Array =
            JsFuture::from(js_sys::Promise::all(&requests)).await.map_err(failed)?.dyn_into().map_err(failed)?;
        for (i, &(start, end)) in wanted.iter().enumerate() {
            let answer: web_sys::Response = answers.get(i as u32).dyn_into().map_err(failed)?;
            let body = JsFuture::from(answer.array_buffer().map_err(failed)?).await.map_err(failed)?;
            let bytes = js_sys::Uint8Array::new(&body).to_vec();
            count_fetched(bytes.len() as u64);
            check_range_answer(answer.status(), start, end, bytes.len() as u64)?;
            with_cache(file, |cache| cache.extents.insert(start, bytes));
        }
    }
    Ok(())
}

/// Starts an asynchronous range request for `start..end` of `url` (the worker's own `fetch`,
/// without cookies or the browser's cache, as the page's): its promise of a `Response`.
fn start_fetch(url: &str, start: u64, end: u64) -> Result<js_sys::Promise, String> {
    let failed = |e: JsValue| format!("a range request could not be made: {}", describe_error(e));
    let range = range_header(start, end).ok_or("an empty range is never fetched")?;
    let headers = web_sys::Headers::new().map_err(failed)?;
    headers.set("Range", &range).map_err(failed)?;
    let init = web_sys::RequestInit::new();
    init.set_headers(&headers);
    init.set_mode(web_sys::RequestMode::Cors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_cache(web_sys::RequestCache::NoStore);
    let global = js_sys::global();
    let fetch: js_sys::Function =
        js_sys::Reflect::get(&global, &"fetch".into()).map_err(failed)?.dyn_into().map_err(failed)?;
    fetch.call2(&global, &url.into(), &init).map_err(failed)?.dyn_into().map_err(failed)
}

/// Plans what a share worker's explorer reads of `file`: the members of its `share`, whose
/// listing came with it (their local headers were read by the worker that split the package),
/// and fetches the small reads of that plan (members' first bytes, small members whole), then
/// the first members' planned reads up to [`FETCH_FIRST`] bytes, [`PARALLEL`] at a time, where
/// the explorer would make them one blocking request each.
///
/// `held` are the bytes of those small reads the explorer had fetched ([`held_for_share`]):
/// kept, not fetched again.
pub(crate) async fn plan_share(file: &RemoteFile, share: &[ShareMember], held: Vec<(u64, Vec<u8>)>) {
    let reads = planned_reads(share);
    let spans = share.iter().map(|m| MemberSpan::new(&m.name, m.data_offset, m.stored_size)).collect();
    with_cache(file, |cache| {
        cache.plan = ReadPlan::new(&reads, spans);
        held.into_iter().for_each(|(start, bytes)| cache.extents.insert(start, bytes));
    });
    // A failure is met again, and told, by the explorer.
    let _ = fetch_in_parallel(file, &small_reads(file, share)).await;
    let first = reads_within(&planned_reads(share), FETCH_FIRST);
    let _ = fetch_in_parallel(file, &fetch_plan::merged(first, file.size)).await;
}

/// What this worker's cache holds of the small planned reads of `share` (in a share worker, what
/// [`plan_share`] fetches): the explorer hands them to the share worker, which would fetch them
/// again, several round trips before it starts (0.8 s on the loopback for a cupy wheel, 1.8 s
/// at 100 Mbit/s and 50 ms).
pub(crate) fn held_for_share(file: &RemoteFile, share: &[ShareMember]) -> Vec<(u64, Vec<u8>)> {
    let spans = small_reads(file, share);
    with_cache(file, |cache| spans.iter().flat_map(|&(start, end)| cache.extents.held_within(start, end)).collect())
}

/// What the explorer reads of each member of `share`, `(start, size)`.
fn planned_reads(share: &[ShareMember]) -> Vec<(u64, u64)> {
    share.iter().map(|m| (m.data_offset, fetch_plan::planned_read(&m.name, m.stored_size, m.compression))).collect()
}

/// The small reads of [`planned_reads`] (members' first bytes, small members whole), merged as
/// `(start, end)`: fetched before the share is explored, where the explorer would make them one
/// blocking request each.
fn small_reads(file: &RemoteFile, share: &[ShareMember]) -> Vec<(u64, u64)> {
    let small = planned_reads(share).into_iter().filter(|&(_, size)| size <= fetch_plan::STORED_HEAD).collect();
    fetch_plan::merged(small, file.size)
}

/// `f` of this worker's cache of `file` (a new one when it held another file).
fn with_cache<T>(file: &RemoteFile, f: impl FnOnce(&mut Cache) -> T) -> T {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|cache| cache.file != *file) {
            *c = Some(Cache {
                file: file.clone(),
                resolved: file.url.clone(),
                extents: Extents::default(),
                plan: ReadPlan::default(),
            });
        }
        f(c.as_mut().expect("the cache was just made"))
    })
}

impl Cache {
    /// Bytes `start..end` from the extents held, fetching those missing (and what the plan
    /// says to fetch with them).
    fn read_cached(&mut self, start: u64, end: u64, sequential: bool) -> Result<Vec<u8>, String> {
        for (first, stop) in self.extents.gaps(start, end) {
            let through = self.plan.fetch_end(first, stop, sequential).min(self.file.size);
            self.fill(first, through)?;
        }
        let out = self.extents.copy(start, end);
        self.extents.evict(CACHE_BUDGET);
        if out.len() as u64 != end - start {
            return Err(format!("bytes {start}..{end} of the file were not all fetched"));
        }
        Ok(out)
    }

    /// Fetches what the extents lack of `start..end`, a [`BLOCKING_PIECE`] per request.
    fn fill(&mut self, start: u64, end: u64) -> Result<(), String> {
        for (a, b) in self.extents.gaps(start, end) {
            for (from, to) in pieces_of(a, b, BLOCKING_PIECE) {
                let bytes = self.fetch(from, to)?;
                self.extents.insert(from, bytes);
            }
        }
        Ok(())
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
