//! The containers of an NVIDIA fatbin section decoded on every core (natively, with `std`; in
//! the browser this module is not built and containers are decoded one by one): a large CUDA
//! library holds thousands of containers, each with compressed cubins and PTX, and decoding
//! them was most of the time `kernels` and `fit` took on one thread.
//!
//! Only when every entry is decompressed ([`Budget::all`]): which entries a listing decompresses
//! depends on what earlier ones used of its budget, so a listing stays on one thread.
//!
//! Each worker builds a container's node with byte spaces of its own, numbered from 0, and
//! with the section's own space given a number no real space has ([`OUTER`]); its images are
//! described there, and their bytes dropped when they are not kept. The nodes are put back in
//! container order, their spaces appended and renumbered, so the tree is the one a single
//! thread makes, byte space for byte space.

use super::{describe_nv_images, move_spans, Explorer};
use crate::format::nv_fatbin::tree::{self as nv_tree, Budget};
use crate::format::nv_fatbin::{Found, Piece};
use crate::tree::{ByteSpace, Node, Span};
use alloc::vec::Vec;

/// The number that stands for the section's own byte space while a worker builds a container.
const OUTER: u32 = u32::MAX;

/// A container's node built by a worker, its byte spaces (numbered from 0) and the decompressed
/// bytes it counted against the fatbin budget.
struct Built {
    node: Node,
    spaces: Vec<ByteSpace>,
    used: u64,
}

impl Explorer<'_, '_, '_> {
    /// The nodes of the pieces `found` of `data` (lying at `span`), its containers decoded on
    /// every core; `None`, with nothing done, when that would not give exactly the tree one
    /// thread gives or there is nothing to share.
    pub(super) fn nv_fatbins_in_parallel(&mut self, found: &[Found], data: &[u8], span: Span) -> Option<Vec<Node>> {
        // Exploring a member again keeps some spaces' bytes ([`super::again::Sparing`]), which
        // the threads would drop.
        if !self.nv_budget.all || self.workers() < 2 || self.sparing.is_some() {
            return None;
        }
        let containers: Vec<usize> =
            (0..found.len()).filter(|&i| matches!(found[i].piece, Piece::Container(..))).collect();
        if containers.len() < 2 {
            return None;
        }
        let mut built =
            build_on_workers(found, &containers, data, span, &self.nv_budget, self.opts.keep_bytes, self.workers())
                .into_iter();
        let mut nodes = Vec::with_capacity(found.len());
        for f in found {
            let container = match f.piece {
                Piece::Container(..) => built.next().map(|b| self.put_back_container(b, span)),
                _ => None,
            };
            nodes.push(container.unwrap_or_else(|| nv_tree::piece_node(f, span, span.sub(f.offset, f.size))));
        }
        Some(nodes)
    }

    /// Appends a worker's spaces to this explorer's and moves every span of its container to
    /// where they now are: the section's own space back to `span`'s.
    fn put_back_container(&mut self, mut b: Built, span: Span) -> Node {
        let base = self.spaces.len() as u32;
        let place = |s: &mut Span| {
            s.space = if s.space == OUTER { span.space } else { s.space + base };
        };
        move_spans(&mut b.node, &place);
        b.spaces.iter_mut().filter_map(|s| s.origin.as_mut()).for_each(place);
        self.spaces.append(&mut b.spaces);
        self.nv_budget.remaining = self.nv_budget.remaining.saturating_sub(b.used);
        b.node
    }
}

/// One worker per core takes the next of the containers `containers` (indices into `found`)
/// until none is left; their nodes, in container order.
fn build_on_workers(
    found: &[Found],
    containers: &[usize],
    data: &[u8],
    span: Span,
    budget: &Budget,
    keep_bytes: bool,
    workers: usize,
) -> Vec<Built> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let outer = Span::new(OUTER, span.offset, span.size);
    let mut done: Vec<(usize, Built)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(containers.len()))
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = containers.get(k).map(|&i| &found[i]) else { break };
                        let Piece::Container(c, layout) = &f.piece else { continue };
                        let mut spaces = Vec::new();
                        let mut budget = budget.clone();
                        let before = budget.remaining;
                        let mut node =
                            nv_tree::container_node(c, layout, outer.sub(f.offset, f.size), &mut spaces, &mut budget);
                        describe_nv_images(&spaces, &mut node, data, outer);
                        if !keep_bytes {
                            spaces.iter_mut().for_each(|s| s.data = None);
                        }
                        let used = before - budget.remaining;
                        done.push((k, Built { node, spaces, used }));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    done.sort_by_key(|(k, _)| *k);
    done.into_iter().map(|(_, b)| b).collect()
}

#[cfg(test)]
mod tests {
    use crate::explore::{explore, Options};
    use crate::tree::{Node, NodeKind};

    fn fatbins(n: &Node) -> usize {
        usize::from(n.kind == NodeKind::Fatbin) + n.children.iter().map(fatbins).sum::<usize>()
    }

    /// nvcc's fatbins back to back, as a linked library's `.nv_fatbin` section holds them
    /// (each container 8-aligned after zero padding): on every core, the tree of one thread,
    /// byte spaces and all, with and without their bytes kept.
    #[test]
    fn containers_on_every_core_give_the_tree_of_one_thread() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/nvidia/");
        let mut section = Vec::new();
        for name in ["nv_3arch_lz4_all.fatbin", "nv_3arch_default.fatbin", "nv_concat.fatbin", "nv_sm100_sm120.fatbin"]
        {
            section.extend(std::fs::read(format!("{dir}{name}")).unwrap());
            section.resize(section.len().next_multiple_of(8), 0);
        }
        for keep_bytes in [true, false] {
            let one = Options { verify_all: true, keep_bytes, max_threads: 1, ..Options::default() };
            let all = Options { max_threads: 4, ..one.clone() };
            let tree = explore(&section[..], "section.fatbin", &all);
            assert_eq!(tree, explore(&section[..], "section.fatbin", &one), "keep_bytes {keep_bytes}");
            assert_eq!(fatbins(&tree.root), 4);
            assert!(tree.spaces.len() > 4, "the entries were decompressed into spaces of their own");
        }
    }
}
