//! Versions of an edited file in the reducer: each edit adds one after the shown version and
//! drops the undone ones, undo and redo switch between them, the edited nodes stay marked
//! (the marks of version i are those of edits 1..=i), and the selection stays on the same
//! path. The edits are made by the real core on real fixtures.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offload::codec::Method;
use offload::edit::{apply, Edit};
use offload::explore::{explore, Options};
use offload::tree::NodeKind;
use offload_www::page::state::{Action, AppState, EditStatus};
use offload_www::wire::doc::{explore_bytes, Doc, NodeId};
use offload_www::wire::edit::Verified;
use offload_www::wire::settings::Settings;
use offload_www::worker::read_back::payload_file_name;
use std::rc::Rc;

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch.o");
const NAME: &str = "hip_elf_2arch.o";
const OLD_ID: &str = "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-";

fn find(doc: &Doc, label_starts: &str) -> NodeId {
    doc.nodes
        .iter()
        .position(|n| n.label.starts_with(label_starts))
        .unwrap_or_else(|| panic!("no node labelled {label_starts}…"))
}

/// The file after `edit`, explored; and the path the core marks.
fn edited(bytes: &[u8], edit: &Edit) -> (Vec<u8>, Rc<Doc>, Vec<usize>) {
    let (bytes, doc, mark, _) = edited_selecting(bytes, edit);
    (bytes, doc, mark)
}

/// The same, with the path the worker tells the page to select.
fn edited_selecting(bytes: &[u8], edit: &Edit) -> (Vec<u8>, Rc<Doc>, Vec<usize>, Vec<usize>) {
    let tree = explore(bytes, NAME, &Options::default());
    let out = apply(bytes, &tree, edit).unwrap_or_else(|e| panic!("{edit:?}: {e}"));
    let select =
        offload::edit::selection_after(edit, &tree, &explore(&out.bytes[..], NAME, &Options::default()), &out.mark);
    let doc = Rc::new(explore_bytes(&out.bytes, NAME));
    (out.bytes, doc, out.mark, select)
}

fn opened() -> (AppState, Rc<Doc>) {
    let doc = Rc::new(explore_bytes(HIP_O, NAME));
    let s = AppState::default()
        .reduce(Action::Open {
            id: 1,
            name: NAME.into(),
            size: HIP_O.len() as u64,
            at_ms: 0.0,
            settings: Settings::default(),
        })
        .reduce(Action::Loaded { id: 1, doc: doc.clone() });
    (s, doc)
}

fn set_id(doc: &Doc, old: &str, id: &str) -> Edit {
    let entry = find(doc, old);
    Edit::SetEntryId { node: doc.path_of(entry), id: id.into() }
}

#[test]
fn a_file_as_opened_is_version_zero_with_nothing_to_undo() {
    let (s, _) = opened();
    let tab = s.tab(1).unwrap();
    assert_eq!((tab.versions.len(), tab.current), (1, 0));
    assert!(!tab.can_undo() && !tab.can_redo() && !tab.is_edited());
    assert!(tab.marked().is_empty());
}

#[test]
fn an_edit_adds_a_version_marks_the_node_and_keeps_the_selection_on_its_path() {
    let (s, doc) = opened();
    let entry = find(&doc, OLD_ID);
    let s = s.reduce(Action::Select(entry));
    let (_, new_doc, mark) = edited(HIP_O, &set_id(&doc, OLD_ID, "hipv4-amdgcn-amd-amdhsa--gfx908"));
    assert_eq!(mark, doc.path_of(entry), "the core marks the entry itself");
    let s = s
        .reduce(Action::EditStarted { id: 1, what: "setting the entry ID".into() })
        .reduce(Action::EditProgress { id: 1, stage: "compressing".into() });
    assert!(matches!(&s.tab(1).unwrap().edit, EditStatus::Running { stage, .. } if stage == "compressing"));
    assert!(!s.tab(1).unwrap().can_undo(), "nothing is undone while an edit runs");
    let s = s.reduce(Action::Edited {
        id: 1,
        doc: new_doc.clone(),
        mark: mark.clone(),
        select: doc.path_of(entry),
        notes: vec!["note".into()],
    });
    let tab = s.tab(1).unwrap();
    assert_eq!((tab.versions.len(), tab.current), (2, 1));
    assert!(tab.can_undo() && !tab.can_redo() && tab.is_edited());
    assert_eq!((tab.undo_version(), tab.redo_version()), (Some(0), None), "undo shows the file as opened");
    assert!(Rc::ptr_eq(tab.doc().unwrap(), &new_doc));
    let selected = tab.selected.unwrap();
    assert_eq!(new_doc.path_of(selected), doc.path_of(entry), "the selection stays on the same path");
    assert!(new_doc.nodes[selected].label.starts_with("hipv4-amdgcn-amd-amdhsa--gfx908"));
    assert_eq!(tab.marked(), vec![selected]);
    assert_eq!(tab.edit, EditStatus::Done { what: "setting the entry ID".into(), notes: vec!["note".into()] });
}

#[test]
fn undo_and_redo_switch_versions_and_an_edit_after_undo_drops_the_redo_tail() {
    let (s, doc0) = opened();
    let (b1, doc1, mark1) = edited(HIP_O, &set_id(&doc0, OLD_ID, "hipv4-amdgcn-amd-amdhsa--gfx908"));
    let (_, doc2, mark2) =
        edited(&b1, &set_id(&doc1, "hipv4-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx90c"));
    let s = s
        .reduce(Action::Edited { id: 1, doc: doc1.clone(), mark: mark1.clone(), select: mark1.clone(), notes: vec![] })
        .reduce(Action::Edited { id: 1, doc: doc2.clone(), mark: mark2.clone(), select: mark2.clone(), notes: vec![] });
    assert_eq!(s.tab(1).unwrap().versions[2].marks, vec![mark1.clone()], "the same node edited twice is one mark");

    let s = s.reduce(Action::SwitchVersion { id: 1, index: 0 });
    let tab = s.tab(1).unwrap();
    assert!(Rc::ptr_eq(tab.doc().unwrap(), &doc0));
    assert!(tab.marked().is_empty() && !tab.is_edited() && tab.can_redo() && !tab.can_undo());
    assert_eq!((tab.undo_version(), tab.redo_version()), (None, Some(1)));

    let s = s.reduce(Action::SwitchVersion { id: 1, index: 1 });
    assert!(Rc::ptr_eq(s.tab(1).unwrap().doc().unwrap(), &doc1));
    let unchanged = s.clone().reduce(Action::SwitchVersion { id: 1, index: 9 });
    assert_eq!(unchanged, s, "a version that does not exist changes nothing");

    // A new edit on version 1 replaces version 2.
    let (_, doc3, mark3) = edited(
        &b1,
        &Edit::Compress {
            node: doc1.path_of(find(&doc1, "clang offload bundle")),
            method: Method::Zlib,
            level: None,
            version: 2,
        },
    );
    let s = s.reduce(Action::Edited {
        id: 1,
        doc: doc3.clone(),
        mark: mark3.clone(),
        select: mark3.clone(),
        notes: vec![],
    });
    let tab = s.tab(1).unwrap();
    assert_eq!((tab.versions.len(), tab.current), (3, 2));
    assert!(Rc::ptr_eq(&tab.versions[2].doc, &doc3) && !tab.can_redo());
    assert_eq!(tab.versions[2].marks, vec![mark1, mark3]);
}

#[test]
fn a_refused_edit_keeps_the_version_and_says_why() {
    let (s, _) = opened();
    let s = s.reduce(Action::EditStarted { id: 1, what: "compressing".into() }).reduce(Action::EditFailed {
        id: 1,
        message: "does not fit".into(),
        payload: Some(payload_file_name(NAME, offload::tree::NodeKind::CompressedBundle)),
    });
    let tab = s.tab(1).unwrap();
    assert_eq!(tab.versions.len(), 1);
    assert_eq!(
        tab.edit,
        EditStatus::Failed {
            what: "compressing".into(),
            message: "does not fit".into(),
            payload: Some("hip_elf_2arch.o.hipfb".into())
        }
    );
    let verified = Verified { node: vec![0, 1], stored: 5, computed: 5 };
    let s = s.reduce(Action::Verified { id: 1, verified: verified.clone() });
    assert_eq!(s.tab(1).unwrap().edit, EditStatus::Verified(verified));
}

#[test]
fn removing_the_selected_entry_selects_what_took_its_place() {
    let (s, doc) = opened();
    let entry = find(&doc, OLD_ID);
    let s = s.reduce(Action::Select(entry));
    let (_, new_doc, mark, select) = edited_selecting(HIP_O, &Edit::RemoveEntry { node: doc.path_of(entry) });
    let s = s.reduce(Action::Edited { id: 1, doc: new_doc.clone(), mark, select, notes: vec![] });
    let tab = s.tab(1).unwrap();
    let selected = tab.selected.unwrap();
    // The next entry moved up to the removed one's path.
    assert_eq!(new_doc.path_of(selected), doc.path_of(entry));
    assert!(new_doc.nodes[selected].label.starts_with("hipv4-amdgcn-amd-amdhsa--gfx90a"));
    assert!(tab.marked().iter().all(|&m| new_doc.nodes[m].kind == NodeKind::Bundle), "the container is marked");
}

#[test]
fn a_moved_entry_stays_selected_so_moving_it_again_moves_the_same_entry() {
    let (s, doc) = opened();
    let entry = find(&doc, OLD_ID);
    let s = s.reduce(Action::Select(entry));
    let entries = |d: &Doc| {
        d.nodes.iter().filter(|n| n.kind == NodeKind::BundleEntry).map(|n| n.label.clone()).collect::<Vec<_>>()
    };
    let before = entries(&doc);
    let at = before.iter().position(|l| l.starts_with(OLD_ID)).unwrap();
    assert!(at + 1 < before.len(), "{before:?}");
    let (_, new_doc, mark, select) = edited_selecting(HIP_O, &Edit::MoveEntry { node: doc.path_of(entry), to: at + 1 });
    let s = s.reduce(Action::Edited { id: 1, doc: new_doc.clone(), mark, select, notes: vec![] });
    let selected = s.tab(1).unwrap().selected.unwrap();
    assert!(
        new_doc.nodes[selected].label.starts_with(OLD_ID),
        "the moved entry is selected, not the one that took its place"
    );
    assert_eq!(entries(&new_doc).iter().position(|l| l.starts_with(OLD_ID)), Some(at + 1));
}

#[test]
fn compressing_a_bundle_keeps_the_history_and_marks_the_compressed_bundle() {
    let (s, doc) = opened();
    let bundle = find(&doc, "clang offload bundle");
    let edit = Edit::Compress { node: doc.path_of(bundle), method: Method::Zstd, level: None, version: 3 };
    let (_, new_doc, mark, select) = edited_selecting(HIP_O, &edit);
    let s = s.reduce(Action::Edited { id: 1, doc: new_doc.clone(), mark, select, notes: vec![] });
    let marked = s.tab(1).unwrap().marked();
    assert_eq!(marked.len(), 1);
    assert_eq!(new_doc.nodes[marked[0]].kind, NodeKind::CompressedBundle);
}

#[test]
fn paths_name_nodes_in_both_directions() {
    let doc = explore_bytes(HIP_O, NAME);
    for id in 0..doc.nodes.len() {
        assert_eq!(doc.node_at(&doc.path_of(id)), Some(id));
    }
    assert_eq!(doc.node_at(&[99]), None);
    assert_eq!(doc.nearest_at(&[0, 99, 3]), doc.node_at(&[0]));
}

/// A compressed bundle listed from its header, then decompressed on request: the shown
/// version's document is replaced, no version is added, the selection stays on the entry, its
/// new rows are expanded, and the hash check's verdict is kept; a Cancel leaves all as it was.
#[test]
fn a_bundle_decompressed_on_request_replaces_the_shown_document_and_keeps_the_selection() {
    use offload_www::page::state::Unpack;
    const COMPRESSED: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.o");
    let name = "hip_elf_2arch_compressed.o";
    let listing = Options { full_decompress_up_to: 0, ..Options::default() };
    let listed = Rc::new(Doc::of_bytes(&explore(COMPRESSED, name, &listing), COMPRESSED));
    let entry = find(&listed, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    let settings = Settings::default();
    let open = Action::Open { id: 1, name: name.into(), size: COMPRESSED.len() as u64, at_ms: 0.0, settings };
    let s = AppState::default().reduce(open).reduce(Action::Loaded { id: 1, doc: listed.clone() });
    let s = s.reduce(Action::Select(entry)).reduce(Action::DecompressStarted { id: 1 });
    let s = s.reduce(Action::DecompressProgress { id: 1, done: 10, total: 20 });
    assert_eq!(s.tab(1).unwrap().unpack, Unpack::Running { done: 10, total: 20 });

    let cancelled = s.clone().reduce(Action::WorkCancelled { id: 1 });
    let tab = cancelled.tab(1).unwrap();
    assert_eq!(tab.unpack, Unpack::Cancelled);
    assert!(Rc::ptr_eq(tab.doc().unwrap(), &listed), "a Cancel changes no document");

    let full = Rc::new(explore_bytes(COMPRESSED, name));
    let bundle = find(&full, "compressed bundle");
    let s = s.reduce(Action::Decompressed { id: 1, doc: full.clone(), node: full.path_of(bundle) });
    let tab = s.tab(1).unwrap();
    assert_eq!(tab.unpack, Unpack::Done { hash_ok: Some(true) });
    assert_eq!(tab.versions.len(), 1, "no new version: the file is the same");
    assert!(Rc::ptr_eq(tab.doc().unwrap(), &full));
    let selected = tab.selected.expect("a selection");
    assert_eq!(full.path_of(selected), listed.path_of(entry), "the same entry stays selected");
    assert!(full.nodes[selected].children.iter().all(|&c| full.nodes[c].kind == NodeKind::Image));
    assert!(!full.nodes[selected].children.is_empty() && tab.expanded[selected], "its image is shown");
}
