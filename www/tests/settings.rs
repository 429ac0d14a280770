//! The settings: their defaults (the core's), how a typed draft is checked, how the kept copy
//! is read back (tolerating what is missing or damaged), how the reducer holds them, and that a
//! limit set here stops the real core and says so in the diagnostics the summary lists. Runs
//! natively and in headless Chromium, where `localStorage` is tested too.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offload::explore::Options;
use offload_www::page::settings::{SettingsDraft, SettingsProblems};
use offload_www::page::state::{Action, AppState};
use offload_www::wire::doc::{explore_bytes_with, Doc};
use offload_www::wire::settings::{Settings, MAX_DECOMPRESSED_MIB, MAX_DEPTH};

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.o");

fn messages(doc: &Doc) -> Vec<String> {
    doc.diagnostics().into_iter().map(|(_, d)| d.message.clone()).collect()
}

#[test]
fn the_defaults_are_the_cores() {
    let core = Options::default();
    let s = Settings::default();
    assert_eq!(s, Settings { max_decompressed_mib: 4096, max_depth: 8, verify_all: false, max_entries: 100_000 });
    let o = s.options();
    assert_eq!(o.max_entries, core.max_entries);
    assert_eq!(o.max_decompressed, core.max_decompressed);
    assert_eq!(o.max_depth, core.max_depth);
    assert_eq!(o.verify_all, core.verify_all);
    assert_eq!(o.full_decompress_up_to, core.full_decompress_up_to);
    assert!(
        s.max_decompressed_mib <= MAX_DECOMPRESSED_MIB && s.max_depth <= MAX_DEPTH,
        "the defaults can be typed back in"
    );
}

#[test]
fn settings_become_the_cores_options() {
    let o = Settings { max_decompressed_mib: 3, max_depth: 2, verify_all: true, max_entries: 9 }.options();
    assert_eq!(o.max_entries, 9);
    assert_eq!(o.max_decompressed, 3 << 20);
    assert_eq!(o.max_depth, 2);
    assert!(o.verify_all);
    assert_eq!(
        o.full_decompress_up_to,
        Options::default().full_decompress_up_to,
        "what cannot be set stays the core's"
    );
    assert_eq!(
        Settings { max_decompressed_mib: 16, max_depth: 4, verify_all: true, max_entries: 50 }.describe(),
        "decompressed bundles up to 16 MiB, nesting up to 4 levels, up to 50 entries per container, every compressed bundle verified"
    );
    assert_eq!(
        Settings::default().describe(),
        "decompressed bundles up to 4096 MiB, nesting up to 8 levels, up to 100000 entries per container, compressed bundles over 32 MiB listed from their header"
    );
}

#[test]
fn a_draft_is_checked_field_by_field() {
    let draft = |mib: &str, depth: &str| SettingsDraft {
        max_decompressed_mib: mib.into(),
        max_depth: depth.into(),
        verify_all: true,
        max_entries: "500".into(),
    };
    assert_eq!(
        draft(" 64 ", "3").validate(),
        Ok(Settings { max_decompressed_mib: 64, max_depth: 3, verify_all: true, max_entries: 500 })
    );
    let entries = SettingsDraft { max_entries: "0".into(), ..draft("64", "3") };
    assert_eq!(entries.validate().unwrap_err().max_entries.as_deref(), Some("Must be at least 1."));
    let entries = SettingsDraft { max_entries: "1000001".into(), ..draft("64", "3") };
    assert_eq!(entries.validate().unwrap_err().max_entries.as_deref(), Some("Must be at most 1000000 entries."));
    assert_eq!(
        draft("0", "deep").validate(),
        Err(SettingsProblems {
            max_decompressed_mib: Some("Must be at least 1.".into()),
            max_depth: Some("“deep” is not a whole number. Enter one from 1 to 32.".into()),
            max_entries: None,
        })
    );
    assert_eq!(
        draft("8192", "8").validate(),
        Err(SettingsProblems {
            max_decompressed_mib: Some("Must be at most 4096 MiB: the explorer's memory holds at most 4 GiB.".into()),
            max_depth: None,
            max_entries: None
        })
    );
    assert_eq!(
        draft("1", "").validate(),
        Err(SettingsProblems {
            max_decompressed_mib: None,
            max_depth: Some("Enter a whole number from 1 to 32.".into()),
            max_entries: None
        })
    );
    assert_eq!(draft("1", "-1").validate().unwrap_err().max_depth.as_deref(), Some("Must be at least 1."));
    assert_eq!(draft("1", "33").validate().unwrap_err().max_depth.as_deref(), Some("Must be at most 32 levels."));
    // The form starts from the settings it shows, and gives them back unchanged.
    let s = Settings { max_decompressed_mib: 12, max_depth: 5, verify_all: true, max_entries: 77 };
    assert_eq!(SettingsDraft::from(s).validate(), Ok(s));
}

#[test]
fn kept_settings_are_read_back_and_bad_values_fall_back_one_by_one() {
    let s = Settings { max_decompressed_mib: 100, max_depth: 3, verify_all: true, max_entries: 40 };
    assert_eq!(Settings::from_stored(Some(&s.to_stored())), s, "round trip");
    assert_eq!(s.to_stored(), "max_decompressed_mib=100\nmax_depth=3\nverify_all=true\nmax_entries=40\n");
    let default = Settings::default();
    assert_eq!(Settings::from_stored(None), default, "nothing kept yet");
    assert_eq!(Settings::from_stored(Some("")), default);
    assert_eq!(Settings::from_stored(Some("{\"max_depth\": 3}")), default, "not this format");
    assert_eq!(Settings::from_stored(Some("\u{0}\u{ff}garbage=\n=\n==")), default);
    // Each value on its own: a good one is kept beside a bad one.
    assert_eq!(Settings::from_stored(Some("max_depth=3")), Settings { max_depth: 3, ..default });
    assert_eq!(
        Settings::from_stored(Some("max_decompressed_mib=0\nmax_depth= 5 \r\nverify_all=yes\n")),
        Settings { max_depth: 5, ..default },
        "out of range, spaces and Windows line ends"
    );
    assert_eq!(
        Settings::from_stored(Some("max_decompressed_mib=5000\nmax_depth=1000\nverify_all=true")),
        Settings { verify_all: true, ..default }
    );
    assert_eq!(
        Settings::from_stored(Some("colour=blue\nmax_decompressed_mib=2")),
        Settings { max_decompressed_mib: 2, ..default },
        "unknown keys are ignored"
    );
}

#[test]
fn the_reducer_holds_the_settings_and_each_tab_keeps_those_it_was_explored_with() {
    let old = Settings { max_decompressed_mib: 64, max_depth: 4, verify_all: false, max_entries: 10 };
    let new = Settings { max_decompressed_mib: 1, max_depth: 2, verify_all: true, max_entries: 20 };
    let s = AppState::with_settings(old);
    assert_eq!(s.settings, old, "the page starts with the kept settings");
    assert!(!s.settings_open);
    let s = s
        .reduce(Action::Open { id: 1, name: "a.o".into(), size: 1, at_ms: 0.0, settings: old })
        .reduce(Action::ShowSettings(true));
    assert!(s.settings_open);
    let s = s.reduce(Action::SetSettings(new)).reduce(Action::ShowSettings(false));
    assert_eq!(s.settings, new);
    assert!(!s.settings_open);
    assert_eq!(s.tab(1).unwrap().settings, old, "an open file keeps the limits it was explored with");
    let s = s.reduce(Action::Open { id: 2, name: "b.o".into(), size: 1, at_ms: 1.0, settings: new });
    assert_eq!(s.tab(2).unwrap().settings, new);
    let s = s.reduce(Action::Restarted { id: 1, at_ms: 2.0, settings: new });
    assert_eq!(s.tab(1).unwrap().settings, new, "re-opened with the new settings");
    assert_eq!(AppState::default().settings, Settings::default());
}

#[test]
fn a_nesting_limit_stops_the_core_and_says_so_in_the_diagnostics() {
    let shallow = Settings { max_depth: 1, ..Settings::default() };
    let doc = explore_bytes_with(HIP_O, "hip.o", &shallow.options());
    let said = messages(&doc);
    assert!(said.iter().any(|m| m == "containers nested deeper than 1 levels are not explored"), "{said:?}");
    assert!(doc.targets.is_empty(), "the targets lie deeper than the limit");
    let doc = explore_bytes_with(HIP_O, "hip.o", &Settings::default().options());
    assert!(!messages(&doc).iter().any(|m| m.contains("nested deeper")));
    assert_eq!(doc.targets.len(), 2);
}

#[test]
fn an_entry_limit_cuts_a_container_and_says_so() {
    let few = Settings { max_entries: 1, ..Settings::default() };
    let doc = explore_bytes_with(HIP_O, "hip.o", &few.options());
    let said = messages(&doc);
    assert!(said.iter().any(|m| m.contains("more entries are not shown")), "{said:?}");
    let doc = explore_bytes_with(HIP_O, "hip.o", &Settings::default().options());
    assert!(!messages(&doc).iter().any(|m| m.contains("more entries are not shown")));
}

#[cfg(target_arch = "wasm32")]
#[test]
fn settings_are_kept_in_local_storage() {
    use offload_www::page::settings::{load, save, STORAGE_KEY};
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage.remove_item(STORAGE_KEY).unwrap();
    assert_eq!(load(), Settings::default(), "nothing kept");
    let s = Settings { max_decompressed_mib: 7, max_depth: 9, verify_all: true, max_entries: 3 };
    save(&s).unwrap();
    assert_eq!(
        storage.get_item(STORAGE_KEY).unwrap().as_deref(),
        Some("max_decompressed_mib=7\nmax_depth=9\nverify_all=true\nmax_entries=3\n")
    );
    assert_eq!(load(), s);
    storage.set_item(STORAGE_KEY, "<not settings>").unwrap();
    assert_eq!(load(), Settings::default(), "a damaged copy is not trusted");
    storage.remove_item(STORAGE_KEY).unwrap();
}
