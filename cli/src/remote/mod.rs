//! Files read over HTTP(S) by range requests, so that every reading command takes a URL and
//! reads only what it needs: a zip's end records and central directory, the local headers of
//! its members, and the stored bytes of the members that can hold device code; of a raw ELF,
//! its header, section headers and offload sections.
//!
//! - The size comes from the `Content-Range` of a first `bytes=0-65535` request ([`http`]).
//! - Bytes read are kept in a cache of extents ([`extents`]: at most [`CACHE_BUDGET`] bytes,
//!   the oldest dropped first, bytes fetched ahead and unread last). Reads through the input's
//!   `ReadRef` fetch exactly the bytes asked for (headers, section tables, offload sections:
//!   what a format reads is all it needs). Of a zip, what the explorer will read of each member
//!   is fetched ahead of it by threads of their own ([`ahead`], planned by [`zip`]); a reader
//!   needing bytes being fetched waits for them. Where nothing is planned, the stored bytes of
//!   a deflated member, read in order by the inflater ([`Remote::read_owned`]), are fetched
//!   ahead up to the member's end, [`WINDOW`] bytes at a time in [`BLOCK`]-sized requests made
//!   in parallel. [`Remote::prefetch`] fetches many small spans (a zip's local headers) in
//!   parallel.
//! - On a terminal, the bytes fetched of the file's size are drawn on stderr ([`progress`]).
//! - A redirect to another origin is followed; when the URL it led to answers 403 or 410 later
//!   (a signed URL that expired), the original URL is resolved again and the read retried.
//! - A host that ignores `Range` sends the whole file: it is written, as it arrives, to an
//!   unlinked temporary file, never held in memory, and a read waits until the bytes it asks
//!   for have arrived ([`arrival`]); a zip's members are explored as they arrive ([`early`]).

mod ahead;
mod arrival;
pub mod early;
mod extents;
pub mod http;
mod progress;
mod zip;

use crate::fail::{Failure, Outcome};
use extents::{without, Extents};
use http::{Opened, RangeError};
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

pub use progress::show_progress;
pub use zip::prepare;

pub use offload::explore::fetch_plan::{MemberSpan, SEQUENTIAL_READ, WINDOW};

/// Bytes of one range request made while reading ahead.
pub const BLOCK: u64 = 8 << 20;
/// Most bytes the extent cache keeps.
pub const CACHE_BUDGET: u64 = 192 << 20;
/// Most requests in flight at once when many small spans are fetched.
const PARALLEL_SMALL: usize = 16;

/// Whether a command's file argument is a URL this reader takes.
pub fn is_url(text: &str) -> bool {
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The remote files open now, by URL: a command opens its input once and every part of it
/// (the explorer's `ReadRef`, the inflater's reads) shares the one cache. Held weakly: once a
/// command is done with a file, its cache goes, and the next command (in a long-lived
/// process: the Python module) reads the file afresh.
static OPENED: Mutex<Vec<(String, Weak<Inner>)>> = Mutex::new(Vec::new());

/// A file read over HTTP; clones share the connection pool and the cache.
#[derive(Clone)]
pub struct Remote {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    agent: ureq::Agent,
    /// Where the URL led after redirects: where ranges are asked for.
    location: Mutex<String>,
    size: u64,
    backing: Backing,
    fetched: AtomicU64,
    requests: AtomicU64,
    /// The first read that failed: readers through `object::ReadRef` learn only that a read
    /// failed, the command says why ([`Remote::failure`]).
    failure: Mutex<Option<String>>,
    /// Bytes fetched of the file's size, drawn on a terminal ([`progress`]).
    progress: progress::Bar,
}

enum Backing {
    /// The host serves ranges.
    Ranges(Box<Ranges>),
    /// The host is sending the whole file, into an unlinked temporary file.
    Arriving(Arc<arrival::Arrival>),
}

/// What is known of a file read by ranges.
struct Ranges {
    store: Mutex<Store>,
    /// Told when bytes land or a reader reads: readers wait for bytes being fetched, the
    /// fetchers ahead for room in their window.
    changed: Condvar,
    /// The spans of the members a read may run ahead in.
    members: Mutex<Vec<MemberSpan>>,
}

/// The bytes fetched, those being fetched (by readers or ahead), and the plan of what to
/// fetch ahead.
#[derive(Default)]
struct Store {
    extents: Extents,
    in_flight: Vec<(u64, u64)>,
    plan: ahead::Plan,
}

impl Remote {
    /// The file at `url`, opened once per run.
    pub fn open(url: &str) -> Outcome<Remote> {
        if let Some(found) = Remote::opened(url) {
            return Ok(found);
        }
        let agent = http::agent();
        let opened = http::open(&agent, url).map_err(Failure::new)?;
        let (location, size, backing, fetched, bar) = match opened {
            Opened::Ranged { location, size, head } => {
                let fetched = head.len() as u64;
                let mut store = Store::default();
                store.extents.insert(0, head, None);
                let ranges =
                    Ranges { store: Mutex::new(store), changed: Condvar::new(), members: Mutex::new(Vec::new()) };
                (location, size, Backing::Ranges(Box::new(ranges)), fetched, progress::Bar::new(url, Some(size)))
            }
            Opened::Whole { location, length, body } => {
                let arrival = arrival::Arrival::start(url, length, body, progress::Bar::new(url, length))?;
                // The size is the arrival's to tell ([`Remote::len`]).
                (location, 0, Backing::Arriving(arrival), 0, progress::Bar::hidden())
            }
        };
        let inner = Inner {
            url: url.to_string(),
            agent,
            location: Mutex::new(location),
            size,
            backing,
            fetched: AtomicU64::new(fetched),
            requests: AtomicU64::new(1),
            failure: Mutex::new(None),
            progress: bar,
        };
        inner.progress.set(fetched);
        let remote = Remote { inner: Arc::new(inner) };
        if let Ok(mut opened) = OPENED.lock() {
            opened.retain(|(_, weak)| weak.strong_count() > 0);
            opened.push((url.to_string(), Arc::downgrade(&remote.inner)));
        }
        Ok(remote)
    }

    /// The file at `url` if it is open now.
    pub fn opened(url: &str) -> Option<Remote> {
        let opened = OPENED.lock().ok()?;
        opened.iter().rev().filter(|(u, _)| u == url).find_map(|(_, weak)| weak.upgrade()).map(|inner| Remote { inner })
    }

    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The file's size; of a file arriving whole without a `Content-Length`, known once it
    /// has all arrived (this waits for it).
    pub fn len(&self) -> u64 {
        match &self.inner.backing {
            Backing::Arriving(arrival) => arrival.size(),
            Backing::Ranges(_) => self.inner.size,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes fetched so far and requests made (a whole download counts once).
    pub fn fetched(&self) -> (u64, u64) {
        if let Backing::Arriving(arrival) = &self.inner.backing {
            return (arrival.arrived(), 1);
        }
        (self.inner.fetched.load(Ordering::Relaxed), self.inner.requests.load(Ordering::Relaxed))
    }

    /// The file as it arrives, when its host sends it whole.
    fn arrival(&self) -> Option<&arrival::Arrival> {
        match &self.inner.backing {
            Backing::Arriving(arrival) => Some(arrival),
            Backing::Ranges(_) => None,
        }
    }

    /// Whether the host serves ranges (else the file arrives whole, front to back).
    pub fn serves_ranges(&self) -> bool {
        matches!(self.inner.backing, Backing::Ranges(_))
    }

    /// Says where reads may run ahead: the stored bytes of each member explored.
    pub fn set_members(&self, mut spans: Vec<MemberSpan>) {
        if let Backing::Ranges(ranges) = &self.inner.backing {
            spans.sort_unstable();
            if let Ok(mut members) = ranges.members.lock() {
                *members = spans;
            }
        }
    }

    /// The `size` bytes at `offset`, fetched exactly where not already fetched.
    pub fn read_at(&self, offset: u64, size: u64) -> Result<Vec<u8>, String> {
        self.read(offset, size, false)
    }

    /// The `size` bytes at `offset` for the inflater, which reads a member's stored bytes in
    /// order: fetched ahead to the member's end, a [`WINDOW`] at a time.
    pub fn read_owned(&self, offset: u64, size: u64) -> Option<Vec<u8>> {
        self.read(offset, size, size >= SEQUENTIAL_READ).ok()
    }

    fn read(&self, offset: u64, size: u64, ahead: bool) -> Result<Vec<u8>, String> {
        self.noted(self.read_uncounted(offset, size, ahead))
    }

    /// `read`, its failure kept as the first if it is ([`Remote::failure`]).
    fn noted(&self, read: Result<Vec<u8>, String>) -> Result<Vec<u8>, String> {
        if let Err(message) = &read {
            if let Ok(mut failure) = self.inner.failure.lock() {
                failure.get_or_insert_with(|| message.clone());
            }
        }
        read
    }

    /// Why the first read that failed did, if one did.
    pub fn failure(&self) -> Option<String> {
        self.inner.failure.lock().ok().and_then(|f| f.clone())
    }

    fn read_uncounted(&self, offset: u64, size: u64, ahead: bool) -> Result<Vec<u8>, String> {
        let ranges = match &self.inner.backing {
            Backing::Arriving(arrival) => return arrival.read_at(offset, size),
            Backing::Ranges(ranges) => ranges,
        };
        let end = offset.checked_add(size).filter(|&e| e <= self.inner.size).ok_or_else(|| {
            format!(
                "{}: bytes {offset}..+{size} asked for, past the end of its {} bytes",
                self.inner.url, self.inner.size
            )
        })?;
        let wanted = usize::try_from(size).map_err(|_| format!("{}: a read of {size} bytes", self.inner.url))?;
        let mut store = lock(&ranges.store)?;
        let planned = store.plan.block_at(offset);
        if let Some((member, _)) = planned {
            let Store { plan, extents, .. } = &mut *store;
            plan.note_read(member, extents);
            ranges.changed.notify_all();
        }
        loop {
            let needed = store.extents.gaps(offset, end);
            if needed.is_empty() {
                break;
            }
            let free = without(needed, &store.in_flight);
            let Some(&(first, _)) = free.first() else {
                // All that is missing is being fetched (ahead, or by another reader).
                store =
                    ranges.changed.wait(store).map_err(|_| "a thread reading the remote file failed".to_string())?;
                continue;
            };
            // Planned bytes still to be fetched ahead: this reader fetches the block it needs
            // and leaves the rest to the fetchers; elsewhere it reads ahead itself.
            let stop = match planned {
                Some(_) if store.plan.active() => store.plan.block_at(end - 1).map_or(end, |(_, e)| e.max(end)),
                _ => self.ahead_to(&ranges.members, first, end, ahead)?,
            };
            let todo = without(store.extents.gaps(first, stop), &store.in_flight);
            let fetches: Vec<(u64, u64)> = todo.iter().flat_map(|&(a, b)| blocks(a, b)).collect();
            store.in_flight.extend(&todo);
            drop(store);
            let fetched = self.fetch_all(&fetches, fetches.len().min(4));
            store = lock(&ranges.store)?;
            store.in_flight.retain(|span| !todo.contains(span));
            ranges.changed.notify_all();
            for ((start, _), bytes) in fetches.iter().zip(fetched?) {
                store.extents.insert(*start, bytes, None);
            }
        }
        let mut out = Vec::with_capacity(wanted);
        store.extents.copy(offset, end, &mut out);
        store.extents.evict(CACHE_BUDGET);
        drop(store);
        if out.len() != wanted {
            return Err(format!("{}: bytes {offset}..{end} not all fetched", self.inner.url));
        }
        Ok(out)
    }

    /// Where a read that starts a gap at `start` runs to (the core's rule, which the page
    /// follows too: `fetch_plan::read_ahead_end`).
    fn ahead_to(
        &self,
        members: &Mutex<Vec<MemberSpan>>,
        start: u64,
        stop: u64,
        sequential: bool,
    ) -> Result<u64, String> {
        Ok(offload::explore::fetch_plan::read_ahead_end(&lock(members)?, start, stop, sequential))
    }

    /// Fetches many small spans (a zip's local headers) in parallel into the cache; touching
    /// spans are asked for together.
    pub fn prefetch(&self, spans: Vec<(u64, u64)>) -> Outcome<()> {
        let Backing::Ranges(ranges) = &self.inner.backing else { return Ok(()) };
        let merged = offload::explore::fetch_plan::merged(spans, self.inner.size);
        // What is neither held nor being fetched ahead; marked as being fetched meanwhile.
        let gaps = {
            let mut store = lock(&ranges.store).map_err(Failure::new)?;
            let gaps = merged.iter().flat_map(|&(a, b)| store.extents.gaps(a, b)).collect();
            let gaps: Vec<(u64, u64)> =
                without(gaps, &store.in_flight).into_iter().flat_map(|(a, b)| blocks(a, b)).collect();
            store.in_flight.extend(&gaps);
            gaps
        };
        let fetched = self.fetch_all(&gaps, PARALLEL_SMALL);
        let mut store = lock(&ranges.store).map_err(Failure::new)?;
        store.in_flight.retain(|span| !gaps.contains(span));
        ranges.changed.notify_all();
        for ((start, _), bytes) in gaps.iter().zip(fetched.map_err(Failure::new)?) {
            store.extents.insert(*start, bytes, None);
        }
        Ok(())
    }

    /// Fetches `spans` (`(start, size)` of the bytes the explorer will read of each member, in
    /// the order it reads them) ahead of it, on threads of their own ([`ahead`]).
    pub fn fetch_ahead(&self, spans: &[(u64, u64)]) {
        let Backing::Ranges(ranges) = &self.inner.backing else { return };
        if let Ok(mut store) = ranges.store.lock() {
            store.plan.replan(spans);
        }
        ahead::start(self);
    }

    /// No more fetching ahead, and no more progress drawn: the explorer is done.
    pub fn stop_ahead(&self) {
        self.inner.progress.finish();
        if let Backing::Ranges(ranges) = &self.inner.backing {
            if let Ok(mut store) = ranges.store.lock() {
                store.plan.stopped = true;
            }
            ranges.changed.notify_all();
        }
    }

    /// Fetches `spans` (`start..end`), up to `parallel` at once, in order.
    fn fetch_all(&self, spans: &[(u64, u64)], parallel: usize) -> Result<Vec<Vec<u8>>, String> {
        if spans.len() <= 1 || parallel <= 1 {
            return spans.iter().map(|&(a, b)| self.fetch(a, b)).collect();
        }
        let next = AtomicUsize::new(0);
        let results: Vec<Slot> = spans.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..parallel.min(spans.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(a, b)) = spans.get(i) else { break };
                    let result = self.fetch(a, b);
                    let failed = result.is_err();
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(result);
                    }
                    if failed {
                        // The others stop at their next span: one error is enough.
                        next.store(spans.len(), Ordering::Relaxed);
                    }
                });
            }
        });
        results
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Err(format!("{}: a fetch was abandoned", self.inner.url)))
            })
            .collect()
    }

    /// One range request for `start..end`; a URL that redirected and now refuses (an expired
    /// signature) is resolved again from the original URL, once, and a dropped connection is
    /// retried once.
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let inner = &self.inner;
        let location = lock(&inner.location)?.clone();
        let first = http::range(&inner.agent, &inner.url, &location, start, end);
        let bytes = match first {
            Ok(bytes) => bytes,
            Err(RangeError::Refused(message)) if location != inner.url => {
                let renewed = self.resolve_again().map_err(|e| format!("{message}; resolving the URL again: {e}"))?;
                http::range(&inner.agent, &inner.url, &renewed, start, end).map_err(RangeError::message)?
            }
            Err(RangeError::Refused(message)) => return Err(message),
            Err(RangeError::Other(_)) => {
                inner.requests.fetch_add(1, Ordering::Relaxed);
                http::range(&inner.agent, &inner.url, &location, start, end).map_err(RangeError::message)?
            }
        };
        inner.requests.fetch_add(1, Ordering::Relaxed);
        let total = inner.fetched.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
        inner.progress.set(total);
        Ok(bytes)
    }

    /// Follows the original URL's redirects again: where it leads now.
    fn resolve_again(&self) -> Result<String, String> {
        let inner = &self.inner;
        let location = match http::open(&inner.agent, &inner.url)? {
            Opened::Ranged { location, size, .. } if size == inner.size => location,
            Opened::Ranged { size, .. } => {
                return Err(format!("{}: the file is now {size} bytes, it was {}", inner.url, inner.size));
            }
            Opened::Whole { .. } => return Err(format!("{}: no longer serves ranges", inner.url)),
        };
        *lock(&inner.location)? = location.clone();
        Ok(location)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // No command reads the file any more: a download still running stops.
        if let Backing::Arriving(arrival) = &self.backing {
            arrival.abandon();
        }
    }
}

/// Where a parallel fetch leaves its bytes, or why it failed.
type Slot = Mutex<Option<Result<Vec<u8>, String>>>;

fn lock<T>(mutex: &Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>, String> {
    mutex.lock().map_err(|_| "a thread reading the remote file failed".to_string())
}

/// `start..stop` cut into [`BLOCK`]s.
fn blocks(start: u64, stop: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = start;
    while at < stop {
        let end = stop.min(at.saturating_add(BLOCK));
        out.push((at, end));
        at = end;
    }
    out
}

/// A read position on a [`Remote`]: what `object::ReadCache` reads through.
pub struct Cursor {
    remote: Remote,
    position: u64,
    /// Where the file ends for this reader: the first bytes only, for an early member's explorer
    /// ([`Cursor::up_to`]); the whole file where `None`.
    end: Option<u64>,
}

impl Cursor {
    pub fn new(remote: Remote) -> Cursor {
        Cursor { remote, position: 0, end: None }
    }

    /// A cursor on the first `len` bytes of an arriving file, read as they arrive: a member
    /// explored before the end, whose explorer reads nothing past the member (the file's size
    /// is not known before the end, and not needed).
    pub fn up_to(remote: Remote, len: u64) -> Cursor {
        Cursor { remote, position: 0, end: Some(len) }
    }

    /// Where the file ends for this reader, as far as is known.
    fn end(&self) -> u64 {
        self.end.unwrap_or_else(|| self.remote.len())
    }
}

impl Read for Cursor {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let (Some(arrival), None) = (self.remote.arrival(), self.end) {
            // What has arrived: the size may be known only at the end.
            let some = self.remote.noted(arrival.read_some(self.position, buf.len() as u64));
            let bytes = some.map_err(std::io::Error::other)?;
            buf[..bytes.len()].copy_from_slice(&bytes);
            self.position += bytes.len() as u64;
            return Ok(bytes.len());
        }
        let size = self.end().saturating_sub(self.position).min(buf.len() as u64);
        if size == 0 {
            return Ok(0);
        }
        let bytes = self.remote.read_at(self.position, size).map_err(std::io::Error::other)?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        self.position += bytes.len() as u64;
        Ok(bytes.len())
    }
}

impl Seek for Cursor {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let target = match pos {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.end().checked_add_signed(d),
            SeekFrom::Current(d) => self.position.checked_add_signed(d),
        };
        let target =
            target.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start"))?;
        self.position = target;
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("https://files.pythonhosted.org/x.whl"));
        assert!(is_url("HTTP://host/x"));
        assert!(!is_url("./http:/x"));
        assert!(!is_url("ftp://host/x"));
    }

    #[test]
    fn reads_are_cut_into_blocks() {
        assert_eq!(blocks(0, BLOCK + 1), vec![(0, BLOCK), (BLOCK, BLOCK + 1)]);
        assert!(blocks(5, 5).is_empty());
    }
}
