//! Every edit the page's forms offer, made on every node that offers it in real fixtures, the
//! way the worker makes it: the core applies the page's request and the result is explored
//! again. Each either succeeds and reads back with no error or warning the file did not have, or
//! is refused with a message — never a panic, never a file the page would then refuse. Natively,
//! every edit is also made on the result of every other, since layouts that one edit leaves can
//! trip the next (a binary grown twice once left a gap LLVM could not read).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offload::codec::Method;
use offload::edit::{apply, new_diagnostics, new_errors, Edit, EditError, NewEntry};
use offload::explore::{explore, Options};
use offload::tree::{NodeKind, Severity, Tree};
use offload_www::wire::doc::{explore_bytes, Doc};

const FIXTURES: &[(&str, &[u8])] = &[
    ("hip_elf_2arch.o", include_bytes!("../../tests/fixtures/hip_elf_2arch.o")),
    ("hip_elf_2arch_compressed.o", include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.o")),
    ("omp_elf_2arch.o", include_bytes!("../../tests/fixtures/omp_elf_2arch.o")),
    ("libhip_3tu_compressed.so", include_bytes!("../../tests/fixtures/libhip_3tu_compressed.so")),
    ("bundle_bin.bc", include_bytes!("../../tests/fixtures/bundle_bin.bc")),
    ("bundle_text.ll", include_bytes!("../../tests/fixtures/bundle_text.ll")),
    ("offbin_two_images.offbin", include_bytes!("../../tests/fixtures/offbin_two_images.offbin")),
    ("hip_rdc_archive.a", include_bytes!("../../tests/fixtures/hip_rdc_archive.a")),
];

/// The requests the forms of `node` can send (see `components::edit_panel`).
fn offered(doc: &Doc, node: usize) -> Vec<Edit> {
    let path = doc.path_of(node);
    let n = &doc.nodes[node];
    let mut out = Vec::new();
    match n.kind {
        NodeKind::BundleEntry => {
            out.push(Edit::SetEntryId { node: path.clone(), id: "hipv4-amdgcn-amd-amdhsa--gfx1100".into() });
            out.push(Edit::RemoveEntry { node: path.clone() });
            out.push(Edit::MoveEntry { node: path.clone(), to: 0 });
            out.push(Edit::ReplaceContent { node: path.clone(), data: vec![0x5a; 300] });
        }
        NodeKind::OffloadEntry => {
            out.push(Edit::SetString {
                node: path.clone(),
                key: "triple".into(),
                value: Some("amdgcn-amd-amdpal".into()),
            });
            out.push(Edit::SetString {
                node: path.clone(),
                key: "extra".into(),
                value: Some("a much longer value than before".into()),
            });
            out.push(Edit::SetImageKind { node: path.clone(), kind: 2 });
            out.push(Edit::SetOffloadKind { node: path.clone(), kind: 4 });
            out.push(Edit::SetFlags { node: path.clone(), flags: 1 });
            out.push(Edit::RemoveEntry { node: path.clone() });
            out.push(Edit::MoveEntry { node: path.clone(), to: 0 });
            out.push(Edit::ReplaceContent { node: path.clone(), data: vec![7; 100] });
        }
        NodeKind::CompressedBundle => {
            out.push(Edit::Decompress { node: path.clone() });
            out.push(Edit::Compress { node: path.clone(), method: Method::Zlib, level: Some(9), version: 2 });
        }
        NodeKind::Bundle if doc.field(node, "magic").is_some() => {
            out.push(Edit::Compress { node: path.clone(), method: Method::Zstd, level: None, version: 3 });
            out.push(Edit::AddEntry {
                container: path.clone(),
                entry: NewEntry {
                    id: "hipv4-amdgcn-amd-amdhsa--gfx1100".into(),
                    data: vec![1; 64],
                    ..Default::default()
                },
            });
        }
        NodeKind::TextBundle => {
            out.push(Edit::AddEntry {
                container: path.clone(),
                entry: NewEntry {
                    id: "hip-amdgcn-amd-amdhsa--gfx1100".into(),
                    data: b"; more\n".to_vec(),
                    ..Default::default()
                },
            });
        }
        NodeKind::OffloadBinary => {
            let strings = vec![("triple".into(), "amdgcn-amd-amdhsa".into()), ("arch".into(), "gfx1100".into())];
            out.push(Edit::AddEntry {
                container: path.clone(),
                entry: NewEntry { strings, image_kind: 1, offload_kind: 1, data: vec![3; 40], ..Default::default() },
            });
        }
        NodeKind::Image | NodeKind::ArchiveMember => {
            out.push(Edit::ReplaceContent { node: path.clone(), data: vec![9; 50] })
        }
        _ => {}
    }
    out
}

#[test]
fn every_offered_edit_reads_back_or_is_refused_with_a_message() {
    let options = Options::default();
    let mut made = 0;
    for (name, bytes) in FIXTURES {
        let doc = explore_bytes(bytes, name);
        let tree = explore(*bytes, name, &options);
        for node in 0..doc.nodes.len() {
            for request in offered(&doc, node) {
                match apply(bytes, &tree, &request) {
                    Ok(edited) => {
                        let after = explore(&edited.bytes[..], name, &options);
                        let errors = new_errors(&tree, &after);
                        assert!(errors.is_empty(), "{name}: {request:?} wrote a file with new errors: {errors:?}");
                        let warnings = unasked_warnings(&tree, &after);
                        assert!(
                            warnings.is_empty(),
                            "{name}: {request:?} wrote a file with new warnings: {warnings:?}"
                        );
                        let new_doc = explore_bytes(&edited.bytes, name);
                        assert!(
                            new_doc.nearest_at(&edited.mark).is_some(),
                            "{name}: {request:?}: the mark {:?} names no node",
                            edited.mark
                        );
                        made += 1;
                    }
                    Err(EditError::Invalid(m)) | Err(EditError::DoesNotFit { message: m, .. }) => {
                        assert!(!m.is_empty(), "{name}: {request:?} refused without a message");
                    }
                }
            }
        }
    }
    assert!(made > 40, "only {made} edits were made");
}

/// New warnings in `after`, but for the one an offered edit asks for: an image kind that does
/// not fit the image (the forms offer every kind on every entry, and the page shows the warning).
fn unasked_warnings(before: &Tree, after: &Tree) -> Vec<String> {
    let mut warnings = new_diagnostics(before, after, Severity::Warning);
    warnings.retain(|w| !w.contains("does not fit the image"));
    warnings
}

/// Applies every offered edit to `bytes`; checks each result against `original` (no error or
/// warning it did not have) and returns the results.
#[cfg(not(target_arch = "wasm32"))]
fn apply_all(name: &str, bytes: &[u8], original: &Tree, label: &str) -> Vec<(String, Vec<u8>)> {
    let options = Options::default();
    let doc = explore_bytes(bytes, name);
    let tree = explore(bytes, name, &options);
    let mut out = Vec::new();
    for node in 0..doc.nodes.len() {
        for request in offered(&doc, node) {
            let Ok(edited) = apply(bytes, &tree, &request) else { continue };
            let after = explore(&edited.bytes[..], name, &options);
            let errors = new_errors(original, &after);
            assert!(errors.is_empty(), "{name}: {label} then {request:?}: new errors {errors:?}");
            let warnings = unasked_warnings(original, &after);
            assert!(warnings.is_empty(), "{name}: {label} then {request:?}: new warnings {warnings:?}");
            out.push((format!("{label} then {request:?}"), edited.bytes));
        }
    }
    out
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_offered_edit_made_after_every_other_reads_back_without_new_warnings() {
    let mut made = 0;
    for (name, bytes) in FIXTURES {
        let original = explore(*bytes, name, &Options::default());
        for (first, edited) in apply_all(name, bytes, &original, "the file") {
            made += apply_all(name, &edited, &original, &first).len();
        }
    }
    assert!(made > 1000, "only {made} pairs of edits were made");
}
