//! The settings on the page's side: what the page says about them, how a typed value is
//! checked, and the copy kept in this browser. The settings themselves cross to the worker
//! with every file ([`crate::wire::settings`]).
//!
//! The page keeps the settings in its reducer and a copy in `localStorage` as `key=value`
//! lines (see [`Settings::to_stored`]), read back tolerantly: a missing, unreadable or
//! out-of-range value falls back to its default on its own.
//!
//! Browser-free (validation, storage format) so it is tested natively; only reading and
//! writing `localStorage` needs the browser.

use crate::wire::settings::{Settings, MAX_DECOMPRESSED_MIB, MAX_DEPTH, MAX_ENTRIES, MIB};
use offload::explore::Options;

/// Where the settings are kept in `localStorage`.
pub const STORAGE_KEY: &str = "offload-explorer.settings";

impl Settings {
    /// The size above which a compressed bundle is only listed from its header unless every
    /// bundle is verified, in MiB (not a setting; shown to explain "verify every bundle").
    pub fn header_only_above_mib() -> u64 {
        Options::default().full_decompress_up_to / MIB
    }

    /// One line a person can read: what files are explored with.
    pub fn describe(&self) -> String {
        let verify = if self.verify_all {
            "every compressed bundle verified".to_string()
        } else {
            format!("compressed bundles over {} MiB listed from their header", Settings::header_only_above_mib())
        };
        format!(
            "decompressed bundles up to {} MiB, nesting up to {} levels, up to {} entries per container, {verify}",
            self.max_decompressed_mib, self.max_depth, self.max_entries
        )
    }

    /// The text kept in `localStorage`: one `key=value` line per setting.
    pub fn to_stored(&self) -> String {
        format!(
            "max_decompressed_mib={}\nmax_depth={}\nverify_all={}\nmax_entries={}\n",
            self.max_decompressed_mib, self.max_depth, self.verify_all, self.max_entries
        )
    }

    /// Settings read back from `localStorage`. Whatever is missing, unreadable or out of range
    /// (an older page's keys, a hand-edited value, another site's data) keeps its default, each
    /// setting on its own; unknown keys are ignored.
    pub fn from_stored(stored: Option<&str>) -> Settings {
        let mut settings = Settings::default();
        for line in stored.unwrap_or("").lines() {
            let Some((key, value)) = line.split_once('=') else { continue };
            match key.trim() {
                "max_decompressed_mib" => {
                    if let Ok(v) = parse_decompressed_mib(value) {
                        settings.max_decompressed_mib = v;
                    }
                }
                "max_depth" => {
                    if let Ok(v) = parse_depth(value) {
                        settings.max_depth = v;
                    }
                }
                "max_entries" => {
                    if let Ok(v) = parse_entries(value) {
                        settings.max_entries = v;
                    }
                }
                "verify_all" => match value.trim() {
                    "true" => settings.verify_all = true,
                    "false" => settings.verify_all = false,
                    _ => {}
                },
                _ => {}
            }
        }
        settings
    }
}

/// The settings form as typed: text until it is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsDraft {
    pub max_decompressed_mib: String,
    pub max_depth: String,
    pub verify_all: bool,
    pub max_entries: String,
}

/// What is wrong with each field of a draft, said so that the person can fix it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SettingsProblems {
    pub max_decompressed_mib: Option<String>,
    pub max_depth: Option<String>,
    pub max_entries: Option<String>,
}

impl From<Settings> for SettingsDraft {
    fn from(s: Settings) -> Self {
        SettingsDraft {
            max_decompressed_mib: s.max_decompressed_mib.to_string(),
            max_depth: s.max_depth.to_string(),
            verify_all: s.verify_all,
            max_entries: s.max_entries.to_string(),
        }
    }
}

impl SettingsDraft {
    /// The settings, or what is wrong with every field that is wrong.
    pub fn validate(&self) -> Result<Settings, SettingsProblems> {
        match (
            parse_decompressed_mib(&self.max_decompressed_mib),
            parse_depth(&self.max_depth),
            parse_entries(&self.max_entries),
        ) {
            (Ok(max_decompressed_mib), Ok(max_depth), Ok(max_entries)) => {
                Ok(Settings { max_decompressed_mib, max_depth, verify_all: self.verify_all, max_entries })
            }
            (mib, depth, entries) => Err(SettingsProblems {
                max_decompressed_mib: mib.err(),
                max_depth: depth.err(),
                max_entries: entries.err(),
            }),
        }
    }
}

pub fn parse_decompressed_mib(text: &str) -> Result<u32, String> {
    parse_whole(text, 1, MAX_DECOMPRESSED_MIB, "MiB: the explorer's memory holds at most 4 GiB")
}

pub fn parse_depth(text: &str) -> Result<u32, String> {
    parse_whole(text, 1, MAX_DEPTH, "levels")
}

pub fn parse_entries(text: &str) -> Result<u32, String> {
    parse_whole(text, 1, MAX_ENTRIES, "entries")
}

/// A whole number from `min` to `max`, or why the text is not one; `above_max` follows the
/// maximum in the message that says a value is too large.
fn parse_whole(text: &str, min: u32, max: u32, above_max: &str) -> Result<u32, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("Enter a whole number from {min} to {max}."));
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("“{text}” is not a whole number. Enter one from {min} to {max}."));
    }
    if text.starts_with('-') {
        return Err(format!("Must be at least {min}."));
    }
    // Digits only, so the one way to fail is being too large for any integer.
    let value = digits.parse::<u64>().unwrap_or(u64::MAX);
    if value < u64::from(min) {
        Err(format!("Must be at least {min}."))
    } else if value > u64::from(max) {
        Err(format!("Must be at most {max} {above_max}."))
    } else {
        Ok(value as u32)
    }
}

/// The settings kept in this browser, or the defaults when there are none or they cannot be
/// read (storage disabled, private mode).
#[cfg(target_arch = "wasm32")]
pub fn load() -> Settings {
    let stored = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten());
    Settings::from_stored(stored.as_deref())
}

/// Keeps the settings in this browser. Fails where storage is disabled or full; the settings
/// then last as long as the page.
#[cfg(target_arch = "wasm32")]
pub fn save(settings: &Settings) -> Result<(), String> {
    let storage = storage().ok_or("this browser keeps no local storage for the page")?;
    storage.set_item(STORAGE_KEY, &settings.to_stored()).map_err(|e| format!("{e:?}"))
}

#[cfg(target_arch = "wasm32")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_whole_positive_and_bounded() {
        assert_eq!(parse_depth(" 12 "), Ok(12));
        assert_eq!(parse_depth("+3"), Ok(3));
        assert_eq!(parse_depth("1"), Ok(1));
        assert_eq!(parse_depth("32"), Ok(32));
        assert_eq!(parse_depth("0"), Err("Must be at least 1.".into()));
        assert_eq!(parse_depth("-2"), Err("Must be at least 1.".into()));
        assert_eq!(parse_depth("33"), Err("Must be at most 32 levels.".into()));
        assert_eq!(parse_decompressed_mib("4096"), Ok(4096));
        assert_eq!(
            parse_decompressed_mib("4097"),
            Err("Must be at most 4096 MiB: the explorer's memory holds at most 4 GiB.".into())
        );
        assert!(parse_decompressed_mib("99999999999999999999999").unwrap_err().starts_with("Must be at most 4096 MiB"));
        assert_eq!(parse_decompressed_mib("1.5"), Err("“1.5” is not a whole number. Enter one from 1 to 4096.".into()));
        assert_eq!(
            parse_decompressed_mib("0x10"),
            Err("“0x10” is not a whole number. Enter one from 1 to 4096.".into())
        );
        assert_eq!(parse_decompressed_mib("  "), Err("Enter a whole number from 1 to 4096.".into()));
        assert_eq!(parse_decompressed_mib("-"), Err("“-” is not a whole number. Enter one from 1 to 4096.".into()));
    }
}
