//! Files read over HTTP(S) by range requests, so that every reading command takes a URL and
//! reads only what it needs: a zip's end records and central directory, the local headers of
//! its members, and the stored bytes of the members that can hold device code; of a raw ELF,
//! its header, section headers and offload sections.
//!
//! - The size comes from the `Content-Range` of a first `bytes=0-65535` request ([`http`]).
//! - Bytes read are kept in a cache of extents (at most [`CACHE_BUDGET`] bytes, the oldest
//!   dropped first). Reads through the input's `ReadRef` fetch exactly the bytes asked for
//!   (headers, section tables, offload sections: what a format reads is all it needs); the
//!   stored bytes of a deflated member, read in order by the inflater ([`Remote::read_owned`]),
//!   are fetched ahead up to the member's end, [`WINDOW`] bytes at a time in [`BLOCK`]-sized
//!   requests made in parallel. [`Remote::prefetch`] fetches many small spans (a zip's local
//!   headers) in parallel.
//! - A redirect to another origin is followed; when the URL it led to answers 403 or 410 later
//!   (a signed URL that expired), the original URL is resolved again and the read retried.
//! - A host that ignores `Range` sends the whole file: it is written, as it arrives, to an
//!   unlinked temporary file and read from there, never held in memory.

pub mod http;
mod zip;

use crate::fail::{Failure, Outcome};
use http::{Opened, RangeError};
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

pub use zip::prepare;

/// Where a member's stored bytes lie, and whether its name says it is a library (read ahead
/// from its first read on).
pub type MemberSpan = (u64, u64, bool);

/// Bytes of one range request made while reading ahead.
pub const BLOCK: u64 = 8 << 20;
/// Bytes read ahead of the inflater in a member: [`BLOCK`]s fetched in parallel.
pub const WINDOW: u64 = 4 * BLOCK;
/// Most bytes the extent cache keeps.
pub const CACHE_BUDGET: u64 = 192 << 20;
/// Most requests in flight at once when many small spans are fetched.
const PARALLEL_SMALL: usize = 16;
/// A read through `read_owned` of at least this many bytes is the inflater's: read ahead.
const SEQUENTIAL_READ: u64 = 256 << 10;

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
}

enum Backing {
    /// The host serves ranges: the cache of what was fetched, and the spans of the members a
    /// read may run ahead in.
    Ranges { cache: Mutex<Extents>, members: Mutex<Vec<MemberSpan>> },
    /// The host sent the whole file: it lies in this unlinked temporary file.
    Downloaded(File),
}

impl Remote {
    /// The file at `url`, opened once per run.
    pub fn open(url: &str) -> Outcome<Remote> {
        if let Some(found) = Remote::opened(url) {
            return Ok(found);
        }
        let agent = http::agent();
        let opened = http::open(&agent, url).map_err(Failure::new)?;
        let (location, size, backing, fetched) = match opened {
            Opened::Ranged { location, size, head } => {
                let fetched = head.len() as u64;
                let mut cache = Extents::default();
                cache.insert(0, head);
                (location, size, Backing::Ranges { cache: Mutex::new(cache), members: Mutex::new(Vec::new()) }, fetched)
            }
            Opened::Whole { location, length, body } => {
                let (file, size) = download(url, length, body)?;
                (location, size, Backing::Downloaded(file), size)
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
        };
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

    pub fn len(&self) -> u64 {
        self.inner.size
    }

    pub fn is_empty(&self) -> bool {
        self.inner.size == 0
    }

    /// Bytes fetched so far and requests made (a whole download counts once).
    pub fn fetched(&self) -> (u64, u64) {
        (self.inner.fetched.load(Ordering::Relaxed), self.inner.requests.load(Ordering::Relaxed))
    }

    /// Says where reads may run ahead: the stored bytes of each member explored.
    pub fn set_members(&self, mut spans: Vec<MemberSpan>) {
        if let Backing::Ranges { members, .. } = &self.inner.backing {
            spans.sort_unstable();
            if let Ok(mut members) = members.lock() {
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
        let read = self.read_uncounted(offset, size, ahead);
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
        let end = offset.checked_add(size).filter(|&e| e <= self.inner.size).ok_or_else(|| {
            format!(
                "{}: bytes {offset}..+{size} asked for, past the end of its {} bytes",
                self.inner.url, self.inner.size
            )
        })?;
        let wanted = usize::try_from(size).map_err(|_| format!("{}: a read of {size} bytes", self.inner.url))?;
        let (cache, members) = match &self.inner.backing {
            Backing::Downloaded(file) => return read_file_at(&self.inner.url, file, offset, wanted),
            Backing::Ranges { cache, members } => (cache, members),
        };
        let gaps = lock(cache)?.gaps(offset, end);
        let mut fetches = Vec::new();
        for (start, stop) in gaps {
            let stop = self.ahead_to(members, start, stop, ahead)?;
            fetches.extend(blocks(start, stop));
        }
        let fetched = self.fetch_all(&fetches, fetches.len().min(4))?;
        let mut out = Vec::with_capacity(wanted);
        let mut cache = lock(cache)?;
        for ((start, _), bytes) in fetches.iter().zip(fetched) {
            cache.insert(*start, bytes);
        }
        cache.copy(offset, end, &mut out);
        cache.evict(CACHE_BUDGET);
        drop(cache);
        if out.len() != wanted {
            return Err(format!("{}: bytes {offset}..{end} not all fetched", self.inner.url));
        }
        Ok(out)
    }

    /// Where a read of a member's stored bytes that starts a gap at `start` runs to: the
    /// member's end or a [`WINDOW`] further, whichever is nearer (never less than `stop`),
    /// when the inflater reads in order (`sequential`) or the member is named as a library;
    /// else `stop`.
    fn ahead_to(
        &self,
        members: &Mutex<Vec<MemberSpan>>,
        start: u64,
        stop: u64,
        sequential: bool,
    ) -> Result<u64, String> {
        let members = lock(members)?;
        let index = members.partition_point(|&(at, _, _)| at <= start);
        let Some(&(at, size, library)) = index.checked_sub(1).and_then(|i| members.get(i)) else { return Ok(stop) };
        let member_end = at.saturating_add(size);
        if start >= member_end || !(sequential || library) {
            return Ok(stop);
        }
        Ok(member_end.min(start.saturating_add(WINDOW)).max(stop))
    }

    /// Fetches many small spans (a zip's local headers) in parallel into the cache; touching
    /// spans are asked for together.
    pub fn prefetch(&self, mut spans: Vec<(u64, u64)>) -> Outcome<()> {
        let Backing::Ranges { cache, .. } = &self.inner.backing else { return Ok(()) };
        spans.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (at, size) in spans {
            let end = at.saturating_add(size).min(self.inner.size);
            if at >= end {
                continue;
            }
            match merged.last_mut() {
                Some(last) if at <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((at, end)),
            }
        }
        let gaps = {
            let cache = lock(cache).map_err(Failure::new)?;
            merged.iter().flat_map(|&(a, b)| cache.gaps(a, b)).collect::<Vec<_>>()
        };
        let fetched = self.fetch_all(&gaps, PARALLEL_SMALL).map_err(Failure::new)?;
        let mut cache = lock(cache).map_err(Failure::new)?;
        for ((start, _), bytes) in gaps.iter().zip(fetched) {
            cache.insert(*start, bytes);
        }
        Ok(())
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
        inner.fetched.fetch_add(bytes.len() as u64, Ordering::Relaxed);
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

/// The bytes fetched, by where they start; the oldest dropped first past a budget.
#[derive(Default)]
struct Extents {
    by_start: BTreeMap<u64, Arc<Vec<u8>>>,
    order: VecDeque<u64>,
    bytes: u64,
}

impl Extents {
    fn insert(&mut self, start: u64, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        self.bytes += bytes.len() as u64;
        if let Some(old) = self.by_start.insert(start, Arc::new(bytes)) {
            self.bytes -= old.len() as u64;
        } else {
            self.order.push_back(start);
        }
    }

    /// The parts of `start..end` no extent holds.
    fn gaps(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = start;
        while at < end {
            match self.covering(at) {
                Some(stop) => at = stop,
                None => {
                    let next = self.by_start.range(at..end).next().map(|(&s, _)| s).unwrap_or(end);
                    gaps.push((at, next));
                    at = next;
                }
            }
        }
        gaps
    }

    /// The end of an extent holding the byte at `at`, the furthest one if several do.
    fn covering(&self, at: u64) -> Option<u64> {
        self.by_start.range(..=at).rev().take(8).map(|(&s, b)| s + b.len() as u64).filter(|&e| e > at).max()
    }

    /// Appends `start..end` to `out`, as far as extents hold it.
    fn copy(&self, start: u64, end: u64, out: &mut Vec<u8>) {
        let mut at = start;
        while at < end {
            let found = self.by_start.range(..=at).rev().take(8).find(|(&s, b)| s + b.len() as u64 > at);
            let Some((&s, bytes)) = found else { return };
            let from = (at - s) as usize;
            let to = ((end - s) as usize).min(bytes.len());
            out.extend_from_slice(&bytes[from..to]);
            at = s + to as u64;
        }
    }

    /// Drops the oldest extents until at most `budget` bytes are kept.
    fn evict(&mut self, budget: u64) {
        while self.bytes > budget {
            let Some(start) = self.order.pop_front() else { return };
            if let Some(old) = self.by_start.remove(&start) {
                self.bytes -= old.len() as u64;
            }
        }
    }
}

/// Writes a whole body, as it arrives, to an unlinked temporary file: the file and its size.
fn download(url: &str, length: Option<u64>, mut body: ureq::BodyReader<'static>) -> Outcome<(File, u64)> {
    let told = length.map(|n| format!(" ({n} bytes)")).unwrap_or_default();
    eprintln!("offload: note: {url}: the host ignores `Range`; reading the whole file{told} into a temporary file");
    let mut file = crate::temporary::unlinked_file()
        .ok_or_else(|| Failure::new(format!("{url}: cannot make a temporary file for the download")))?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut size = 0u64;
    let mut writer = std::io::BufWriter::with_capacity(4 << 20, &mut file);
    loop {
        let n = body
            .read(&mut buffer)
            .map_err(|e| Failure::new(format!("{url}: download failed after {size} bytes: {e}")))?;
        if n == 0 {
            break;
        }
        writer.write_all(&buffer[..n]).map_err(|e| Failure::new(format!("{url}: writing the temporary file: {e}")))?;
        size += n as u64;
    }
    writer.flush().map_err(|e| Failure::new(format!("{url}: writing the temporary file: {e}")))?;
    drop(writer);
    if let Some(expected) = length.filter(|&n| n != size) {
        return Err(Failure::new(format!(
            "{url}: expected {expected} bytes (`Content-Length`), the download ended after {size}"
        )));
    }
    Ok((file, size))
}

fn read_file_at(url: &str, file: &File, offset: u64, size: usize) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0; size];
    file.read_exact_at(&mut bytes, offset).map_err(|e| format!("{url}: reading the downloaded copy: {e}"))?;
    Ok(bytes)
}

/// A read position on a [`Remote`]: what `object::ReadCache` reads through.
pub struct Cursor {
    remote: Remote,
    position: u64,
}

impl Cursor {
    pub fn new(remote: Remote) -> Cursor {
        Cursor { remote, position: 0 }
    }
}

impl Read for Cursor {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.remote.len().saturating_sub(self.position);
        let size = left.min(buf.len() as u64);
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
            SeekFrom::End(d) => self.remote.len().checked_add_signed(d),
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
    fn extents_find_gaps_and_copy_across_pieces() {
        let mut e = Extents::default();
        e.insert(10, vec![1; 10]);
        e.insert(30, vec![2; 10]);
        assert_eq!(e.gaps(0, 50), vec![(0, 10), (20, 30), (40, 50)]);
        assert_eq!(e.gaps(12, 18), vec![]);
        e.insert(20, vec![3; 10]);
        let mut out = Vec::new();
        e.copy(15, 35, &mut out);
        assert_eq!(out, [vec![1; 5], vec![3; 10], vec![2; 5]].concat());
        // The two oldest go; the one inserted last stays.
        e.evict(15);
        assert_eq!(e.bytes, 10);
        assert_eq!(e.gaps(10, 40), vec![(10, 20), (30, 40)]);
    }

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
