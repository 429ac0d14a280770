//! A zip (a wheel) arriving whole from a host that serves no ranges, explored as it arrives
//! rather than once it has all come: a thread walks the local headers front to back as they
//! arrive (the core's `zip::local_entry`), and worker threads, one per core as for the
//! parallel explorer, explore each member the explorer would explore (`explore::arriving`) as
//! its stored bytes come in (its reads wait for them: a deflated member is inflated as it
//! arrives, a library is explored once its section headers, at its end, are in). Once the central directory (the last thing to arrive) is
//! there, the early results it confirms are kept; the members it places or sizes otherwise,
//! and those the walk could not reach, are explored then, on as many threads; and the whole
//! is merged into the tree the complete file gives. A member whose local header leaves its
//! sizes to a data descriptor after its data (a zip written by a writer that cannot seek) is
//! measured as it arrives when it is deflated (the stream ends itself, and the descriptor
//! after it gives the sizes); a stored one stops the walk, as where it ends is not known
//! before the central directory says.
//!
//! With `OFFLOAD_DEBUG=arriving` in the environment, each member explored early is said on
//! stderr with how much of the file had arrived when it was done; `OFFLOAD_DEBUG=arriving-whole`
//! explores nothing before the file has all arrived (as the CLI read such hosts before), for
//! measuring what exploring early saves (scripts/bench_remote_stream.py).

use super::{Cursor, Remote};
use crate::io::InputFile;
use offload::explore::arriving::{self, Early};
use offload::explore::shares::{self, Share, ShareMember};
use offload::explore::{Companion, Hooks, Options};
use offload::format::package::zip::{self, LocalEntry, LocalRead};
use offload::format::package::Compression;
use offload::tree::{Span, Tree};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The walk over a zip's local headers and its workers, started on a file arriving whole.
/// Dropped without [`Started::finish`] (the command failed before exploring), the download is
/// abandoned and the threads end with it.
pub struct Started {
    remote: Remote,
    walker: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<Vec<Early>>>,
}

impl Drop for Started {
    fn drop(&mut self) {
        if let (Some(_), Some(arrival)) = (&self.walker, self.remote.arrival()) {
            arrival.abandon();
        }
    }
}

/// Starts exploring the members of `remote` as they arrive, when its host sends it whole, it
/// is a zip (its first bytes, waited for, are a local header's) and `opts` let members be
/// explored apart (`arriving::early_allowed`: every image decoded).
pub fn start(remote: &Remote, opts: &Options) -> Option<Started> {
    let arrival = remote.arrival()?;
    if !arriving::early_allowed(opts) || debug_says("arriving-whole") {
        return None;
    }
    let first = arrival.read_at(0, 4).ok()?;
    if !first.starts_with(zip::LOCAL_MAGIC) {
        return None;
    }
    let (send, receive) = channel::<LocalEntry>();
    let receive = Arc::new(Mutex::new(receive));
    let declared = Arc::new(AtomicU64::new(0));
    let walker = {
        let (remote, opts) = (remote.clone(), opts.clone());
        std::thread::Builder::new().name("offload-walk".into()).spawn(move || walk(&remote, &opts, &send)).ok()?
    };
    let workers = (0..threads(opts))
        .filter_map(|_| {
            let (remote, opts, receive, declared) =
                (remote.clone(), opts.clone(), Arc::clone(&receive), Arc::clone(&declared));
            let worker = move || work(&remote, &opts, &receive, &declared);
            std::thread::Builder::new().name("offload-early".into()).spawn(worker).ok()
        })
        .collect();
    Some(Started { remote: remote.clone(), walker: Some(walker), workers })
}

/// Threads that explore members: [`Options::max_threads`], or one per core (at most 8).
fn threads(opts: &Options) -> usize {
    match opts.max_threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        n => n,
    }
}

impl Started {
    /// The tree of the whole file (its bytes `input`, shown as `name`), once it has all
    /// arrived, with the members explored early where the central directory confirms them.
    /// `None` when the file is to be explored as a whole instead: the download failed (the
    /// explorer then says where), companions are given with it, it is not a zip after all, or
    /// the directory's listing breaks the rules under which members are explored apart.
    pub fn finish<'a, R: object::ReadRef<'a>>(
        mut self,
        input: R,
        name: &str,
        opts: &Options,
        companions: &[Companion<'_>],
        hooks: Hooks<'_>,
    ) -> Option<Tree> {
        let ended = self.remote.arrival()?.wait_end();
        if let Some(walker) = self.walker.take() {
            let _ = walker.join();
        }
        let workers = std::mem::take(&mut self.workers);
        let early: Vec<Early> = workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect();
        if ended.is_err() || !companions.is_empty() {
            return None;
        }
        let listing = zip::read_skipping(input, opts.skip_by_name).ok()?;
        let whole = Span::new(0, 0, self.remote.len());
        let confirmed = arriving::confirmed(&listing, whole, opts, early)?;
        if debug_says("arriving") {
            eprintln!(
                "offload: debug: {}: the central directory confirms {} members explored early; {} explored now",
                self.remote.url(),
                confirmed.explored.len(),
                confirmed.rest.len()
            );
        }
        let mut members = confirmed.explored;
        members.extend(explore_rest(&self.remote, opts, &confirmed.rest));
        // Each was explored with a budget of its own: what one explorer going in order would
        // explore otherwise (a hostile package's nested streams) is explored again in order.
        let shares = vec![Share { base: 1, members: arriving::in_order(opts, members) }];
        Some(shares::explore_merged(input, name, opts, companions, listing, shares, hooks))
    }
}

/// Walks the local headers from the start of the file as they arrive, handing each member
/// worth exploring early to the workers; stops at the central directory, where the download
/// ends, or at a member whose end cannot be told before the directory arrives (stored, its
/// sizes left to a data descriptor).
fn walk(remote: &Remote, opts: &Options, send: &Sender<LocalEntry>) {
    let mut at = 0u64;
    while let Some(mut entry) = local_entry_at(remote, at) {
        let Some(next) = measured(remote, &mut entry, opts) else { return };
        if arriving::worth_early(&entry, opts).is_some() && send.send(entry).is_err() {
            return;
        }
        at = next;
    }
}

/// Where the record after `entry`'s data (and data descriptor) starts. A member whose local
/// header leaves its sizes to a data descriptor (a zip written by a writer that cannot seek)
/// is measured as it arrives when it is deflated: its stream ends itself; the descriptor
/// after it then gives its sizes, put on `entry`.
fn measured(remote: &Remote, entry: &mut LocalEntry, opts: &Options) -> Option<u64> {
    let arrival = remote.arrival()?;
    let start = entry.data_offset();
    let stored = match entry.sizes {
        Some((stored, _)) => stored,
        None if entry.compression == Compression::Deflate => {
            let mut pull = |buf: &mut [u8], at: u64| {
                let bytes = arrival.read_some(start.saturating_add(at), buf.len() as u64).map_err(|why| {
                    offload::Error::new(start.saturating_add(at), "deflate stream", "bytes of the download", why)
                })?;
                buf[..bytes.len()].copy_from_slice(&bytes);
                Ok(bytes.len())
            };
            offload::codec::raw_deflate_length(&mut pull, opts.max_decompressed).ok()?
        }
        None => return None,
    };
    let end = start.checked_add(stored)?;
    if !entry.has_descriptor() {
        return Some(end);
    }
    let after = arrival.read_at(end, DESCRIPTOR_READ).ok()?;
    let (size, length) = zip::read_descriptor(&after, stored)?;
    entry.sizes.get_or_insert((stored, size));
    end.checked_add(length)
}

/// Bytes read after a member's data to find its data descriptor (the longest form is 24; the
/// central directory, which follows the last member, is longer than that).
const DESCRIPTOR_READ: u64 = 24;

/// The local header at `at`, once it has arrived; `None` at the central directory (or
/// anything else that is not a local header) or when the download ends first.
fn local_entry_at(remote: &Remote, at: u64) -> Option<LocalEntry> {
    let arrival = remote.arrival()?;
    let mut wanted = 30;
    loop {
        let bytes = arrival.read_at(at, wanted).ok()?;
        match zip::local_entry(&bytes, at).ok()? {
            LocalRead::NeedBytes(more) if more > wanted => wanted = more,
            LocalRead::Entry(entry) => return Some(entry),
            LocalRead::NeedBytes(_) | LocalRead::End => return None,
        }
    }
}

/// A worker: takes the next member walked and explores it as its stored bytes arrive, while
/// the members explored early declare (with `declared`, shared by the workers) no more than
/// the package may decompress in all: a hostile zip's members are not inflated beyond what
/// the explorer of the whole file would allow.
fn work(remote: &Remote, opts: &Options, receive: &Mutex<Receiver<LocalEntry>>, declared: &AtomicU64) -> Vec<Early> {
    let mut done = Vec::new();
    let Some(arrival) = remote.arrival() else { return done };
    loop {
        let next = match receive.lock() {
            Ok(receive) => receive.recv(),
            Err(_) => break,
        };
        let Ok(entry) = next else { break };
        let Some((end, (_, size))) = entry.data_end().zip(entry.sizes) else { continue };
        let before = declared.fetch_add(size, Ordering::Relaxed);
        if before.saturating_add(size) > opts.max_package_decompressed {
            // Left to the explorer of the whole file, which says what goes past the limit.
            continue;
        }
        // Explored from now on: its reads wait for their bytes, so a deflated member is
        // inflated as it arrives (a library's section headers, at its end, come last).
        let (name, start) = (entry.name.clone(), entry.data_offset());
        // The explorer sees the file up to the member's end: all it reads of it.
        let input = object::ReadCache::new(Cursor::up_to(remote.clone(), end));
        let read = |offset: u64, size: u64| remote.read_owned(offset, size);
        let hooks =
            Hooks { read_owned: Some(&read), spill: Some(&crate::io::spill_to_temporary_file), ..Hooks::default() };
        if let Some(early) = arriving::explore_early(&input, opts, entry, hooks) {
            if debug_says("arriving") {
                let total = remote.arrival().and_then(|a| a.length()).map_or("?".to_string(), |n| n.to_string());
                eprintln!(
                    "offload: debug: {}: explored {name} (stored bytes {start}..{end}) with {} of {total} bytes arrived",
                    remote.url(),
                    arrival.arrived()
                );
            }
            done.push(early);
        }
    }
    done
}

/// Explores the members `rest` of the whole file on [`threads`] threads, each reading the file
/// through a cache of its own.
fn explore_rest(remote: &Remote, opts: &Options, rest: &[ShareMember]) -> Vec<offload::explore::MemberExplored> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads(opts).min(rest.len()) {
            scope.spawn(|| {
                let input = object::ReadCache::new(InputFile::Remote(Cursor::new(remote.clone())));
                let read = |offset: u64, size: u64| remote.read_owned(offset, size);
                while let Some(one) = rest.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let hooks = Hooks {
                        read_owned: Some(&read),
                        spill: Some(&crate::io::spill_to_temporary_file),
                        ..Hooks::default()
                    };
                    let share = shares::explore_share(&input, opts, &[], std::slice::from_ref(one), hooks);
                    if let Ok(mut results) = results.lock() {
                        results.extend(share.members);
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_default()
}

/// Whether `OFFLOAD_DEBUG` (words separated by commas) holds `word`.
fn debug_says(word: &str) -> bool {
    std::env::var("OFFLOAD_DEBUG").is_ok_and(|v| v.split(',').any(|part| part.trim() == word))
}
