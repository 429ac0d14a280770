//! Diagnostics told apart from their numbers: a library's 508 "fatbin address is 0" notes, or
//! its 1,860 "not decompressed while listing (24.6 MiB)" ones, are one message each (`offload
//! list`'s summary groups them, and so does the page's list of diagnostics).

use alloc::string::String;

/// A message with each number replaced by `#`, so that messages differing only in offsets and
/// sizes group: a run of digits (with `,` or `.` between digits), a `0x` number, and a size's
/// unit after it (`1.5 KiB`, `12 bytes`). Digits inside a word (`gfx906`, `sm_80`, `lz4`, `v3`)
/// are kept.
pub fn pattern(message: &str) -> String {
    let s = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    let mut copied = 0;
    while i < s.len() {
        let in_word = i > 0 && (s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_');
        if !s[i].is_ascii_digit() || in_word {
            i += 1;
            continue;
        }
        out.push_str(&message[copied..i]);
        let mut end = i + 1;
        if s[i] == b'0' && matches!(s.get(end), Some(b'x' | b'X')) && s.get(end + 1).is_some_and(u8::is_ascii_hexdigit)
        {
            end += 1;
            while s.get(end).is_some_and(u8::is_ascii_hexdigit) {
                end += 1;
            }
        } else {
            while end < s.len()
                && (s[end].is_ascii_digit()
                    || matches!(s[end], b',' | b'.') && s.get(end + 1).is_some_and(u8::is_ascii_digit))
            {
                end += 1;
            }
            end = after_unit(s, end);
        }
        out.push('#');
        i = end;
        copied = end;
    }
    out.push_str(&message[copied..]);
    out
}

/// Where a size's unit after a number at `end` stops (` KiB`, ` B`, ` bytes`), or `end`.
fn after_unit(s: &[u8], end: usize) -> usize {
    const UNITS: [&[u8]; 7] = [b" B", b" KiB", b" MiB", b" GiB", b" TiB", b" bytes", b" byte"];
    for unit in UNITS {
        let stop = end + unit.len();
        if s.get(end..stop) == Some(unit) && !s.get(stop).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            return stop;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_sizes_are_one_pattern() {
        let a = pattern("not decompressed while listing (1.2 KiB); list with --verify (lz4 payload (512 B))");
        let b = pattern("not decompressed while listing (3.0 MiB); list with --verify (lz4 payload (1.1 KiB))");
        assert_eq!(a, b);
        assert_eq!(a, "not decompressed while listing (#); list with --verify (lz4 payload (#))");
        assert_eq!(pattern("entry at 0x1f00 of 12,775 bytes"), "entry at # of #");
        assert_eq!(pattern("gfx906 and sm_80 in v3"), "gfx906 and sm_80 in v3");
        assert_eq!(pattern("1 zero bytes of padding"), "# zero bytes of padding");
        assert_eq!(pattern("ends at 3."), "ends at #.");
    }
}
