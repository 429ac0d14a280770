//! The inspector's edit forms, rendered in headless Chromium on a real fixture: values are
//! checked as they are typed (Apply disabled, the problem said), and what Apply sends is the
//! edit of the selected node's path.
#![cfg(target_arch = "wasm32")]

use offload::codec::Method;
use offload::edit::Edit;
use offload_www::page::components::edit::edit_panel::{EditPanel, EditPanelProps};
use offload_www::page::state::{EditStatus, FileRequest};
use offload_www::wire::doc::{explore_bytes, Doc, NodeId};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, EventInit, HtmlButtonElement, HtmlInputElement};
use yew::{Callback, Renderer};

wasm_bindgen_test_configure!(run_in_browser);

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch.o");
const OMP_O: &[u8] = include_bytes!("../../tests/fixtures/omp_elf_2arch.o");

fn root() -> Element {
    let document = gloo_utils::document();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

async fn settle() {
    for _ in 0..10 {
        yew::platform::time::sleep(Duration::ZERO).await;
    }
}

fn node(doc: &Doc, label_starts: &str) -> NodeId {
    doc.nodes.iter().position(|n| n.label.starts_with(label_starts)).expect("node")
}

/// Renders the edit panel of `node`; returns the element and the requests it sends.
async fn panel(doc: Rc<Doc>, node: NodeId) -> (Element, Rc<RefCell<Vec<FileRequest>>>) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    let el = root();
    let props = EditPanelProps {
        doc,
        node,
        tab: 7,
        edit: EditStatus::Idle,
        on_file: Callback::from(move |r| l.borrow_mut().push(r)),
    };
    Renderer::<EditPanel>::with_root_and_props(el.clone(), props).render();
    settle().await;
    (el, log)
}

async fn type_into(el: &Element, selector: &str, text: &str) {
    let input: HtmlInputElement = el.query_selector(selector).unwrap().expect(selector).unchecked_into();
    input.set_value(text);
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    settle().await;
}

fn button(el: &Element, selector: &str) -> HtmlButtonElement {
    el.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}")).unchecked_into()
}

fn text(el: &Element) -> String {
    el.text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn entry_id_is_checked_as_typed_and_applied_at_the_entry_path() {
    let doc = Rc::new(explore_bytes(HIP_O, "hip_elf_2arch.o"));
    let entry = node(&doc, "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-");
    let (el, log) = panel(doc.clone(), entry).await;
    let apply = || button(&el, "button[aria-label='Apply the entry ID']");
    assert!(apply().disabled(), "nothing changed yet");

    type_into(&el, "#edit-entry-id", "hipv4-amdgcn-amd-amdhsa").await;
    assert!(apply().disabled());
    assert!(text(&el).contains("is not an entry ID"), "{}", text(&el));

    type_into(&el, "#edit-entry-id", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-").await;
    let canonical = button(&el, "button.use-canonical");
    assert!(text(&canonical).contains("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"), "{}", text(&canonical));
    canonical.click();
    settle().await;
    let path = doc.path_of(entry);
    assert_eq!(
        log.borrow().last(),
        Some(&FileRequest::Edit(
            7,
            Edit::SetEntryId { node: path.clone(), id: "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+".into() }
        ))
    );

    type_into(&el, "#edit-entry-id", "hipv4-amdgcn-amd-amdhsa--gfx908").await;
    assert!(!apply().disabled());
    apply().click();
    settle().await;
    assert_eq!(
        log.borrow().last(),
        Some(&FileRequest::Edit(7, Edit::SetEntryId { node: path, id: "hipv4-amdgcn-amd-amdhsa--gfx908".into() }))
    );
}

#[wasm_bindgen_test]
async fn offload_entry_strings_refuse_a_bad_triple_and_apply_a_good_one() {
    let doc = Rc::new(explore_bytes(OMP_O, "omp_elf_2arch.o"));
    let entry = node(&doc, "offload entry openmp amdgcn-amd-amdhsa gfx1030");
    let (el, log) = panel(doc.clone(), entry).await;
    let apply = || button(&el, "button[aria-label='Apply triple']");
    type_into(&el, "tr[data-key='triple'] input", "nonsense").await;
    assert!(apply().disabled());
    assert!(text(&el).contains("is not a target triple LLVM knows"));
    type_into(&el, "tr[data-key='triple'] input", "amdgcn-amd-amdpal").await;
    apply().click();
    settle().await;
    let path = doc.path_of(entry);
    assert_eq!(
        log.borrow().last(),
        Some(&FileRequest::Edit(
            7,
            Edit::SetString { node: path.clone(), key: "triple".into(), value: Some("amdgcn-amd-amdpal".into()) }
        ))
    );
    button(&el, "button[aria-label='Remove arch']").click();
    settle().await;
    assert_eq!(
        log.borrow().last(),
        Some(&FileRequest::Edit(7, Edit::SetString { node: path, key: "arch".into(), value: None }))
    );
    // A version 1 binary's entry moves with its binary: the first of two can move down only.
    assert!(button(&el, ".entry-actions button:nth-of-type(2)").disabled(), "Move up");
    assert!(!button(&el, ".entry-actions button:nth-of-type(3)").disabled(), "Move down");
}

#[wasm_bindgen_test]
async fn an_uncompressed_bundle_offers_compress_with_the_defaults() {
    let doc = Rc::new(explore_bytes(HIP_O, "hip_elf_2arch.o"));
    let bundle = node(&doc, "clang offload bundle");
    let (el, log) = panel(doc.clone(), bundle).await;
    assert!(
        el.query_selector("button[aria-label='Verify the hash']").unwrap().is_none(),
        "nothing to verify in an uncompressed bundle"
    );
    type_into(&el, "#edit-level", "30").await;
    assert!(button(&el, "button[aria-label='Compress']").disabled());
    type_into(&el, "#edit-level", "").await;
    button(&el, "button[aria-label='Compress']").click();
    settle().await;
    assert_eq!(
        log.borrow().last(),
        Some(&FileRequest::Edit(
            7,
            Edit::Compress { node: doc.path_of(bundle), method: Method::Zstd, level: None, version: 3 }
        ))
    );
}

#[wasm_bindgen_test]
async fn fatbin_entries_and_version_2_offload_binaries_have_their_forms() {
    // A compressed fatbin entry: decompress it, remove it, but not move it.
    let fatbin = Rc::new(explore_bytes(include_bytes!("../../tests/fixtures/nvidia/nv_3arch_size.fatbin"), "f.fatbin"));
    let entry = node(&fatbin, "cubin sm_75");
    let (el, log) = panel(fatbin.clone(), entry).await;
    assert!(text(&el).contains("Stored: zstd"), "{}", text(&el));
    assert!(el.query_selector("button[aria-label='Compress the entry with zstd']").unwrap().is_none());
    assert!(!text(&el).contains("Move up"));
    button(&el, "button[aria-label='Decompress the entry']").click();
    button(&el, "button.remove-entry").click();
    let path = fatbin.path_of(entry);
    assert_eq!(
        *log.borrow(),
        vec![
            FileRequest::Edit(7, Edit::Decompress { node: path.clone() }),
            FileRequest::Edit(7, Edit::RemoveEntry { node: path })
        ]
    );

    // A version 2 offload binary can be written as version 1 binaries; a version 1 one cannot.
    let v1 = include_bytes!("../../tests/fixtures/offbin_concat2.offbin");
    let walk = offload::format::offload_binary::walk(v1);
    let entries: Vec<_> = walk.binaries().flat_map(|(_, b)| b.entries.clone()).collect();
    let v2 = offload::format::offload_binary::write_v2(&entries).unwrap();
    let doc = Rc::new(explore_bytes(&v2, "v2.offbin"));
    let binary = node(&doc, "offload binary v2");
    let (el, log) = panel(doc.clone(), binary).await;
    let convert: Vec<Element> = {
        let list = el.query_selector_all("button").unwrap();
        (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<Element>().ok()).collect()
    };
    let convert = convert.into_iter().find(|b| text(b) == "Write as version 1 binaries").expect("the button");
    convert.unchecked_into::<HtmlButtonElement>().click();
    assert_eq!(*log.borrow(), vec![FileRequest::Edit(7, Edit::OffloadBinaryToV1 { node: doc.path_of(binary) })]);
    let old = Rc::new(explore_bytes(v1, "v1.offbin"));
    let (el, _) = panel(old.clone(), node(&old, "offload binary v1")).await;
    assert!(!text(&el).contains("Write as version 1 binaries"));
}
