//! Everything the page offers for download, on every fixture, passes the worker's read-back
//! check: the page's plan (`page::downloads::plan`) and the worker's rule
//! (`worker::read_back`) meet here, outside both. Natively only: it reads the fixtures folder.
#![cfg(not(target_arch = "wasm32"))]

use offload::explore::{explore, Options};
use offload::report::file_names::{image_extension, image_stem, UniqueNames};
use offload_www::page::downloads::plan::{bytes_available, Plan};
use offload_www::wire::doc::explore_bytes;
use offload_www::wire::doc::Doc;
use offload_www::worker::read_back::check_read_back;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Every fixture that is a real file (not the generator's notes).
fn all_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file()) // not tests/fixtures/nvidia/
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| !matches!(n.as_str(), "README.md" | "SHA256SUMS" | "generate.sh" | "expected.txt"))
        .collect();
    names.sort();
    names
}

/// Everything offered, on every fixture, reads back without errors its source did not have,
/// and names are unique within a file.
#[test]
fn every_offer_of_every_fixture_reads_back() {
    let mut checked = 0;
    for name in all_fixtures() {
        let data = std::fs::read(fixtures().join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tree = explore(&data[..], &name, &Options::default());
        let doc = Doc::of_bytes(&tree, &data);
        let plan = Plan::of(&doc);
        let mut seen = std::collections::HashSet::new();
        for offer in plan.offers() {
            assert!(seen.insert(offer.name.clone()), "{name}: {} twice", offer.name);
            assert!(!offer.name.contains('/') && !offer.name.starts_with('.'), "{name}: {}", offer.name);
            if !bytes_available(&doc, offer.span) {
                continue;
            }
            let bytes = tree.bytes(&data, offer.span).unwrap();
            let back = explore(bytes, &offer.name, &Options::default());
            if let Err(errors) = check_read_back(&back, offer.source_errors) {
                panic!("{name}: {} ({}) does not read back: {errors:?}", offer.name, offer.what);
            }
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} offers checked");
}

/// The names of the device images, on every fixture, are the ones `offload extract` gives
/// (its loop, rebuilt from the same core functions: collect, bytes, describe, number).
#[test]
fn every_fixture_names_its_images_as_extract_does() {
    for name in all_fixtures() {
        let data = std::fs::read(fixtures().join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tree = explore(&data[..], &name, &Options { verify_all: true, ..Options::default() });
        let mut names = UniqueNames::new();
        let extract: Vec<String> = offload::report::targets::collect(&tree)
            .iter()
            .map(|t| {
                names.take(
                    &image_stem(&name, &t.target_id, t.member.as_deref()),
                    tree.bytes(&data, t.span).map_or("bin", image_extension),
                )
            })
            .collect();
        let doc = explore_bytes(&data, &name);
        let ours: Vec<String> = Plan::of(&doc).images().map(|o| o.name.clone()).collect();
        assert_eq!(ours, extract, "{name}");
    }
}
