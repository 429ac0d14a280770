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
