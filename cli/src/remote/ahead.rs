//! Fetching ahead of the explorer: once a zip's listing is known, so are the bytes the
//! explorer will read of each member, in the order it reads them (the whole stored bytes of a
//! library, the first bytes of anything else). A few threads fetch them in that order, in
//! [`BLOCK`]s, into the extent cache while the explorer inflates what has arrived, so that
//! the network and the inflater work at the same time.
//!
//! Bounded: at most [`AHEAD`] bytes fetched ahead and not yet read, and [`IN_FLIGHT`] bytes
//! being fetched at once (two blocks: enough to hide a round trip, few enough that the block
//! the explorer waits for is not slowed by many others). Only planned bytes are fetched, and
//! no byte twice: a reader that needs bytes being fetched waits for them, and the fetchers
//! skip what a reader fetched itself or went past.

use super::extents::{without, Extents};
use super::{lock, Backing, Inner, Remote};
use std::sync::Weak;
use std::thread::ThreadId;
use std::time::Duration;

/// Bytes of one request fetched ahead.
pub const BLOCK: u64 = 4 << 20;
/// Most bytes fetched ahead and not yet read.
pub const AHEAD: u64 = 48 << 20;
/// Most bytes being fetched ahead at once.
const IN_FLIGHT: u64 = 2 * BLOCK;
/// Threads fetching ahead (many small members are fetched together, a round trip each).
const FETCHERS: usize = 8;

/// What is to be fetched, and how far the fetchers and the readers have come.
#[derive(Default)]
pub struct Plan {
    /// The blocks, in the order the explorer reads them: `(start, end, member)`, members
    /// numbered in that order.
    blocks: Vec<(u64, u64, usize)>,
    /// The first block not yet taken by a fetcher.
    next: usize,
    /// Each member's planned span, by start: `(start, end, member)`.
    spans: Vec<(u64, u64, usize)>,
    /// The member each thread that read planned bytes read last.
    readers: Vec<(ThreadId, usize)>,
    /// Bytes being fetched ahead now.
    in_flight: u64,
    /// No more fetching ahead: the command is done, or a fetch failed (the readers then fetch
    /// what they need themselves, and say why that failed).
    pub stopped: bool,
    /// Fetcher threads running.
    fetchers: usize,
}

/// What a fetcher does next.
pub enum Next {
    Fetch(u64, u64, usize),
    Wait,
    Done,
}

impl Plan {
    /// A plan for `spans` (`(start, size)` of the bytes read of each member, in the order the
    /// explorer reads them).
    pub fn new(spans: &[(u64, u64)]) -> Plan {
        let mut plan = Plan::default();
        for (member, &(start, size)) in spans.iter().enumerate() {
            let end = start.saturating_add(size);
            if size == 0 {
                continue;
            }
            plan.spans.push((start, end, member));
            let mut at = start;
            while at < end {
                let stop = end.min(at.saturating_add(BLOCK));
                plan.blocks.push((at, stop, member));
                at = stop;
            }
        }
        plan.spans.sort_unstable();
        plan
    }

    /// Plans `spans` instead (members numbered as before), keeping the fetchers running and
    /// counting their fetches under way.
    pub fn replan(&mut self, spans: &[(u64, u64)]) {
        let (fetchers, in_flight) = (self.fetchers, self.in_flight);
        *self = Plan::new(spans);
        (self.fetchers, self.in_flight) = (fetchers, in_flight);
    }

    /// Whether blocks are still to be fetched ahead.
    pub fn active(&self) -> bool {
        !self.stopped && self.next < self.blocks.len()
    }

    /// The planned member whose span holds the byte at `offset`, and the end of its block
    /// holding it.
    pub fn block_at(&self, offset: u64) -> Option<(usize, u64)> {
        let i = self.spans.partition_point(|&(start, _, _)| start <= offset).checked_sub(1)?;
        let (start, end, member) = self.spans[i];
        if offset >= end {
            return None;
        }
        let block_end = start + ((offset - start) / BLOCK + 1) * BLOCK;
        Some((member, block_end.min(end)))
    }

    /// Notes that this thread reads `member`: what fetched ahead for members before it, and
    /// which no other thread is reading, is no longer pending in `extents`.
    pub fn note_read(&mut self, member: usize, extents: &mut Extents) {
        let thread = std::thread::current().id();
        match self.readers.iter_mut().find(|(t, _)| *t == thread) {
            Some((_, last)) if *last == member => return,
            Some((_, last)) => *last = member,
            None => self.readers.push((thread, member)),
        }
        let readers = &self.readers;
        extents.release(|m| m < member && !readers.iter().any(|&(_, r)| r == m));
    }

    /// Whether readers went past `member` without it being any thread's current member.
    fn passed(&self, member: usize) -> bool {
        let furthest = self.readers.iter().map(|&(_, m)| m).max();
        furthest.is_some_and(|f| member < f) && !self.readers.iter().any(|&(_, m)| m == member)
    }

    /// The next span to fetch ahead: the first planned bytes neither held, nor being fetched,
    /// nor gone past; registered in `in_flight`.
    pub fn next(&mut self, extents: &Extents, in_flight: &mut Vec<(u64, u64)>) -> Next {
        if self.stopped {
            return Next::Done;
        }
        if self.in_flight >= IN_FLIGHT || extents.pending().saturating_add(self.in_flight) >= AHEAD {
            return Next::Wait;
        }
        while let Some(&(start, end, member)) = self.blocks.get(self.next) {
            if !self.passed(member) {
                if let Some(&(a, b)) = without(extents.gaps(start, end), in_flight).first() {
                    in_flight.push((a, b));
                    self.in_flight += b - a;
                    return Next::Fetch(a, b, member);
                }
            }
            self.next += 1;
        }
        Next::Done
    }

    /// A fetch ahead of `size` bytes is over.
    pub fn fetched(&mut self, size: u64) {
        self.in_flight = self.in_flight.saturating_sub(size);
    }
}

/// Starts the fetcher threads of `remote`, unless they run already.
pub fn start(remote: &Remote) {
    let Backing::Ranges(ranges) = &remote.inner.backing else { return };
    let Ok(mut store) = ranges.store.lock() else { return };
    let wanted = FETCHERS.saturating_sub(store.plan.fetchers);
    store.plan.fetchers += wanted;
    drop(store);
    for _ in 0..wanted {
        let weak = std::sync::Arc::downgrade(&remote.inner);
        let spawned = std::thread::Builder::new().name("offload-fetch-ahead".into()).spawn(move || run(weak));
        if spawned.is_err() {
            if let Ok(mut store) = ranges.store.lock() {
                store.plan.fetchers -= 1;
            }
        }
    }
}

/// One fetcher: takes the next planned span, fetches it, keeps it, until the plan is done or
/// stopped, or the file is no longer open (it holds the file only while fetching).
fn run(weak: Weak<Inner>) {
    loop {
        let Some(inner) = weak.upgrade() else { return };
        let remote = Remote { inner };
        if !fetch_next(&remote) {
            if let Backing::Ranges(ranges) = &remote.inner.backing {
                if let Ok(mut store) = ranges.store.lock() {
                    store.plan.fetchers -= 1;
                }
            }
            return;
        }
    }
}

/// Fetches the next planned span, or waits a little for room; `false` when there is nothing
/// left to do.
fn fetch_next(remote: &Remote) -> bool {
    let Backing::Ranges(ranges) = &remote.inner.backing else { return false };
    let Ok(mut store) = lock(&ranges.store) else { return false };
    let store_ref = &mut *store;
    let (start, end, member) = match store_ref.plan.next(&store_ref.extents, &mut store_ref.in_flight) {
        Next::Done => return false,
        Next::Wait => {
            // Woken when a reader reads or a fetch lands; the timeout lets go of the file
            // now and then, so that a command done with it frees it.
            let _ = ranges.changed.wait_timeout(store, Duration::from_millis(100));
            return true;
        }
        Next::Fetch(start, end, member) => (start, end, member),
    };
    drop(store);
    let fetched = remote.fetch(start, end);
    let Ok(mut store) = lock(&ranges.store) else { return false };
    store.in_flight.retain(|&span| span != (start, end));
    store.plan.fetched(end - start);
    match fetched {
        Ok(bytes) => {
            store.extents.insert(start, bytes, Some(member));
            store.extents.evict(super::CACHE_BUDGET);
        }
        Err(_) => store.plan.stopped = true,
    }
    drop(store);
    ranges.changed.notify_all();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cut_members_into_blocks_in_reading_order() {
        let plan = Plan::new(&[(100 << 20, BLOCK + 5), (10, 0), (0, 64)]);
        assert_eq!(
            plan.blocks,
            vec![(100 << 20, (100 << 20) + BLOCK, 0), ((100 << 20) + BLOCK, (100 << 20) + BLOCK + 5, 0), (0, 64, 2)]
        );
        assert_eq!(plan.block_at(3), Some((2, 64)));
        assert_eq!(plan.block_at(64), None);
        assert_eq!(plan.block_at((100 << 20) + BLOCK), Some((0, (100 << 20) + BLOCK + 5)));
    }

    #[test]
    fn fetchers_skip_what_is_held_or_being_fetched_and_stop_at_the_window() {
        let mut plan = Plan::new(&[(0, 4 * BLOCK)]);
        let mut extents = Extents::default();
        let mut in_flight = vec![(0, 10)];
        extents.insert(10, vec![0; 10], None);
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Fetch(20, BLOCK, 0)));
        plan.fetched(BLOCK - 20);
        let Next::Fetch(a, b, 0) = plan.next(&extents, &mut in_flight) else { panic!("expected a fetch") };
        assert_eq!((a, b), (BLOCK, 2 * BLOCK));
        let Next::Fetch(a, b, 0) = plan.next(&extents, &mut in_flight) else { panic!("expected a fetch") };
        assert_eq!((a, b), (2 * BLOCK, 3 * BLOCK));
        // Two blocks in flight: the next waits.
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Wait));
        plan.fetched(BLOCK);
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Fetch(a, _, 0) if a == 3 * BLOCK));
        // Bytes fetched ahead and unread fill the window: the next waits.
        plan.fetched(2 * BLOCK);
        let mut full = Extents::default();
        full.insert(0, vec![0; AHEAD as usize], Some(0));
        assert!(matches!(plan.next(&full, &mut Vec::new()), Next::Wait));
        plan.stopped = true;
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Done));
    }

    #[test]
    fn members_readers_went_past_are_not_fetched() {
        let mut plan = Plan::new(&[(0, 10), (100, 10), (200, 10)]);
        let mut extents = Extents::default();
        plan.note_read(1, &mut extents);
        let mut in_flight = Vec::new();
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Fetch(100, 110, 1)));
        assert!(matches!(plan.next(&extents, &mut in_flight), Next::Fetch(200, 210, 2)));
    }
}
