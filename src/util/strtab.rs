//! A string table laid out exactly as LLVM's `StringTableBuilder` lays out an ELF string table
//! after `finalize()`, so that writers built on it (the offload binary writer) produce the same
//! bytes as LLVM.
//!
//! The rules, as LLVM applies them in ELF mode with tail merging:
//!
//! | step | rule |
//! |---|---|
//! | start | the table begins with one NUL byte, so offset 0 is the empty string |
//! | dedupe | each distinct string is stored at most once |
//! | order | strings are sorted by their bytes read *backwards*, larger byte first, with "string ended" smaller than any byte; so a string comes right after every longer string it is a suffix of |
//! | sharing | a string that is a suffix of the string placed just before it is not stored again: it points into that string's tail (sharing its NUL) |
//! | storing | otherwise the string is appended followed by a NUL |
//! | empty | the empty string is always at offset 0, the leading NUL (LLVM sets it there after laying out the others) |
//!
//! The backwards order does not depend on the order strings were added in (LLVM iterates a hash
//! map, then sorts with a three-way radix quicksort whose result is a total order on distinct
//! strings), so this builder takes strings in any order and gives LLVM's bytes.

use crate::util::sort;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// A finished ELF-style string table with LLVM's tail merging.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringTable {
    bytes: Vec<u8>,
    offsets: BTreeMap<Vec<u8>, u64>,
}

impl StringTable {
    /// Lays out `strings` (duplicates allowed, any order) the way LLVM's
    /// `StringTableBuilder(ELF).finalize()` does.
    pub fn build<'s, I>(strings: I) -> StringTable
    where
        I: IntoIterator<Item = &'s [u8]>,
    {
        let mut unique: Vec<&[u8]> = strings.into_iter().collect();
        sort::sort(&mut unique);
        unique.dedup();
        sort::sort_by(&mut unique, |a, b| compare_tails(a, b));
        layout(&unique)
    }

    /// Convenience for text strings.
    pub fn build_str<'s, I>(strings: I) -> StringTable
    where
        I: IntoIterator<Item = &'s str>,
    {
        StringTable::build(strings.into_iter().map(str::as_bytes))
    }

    /// Offset of `s` from the start of the table, if `s` was added.
    pub fn offset(&self, s: &[u8]) -> Option<u64> {
        self.offsets.get(s).copied()
    }

    /// The table's bytes, NUL separated, starting with a NUL.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Size in bytes (LLVM's `getSize()`).
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Never true: even an empty table holds its leading NUL.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// Byte `pos` counted from the end of `s`, or `None` once the string has ended.
fn tail_byte(s: &[u8], pos: usize) -> Option<u8> {
    s.len().checked_sub(pos + 1).map(|i| s[i])
}

/// LLVM's order: compare from the last byte backwards, larger byte first; a string that ends
/// first is smaller and so goes after (`None < Some(_)` gives exactly that).
fn compare_tails(a: &[u8], b: &[u8]) -> Ordering {
    let mut pos = 0;
    loop {
        let (x, y) = (tail_byte(a, pos), tail_byte(b, pos));
        if x != y || x.is_none() {
            // Descending: the larger tail byte comes first.
            return y.cmp(&x);
        }
        pos += 1;
    }
}

/// Places sorted, distinct strings, sharing a string's storage with the previous one when it is
/// its suffix.
fn layout(sorted: &[&[u8]]) -> StringTable {
    let mut bytes = alloc::vec![0u8];
    let mut offsets = BTreeMap::new();
    let mut previous: &[u8] = &[];
    for &s in sorted {
        let offset = if previous.ends_with(s) {
            // Points into the tail of the previous string; its NUL is at len - 1.
            (bytes.len() - 1 - s.len()) as u64
        } else {
            let at = bytes.len() as u64;
            bytes.extend_from_slice(s);
            bytes.push(0);
            previous = s;
            at
        };
        offsets.insert(s.to_vec(), offset);
    }
    // The empty string sorts last and would share the previous string's NUL, but LLVM then
    // pins it to the leading NUL (and it can always be looked up, added or not).
    offsets.insert(Vec::new(), 0);
    StringTable { bytes, offsets }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_table_is_one_nul() {
        let t = StringTable::build_str([]);
        assert_eq!(t.bytes(), b"\0");
    }

    #[test]
    fn only_empty_string_points_at_leading_nul() {
        let t = StringTable::build_str([""]);
        assert_eq!(t.bytes(), b"\0");
        assert_eq!(t.offset(b""), Some(0));
    }

    #[test]
    fn matches_llvm_for_triple_and_arch() {
        // Bytes observed from llvm-offload-binary 22 for triple/arch strings.
        let t = StringTable::build_str(["arch", "gfx90a", "triple", "amdgcn-amd-amdhsa"]);
        assert_eq!(t.bytes(), b"\0arch\0triple\0amdgcn-amd-amdhsa\0gfx90a\0");
        assert_eq!(t.offset(b"triple"), Some(6));
        assert_eq!(t.offset(b"gfx90a"), Some(31));
    }

    #[test]
    fn suffixes_share_storage() {
        let t = StringTable::build_str(["a", "ba", "cba", "b", "", "cba"]);
        // Last bytes 'b' > 'a': "b" first; then "cba" with "ba" and "a" inside it; "" at 0.
        assert_eq!(t.bytes(), b"\0b\0cba\0");
        assert_eq!(t.offset(b"b"), Some(1));
        assert_eq!(t.offset(b"cba"), Some(3));
        assert_eq!(t.offset(b"ba"), Some(4));
        assert_eq!(t.offset(b"a"), Some(5));
        assert_eq!(t.offset(b""), Some(0));
    }

    #[test]
    fn suffix_not_adjacent_is_stored_again() {
        // Only the string placed just before is checked for a shared tail.
        let t = StringTable::build_str(["za", "a", "ya"]);
        // Order: "za", "ya", "a" ("a" is a suffix of "ya" placed just before it).
        assert_eq!(t.bytes(), b"\0za\0ya\0");
        assert_eq!(t.offset(b"a"), Some(5));
    }

    #[test]
    fn order_does_not_depend_on_input_order() {
        let a = StringTable::build_str(["one", "two", "three", "e", "ne"]);
        let b = StringTable::build_str(["ne", "e", "three", "two", "one"]);
        assert_eq!(a, b);
    }

    #[test]
    fn high_bytes_sort_first() {
        let t = StringTable::build([&b"\xff"[..], &b"\x01"[..], &b"a\xff"[..]].iter().copied());
        // Tails: "\xff" and "a\xff" share last byte 0xff; "a\xff" is longer, so first.
        assert_eq!(t.bytes(), b"\0a\xff\0\x01\0");
        assert_eq!(t.offset(b"\xff"), Some(2));
    }
}
