//! Stable sorting through one compiled sort.
//!
//! `slice::sort_by` is generic over the element and the comparison, so every call site with its
//! own closure gets its own copy of the sort (about 5 KB of wasm each; twenty of them made up a
//! tenth of the web worker). Here the elements' order is found by sorting `u32` indices with a
//! comparison behind `dyn`, which compiles once, and the elements are then moved into that order,
//! a small loop per element type. The order is the same as `sort_by`'s: stable.

use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sorts `items` stably by `compare`, like `slice::sort_by`.
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = sorted_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    permute(items, &order);
}

/// Sorts `items` stably by the key `key` gives each, like `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their natural order, like `slice::sort`.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The indices `0..len` ordered by `compare` (stable); the one place a sort is compiled.
#[inline(never)]
fn sorted_order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`, following each cycle of
/// the permutation with swaps: every element moves once, with no copies of `T`.
fn permute<T>(items: &mut [T], order: &[usize]) {
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        if placed[start] {
            continue;
        }
        // The element first at `start` travels along the cycle; each swap puts the element that
        // belongs at `here` in place.
        let mut here = start;
        loop {
            placed[here] = true;
            let from = order[here];
            if from == start {
                break;
            }
            items.swap(here, from);
            here = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::{String, ToString};
    use alloc::vec;

    /// The same order as the standard library's stable sort, for many shapes of input.
    #[test]
    fn matches_the_standard_stable_sort() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200usize {
            let items: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    ((seed % 7) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            let mut std = items;
            sort_by_key(&mut ours, |&(k, _)| k);
            std.sort_by_key(|&(k, _)| k);
            assert_eq!(ours, std, "length {len}");
        }
    }

    #[test]
    fn moves_owned_values_without_losing_any() {
        let mut names: Vec<String> =
            ["gfx90a", "sm_80", "gfx1100", "gfx90a", "ptx"].iter().map(|s| s.to_string()).collect();
        sort(&mut names);
        assert_eq!(names, vec!["gfx1100", "gfx90a", "gfx90a", "ptx", "sm_80"]);
        sort_by(&mut names, |a, b| b.len().cmp(&a.len()));
        assert_eq!(names, vec!["gfx1100", "gfx90a", "gfx90a", "sm_80", "ptx"]);
    }
}
