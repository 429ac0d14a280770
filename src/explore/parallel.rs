//! The deflated members of a package (a wheel's libraries) explored on every core (natively,
//! with `std`; elsewhere, and in the browser, whose page runs several explorers instead, this
//! module is not built and members are explored one by one): each is read from the input on this thread, then inflated and explored by a
//! worker in an explorer of its own, and the results are put back in member order (stored
//! members explored here, in their place), so the tree is the one a single thread makes, byte
//! space for byte space.
//!
//! Only when that is certain: every image is decompressed (`verify_all`: which images a
//! listing decompresses depends on what earlier members used of its budget), every member's
//! declared size fits the package budget together (so no member is refused because another
//! ran first), no `.kpack` companions are in play, nobody follows the progress of one bundle,
//! and the package is not itself inside a member being explored in parallel.
//!
//! A worker's explorer starts with as many byte spaces as this one has (placeholders), so the
//! spaces it opens are numbered from there; when its result is put back, those numbers move to
//! where its spaces land. Memory: each worker holds one member (and what it decompresses) at a
//! time, and the members in flight together declare at most what the largest one does, so
//! memory is what one thread needs while small members share the cores.

use super::{Explorer, MemberExplored};
use crate::format::package::{Compression, Member};
use crate::tree::{Node, Span};
use crate::util::window::Window;
use alloc::vec::Vec;
use object::ReadRef;

impl Explorer<'_, '_, '_> {
    /// Explores the members `explorable` (indices into `members` and `children`) of a package
    /// lying at `span` on every core, or returns `false` without doing anything when that would
    /// not give exactly the tree one thread gives (see the module's rules).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn members_in_parallel<'a>(
        &mut self,
        input: Window<'_, 'a>,
        members: &[Member],
        explorable: &[usize],
        children: &mut [Node],
        span: Span,
        depth: u32,
        level: u32,
    ) -> bool {
        let declared = explorable.iter().fold(0u64, |sum, &i| sum.saturating_add(members[i].size));
        let certain = self.parallel
            && self.opts.verify_all
            && self.asked.is_none()
            && self.package_kpacks.is_empty()
            && declared <= self.package_budget;
        let deflated: Vec<usize> =
            explorable.iter().copied().filter(|&i| members[i].compression == Compression::Deflate).collect();
        if !certain || deflated.len() < 2 || self.workers() < 2 {
            return false;
        }
        // The deflated members' stored bytes are read here (the input is read by one thread),
        // then inflated and explored on the workers. Stored members are explored here, in their
        // place, read lazily as one thread reads them: a stored member may be far larger than
        // what is read of it. A deflated member that cannot be read leaves everything to the
        // caller's one thread, which says so as it would anyway.
        // With a reader of owned bytes for the input's own members, each worker reads its
        // member when it starts it, and lets the bytes go once inflated.
        let mut stored: Vec<Option<&'a [u8]>> = Vec::with_capacity(deflated.len());
        for &i in &deflated {
            if self.read_owned.is_some() && span.space == 0 {
                stored.push(None);
                continue;
            }
            match input.read_bytes_at(members[i].data_offset, members[i].stored_size) {
                Ok(bytes) => stored.push(Some(bytes)),
                Err(()) => return false,
            }
        }
        let base = self.spaces.len();
        let mut results =
            self.explore_on_workers(members, &deflated, &stored, children, span, depth, level).into_iter();
        let mut progress = self.progress_of(members, explorable, level);
        for &i in explorable {
            if members[i].compression == Compression::Deflate {
                if let Some(r) = results.next() {
                    self.put_back(r, base, children);
                }
            } else {
                self.member(input, &members[i], &mut children[i], span, depth + 1, level + 1);
            }
            self.member_explored(progress.as_mut(), &members[i], &children[i]);
        }
        true
    }

    /// One worker per core takes the next of the deflated members `explorable` (their stored
    /// bytes in `stored`) until none is left; their results, in member order.
    #[allow(clippy::too_many_arguments)]
    fn explore_on_workers(
        &mut self,
        members: &[Member],
        explorable: &[usize],
        stored: &[Option<&[u8]>],
        children: &mut [Node],
        span: Span,
        depth: u32,
        level: u32,
    ) -> Vec<MemberExplored> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;

        let base = self.spaces.len();
        // Members in flight together never declare more than the largest one alone: memory
        // stays what one thread needs, and small members share the cores.
        let room = Room::new(explorable.iter().map(|&i| members[i].size).max().unwrap_or(0));
        let next = AtomicUsize::new(0);
        let taken: Vec<Mutex<Option<Node>>> =
            explorable.iter().map(|&i| Mutex::new(Some(core::mem::replace(&mut children[i], blank())))).collect();
        let (opts, companions, nv_budget, package_budget, read_owned, spill) =
            (self.opts, self.companions, self.nv_budget.clone(), self.package_budget, self.read_owned, self.spill);
        let mut results: Vec<MemberExplored> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.workers())
                .map(|_| {
                    let (next, taken, nv_budget, room) = (&next, &taken, nv_budget.clone(), &room);
                    scope.spawn(move || {
                        let mut done = Vec::new();
                        loop {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&index) = explorable.get(k) else { break };
                            room.enter(members[index].size);
                            let mut sub = Explorer {
                                opts,
                                spaces: super::placeholder_spaces(base),
                                nv_budget: nv_budget.clone(),
                                package_budget,
                                asked: None,
                                companions,
                                package_kpacks: Vec::new(),
                                parallel: false,
                                observer: None,
                                read_owned: None,
                                spill,
                                found: None,
                                given: None,
                                sparing: None,
                            };
                            let mut node = taken[k].lock().ok().and_then(|mut n| n.take()).unwrap_or_else(blank);
                            let m = &members[index];
                            let at = span.sub(m.data_offset, m.stored_size);
                            match (stored[k], read_owned) {
                                (Some(bytes), _) => sub.deflated_bytes(bytes, m, &mut node, at, depth + 1, level + 1),
                                (None, Some(read)) => sub.deflated_read(read, m, &mut node, at, depth + 1, level + 1),
                                (None, None) => {}
                            }
                            let used = package_budget - sub.package_budget;
                            sub.spaces.drain(..base);
                            room.leave(members[index].size);
                            done.push(MemberExplored { index, node, spaces: sub.spaces, used });
                        }
                        done
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        });
        results.sort_by_key(|r| r.index);
        results
    }

    /// How many threads explore members and fatbin containers: [`super::Options::max_threads`], or one per core (at
    /// most 8).
    pub(super) fn workers(&self) -> usize {
        match self.opts.max_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
            n => n,
        }
    }
}

/// What stands in a member's place while a worker has its node.
fn blank() -> Node {
    Node::new(crate::tree::NodeKind::Unknown, "", Span::default())
}

/// The declared bytes of the members being explored, held to at most `cap` together (one
/// member alone always gets in).
struct Room {
    cap: u64,
    in_flight: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

impl Room {
    fn new(cap: u64) -> Room {
        Room { cap, in_flight: std::sync::Mutex::new(0), freed: std::sync::Condvar::new() }
    }

    /// Waits until `size` more bytes fit beside those in flight, then takes them.
    fn enter(&self, size: u64) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        while *in_flight > 0 && in_flight.saturating_add(size) > self.cap {
            in_flight = self.freed.wait(in_flight).unwrap_or_else(|e| e.into_inner());
        }
        *in_flight += size;
    }

    fn leave(&self, size: u64) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        *in_flight -= size;
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use crate::explore::{explore, explore_hooked, Hooks, Options, Progress};
    use crate::tree::Node;

    /// Every package fixture (made by zip, tar, dpkg-deb, conda: tests/fixtures/packages/)
    /// gives the same tree on every core as on one thread, byte spaces and all.
    #[test]
    fn members_on_every_core_give_the_tree_of_one_thread() {
        let mut seen = 0;
        for (name, data) in crate::explore::package_fixtures() {
            let one = Options { verify_all: true, max_threads: 1, ..Options::default() };
            let all = Options { verify_all: true, max_threads: 4, ..Options::default() };
            assert_eq!(explore(&data[..], &name, &all), explore(&data[..], &name, &one), "{name}");
            seen += 1;
        }
        assert!(seen >= 5, "only {seen} package fixtures");
    }

    /// The observer hears each explored member of the wheel once, in member order, with the
    /// count and bytes growing to the whole, on one thread as on every core; the nodes it is
    /// given are the tree's own.
    #[test]
    fn the_observer_hears_every_member_in_order_on_any_number_of_threads() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        for threads in [1, 4] {
            let opts = Options { verify_all: true, max_threads: threads, ..Options::default() };
            let mut heard: Vec<(Progress, Node)> = Vec::new();
            let mut observer = |p: &Progress, n: &Node| heard.push((*p, n.clone()));
            let hooks = Hooks { observer: Some(&mut observer), ..Hooks::default() };
            let tree = explore_hooked(&data[..], "gpu_libs.whl", &opts, &[], hooks);
            let last = heard.last().expect("the wheel has members with device code").0;
            assert_eq!(last.members_done, last.members, "{threads} threads");
            assert_eq!(last.bytes_done, last.bytes, "{threads} threads");
            assert!(heard.windows(2).all(|w| w[1].0.members_done == w[0].0.members_done + 1));
            let package = &tree.root.children[0];
            for (_, node) in &heard {
                assert!(package.children.contains(node), "{threads} threads: {} is not the tree's", node.label);
            }
            let targets = |n: &Node| {
                crate::report::targets::collect(&crate::tree::Tree { spaces: tree.spaces.clone(), root: n.clone() })
                    .len()
            };
            let found: usize = heard.iter().map(|(_, n)| targets(n)).sum();
            assert_eq!(found, crate::report::targets::collect(&tree).len(), "every image is in a member heard of");
        }
    }

    /// Members read through the owned reader give the tree the input's reader gives, on one
    /// thread and on every core; the deflated members are read through it, a piece of at most
    /// `READ_CHUNK` bytes at a time, and no stored byte is read twice but a member's first bytes
    /// (read once to tell what it is, then again as it is inflated).
    #[test]
    fn members_read_into_owned_bytes_give_the_same_tree() {
        use std::sync::Mutex;
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        let listing = crate::format::package::zip::read(&data[..]).unwrap();
        let deflated: Vec<_> = listing
            .members
            .iter()
            .filter(|m| m.compression == crate::format::package::Compression::Deflate && m.stored_size > 0)
            .collect();
        for threads in [1, 4] {
            let opts = Options { verify_all: true, keep_bytes: false, max_threads: threads, ..Options::default() };
            let reads = Mutex::new(Vec::new());
            let read = |offset: u64, size: u64| {
                reads.lock().unwrap().push((offset, size));
                data.get(offset as usize..(offset + size) as usize).map(<[u8]>::to_vec)
            };
            let hooks = Hooks { read_owned: Some(&read), ..Hooks::default() };
            let owned = explore_hooked(&data[..], "gpu_libs.whl", &opts, &[], hooks);
            assert_eq!(owned, explore(&data[..], "gpu_libs.whl", &opts), "{threads} threads");
            let reads = reads.into_inner().unwrap();
            assert!(reads.iter().all(|&(_, size)| size <= crate::codec::READ_CHUNK as u64));
            let inside =
                |m: &&crate::format::package::Member, o: u64| o >= m.data_offset && o < m.data_offset + m.stored_size;
            let read_members = deflated.iter().filter(|m| reads.iter().any(|&(o, _)| inside(m, o))).count();
            assert!(read_members >= 2, "{threads} threads: {read_members} members read");
            assert!(
                reads.iter().all(|&(o, _)| deflated.iter().any(|m| inside(m, o))),
                "only deflated members are read"
            );
            let bytes: u64 = reads.iter().map(|&(_, size)| size).sum();
            let stored: u64 = deflated.iter().map(|m| m.stored_size).sum();
            assert!(bytes <= stored + read_members as u64 * (64 << 10), "{threads} threads: {bytes} bytes read");
        }
    }
}
