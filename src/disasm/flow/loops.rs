//! Loops of a function's control-flow graph: dominators (the iterative algorithm of Cooper,
//! Harvey and Kennedy over reverse postorder), back edges (an edge to a block that dominates
//! its source) and their natural loops (the header and every block that reaches the edge's
//! source without passing the header). Back edges with one header make one loop. A cycle
//! entered at more than one block has no header that dominates it: its retreating edges are
//! counted as irreducible rather than made into loops.

use alloc::vec;
use alloc::vec::Vec;

use super::blocks::Block;

/// A natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Loop {
    /// The block every iteration enters through.
    pub header: usize,
    /// The blocks whose edges go back to the header.
    pub latches: Vec<usize>,
    /// Every block of the loop, header included, in order.
    pub body: Vec<usize>,
    /// How many loops contain this one (0: outermost).
    pub depth: u32,
}

/// The loops of `blocks` (outermost first, then by header) and the number of irreducible
/// retreating edges.
pub fn loops(blocks: &[Block]) -> (Vec<Loop>, usize) {
    if blocks.is_empty() {
        return (Vec::new(), 0);
    }
    let order = postorder(blocks);
    let idom = dominators(blocks, &order);
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(up) if up != b => b = up,
            _ => return false,
        }
    };
    let mut rank = vec![usize::MAX; blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        rank[b] = i;
    }
    let mut found: Vec<Loop> = Vec::new();
    let mut irreducible = 0;
    for &from in &order {
        for to in blocks[from].successors.iter().filter_map(|e| e.to) {
            // Retreating in postorder: the target is finished after its source (an ancestor).
            if rank[to] < rank[from] {
                continue;
            }
            if dominates(to, from) {
                match found.iter_mut().find(|l| l.header == to) {
                    Some(l) => l.latches.push(from),
                    None => found.push(Loop { header: to, latches: vec![from], body: Vec::new(), depth: 0 }),
                }
            } else {
                irreducible += 1;
            }
        }
    }
    for l in &mut found {
        l.body = natural_body(blocks, l.header, &l.latches);
    }
    let depths: Vec<u32> = found
        .iter()
        .map(|l| {
            found.iter().filter(|o| o.header != l.header && o.body.binary_search(&l.header).is_ok()).count() as u32
        })
        .collect();
    for (l, d) in found.iter_mut().zip(depths) {
        l.depth = d;
    }
    found.sort_by_key(|l| (l.depth, l.header));
    (found, irreducible)
}

/// The reachable blocks in postorder of a depth-first walk from the entry.
fn postorder(blocks: &[Block]) -> Vec<usize> {
    let mut seen = vec![false; blocks.len()];
    let mut order = Vec::with_capacity(blocks.len());
    // (block, next successor to visit)
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succ = blocks[b].successors.get(*next).map(|e| e.to);
        *next += 1;
        match succ {
            Some(Some(s)) if !seen[s] => {
                seen[s] = true;
                stack.push((s, 0));
            }
            Some(_) => {}
            None => {
                order.push(b);
                stack.pop();
            }
        }
    }
    order
}

/// The immediate dominator of each reachable block (the entry's is itself); `None` for
/// unreachable blocks.
fn dominators(blocks: &[Block], postorder: &[usize]) -> Vec<Option<usize>> {
    let mut rank = vec![usize::MAX; blocks.len()];
    for (i, &b) in postorder.iter().enumerate() {
        rank[b] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; blocks.len()];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a].unwrap_or(0);
            }
            while rank[b] < rank[a] {
                b = idom[b].unwrap_or(0);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in postorder.iter().rev().filter(|&&b| b != 0) {
            let mut new = None;
            for &p in blocks[b].predecessors.iter().filter(|&&p| idom[p].is_some()) {
                new = Some(match new {
                    None => p,
                    Some(n) => intersect(&idom, p, n),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The header and every block that reaches a latch without passing the header, sorted.
fn natural_body(blocks: &[Block], header: usize, latches: &[usize]) -> Vec<usize> {
    let mut inside = vec![false; blocks.len()];
    inside[header] = true;
    let mut stack: Vec<usize> = latches.to_vec();
    while let Some(b) = stack.pop() {
        if inside[b] {
            continue;
        }
        inside[b] = true;
        stack.extend(blocks[b].predecessors.iter().copied().filter(|&p| blocks[p].reachable));
    }
    (0..blocks.len()).filter(|&b| inside[b]).collect()
}
