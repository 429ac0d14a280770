//! Values typed into the inspector's edit forms, checked as they are typed so that Apply is
//! only offered for an edit the core will take. Browser-free, so tested natively.

use offload::codec::Method;

/// The level typed for `method`: `Ok(None)` for an empty box (the method's default), the
/// level when it is one the method has, otherwise what was expected.
pub fn parse_level(method: Method, text: &str) -> Result<Option<i32>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let range = match method {
        Method::Zlib => 0..=9,
        Method::Zstd => 1..=22,
    };
    match text.parse::<i32>() {
        Ok(level) if range.contains(&level) => Ok(Some(level)),
        _ => Err(format!(
            "expected a {} level from {} to {} (or nothing for {}), found '{text}'",
            method.name(),
            range.start(),
            range.end(),
            method.default_level()
        )),
    }
}

/// The flags typed for an offload entry: a 32-bit number, decimal or `0x` hex.
pub fn parse_flags(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => t.parse::<u32>(),
    };
    parsed.map_err(|_| format!("expected a number from 0 to 4294967295 (decimal, or hex with 0x), found '{t}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_checked_against_the_method() {
        assert_eq!(parse_level(Method::Zstd, ""), Ok(None));
        assert_eq!(parse_level(Method::Zstd, " 19 "), Ok(Some(19)));
        assert_eq!(parse_level(Method::Zlib, "9"), Ok(Some(9)));
        let e = parse_level(Method::Zlib, "12").unwrap_err();
        assert_eq!(e, "expected a zlib level from 0 to 9 (or nothing for 6), found '12'");
        assert!(parse_level(Method::Zstd, "fast").is_err());
        assert!(parse_level(Method::Zstd, "0").is_err());
    }

    #[test]
    fn flags_are_decimal_or_hex() {
        assert_eq!(parse_flags("7"), Ok(7));
        assert_eq!(parse_flags("0x10"), Ok(16));
        assert!(parse_flags("-1").unwrap_err().contains("found '-1'"));
        assert!(parse_flags("4294967296").is_err());
    }
}
