//! The views, rendered in headless Chromium with a real fixture explored by the real core:
//! what a user sees (roles, names, rows, highlighted bytes) and what their clicks and keys ask
//! for (the actions each view emits).
#![cfg(target_arch = "wasm32")]

use offload::report::kernels::{KernelCell, KernelRow, KernelTable};
use offload::tree::NodeKind;
use offload_www::page::bytes::{ByteSource, Bytes, MemoryBytes};
use offload_www::page::code::{rows, FlowState, Flows};
use offload_www::page::components::dialogs::settings_dialog::{
    SavedSettings, SettingsDialog, SettingsDialogProps, DECOMPRESSED_ID, DEPTH_ID, VERIFY_ID,
};
use offload_www::page::components::views::code_listing::{CodeListingProps, CodeListingView};
use offload_www::page::components::views::compare_view::{
    choices, CompareControl, CompareControlProps, CompareView, CompareViewProps,
};
use offload_www::page::components::views::decompress_prompt::{DecompressPrompt, DecompressPromptProps};
use offload_www::page::components::views::fit_view::{FitView, FitViewProps};
use offload_www::page::components::views::hex_view::{HexProps, HexView};
use offload_www::page::components::views::inspector::{Inspector, InspectorProps};
use offload_www::page::components::views::kernels_view::{
    count_line, largest, visible_rows, window, KernelsView, KernelsViewProps, Metric, SortKey, ROW_HEIGHT,
};
use offload_www::page::components::views::layout_map::{LayoutMap, LayoutMapProps};
use offload_www::page::components::views::runs_on_view::{RunsOnProps, RunsOnView};
use offload_www::page::components::views::summary::{Summary, SummaryProps};
use offload_www::page::components::views::target_sizes::{TargetSizes, TargetSizesProps};
use offload_www::page::components::views::tree_view::{TreeProps, TreeView};
use offload_www::page::format::human_size;
use offload_www::page::state::{
    Action, CompareOutcome, CompareWith, Comparison, FileRequest, FitOutcome, HexState, Nav, Unpack,
};
use offload_www::wire::doc::{
    explore_bytes, explore_bytes_with, node_fields, span_contains, Doc, FieldInfo, NodeId, LEAN_KERNELS_OVER,
};
use offload_www::wire::settings::Settings;
use offload_www::worker::code::{code_flow, code_listing};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlDialogElement, HtmlElement, HtmlInputElement, KeyboardEvent, KeyboardEventInit};
use yew::{Callback, Renderer};

wasm_bindgen_test_configure!(run_in_browser);

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.o");
const LIB_SO: &[u8] = include_bytes!("../../tests/fixtures/libhip_3tu_compressed.so");

/// A fresh element to render into, 1000x400 pixels, with the page's stylesheet applied (the
/// hex view's row height and scrolling come from it).
fn root() -> Element {
    let document = gloo_utils::document();
    if document.get_element_by_id("page-style").is_none() {
        let style = document.create_element("style").unwrap();
        style.set_id("page-style");
        style.set_text_content(Some(include_str!("../style.css")));
        document.head().unwrap().append_child(&style).unwrap();
    }
    let div = document.create_element("div").unwrap();
    div.set_attribute("style", "width: 1000px; height: 400px; display: flex; flex-direction: column").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Lets Yew render and pending futures (byte reads) settle: yields to the event loop until
/// `ready` holds, a bounded number of times. Not a timing assertion: it waits for turns of the
/// event loop, not for a duration.
async fn settle(ready: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if ready() {
            return true;
        }
        yew::platform::time::sleep(Duration::ZERO).await;
    }
    ready()
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<Element>().ok()).collect()
}

fn recorder() -> (Callback<Action>, Rc<RefCell<Vec<Action>>>) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    (Callback::from(move |a| l.borrow_mut().push(a)), log)
}

fn hip_doc() -> Rc<Doc> {
    Rc::new(explore_bytes(HIP_O, "hip_elf_2arch_compressed.o"))
}

fn node(doc: &Doc, label_starts: &str) -> NodeId {
    doc.nodes.iter().position(|n| n.label.starts_with(label_starts)).expect("node")
}

#[wasm_bindgen_test]
async fn tree_is_an_aria_tree_that_reports_clicks_and_keys() {
    let doc = hip_doc();
    let (on_action, log) = recorder();
    let selected = node(&doc, "section .hip_fatbin");
    let expanded: Vec<bool> = doc.nodes.iter().map(|n| !n.children.is_empty()).collect();
    let el = root();
    Renderer::<TreeView>::with_root_and_props(
        el.clone(),
        TreeProps {
            doc: doc.clone(),
            tab: 1,
            selected: Some(selected),
            expanded,
            groups: Default::default(),
            active_group: None,
            on_action,
            marked: Vec::new(),
        },
    )
    .render();
    assert!(settle(|| el.query_selector("[role=tree]").unwrap().is_some()).await);

    let tree = el.query_selector("[role=tree]").unwrap().unwrap();
    assert_eq!(tree.get_attribute("aria-label").as_deref(), Some("Containers in hip_elf_2arch_compressed.o"));
    assert_eq!(tree.get_attribute("tabindex").as_deref(), Some("0"));
    let items = all(&el, "[role=treeitem]");
    assert_eq!(items.len(), doc.nodes.len(), "every node is a row when all are expanded");
    for (id, item) in items.iter().enumerate() {
        let n = &doc.nodes[id];
        assert_eq!(item.get_attribute("aria-level"), Some((n.depth + 1).to_string()));
        assert_eq!(item.get_attribute("aria-selected").as_deref(), Some(if id == selected { "true" } else { "false" }));
        assert_eq!(item.get_attribute("aria-expanded").is_some(), !n.children.is_empty());
        assert!(item.text_content().unwrap().contains(&n.label), "row {id} shows its label");
    }
    assert_eq!(tree.get_attribute("aria-activedescendant"), Some(format!("node-{selected}")));
    // One flat list of rows, each saying its place among its siblings.
    let root_children = doc.nodes[0].children.len().to_string();
    assert_eq!(items[1].get_attribute("aria-posinset").as_deref(), Some("1"));
    assert_eq!(items[1].get_attribute("aria-setsize"), Some(root_children));

    // A click on a row selects it; a click on its twisty toggles it.
    let gfx906 = node(&doc, "hipv4-amdgcn-amd-amdhsa--gfx906");
    el.query_selector(&format!("#node-{gfx906} > .row .label"))
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    el.query_selector(&format!("#node-{selected} > .row .twisty"))
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    // Keys on the tree navigate.
    for key in ["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "Home", "End", "Enter", "x"] {
        let init = KeyboardEventInit::new();
        init.set_key(key);
        init.set_bubbles(true);
        tree.dispatch_event(&KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap()).unwrap();
    }
    assert_eq!(
        *log.borrow(),
        vec![
            Action::Select(gfx906),
            Action::Toggle(selected),
            Action::Nav(Nav::Down),
            Action::Nav(Nav::Up),
            Action::Nav(Nav::Right),
            Action::Nav(Nav::Left),
            Action::Nav(Nav::Home),
            Action::Nav(Nav::End),
            Action::Toggle(selected),
        ],
        "other keys (x) are left alone"
    );
}

#[wasm_bindgen_test]
async fn summary_lists_every_target_and_selects_it() {
    let doc = Rc::new(explore_bytes(LIB_SO, "libhip_3tu_compressed.so"));
    let (on_action, log) = recorder();
    let el = root();
    let first = doc.targets[0].node.unwrap();
    Renderer::<Summary>::with_root_and_props(
        el.clone(),
        SummaryProps {
            doc: doc.clone(),
            selected: Some(first),
            first_render_ms: Some(12.0),
            settings: Settings::default(),
            current_settings: Settings::default(),
            on_reopen: Callback::noop(),
            on_action,
            tab: 1,
            on_file: Callback::noop(),
            busy: false,
            others: Vec::new(),
            current: 0,
            fit: None,
        },
    )
    .render();
    assert!(settle(|| el.query_selector("table.targets").unwrap().is_some()).await);

    let rows = all(&el, "table.targets tbody tr");
    assert_eq!(rows.len(), 6);
    for (row, t) in rows.iter().zip(doc.targets.iter().map(|t| &t.target)) {
        assert_eq!(row.get_attribute("data-target-id").as_deref(), Some(t.target_id.as_str()));
        let text = row.text_content().unwrap();
        assert!(text.contains(&t.processor) && text.contains("zstd"), "{text}");
    }
    assert!(rows[0].class_list().contains("selected"));
    assert!(el.query_selector("caption").unwrap().unwrap().text_content().unwrap().contains("Device targets (6)"));
    // The container chain of the selected target, from the file down to its entry.
    let chain: Vec<String> = all(&el, "nav.chain li").iter().map(|li| li.text_content().unwrap()).collect();
    assert_eq!(chain.len(), doc.ancestors(first).len() + 1);
    assert!(chain[0].starts_with("file"), "{chain:?}");
    assert!(chain.iter().any(|c| c.starts_with("compressed-bundle")), "{chain:?}");
    assert!(chain.last().unwrap().starts_with("bundle-entry"), "{chain:?}");

    // Target IDs repeat (one bundle per translation unit): rows are told apart by position.
    let third = &doc.targets[2];
    let button = rows[2].query_selector("button").unwrap().unwrap();
    assert_eq!(button.get_attribute("aria-label"), Some(format!("Select target {}", third.target.target_id)));
    button.unchecked_into::<HtmlElement>().click();
    assert_eq!(*log.borrow(), vec![Action::Select(third.node.unwrap())]);
}

#[wasm_bindgen_test]
async fn hex_view_highlights_the_selected_span_and_reports_clicked_bytes() {
    let doc = hip_doc();
    let (on_action, log) = recorder();
    // The decompressed bytes of space 1, as the worker would hand them over.
    let tree = offload::explore::explore(HIP_O, "x", &Default::default());
    let spaces: Vec<Vec<u8>> =
        (0..doc.spaces.len() as u32).map(|s| tree.space_bytes(HIP_O, s).unwrap().to_vec()).collect();
    let gfx90a = node(&doc, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    let span = doc.nodes[gfx90a].span;
    assert_eq!(span.space, 1);
    let hex = HexState { space: 1, cursor: None, reveal: Some(span.offset), reveal_seq: 1, marked: None };
    let el = root();
    Renderer::<HexView>::with_root_and_props(
        el.clone(),
        HexProps {
            doc: doc.clone(),
            hex,
            selected: Some(gfx90a),
            bytes: Bytes(Rc::new(MemoryBytes(spaces.clone()))),
            on_action,
        },
    )
    .render();
    // Wait until the bytes are in: the first highlighted cell shows a value.
    assert!(
        settle(|| el
            .query_selector(".hex-bytes .byte.in-node")
            .unwrap()
            .is_some_and(|c| c.text_content().unwrap() != "··"))
        .await
    );

    let cells = all(&el, ".hex-bytes .byte");
    let rendered_rows = all(&el, ".hex-row").len() as u64;
    assert!(
        rendered_rows > 0 && (rendered_rows as usize) < 200,
        "only the rows on screen are rendered ({rendered_rows})"
    );
    let highlighted: Vec<u64> = all(&el, ".hex-bytes .byte.in-node")
        .iter()
        .map(|c| c.get_attribute("data-offset").unwrap().parse().unwrap())
        .collect();
    assert_eq!(highlighted[0], span.offset, "the view scrolled to the node and highlights from its first byte");
    assert!(highlighted.windows(2).all(|w| w[1] == w[0] + 1), "contiguous");
    assert!(highlighted.iter().all(|&o| o < span.end()));
    for c in &cells {
        let o: u64 = c.get_attribute("data-offset").unwrap().parse().unwrap();
        assert_eq!(c.text_content().unwrap(), format!("{:02x}", spaces[1][o as usize]), "byte {o:#x} shows its value");
        assert_eq!(c.class_list().contains("in-node"), span_contains(&span, 1, o));
    }
    // The code object's ELF magic is the first thing highlighted.
    let first: Vec<String> =
        all(&el, ".hex-bytes .byte.in-node").iter().take(4).map(|c| c.text_content().unwrap()).collect();
    assert_eq!(first, ["7f", "45", "4c", "46"]);

    let target = el.query_selector(&format!(".hex-bytes .byte[data-offset='{}']", span.offset + 3)).unwrap().unwrap();
    target.unchecked_into::<HtmlElement>().click();
    assert_eq!(*log.borrow(), vec![Action::SelectAt { space: 1, offset: span.offset + 3 }]);
}

#[wasm_bindgen_test]
async fn layout_map_draws_every_space_to_scale_with_tooltips() {
    let doc = Rc::new(explore_bytes(LIB_SO, "libhip_3tu_compressed.so"));
    let (on_action, log) = recorder();
    let el = root();
    Renderer::<LayoutMap>::with_root_and_props(
        el.clone(),
        LayoutMapProps { doc: doc.clone(), selected: None, on_action, marked: Vec::new() },
    )
    .render();
    assert!(settle(|| el.query_selector("svg.map").unwrap().is_some()).await);

    let bands = all(&el, "figure.band");
    assert_eq!(bands.len(), doc.spaces.len());
    assert_eq!(all(&el, "figure.band.indent-1").len(), 3, "decompressed spaces are drawn below the file");
    let rects = all(&el, "rect.region");
    let drawn = doc.nodes.iter().filter(|n| n.span.size > 0).count();
    assert_eq!(rects.len(), drawn, "every node with bytes is drawn");
    for r in &rects {
        let id: usize = r.get_attribute("data-node").unwrap().parse().unwrap();
        let title = r.query_selector("title").unwrap().unwrap().text_content().unwrap();
        assert!(title.contains(&format!("{:#x}", doc.nodes[id].span.offset)), "{title}");
        assert!(title.contains(&format!("({} bytes)", doc.nodes[id].span.size)), "{title}");
        assert!(r.class_list().contains(&format!("kind-{}", doc.nodes[id].kind.as_str())));
    }
    let legend: Vec<String> = all(&el, ".legend li").iter().map(|l| l.text_content().unwrap()).collect();
    for k in ["section", "compressed-bundle", "bundle-entry"] {
        assert!(legend.iter().any(|l| l == k), "legend has {k}: {legend:?}");
    }
    // SVG elements have no click(): dispatch one.
    let entry = doc.targets[1].node.unwrap();
    let rect = el.query_selector(&format!("rect[data-node='{entry}']")).unwrap().unwrap();
    let click = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &{
        let i = web_sys::MouseEventInit::new();
        i.set_bubbles(true);
        i
    })
    .unwrap();
    rect.dispatch_event(&click).unwrap();
    assert_eq!(*log.borrow(), vec![Action::Select(entry)]);
}

#[wasm_bindgen_test]
async fn inspector_shows_fields_with_offsets_raw_and_decoded_values() {
    let doc = hip_doc();
    let (on_action, log) = recorder();
    let ccob = doc.nodes.iter().position(|n| n.kind == NodeKind::CompressedBundle).unwrap();
    let el = root();
    Renderer::<Inspector>::with_root_and_props(
        el.clone(),
        InspectorProps {
            doc: doc.clone(),
            selected: Some(ccob),
            on_action,
            tab: 1,
            marked: Vec::new(),
            edit: Default::default(),
            unpack: Default::default(),
            on_file: None,
            bytes: None,
        },
    )
    .render();
    assert!(settle(|| el.query_selector("table.fields").unwrap().is_some()).await);

    let n = &doc.nodes[ccob];
    // A row per field; its raw bytes, where it has them, on a line of their own under it.
    let rows = all(&el, "table.fields tbody tr[data-field]");
    assert_eq!(rows.len(), n.fields.len());
    let version = el.query_selector("tr[data-field='version']").unwrap().expect("a version row");
    let text = version.text_content().unwrap();
    let field = &n.fields.iter().find(|f| f.field.name == "version").unwrap().field;
    let span = field.span.expect("the version has a place in the file");
    assert!(text.contains(&format!("{:#x}", span.offset)), "{text}");
    let raw = el.query_selector("tr[data-raw-of='version']").unwrap().expect("the version's raw bytes");
    let raw = raw.text_content().unwrap();
    assert!(raw.contains("03 00"), "raw little-endian bytes of version 3: {raw}");
    version.query_selector("button").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(*log.borrow(), vec![Action::SelectSpan { node: ccob, span }]);
}

#[wasm_bindgen_test]
async fn summary_shows_the_limits_and_the_diagnostic_of_a_limit_that_stopped_the_explorer() {
    let shallow = Settings { max_depth: 1, ..Settings::default() };
    let doc = Rc::new(explore_bytes_with(HIP_O, "hip_elf_2arch_compressed.o", &shallow.options()));
    let (on_action, log) = recorder();
    let reopened = Rc::new(Cell::new(0));
    let on_reopen = {
        let r = reopened.clone();
        Callback::from(move |_| r.set(r.get() + 1))
    };
    // Explored with a nesting limit of 1; the page's settings have been changed back since.
    let props =
        |current: Settings, on_reopen: Callback<web_sys::MouseEvent>, on_action: Callback<Action>| SummaryProps {
            doc: doc.clone(),
            selected: Some(0),
            first_render_ms: None,
            settings: shallow,
            current_settings: current,
            on_reopen,
            on_action,
            tab: 1,
            on_file: Callback::noop(),
            busy: false,
            others: Vec::new(),
            current: 0,
            fit: None,
        };
    let el = root();
    Renderer::<Summary>::with_root_and_props(el.clone(), props(Settings::default(), on_reopen, on_action.clone()))
        .render();
    assert!(settle(|| el.query_selector(".diagnostics").unwrap().is_some()).await);
    let diagnostics = el.query_selector(".diagnostics").unwrap().unwrap().text_content().unwrap();
    assert!(diagnostics.contains("containers nested deeper than 1 levels are not explored"), "{diagnostics}");
    let line = el.query_selector(".explored-with").unwrap().unwrap().text_content().unwrap();
    assert!(line.contains("Limits: decompressed bundles up to 4096 MiB, nesting up to 1 levels"), "{line}");
    assert!(line.contains("The settings have changed since."), "{line}");
    el.query_selector(".explored-with button.reopen").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(reopened.get(), 1);

    // Explored with the page's settings: the line offers to change them.
    let el = root();
    Renderer::<Summary>::with_root_and_props(el.clone(), props(shallow, Callback::noop(), on_action)).render();
    assert!(settle(|| el.query_selector(".explored-with button").unwrap().is_some()).await);
    assert!(el.query_selector(".explored-with .reopen").unwrap().is_none());
    let change = el.query_selector(".explored-with button").unwrap().unwrap();
    assert_eq!(change.text_content().as_deref(), Some("Change the limits"));
    change.unchecked_into::<HtmlElement>().click();
    assert_eq!(*log.borrow(), vec![Action::ShowSettings(true)]);
}

fn input(root: &Element, id: &str) -> HtmlInputElement {
    root.query_selector(&format!("#{id}")).unwrap().unwrap_or_else(|| panic!("no #{id}")).unchecked_into()
}

/// Types `value` into a text box as a person would: the value changes, then an input event.
fn type_into(root: &Element, id: &str, value: &str) {
    let field = input(root, id);
    field.set_value(value);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    field.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
}

fn button(root: &Element, text: &str) -> HtmlElement {
    all(root, "button")
        .into_iter()
        .find(|b| b.text_content().as_deref() == Some(text))
        .unwrap_or_else(|| panic!("no button {text}"))
        .unchecked_into()
}

fn problem(root: &Element, id: &str) -> String {
    root.query_selector(&format!("#{id}-problem")).unwrap().unwrap().text_content().unwrap()
}

#[wasm_bindgen_test]
async fn settings_dialog_explains_wrong_values_and_saves_only_valid_settings() {
    let (on_action, log) = recorder();
    let saved = Rc::new(RefCell::new(Vec::<SavedSettings>::new()));
    let on_save = {
        let saved = saved.clone();
        Callback::from(move |s| saved.borrow_mut().push(s))
    };
    let el = root();
    let current = Settings { max_decompressed_mib: 64, max_depth: 4, verify_all: false, max_entries: 100_000 };
    Renderer::<SettingsDialog>::with_root_and_props(
        el.clone(),
        SettingsDialogProps { open: true, settings: current, active: Some((3, "a.o".into())), on_action, on_save },
    )
    .render();
    assert!(settle(|| el.query_selector("dialog.settings[open]").unwrap().is_some()).await, "the dialog opens");
    // It shows the page's settings, each field named by its label.
    assert_eq!(input(&el, DECOMPRESSED_ID).value(), "64");
    assert_eq!(input(&el, DEPTH_ID).value(), "4");
    assert!(!input(&el, VERIFY_ID).checked());
    let label = el.query_selector(&format!("label[for={DEPTH_ID}]")).unwrap().unwrap().text_content().unwrap();
    assert_eq!(label, "Deepest nesting (levels)");

    // Wrong values are explained in place, and nothing is saved.
    type_into(&el, DECOMPRESSED_ID, "0");
    type_into(&el, DEPTH_ID, "deep");
    button(&el, "Save").click();
    assert!(settle(|| !problem(&el, DECOMPRESSED_ID).is_empty()).await);
    assert_eq!(problem(&el, DECOMPRESSED_ID), "Must be at least 1.");
    assert_eq!(problem(&el, DEPTH_ID), "“deep” is not a whole number. Enter one from 1 to 32.");
    assert_eq!(input(&el, DECOMPRESSED_ID).get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(
        gloo_utils::document().active_element().map(|e| e.id()).as_deref(),
        Some(DECOMPRESSED_ID),
        "the first wrong field has the focus"
    );
    assert!(saved.borrow().is_empty());
    // Fixing one field clears its message at once; the other stays.
    type_into(&el, DECOMPRESSED_ID, "16");
    assert!(settle(|| problem(&el, DECOMPRESSED_ID).is_empty()).await);
    assert_eq!(input(&el, DECOMPRESSED_ID).get_attribute("aria-invalid"), None);
    assert!(!problem(&el, DEPTH_ID).is_empty());
    type_into(&el, DEPTH_ID, "2");
    input(&el, VERIFY_ID).click();
    assert!(settle(|| problem(&el, DEPTH_ID).is_empty()).await);
    button(&el, "Save and re-open a.o").click();
    let chosen = Settings { max_decompressed_mib: 16, max_depth: 2, verify_all: true, max_entries: 100_000 };
    assert_eq!(*saved.borrow(), vec![SavedSettings { settings: chosen, reopen: Some(3) }]);

    // "Restore defaults" fills in the core's defaults; Save keeps them.
    button(&el, "Restore defaults").click();
    assert!(settle(|| input(&el, DECOMPRESSED_ID).value() == "4096").await);
    assert_eq!(input(&el, DEPTH_ID).value(), "8");
    assert!(!input(&el, VERIFY_ID).checked());
    button(&el, "Save").click();
    assert_eq!(saved.borrow().last(), Some(&SavedSettings { settings: Settings::default(), reopen: None }));
    button(&el, "Cancel").click();
    assert_eq!(*log.borrow(), vec![Action::ShowSettings(false)]);
    // A modal dialog left open would make the rest of the test page inert.
    el.query_selector("dialog").unwrap().unwrap().unchecked_into::<HtmlDialogElement>().close();
}

#[wasm_bindgen_test]
async fn kernels_view_lines_up_targets_highlights_the_largest_and_selects_kernels() {
    let doc = Rc::new(explore_bytes(LIB_SO, "libhip_3tu_compressed.so"));
    let (on_action, log) = recorder();
    let el = root();
    Renderer::<KernelsView>::with_root_and_props(
        el.clone(),
        KernelsViewProps {
            doc: doc.clone(),
            selected: None,
            on_action,
            tab: 1,
            on_file: Callback::noop(),
            decoding: None,
        },
    )
    .render();
    assert!(settle(|| el.query_selector("table.kernels").unwrap().is_some()).await);
    let targets: Vec<String> = all(&el, "th.kernel-target").iter().map(|t| t.text_content().unwrap()).collect();
    assert_eq!(targets, ["gfx906:xnack-", "gfx90a"]);
    let names = |el: &Element| -> Vec<String> {
        all(el, "table.kernels tbody tr[data-kernel]").iter().map(|r| r.get_attribute("data-kernel").unwrap()).collect()
    };
    assert_eq!(names(&el), ["_Z4axpyfPKfPfi", "_Z6reducePKiPi", "_Z6lookupPKiPi"]);
    // reduce uses 18 VGPRs for gfx906 and 21 for gfx90a: the 21 stands out, nothing else does.
    let largest: Vec<String> = all(&el, "td.largest").iter().map(|t| t.text_content().unwrap()).collect();
    assert_eq!(largest, ["21"]);

    // A value selects its kernel node; the row of the selected kernel is marked.
    // Names are shown demangled, the mangled symbol on hover.
    let shown: Vec<(String, String)> = all(&el, "button.kernel-name")
        .iter()
        .map(|b| (b.text_content().unwrap(), b.get_attribute("title").unwrap()))
        .collect();
    assert_eq!(shown[1], ("reduce(int const*, int*)".to_string(), "_Z6reducePKiPi".to_string()));
    let cell =
        el.query_selector("button[aria-label='regs of reduce(int const*, int*) on gfx90a: 21']").unwrap().unwrap();
    cell.unchecked_into::<HtmlElement>().click();
    let selected = match log.borrow().last() {
        Some(Action::Select(n)) => *n,
        other => panic!("{other:?}"),
    };
    assert_eq!(doc.nodes[selected].kind, NodeKind::Kernel);
    assert_eq!(doc.text(selected, "name"), Some("_Z6reducePKiPi"));
    assert_eq!(doc.field(selected, "vgpr_count"), Some(&offload::tree::Value::Uint(21)));

    // Filter by name, then sort by a column.
    let filter: HtmlInputElement = el.query_selector("input.kernel-filter").unwrap().unwrap().unchecked_into();
    filter.set_value("PKiPi");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    filter.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    assert!(settle(|| names(&el).len() == 2).await);
    assert_eq!(names(&el), ["_Z6reducePKiPi", "_Z6lookupPKiPi"]);
    // The filter matches the demangled name too.
    filter.set_value("lookup(int const");
    filter.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    assert!(settle(|| names(&el) == ["_Z6lookupPKiPi"]).await);
    filter.set_value("PKiPi");
    filter.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    assert!(settle(|| names(&el).len() == 2).await);
    let sort = el.query_selector("button[aria-label='Sort kernels by name']").unwrap().unwrap();
    sort.unchecked_into::<HtmlElement>().click();
    assert!(settle(|| names(&el) == ["_Z6lookupPKiPi", "_Z6reducePKiPi"]).await);
}

#[wasm_bindgen_test]
fn kernel_rows_sort_filter_and_mark_the_largest() {
    fn row(name: &str, regs: &[Option<u64>]) -> KernelRow {
        let cells = regs
            .iter()
            .map(|r| r.map(|r| KernelCell { registers: Some(r), lds: Some(0), entry: true, ..KernelCell::default() }))
            .collect();
        KernelRow::new(name.into(), cells)
    }
    assert_eq!(
        largest(&row("a", &[Some(10), Some(30), None, Some(30)]), Metric::Registers),
        [false, true, false, true]
    );
    assert_eq!(largest(&row("a", &[Some(8), Some(8)]), Metric::Registers), [false, false]);
    assert_eq!(largest(&row("a", &[Some(8), Some(9)]), Metric::Lds), [false, false]);
    let rows =
        [row("Reduce", &[Some(10), None]), row("axpy", &[Some(40), Some(2)]), row("lds_reduce", &[None, Some(7)])];
    let names = |v: Vec<usize>| v.iter().map(|&r| rows[r].name.clone()).collect::<Vec<_>>();
    assert_eq!(names(visible_rows(&rows, "reduce", SortKey::File)), ["Reduce", "lds_reduce"]);
    assert_eq!(names(visible_rows(&rows, "", SortKey::Name)), ["Reduce", "axpy", "lds_reduce"]);
    let by_second = SortKey::Value { column: 1, metric: Metric::Registers };
    assert_eq!(names(visible_rows(&rows, "", by_second)), ["lds_reduce", "axpy", "Reduce"]);
    let by_first = SortKey::Value { column: 0, metric: Metric::Registers };
    assert_eq!(names(visible_rows(&rows, " ", by_first)), ["axpy", "Reduce", "lds_reduce"]);
}

/// Of 25,000 rows, those in view and a margin are drawn, wherever the table is scrolled; the
/// count says when images were only listed.
#[wasm_bindgen_test]
fn the_kernels_table_draws_the_rows_in_view_and_says_what_it_does_not_hold() {
    assert_eq!(window(25_000, 0.0, 480.0), (0, 60));
    let (first, count) = window(25_000, 240_000.0, 480.0);
    assert_eq!((first, count), (10_000 - 20, 60));
    assert!(first as f64 * ROW_HEIGHT <= 240_000.0 && (first + count) as f64 * ROW_HEIGHT >= 240_000.0 + 480.0);
    assert_eq!(window(25_000, 1e9, 480.0), (25_000, 0));
    assert_eq!(window(10, 0.0, 0.0), (0, 10));
    let table = KernelTable { columns: Vec::new(), rows: Vec::new() };
    assert_eq!(count_line(&table, 0, None), "0 kernels across 0 targets");
    assert_eq!(
        count_line(&table, 4_087, Some(4_099)),
        "0 kernels across 0 targets in the decoded images; 4,087 of 4,099 device images were not decoded"
    );
    assert_eq!(
        count_line(&table, 1, None),
        "0 kernels across 0 targets in the decoded images; 1 device image listed but not decoded"
    );
}

#[wasm_bindgen_test]
async fn runs_on_lists_targets_by_vendor_and_answers_the_search() {
    let doc = Rc::new(explore_bytes(LIB_SO, "libhip_3tu_compressed.so"));
    let asked = Rc::new(RefCell::new(Vec::new()));
    let a = asked.clone();
    let on_fit = Callback::from(move |req| a.borrow_mut().push(req));
    let el = root();
    Renderer::<RunsOnView>::with_root_and_props(el.clone(), RunsOnProps { doc: doc.clone(), tab: 2, on_file: on_fit })
        .render();
    assert!(settle(|| el.query_selector("section.runs-on").unwrap().is_some()).await);
    let lines: Vec<String> =
        all(&el, "li.runs-on-line").iter().map(|l| l.get_attribute("data-target").unwrap()).collect();
    assert_eq!(lines, doc.runs_on.lines.iter().map(|l| l.target.clone()).collect::<Vec<_>>());
    assert_eq!(lines.len(), 2, "two distinct targets in six images: {lines:?}");
    assert!(el.text_content().unwrap().contains("3 images"));
    let ask = |q: &str| {
        let field: HtmlInputElement = el.query_selector("#runs-on-query").unwrap().unwrap().unchecked_into();
        field.set_value(q);
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        field.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    };
    let answer =
        || el.query_selector(".runs-on-answer").unwrap().map(|a| a.text_content().unwrap()).unwrap_or_default();
    ask("gfx90a");
    assert!(settle(|| answer().starts_with("gfx90a: yes")).await, "{}", answer());
    ask("gfx1201");
    assert!(settle(|| answer().starts_with("gfx1201: no")).await, "{}", answer());
    // The whole answer, library by library and kernel by kernel, is asked of the worker.
    el.query_selector("button.fit-check").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(*asked.borrow(), vec![FileRequest::Fit(2, "gfx1201".into())]);
}

#[wasm_bindgen_test]
async fn target_sizes_draw_a_bar_per_target_and_drop_the_ticked_ones() {
    let doc = Rc::new(explore_bytes(LIB_SO, "libhip_3tu_compressed.so"));
    let requests = Rc::new(RefCell::new(Vec::new()));
    let r = requests.clone();
    let on_file = Callback::from(move |req| r.borrow_mut().push(req));
    let el = root();
    Renderer::<TargetSizes>::with_root_and_props(
        el.clone(),
        TargetSizesProps { doc: doc.clone(), tab: 7, on_file, busy: false },
    )
    .render();
    assert!(settle(|| el.query_selector("table.sizes").unwrap().is_some()).await);
    let rows: Vec<String> =
        all(&el, "table.sizes tbody tr").iter().map(|r| r.get_attribute("data-target").unwrap()).collect();
    assert_eq!(rows, ["gfx90a", "gfx906:xnack-"], "largest first");
    assert_eq!(all(&el, "svg.size-bar rect").len(), 2);
    // The images are in compressed bundles: the shares are estimates, marked ~.
    assert!(all(&el, "table.sizes .share").iter().all(|s| s.text_content().unwrap().starts_with('~')));
    let tick: HtmlElement =
        el.query_selector("input[aria-label='Drop gfx906:xnack-']").unwrap().unwrap().unchecked_into();
    tick.click();
    assert!(settle(|| el.query_selector("button.drop-targets").unwrap().is_some()).await);
    assert!(el.query_selector(".drop-row").unwrap().unwrap().text_content().unwrap().contains("about"));
    let button: HtmlElement = el.query_selector("button.drop-targets").unwrap().unwrap().unchecked_into();
    assert_eq!(button.text_content().unwrap(), "Remove 1 target everywhere");
    button.click();
    assert_eq!(
        *requests.borrow(),
        vec![FileRequest::Edit(7, offload::edit::Edit::DropTargets { targets: vec!["gfx906:xnack-".into()] })]
    );
}

#[wasm_bindgen_test]
async fn a_comparison_says_what_was_removed_and_the_control_asks_for_the_chosen_file() {
    // Older: two targets; newer: one of them dropped (the core's own edit).
    let old = include_bytes!("../../tests/fixtures/hip_elf_2arch.o");
    let old_tree = offload::explore::explore(&old[..], "hip_elf_2arch.o", &Default::default());
    let dropped = offload::edit::drop_targets(old, "hip_elf_2arch.o", &["gfx906".into()], &Default::default()).unwrap();
    let new_tree = offload::explore::explore(&dropped.bytes[..], "hip_elf_2arch.o", &Default::default());
    let diff = offload::report::diff::diff(old, &old_tree, &dropped.bytes, &new_tree);
    let (on_action, log) = recorder();
    let el = root();
    let comparison =
        Comparison { against: "hip_elf_2arch.o as opened".into(), outcome: CompareOutcome::Done(Rc::new(diff)) };
    Renderer::<CompareView>::with_root_and_props(
        el.clone(),
        CompareViewProps { tab: 3, name: "hip_elf_2arch.o".into(), comparison, on_action },
    )
    .render();
    assert!(settle(|| el.query_selector(".compare-verdict").unwrap().is_some()).await);
    let verdict = el.query_selector(".compare-verdict").unwrap().unwrap().text_content().unwrap();
    assert!(verdict.starts_with("Different: 0 added, 1 removed, 1 common"), "{verdict}");
    let removed: Vec<String> =
        all(&el, ".compare-targets.removed li").iter().map(|l| l.text_content().unwrap()).collect();
    assert_eq!(removed, ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"]);
    el.query_selector("button.close-compare").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(*log.borrow(), vec![Action::Compare { id: 3, comparison: None }]);

    // The control: earlier versions first, then the other tabs; Compare asks for the one chosen.
    assert_eq!(choices(&[(5, "b.o".into())], 0), [("t5".to_string(), "b.o".to_string())]);
    assert_eq!(choices(&[], 2)[0].0, "v0");
    let requests = Rc::new(RefCell::new(Vec::new()));
    let r = requests.clone();
    let el = root();
    Renderer::<CompareControl>::with_root_and_props(
        el.clone(),
        CompareControlProps {
            tab: 3,
            others: vec![(5, "b.o".into())],
            current: 1,
            on_file: Callback::from(move |req| r.borrow_mut().push(req)),
            busy: false,
        },
    )
    .render();
    assert!(settle(|| el.query_selector("#compare-with").unwrap().is_some()).await);
    let select: web_sys::HtmlSelectElement = el.query_selector("#compare-with").unwrap().unwrap().unchecked_into();
    select.set_value("t5");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    select.dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
    yew::platform::time::sleep(Duration::ZERO).await;
    el.query_selector(".compare-control button").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(*requests.borrow(), vec![FileRequest::Compare(3, CompareWith::Tab(5))]);
}

#[wasm_bindgen_test]
async fn the_fit_answer_says_which_libraries_and_kernels_run() {
    let tree = offload::explore::explore(LIB_SO, "libhip_3tu_compressed.so", &Default::default());
    for (gpu, runs) in [("gfx90a", true), ("gfx1201", false)] {
        let fit = offload::report::fit::fit(&tree, gpu).unwrap();
        let el = root();
        let outcome = FitOutcome::Done(Rc::new(fit));
        Renderer::<FitView>::with_root_and_props(
            el.clone(),
            FitViewProps { tab: 1, outcome, on_action: Callback::noop() },
        )
        .render();
        assert!(settle(|| el.query_selector(".fit-verdict").unwrap().is_some()).await);
        let verdict = el.query_selector(".fit-verdict").unwrap().unwrap().text_content().unwrap();
        assert!(verdict.starts_with(&format!("{gpu}: {}", if runs { "yes" } else { "no" })), "{verdict}");
        let library = el.query_selector(".fit-library").unwrap().unwrap().text_content().unwrap();
        if runs {
            assert!(library.contains("3 of 3 kernels run"), "{library}");
            assert_eq!(all(&el, ".fit-container.yes").len(), 3, "one image loads from each of the three bundles");
        } else {
            assert!(library.contains("no image for gfx1201"), "{library}");
        }
    }
}

/// The HIP object with its compressed bundle listed from its header only, as a bundle over the
/// size decompressed on opening is.
fn listed_doc() -> Rc<Doc> {
    let options = offload::explore::Options { full_decompress_up_to: 0, ..Default::default() };
    Rc::new(explore_bytes_with(HIP_O, "hip_elf_2arch_compressed.o", &options))
}

fn render_prompt(doc: &Rc<Doc>, node: NodeId, unpack: Unpack) -> (Element, Rc<RefCell<Vec<FileRequest>>>) {
    let requests = Rc::new(RefCell::new(Vec::new()));
    let log = requests.clone();
    let el = root();
    Renderer::<DecompressPrompt>::with_root_and_props(
        el.clone(),
        DecompressPromptProps {
            doc: doc.clone(),
            node,
            tab: 4,
            unpack,
            busy: false,
            on_file: Callback::from(move |r| log.borrow_mut().push(r)),
        },
    )
    .render();
    (el, requests)
}

#[wasm_bindgen_test]
async fn an_entry_of_a_bundle_listed_from_its_header_is_decompressed_on_selection_with_progress_and_cancel() {
    let doc = listed_doc();
    let ccob = doc.nodes.iter().position(|n| n.kind == NodeKind::CompressedBundle).unwrap();
    let entry = (ccob..doc.nodes.len()).find(|&n| doc.nodes[n].kind == NodeKind::BundleEntry).unwrap();
    let decompressed = doc.nodes[ccob].children.iter().find(|&&c| doc.nodes[c].kind == NodeKind::Decompressed);
    let (size, path) = (doc.nodes[*decompressed.unwrap()].span.size, doc.path_of(ccob));

    // Selecting an entry asks for its bundle at once.
    let (el, requests) = render_prompt(&doc, entry, Unpack::Idle);
    assert!(settle(|| !requests.borrow().is_empty()).await, "selecting an entry starts decompressing");
    assert_eq!(*requests.borrow(), vec![FileRequest::Decompress(4, path.clone())]);
    let text = el.text_content().unwrap();
    assert!(text.contains("was listed from its header only"), "{text}");

    // The bundle itself offers a button, and does not start on its own.
    let (el, requests) = render_prompt(&doc, ccob, Unpack::Idle);
    assert!(settle(|| el.query_selector("button.decompress").unwrap().is_some()).await);
    assert!(requests.borrow().is_empty(), "selecting the bundle starts nothing");
    let button: HtmlElement = el.query_selector("button.decompress").unwrap().unwrap().unchecked_into();
    assert_eq!(button.text_content().unwrap(), format!("Decompress and verify ({})", human_size(size)));
    button.click();
    assert_eq!(*requests.borrow(), vec![FileRequest::Decompress(4, path.clone())]);

    // While it runs: how far, and Cancel.
    let (el, requests) = render_prompt(&doc, entry, Unpack::Running { done: 1024, total: size });
    assert!(settle(|| el.query_selector("progress").unwrap().is_some()).await);
    assert!(requests.borrow().is_empty(), "nothing starts twice");
    let bar = el.query_selector("progress").unwrap().unwrap();
    assert_eq!(bar.get_attribute("value").as_deref(), Some("1024"));
    assert_eq!(bar.get_attribute("max"), Some(size.to_string()));
    el.query_selector("button.cancel-work").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert_eq!(*requests.borrow(), vec![FileRequest::CancelWork(4)]);

    // After a Cancel, selecting an entry starts nothing until the button is pressed.
    let (el, requests) = render_prompt(&doc, entry, Unpack::Cancelled);
    assert!(settle(|| el.query_selector("button.decompress").unwrap().is_some()).await);
    assert!(el.text_content().unwrap().starts_with("Decompression cancelled."));
    assert!(requests.borrow().is_empty());

    // A decompressed bundle asks nothing.
    let full = hip_doc();
    let full_entry = full.nodes.iter().position(|n| n.kind == NodeKind::BundleEntry).unwrap();
    let (el, requests) = render_prompt(&full, full_entry, Unpack::Idle);
    assert!(!settle(|| !requests.borrow().is_empty()).await);
    assert!(el.query_selector(".decompress-prompt").unwrap().is_none());
    assert!(requests.borrow().is_empty());
}

/// The explorer's side of a lean document: it has the tree, and answers for a node's fields.
struct TreeFields(offload::tree::Tree);

impl ByteSource for TreeFields {
    fn read(&self, space: u32, _: u64, _: u32) -> futures::future::LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        Box::pin(async move { Err(format!("no bytes of space {space} here")) })
    }

    fn fields(&self, node: NodeId) -> futures::future::LocalBoxFuture<'static, Result<Vec<FieldInfo>, String>> {
        let fields = node_fields(&self.0, node, &|_| None).ok_or_else(|| format!("no node {node}"));
        Box::pin(async move { fields })
    }
}

#[wasm_bindgen_test]
async fn inspector_shows_every_field_of_a_kernel_the_document_has_only_the_name_of() {
    use offload::tree::{ByteSpace, Node, Span, Tree};
    // A file with more kernels than a document carries the fields of.
    let mut image = Node::new(NodeKind::Image, "AMDGPU code object gfx90a", Span::new(0, 0, 8));
    for k in 0..=LEAN_KERNELS_OVER {
        let mut kernel = Node::new(NodeKind::Kernel, format!("kernel k{k}"), Span::new(0, 0, 4));
        kernel.field("name", format!("k{k}"), None);
        kernel.field("vgpr_count", 24u64, None);
        kernel.field("sgpr_count", 40u64, None);
        image.children.push(kernel);
    }
    let mut file = Node::new(NodeKind::File, "f", Span::new(0, 0, 8));
    file.children.push(image);
    let space = ByteSpace { label: "f".into(), size: 8, origin: None, data: None };
    let tree = Tree { spaces: vec![space], root: file };
    let doc = Rc::new(Doc::from_tree_lean(&tree, &|_| None));
    let kernel = node(&doc, "kernel k7");
    assert_eq!(doc.nodes[kernel].fields.len(), 1, "the document has the name alone");

    let el = root();
    let (on_action, _) = recorder();
    Renderer::<Inspector>::with_root_and_props(
        el.clone(),
        InspectorProps {
            doc: doc.clone(),
            selected: Some(kernel),
            on_action,
            tab: 1,
            marked: Vec::new(),
            edit: Default::default(),
            unpack: Default::default(),
            on_file: None,
            bytes: Some(Bytes(Rc::new(TreeFields(tree)))),
        },
    )
    .render();
    let names = || {
        all(&el, "table.fields tbody tr[data-field]")
            .iter()
            .filter_map(|r| r.get_attribute("data-field"))
            .collect::<Vec<_>>()
    };
    assert!(settle(|| names().len() == 3).await, "rows: {:?}", names());
    assert_eq!(names(), ["name", "vgpr_count", "sgpr_count"]);
    assert!(el.text_content().unwrap().contains("24"));
    assert!(el.query_selector("p.note[role=status]").unwrap().is_none(), "no longer waiting");
}

/// A kernel node named `name`, as the core's AMDGPU decoder makes them (name and VGPRs).
fn kernel_node(name: &str) -> offload::tree::Node {
    let mut k = offload::tree::Node::new(NodeKind::Kernel, name, offload::tree::Span::new(0, 0, 1));
    k.field("name", name, None).field("vgpr_count", 8u64, None);
    k
}

/// A wheel member `name` holding an AMDGPU code object per (target, kernels).
fn member_node(name: &str, images: &[(&str, &[&str])]) -> offload::tree::Node {
    use offload::tree::{Node, Span};
    let mut m = Node::new(NodeKind::PackageMember, name, Span::new(0, 0, 1));
    m.field("name", name, None);
    for (target, kernels) in images {
        let mut i = Node::new(NodeKind::Image, "AMDGPU code object", Span::new(0, 0, 1));
        i.field("format", "AMDGPU code object", None).field("target_id", *target, None);
        i.children = kernels.iter().map(|k| kernel_node(k)).collect();
        m.children.push(i);
    }
    m
}

#[wasm_bindgen_test]
async fn kernels_view_counts_the_kernels_missing_on_a_target_of_their_library_and_marks_their_cells() {
    use offload::tree::{Node, Span, Tree};
    // lib/a.so lacks k2 and k3 on gfx1100; lib/b.so has no gfx1100 at all, so k4 is no hole.
    let mut root_node = Node::new(NodeKind::File, "w.whl", Span::new(0, 0, 1));
    root_node.children.push(member_node("lib/a.so", &[("gfx90a", &["k1", "k2", "k3"]), ("gfx1100", &["k1"])]));
    root_node.children.push(member_node("lib/b.so", &[("gfx90a", &["k1", "k4"])]));
    let doc = Rc::new(Doc::from_tree(&Tree { spaces: Vec::new(), root: root_node }, &|_| None));
    let el = root();
    Renderer::<KernelsView>::with_root_and_props(
        el.clone(),
        KernelsViewProps {
            doc,
            selected: None,
            on_action: Callback::noop(),
            tab: 1,
            on_file: Callback::noop(),
            decoding: None,
        },
    )
    .render();
    assert!(settle(|| el.query_selector(".kernel-holes").unwrap().is_some()).await);
    let lines: Vec<String> = all(&el, ".kernel-hole summary").iter().map(|s| s.text_content().unwrap()).collect();
    assert_eq!(lines, ["lib/a.so: 2 kernels missing on gfx1100 of 2 targets"]);
    // The line opens to the kernels.
    let details = el.query_selector(".kernel-hole").unwrap().unwrap();
    assert!(!details.has_attribute("open"));
    // Closed, it lists nothing yet (a wheel's lines name tens of thousands of kernels).
    assert!(all(&el, ".hole-kernels li").is_empty());
    el.query_selector(".kernel-hole summary").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert!(settle(|| details.has_attribute("open")).await);
    // Listed once the line has opened (its `toggle` event comes after).
    assert!(settle(|| !all(&el, ".hole-kernels li").is_empty()).await);
    let kernels: Vec<String> = all(&el, ".hole-kernels li").iter().map(|k| k.text_content().unwrap()).collect();
    assert_eq!(kernels, ["k2", "k3"]);
    // Their gfx1100 cells say so; k4's, whose library has no gfx1100, stay plain.
    let marked: Vec<String> = all(&el, "td.missing")
        .iter()
        .filter(|td| td.text_content().unwrap() == "missing")
        .map(|td| td.closest("tr").unwrap().unwrap().get_attribute("data-kernel").unwrap())
        .collect();
    assert_eq!(marked, ["k2", "k3"]);
    assert!(all(&el, "tr[data-kernel='k4'] td.missing").is_empty());
    assert!(all(&el, "tr[data-kernel='k1'] td.missing").is_empty());
}

/// A click as a user's: bubbling, so the list's one handler hears it (SVG shapes have no
/// `click()`).
fn click_on(el: &Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    el.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn code_listing_outlines_blocks_draws_pressure_and_selects_the_peak() {
    use offload::disasm::flow::{self, File};
    use offload::disasm::Listing;
    // Assembled with a known loop (tests/disasm/flow/loop_gfx900.s); the core's own analysis
    // is what the view is held to.
    const LOOP: &[u8] = include_bytes!("../../tests/disasm/flow/loop_gfx900.co");
    let core = Listing::of_code_object(LOOP).unwrap();
    let (name, _, lines) = flow::functions(&core).remove(0);
    let theirs = flow::analyze(&core, &name, lines, true);
    let peak = theirs.peak(File::Vgpr);
    let peak_line = &core.lines[peak.line];

    // The flow of its one function, as the worker answers when the view asks for it.
    let (listing, held) = code_listing(LOOP, 0).unwrap();
    let listing = Rc::new(listing);
    let id = listing.id;
    let flows = Flows::from([((id, 0), FlowState::Ready(Rc::new(code_flow(&held, 0).unwrap())))]);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let on_want_flow = {
        let asked = asked.clone();
        Callback::from(move |wanted: (u32, usize)| asked.borrow_mut().push(wanted))
    };
    let (on_action, log) = recorder();
    let el = root();
    let span = offload::tree::Span::new(0, 0, LOOP.len() as u64);
    Renderer::<CodeListingView>::with_root_and_props(
        el.clone(),
        CodeListingProps {
            rows: Rc::new(rows(&listing)),
            listing,
            image: 0,
            span,
            selected: None,
            kernel: Some(name.clone()),
            hex: HexState::default(),
            on_action,
            flows: Rc::new(flows),
            on_want_flow,
        },
    )
    .render();
    assert!(settle(|| !all(&el, "#code-blocks .flow-block").is_empty()).await);
    assert_eq!(asked.borrow().first(), Some(&(id, 0)), "the view asks for the kernel's flow");

    // A row per block, the loop's header and body marked, the facts counted.
    let blocks = all(&el, "#code-blocks .flow-block");
    assert_eq!(blocks.len(), theirs.blocks.len());
    for (row, block) in blocks.iter().zip(&theirs.blocks) {
        assert_eq!(row.get_attribute("data-address").unwrap(), format!("{:x}", block.address));
    }
    let header = theirs.loops[0].header;
    assert!(blocks[header].class_list().contains("loop-header"));
    assert_eq!(all(&el, "#code-blocks .flow-block.loop-header").len(), theirs.loops.len());
    let facts = el.query_selector(".flow-facts").unwrap().unwrap().text_content().unwrap();
    assert!(facts.starts_with(&format!("{} blocks,", theirs.blocks.len())), "{facts}");

    // The line as the CLI prints it (no allocation given here: the kernel has its descriptor's).
    let summary = el.query_selector("button.pressure-summary").unwrap().unwrap();
    assert!(summary
        .text_content()
        .unwrap()
        .starts_with(&format!("peak {} VGPRs at {:#x}", peak.count, peak_line.address)));
    // Each instruction's live registers; the strip a bar per instruction of this small kernel.
    let live: Vec<String> =
        all(&el, "#code-list .code-line .live-v").iter().map(|c| c.text_content().unwrap()).collect();
    let counts: Vec<String> = theirs.pressure.iter().map(|p| p.vgprs.to_string()).take(live.len()).collect();
    assert_eq!(live, counts);
    assert_eq!(all(&el, "svg.pressure-strip rect.pressure-bar").len(), theirs.pressure.len());
    // The allocation drawn across the strip: the descriptor's VGPRs, as the summary says.
    let allocation = flow::budget::allocations(LOOP, &core.processor, core.isa).remove(0);
    let line = el.query_selector("svg.pressure-strip line.pressure-allocated").unwrap().unwrap();
    let allocated = allocation.vgprs.unwrap();
    assert_eq!(line.get_attribute("data-allocated"), Some(allocated.to_string()));
    assert!(summary.text_content().unwrap().contains(&format!("{allocated} allocated")));

    // A click on the strip's peak selects that instruction's bytes.
    click_on(&el.query_selector("svg.pressure-strip rect.pressure-peak").unwrap().unwrap());
    let want =
        Action::SelectSpan { node: 0, span: offload::tree::Span::new(0, peak_line.file_offset, peak_line.size as u64) };
    assert_eq!(log.borrow().last(), Some(&want));
    // The kernel's first line was selected; the peak's is now.
    let selected_address =
        || el.query_selector("#code-list .code-line.selected").unwrap().and_then(|l| l.get_attribute("data-address"));
    let peak_address = format!("{:x}", peak_line.address);
    assert!(settle(|| selected_address().as_deref() == Some(peak_address.as_str())).await, "{:?}", selected_address());
    assert!(settle(|| el.query_selector("svg.pressure-strip rect.pressure-cursor").unwrap().is_some()).await);

    // An edge goes to its block: the exit block's first line is selected.
    let exit = theirs.blocks.len() - 1;
    let edge = el.query_selector(&format!("#code-blocks button.flow-edge[data-to='{exit}']")).unwrap().unwrap();
    edge.unchecked_into::<HtmlElement>().click();
    let first = &core.lines[theirs.lines.start + theirs.blocks[exit].first];
    assert!(matches!(log.borrow().last(), Some(Action::SelectSpan { span, .. }) if span.offset == first.file_offset));

    // Folding a block hides all but its first line in one row; clicking that row unfolds it.
    let rows_now = || el.query_selector("#code-list").unwrap().unwrap().get_attribute("data-rows").unwrap();
    let before = rows_now();
    let fold = el.query_selector(&format!("#code-blocks button[aria-label='Fold block {exit}']")).unwrap().unwrap();
    fold.unchecked_into::<HtmlElement>().click();
    assert!(settle(|| el.query_selector("#code-list .code-folded").unwrap().is_some()).await);
    let hidden = theirs.blocks[exit].end - theirs.blocks[exit].first - 1;
    assert_eq!(rows_now().parse::<usize>().unwrap(), before.parse::<usize>().unwrap() - hidden + 1);
    click_on(&el.query_selector("#code-list .code-folded").unwrap().unwrap());
    assert!(settle(|| el.query_selector("#code-list .code-folded").unwrap().is_none()).await);
    assert_eq!(rows_now(), before);
}

#[wasm_bindgen_test]
async fn diagnostics_of_one_message_but_for_numbers_are_one_line_that_opens_to_them() {
    use offload::tree::{ByteSpace, Node, Severity, Span, Tree};
    use offload_www::page::components::views::diagnostics_list::{Diagnostics, DiagnosticsProps, GROUP_OVER};
    // As a CUDA library's wrappers: many notes, one message but for the offset; a note of its
    // own; errors, which each keep their line however many.
    let mut file = Node::new(NodeKind::File, "lib.so", Span::new(0, 0, 4096));
    let count = GROUP_OVER + 2;
    for i in 0..count {
        let mut wrapper = Node::new(NodeKind::Unknown, format!("wrapper {i}"), Span::new(0, 24 * i as u64, 24));
        wrapper.diag(Severity::Note, format!("the fatbin address at byte {} is 0", 24 * i), None);
        file.children.push(wrapper);
    }
    file.diag(Severity::Note, "one note of its own", None);
    for i in 0..count {
        file.diag(Severity::Error, format!("a bad entry at byte {i}"), None);
    }
    let space = ByteSpace { label: "lib.so".into(), size: 4096, origin: None, data: None };
    let doc = Rc::new(Doc::from_tree_lean(&Tree { spaces: vec![space], root: file }, &|_| None));
    let el = root();
    let (on_action, _) = recorder();
    Renderer::<Diagnostics>::with_root_and_props(el.clone(), DiagnosticsProps { doc, selected: None, on_action })
        .render();
    assert!(settle(|| el.query_selector(".diagnostics").unwrap().is_some()).await);
    let heading = el.query_selector(".diagnostics h3").unwrap().unwrap().text_content().unwrap();
    assert_eq!(heading, format!("Diagnostics ({})", 2 * count + 1));
    let groups = all(&el, ".diagnostics li.diagnostic.group");
    assert_eq!(groups.len(), 1, "the notes of one message are one line");
    let line = groups[0].query_selector("summary").unwrap().unwrap().text_content().unwrap();
    assert!(line.contains(&format!("{count} ×")), "{line}");
    assert!(line.contains("the fatbin address at byte 0 is 0"), "the first is shown: {line}");
    assert!(line.contains("numbers differ"), "{line}");
    assert_eq!(all(&el, ".diagnostics > ul > li.diagnostic.error").len(), count, "errors one by one");
    assert_eq!(all(&el, ".diagnostics > ul > li.diagnostic.note:not(.group)").len(), 1);
    // Closed, the group lists nothing; opened, every one of its notes with its byte.
    assert!(all(&el, "li.group details li").is_empty());
    el.query_selector("li.group summary").unwrap().unwrap().unchecked_into::<HtmlElement>().click();
    assert!(settle(|| all(&el, "li.group details li").len() == count).await);
    let last = all(&el, "li.group details li").pop().unwrap().text_content().unwrap();
    assert!(last.contains(&format!("the fatbin address at byte {} is 0", 24 * (count - 1))), "{last}");
}
