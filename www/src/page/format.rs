//! Text shown for numbers, sizes and bytes, and the parsing of what people type as an offset.

pub use offload::util::bytes::{human_size, thousands};

/// An offset as the hex view and the inspector print it.
pub fn hex_offset(n: u64) -> String {
    format!("{n:#x}")
}

/// Bytes as space-separated hex pairs, at most `limit` of them, with an ellipsis past that.
pub fn hex_bytes(bytes: &[u8], limit: usize) -> String {
    let mut s: Vec<String> = bytes.iter().take(limit).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > limit {
        s.push("…".into());
    }
    s.join(" ")
}

/// Bytes in a row of the inspector's Raw column, as a hex dump prints them.
pub const HEX_ROW_BYTES: usize = 16;
/// Bytes in a group of a row, which is never broken across lines: a column too narrow for a
/// whole row wraps it between groups, never inside a byte.
pub const HEX_GROUP_BYTES: usize = 4;

/// Bytes as rows of [`HEX_ROW_BYTES`], each row as its groups of [`HEX_GROUP_BYTES`]
/// space-separated hex pairs.
pub fn hex_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    bytes
        .chunks(HEX_ROW_BYTES)
        .map(|row| row.chunks(HEX_GROUP_BYTES).map(|group| hex_bytes(group, HEX_GROUP_BYTES)).collect())
        .collect()
}

/// The character the hex view's text column shows for a byte.
pub fn ascii(b: u8) -> char {
    if b.is_ascii_graphic() || b == b' ' {
        b as char
    } else {
        '.'
    }
}

/// `text` with its first letter in upper case: messages are written to follow a colon, and
/// start with a capital where they stand alone. ASCII only (every message starts with an ASCII
/// letter), which keeps Unicode's case tables out of the page.
pub fn capitalized(text: &str) -> String {
    let mut out = text.to_string();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

/// Parses a "go to offset" entry: `0x1f00` or `1f00h` is hex, `8000` is decimal, and digits with
/// hex letters but no prefix (`1f00`) are read as hex too, since nothing else could be meant.
/// Underscores and surrounding spaces are ignored.
pub fn parse_offset(text: &str) -> Result<u64, String> {
    let t: String = text.trim().chars().filter(|&c| c != '_').collect::<String>().to_ascii_lowercase();
    if t.is_empty() {
        return Err("type an offset, such as 0x1000 or 4096".into());
    }
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(h) = t.strip_suffix('h') {
        (h.to_string(), 16)
    } else if t.chars().all(|c| c.is_ascii_digit()) {
        (t.clone(), 10)
    } else {
        (t.clone(), 16)
    };
    if digits.is_empty() {
        return Err(format!("'{}' has no digits", text.trim()));
    }
    u64::from_str_radix(&digits, radix).map_err(|_| format!("'{}' is not a decimal or hex offset", text.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_start_with_a_capital() {
        assert_eq!(capitalized("could not read: 3 bytes"), "Could not read: 3 bytes");
        assert_eq!(capitalized(""), "");
        assert_eq!(capitalized("élan"), "élan");
    }

    #[test]
    fn offsets_parse_as_people_type_them() {
        assert_eq!(parse_offset("0x1F00"), Ok(0x1f00));
        assert_eq!(parse_offset(" 4096 "), Ok(4096));
        assert_eq!(parse_offset("1f00"), Ok(0x1f00));
        assert_eq!(parse_offset("1000h"), Ok(0x1000));
        assert_eq!(parse_offset("0x4000_0000"), Ok(1 << 30));
        assert!(parse_offset("").is_err());
        assert!(parse_offset("0x").is_err());
        assert!(parse_offset("12g").is_err());
        assert!(parse_offset("0x10000000000000000").is_err());
    }

    #[test]
    fn bytes_print_as_hex_and_text() {
        assert_eq!(hex_bytes(&[0x7f, b'E', b'L', b'F'], 8), "7f 45 4c 46");
        assert_eq!(hex_bytes(&[1, 2, 3], 2), "01 02 …");
        assert_eq!(ascii(b'A'), 'A');
        assert_eq!(ascii(0), '.');
        assert_eq!(hex_offset(4096), "0x1000");
    }

    #[test]
    fn long_raw_bytes_make_rows_of_sixteen_in_groups_of_four() {
        let bytes: Vec<u8> = (0..64).collect();
        let rows = hex_rows(&bytes);
        assert_eq!(rows.len(), 4, "64 bytes, 4 rows");
        assert_eq!(rows[0], ["00 01 02 03", "04 05 06 07", "08 09 0a 0b", "0c 0d 0e 0f"]);
        assert_eq!(rows[3][3], "3c 3d 3e 3f");
        assert_eq!(hex_rows(&[0xde, 0xad, 0xbe, 0xef, 1]), [vec!["de ad be ef".to_string(), "01".to_string()]]);
        assert!(hex_rows(&[]).is_empty());
    }
}
