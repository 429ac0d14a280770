//! The bytes a remote reader has fetched, by where they start, within a budget: the oldest
//! dropped first, except bytes fetched ahead that no reader has touched yet (dropping them
//! would fetch them twice), which go only when nothing else is left to drop.

use std::collections::{BTreeMap, VecDeque};

/// Bytes fetched in one request.
struct Extent {
    bytes: Vec<u8>,
    /// The planned member it was fetched ahead for, while no reader has touched it.
    ahead_of: Option<usize>,
}

#[derive(Default)]
pub struct Extents {
    by_start: BTreeMap<u64, Extent>,
    order: VecDeque<u64>,
    /// Bytes held.
    pub bytes: u64,
    /// Bytes fetched ahead and not read yet.
    pending: u64,
}

impl Extents {
    /// Keeps `bytes` fetched at `start`; `ahead_of`: the planned member they were fetched ahead
    /// for (not yet read), or `None` for bytes a reader asked for.
    pub fn insert(&mut self, start: u64, bytes: Vec<u8>, ahead_of: Option<usize>) {
        if bytes.is_empty() {
            return;
        }
        let size = bytes.len() as u64;
        self.bytes += size;
        if ahead_of.is_some() {
            self.pending += size;
        }
        match self.by_start.insert(start, Extent { bytes, ahead_of }) {
            Some(old) => self.forget(&old),
            None => self.order.push_back(start),
        }
    }

    fn forget(&mut self, old: &Extent) {
        self.bytes -= old.bytes.len() as u64;
        if old.ahead_of.is_some() {
            self.pending -= old.bytes.len() as u64;
        }
    }

    /// Bytes fetched ahead that no reader has touched.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// The parts of `start..end` no extent holds.
    pub fn gaps(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
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
        self.by_start.range(..=at).rev().take(8).map(|(&s, e)| s + e.bytes.len() as u64).filter(|&e| e > at).max()
    }

    /// Appends `start..end` to `out`, as far as extents hold it; the extents read from are no
    /// longer pending.
    pub fn copy(&mut self, start: u64, end: u64, out: &mut Vec<u8>) {
        let mut at = start;
        while at < end {
            let found = self.by_start.range_mut(..=at).rev().take(8).find(|(&s, e)| s + e.bytes.len() as u64 > at);
            let Some((&s, extent)) = found else { return };
            if extent.ahead_of.take().is_some() {
                self.pending -= extent.bytes.len() as u64;
            }
            let from = (at - s) as usize;
            let to = ((end - s) as usize).min(extent.bytes.len());
            out.extend_from_slice(&extent.bytes[from..to]);
            at = s + to as u64;
        }
    }

    /// Bytes fetched ahead for the members `passed` says readers have gone past are no longer
    /// pending: nobody will read them (a member whose name promised a library but whose first
    /// bytes did not), and they may be dropped.
    pub fn release(&mut self, passed: impl Fn(usize) -> bool) {
        for extent in self.by_start.values_mut() {
            if extent.ahead_of.is_some_and(&passed) {
                extent.ahead_of = None;
                self.pending -= extent.bytes.len() as u64;
            }
        }
    }

    /// Drops the oldest extents not pending until at most `budget` bytes are kept, then, if
    /// that is not enough, the oldest pending ones.
    pub fn evict(&mut self, budget: u64) {
        if self.bytes <= budget {
            return;
        }
        let mut kept = VecDeque::with_capacity(self.order.len());
        while let Some(start) = self.order.pop_front() {
            let pending = self.by_start.get(&start).map(|e| e.ahead_of.is_some());
            match pending {
                Some(true) => kept.push_back(start),
                Some(false) if self.bytes > budget => {
                    if let Some(old) = self.by_start.remove(&start) {
                        self.forget(&old);
                    }
                }
                Some(false) => kept.push_back(start),
                None => {}
            }
        }
        self.order = kept;
        while self.bytes > budget {
            let Some(start) = self.order.pop_front() else { return };
            if let Some(old) = self.by_start.remove(&start) {
                self.forget(&old);
            }
        }
    }
}

/// The parts of `spans` that none of `taken` (being fetched) covers.
pub fn without(spans: Vec<(u64, u64)>, taken: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = spans;
    for &(a, b) in taken {
        let mut next = Vec::with_capacity(out.len() + 1);
        for (s, e) in out {
            if b <= s || e <= a {
                next.push((s, e));
                continue;
            }
            if s < a {
                next.push((s, a));
            }
            if b < e {
                next.push((b, e));
            }
        }
        out = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_find_gaps_and_copy_across_pieces() {
        let mut e = Extents::default();
        e.insert(10, vec![1; 10], None);
        e.insert(30, vec![2; 10], None);
        assert_eq!(e.gaps(0, 50), vec![(0, 10), (20, 30), (40, 50)]);
        assert_eq!(e.gaps(12, 18), vec![]);
        e.insert(20, vec![3; 10], None);
        let mut out = Vec::new();
        e.copy(15, 35, &mut out);
        assert_eq!(out, [vec![1; 5], vec![3; 10], vec![2; 5]].concat());
        // The two oldest go; the one inserted last stays.
        e.evict(15);
        assert_eq!(e.bytes, 10);
        assert_eq!(e.gaps(10, 40), vec![(10, 20), (30, 40)]);
    }

    #[test]
    fn bytes_fetched_ahead_stay_until_read_or_passed() {
        let mut e = Extents::default();
        e.insert(0, vec![1; 10], Some(0));
        e.insert(10, vec![2; 10], Some(1));
        e.insert(20, vec![3; 10], None);
        assert_eq!(e.pending(), 20);
        // Over budget, the read extent goes first although it is the newest.
        e.evict(20);
        assert_eq!(e.gaps(0, 30), vec![(20, 30)]);
        let mut out = Vec::new();
        e.copy(12, 14, &mut out);
        assert_eq!((out, e.pending()), (vec![2, 2], 10));
        e.release(|member| member == 0);
        assert_eq!(e.pending(), 0);
        e.evict(10);
        assert_eq!(e.gaps(0, 20), vec![(0, 10)]);
    }

    #[test]
    fn spans_being_fetched_are_taken_out() {
        assert_eq!(without(vec![(0, 100)], &[(10, 20), (50, 150)]), vec![(0, 10), (20, 50)]);
        assert_eq!(without(vec![(0, 10), (20, 30)], &[(5, 25)]), vec![(0, 5), (25, 30)]);
        assert!(without(vec![(0, 10)], &[(0, 10)]).is_empty());
    }
}
