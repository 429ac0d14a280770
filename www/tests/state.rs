//! The page's state and model, on real fixtures explored by the real core: the reducer (open,
//! close and switch tabs, select from every view, keyboard navigation of the tree) and the
//! model the views draw. Runs natively (`cargo test --workspace`) and in headless Chromium
//! (`cargo test -p offload-www --target wasm32-unknown-unknown`).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offload::explore::Progress;
use offload::report::runs_on::RunsOn;
use offload::tree::{NodeKind, Span};
use offload_www::page::state::{Action, AppState, Nav, Status, View};
use offload_www::page::tree_rows::RowKey;
use offload_www::wire::doc::{explore_bytes, Doc, NodeId};
use offload_www::wire::loading::Loading;
use offload_www::wire::settings::Settings;
use std::rc::Rc;

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.o");
const LIB_SO: &[u8] = include_bytes!("../../tests/fixtures/libhip_3tu_compressed.so");
const OMP_O: &[u8] = include_bytes!("../../tests/fixtures/omp_elf_2arch.o");

fn doc(data: &[u8], name: &str) -> Rc<Doc> {
    Rc::new(explore_bytes(data, name))
}

fn find(doc: &Doc, label_starts: &str) -> NodeId {
    doc.nodes
        .iter()
        .position(|n| n.label.starts_with(label_starts))
        .unwrap_or_else(|| panic!("no node labelled {label_starts}…"))
}

/// A state with the HIP object open and explored in tab 1.
fn opened() -> (AppState, Rc<Doc>) {
    let d = doc(HIP_O, "hip_elf_2arch_compressed.o");
    let s = AppState::default()
        .reduce(Action::Open {
            id: 1,
            name: "hip_elf_2arch_compressed.o".into(),
            size: HIP_O.len() as u64,
            at_ms: 0.0,
            settings: Settings::default(),
        })
        .reduce(Action::Loaded { id: 1, doc: d.clone() });
    (s, d)
}

#[test]
fn tabs_open_switch_and_close() {
    let s = AppState::default();
    assert!(s.active_tab().is_none());
    let s = s
        .reduce(Action::Open { id: 1, name: "a.o".into(), size: 10, at_ms: 0.0, settings: Settings::default() })
        .reduce(Action::Open { id: 2, name: "b.so".into(), size: 20, at_ms: 1.0, settings: Settings::default() })
        .reduce(Action::Open { id: 3, name: "c.a".into(), size: 30, at_ms: 2.0, settings: Settings::default() });
    assert_eq!(s.tabs.len(), 3);
    assert_eq!(s.active, Some(3), "a new file's tab becomes the active one");
    assert!(matches!(s.tab(2).unwrap().status, Status::Loading(_)));

    let s = s.reduce(Action::NextTab);
    assert_eq!(s.active, Some(1), "next wraps around");
    let s = s.reduce(Action::PrevTab);
    assert_eq!(s.active, Some(3), "previous wraps around");
    let s = s.reduce(Action::Activate(2));
    assert_eq!(s.active, Some(2));
    let s = s.reduce(Action::Activate(99));
    assert_eq!(s.active, Some(2), "activating a tab that is not open changes nothing");

    let s = s.reduce(Action::Close(2));
    assert_eq!(s.tabs.iter().map(|t| t.id).collect::<Vec<_>>(), vec![1, 3]);
    assert_eq!(s.active, Some(3), "closing the active tab activates the one that took its place");
    let s = s.reduce(Action::Close(3));
    assert_eq!(s.active, Some(1), "closing the last tab activates the one before it");
    let s = s.reduce(Action::Close(1));
    assert!(s.tabs.is_empty());
    assert_eq!(s.active, None);
    let s = s.reduce(Action::NextTab);
    assert_eq!(s.active, None);
}

#[test]
fn worker_replies_for_closed_tabs_are_ignored_and_progress_is_kept() {
    let d = doc(OMP_O, "omp_elf_2arch.o");
    let s = AppState::default()
        .reduce(Action::Open {
            id: 1,
            name: "omp_elf_2arch.o".into(),
            size: OMP_O.len() as u64,
            at_ms: 5.0,
            settings: Settings::default(),
        })
        .reduce(Action::Progress { id: 1, progress: Loading::at("reading", 4096) });
    assert_eq!(s.tab(1).unwrap().status, Status::Loading(Loading::at("reading", 4096)));
    // A package's member count and the targets found so far stay through the reports of bytes
    // read that come between them.
    let members = Progress { members_done: 3, members: 9, bytes_done: 300, bytes: 900 };
    let found = RunsOn::default();
    let s = s
        .reduce(Action::Progress {
            id: 1,
            progress: Loading { members: Some(members), found: Some(found.clone()), ..Loading::at("reading", 300) },
        })
        .reduce(Action::Progress { id: 1, progress: Loading::at("reading", 8192) });
    let Status::Loading(now) = &s.tab(1).unwrap().status else { panic!("not loading") };
    assert_eq!((now.bytes_read, now.members, now.found.as_ref()), (8192, Some(members), Some(&found)));
    let closed = s.clone().reduce(Action::Close(1)).reduce(Action::Loaded { id: 1, doc: d.clone() });
    assert!(closed.tabs.is_empty());

    let cancelled = s.clone().reduce(Action::Cancelled { id: 1 });
    assert_eq!(cancelled.tab(1).unwrap().status, Status::Cancelled);
    // A progress report that was already on its way does not bring the progress bar back.
    let cancelled = cancelled.reduce(Action::Progress { id: 1, progress: Loading::at("late", 1) });
    assert_eq!(cancelled.tab(1).unwrap().status, Status::Cancelled);
    let restarted = cancelled.reduce(Action::Restarted { id: 1, at_ms: 9.0, settings: Settings::default() });
    assert!(matches!(restarted.tab(1).unwrap().status, Status::Loading(_)));
    assert_eq!(restarted.tab(1).unwrap().opened_at, 9.0);

    let loaded =
        restarted.reduce(Action::Loaded { id: 1, doc: d }).reduce(Action::FirstRender { id: 1, after_ms: 42.0 });
    assert_eq!(loaded.tab(1).unwrap().first_render_ms, Some(42.0));
    let loaded = loaded.reduce(Action::FirstRender { id: 1, after_ms: 99.0 });
    assert_eq!(loaded.tab(1).unwrap().first_render_ms, Some(42.0), "only the first render is timed");
}

#[test]
fn a_loaded_file_opens_with_its_tree_expanded_and_the_file_selected() {
    let (s, d) = opened();
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.selected, Some(0));
    assert_eq!(tab.visible_nodes().len(), d.nodes.len(), "small trees open fully expanded");
    assert_eq!(tab.hex.space, 0);
}

#[test]
fn selecting_a_target_shows_its_bytes_in_its_own_space() {
    let (s, d) = opened();
    let gfx90a =
        d.targets.iter().find(|t| t.target.target_id == "hipv4-amdgcn-amd-amdhsa--gfx90a").expect("gfx90a target");
    let node = gfx90a.node.expect("the target has a node");
    let gfx90a = &gfx90a.target;
    // Collapse everything first: selecting must open the way down to the node.
    let mut s = s;
    for id in 0..d.nodes.len() {
        if s.active_tab().unwrap().is_expanded(id) {
            s = s.reduce(Action::Toggle(id));
        }
    }
    assert_eq!(s.active_tab().unwrap().visible_nodes(), vec![0]);
    let seq = s.active_tab().unwrap().hex.reveal_seq;
    let s = s.reduce(Action::Select(node));
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.selected, Some(node));
    assert_eq!(tab.hex.space, gfx90a.span.space);
    assert_eq!(gfx90a.span.space, 1, "the image is inside the decompressed bundle");
    assert_eq!(tab.hex.reveal, Some(d.nodes[node].span.offset));
    assert_ne!(tab.hex.reveal_seq, seq, "the hex view is asked to scroll");
    assert!(tab.visible_nodes().contains(&node), "the tree is opened down to the selection");
    assert_eq!(d.target_of(node), d.targets.iter().position(|t| t.node == Some(node)));
}

#[test]
fn clicking_a_byte_selects_the_innermost_node_there_without_scrolling() {
    let (s, d) = opened();
    let image = find(&d, "AMDGPU code object gfx90a");
    let span = d.nodes[image].span;
    let seq = s.active_tab().unwrap().hex.reveal_seq;
    let s = s.reduce(Action::SelectAt { space: span.space, offset: span.offset + 100 });
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.selected, Some(image));
    assert_eq!(tab.hex.cursor, Some(span.offset + 100));
    assert_eq!(tab.hex.reveal_seq, seq, "a click in the hex view does not scroll it");

    // In the file's space, the zstd payload is innermost inside the compressed bundle.
    let payload = find(&d, "zstd payload");
    let p = d.nodes[payload].span;
    let s = s.reduce(Action::SelectAt { space: 0, offset: p.offset });
    assert_eq!(s.active_tab().unwrap().selected, Some(payload));
}

#[test]
fn an_instruction_selected_in_the_code_view_marks_its_bytes_until_another_selection() {
    let (s, d) = opened();
    let image = find(&d, "AMDGPU code object gfx90a");
    let span = d.nodes[image].span;
    let instruction = Span::new(span.space, span.offset + 0x100, 8);
    let s = s.reduce(Action::SelectSpan { node: image, span: instruction });
    let tab = s.active_tab().unwrap();
    assert_eq!(
        (tab.selected, tab.hex.cursor, tab.hex.marked),
        (Some(image), Some(instruction.offset), Some(instruction))
    );
    assert_eq!(tab.hex.reveal, Some(instruction.offset), "the hex view scrolls to the instruction");
    let s = s.reduce(Action::SelectAt { space: span.space, offset: span.offset + 4 });
    assert_eq!(s.active_tab().unwrap().hex.marked, None, "a byte clicked is the cursor alone");
    let s = s.reduce(Action::SelectSpan { node: image, span: instruction }).reduce(Action::Select(image));
    assert_eq!(s.active_tab().unwrap().hex.marked, None);
}

#[test]
fn go_to_offset_selects_and_scrolls_within_the_current_space() {
    let (s, d) = opened();
    let section = find(&d, "section .hip_fatbin");
    let at = d.nodes[section].span.offset + 4; // inside the compressed bundle's header
    let s = s.reduce(Action::GoTo(at));
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.hex.cursor, Some(at));
    assert_eq!(tab.hex.reveal, Some(at));
    assert_eq!(d.nodes[tab.selected.unwrap()].kind, NodeKind::CompressedBundle);
    // Past the end: the last byte.
    let s = s.reduce(Action::GoTo(u64::MAX));
    assert_eq!(s.active_tab().unwrap().hex.cursor, Some(HIP_O.len() as u64 - 1));
}

#[test]
fn keyboard_navigation_follows_the_visible_rows() {
    let (s, d) = opened();
    let rows = s.active_tab().unwrap().visible_nodes();
    let sel = |s: &AppState| s.active_tab().unwrap().selected.unwrap();

    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(sel(&s), rows[1]);
    let s = s.reduce(Action::Nav(Nav::End));
    assert_eq!(sel(&s), *rows.last().unwrap());
    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(sel(&s), *rows.last().unwrap(), "down on the last row stays");
    let s = s.reduce(Action::Nav(Nav::Home));
    assert_eq!(sel(&s), 0);
    let s = s.reduce(Action::Nav(Nav::Up));
    assert_eq!(sel(&s), 0, "up on the first row stays");

    // Left on an expanded node collapses it; Left again goes to the parent.
    let section = find(&d, "section .hip_fatbin");
    let s = s.reduce(Action::Select(section));
    let s = s.reduce(Action::Nav(Nav::Left));
    assert!(!s.active_tab().unwrap().is_expanded(section));
    assert_eq!(sel(&s), section);
    assert_eq!(
        s.active_tab().unwrap().visible_nodes().len(),
        rows.len() - (d.nodes[section].subtree_end - section - 1)
    );
    let s = s.reduce(Action::Nav(Nav::Left));
    assert_eq!(sel(&s), 0);
    // Right on the collapsed section (after Down) expands it, Right again enters it.
    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(sel(&s), section);
    let s = s.reduce(Action::Nav(Nav::Right));
    assert!(s.active_tab().unwrap().is_expanded(section));
    assert_eq!(sel(&s), section);
    let s = s.reduce(Action::Nav(Nav::Right));
    assert_eq!(sel(&s), d.nodes[section].children[0]);
    // Enter (Toggle) on a leaf does nothing.
    let leaf = find(&d, "AMDGPU code object gfx906");
    let s = s.reduce(Action::Select(leaf)).reduce(Action::Toggle(leaf));
    assert!(!s.active_tab().unwrap().is_expanded(leaf));
}

#[test]
fn views_and_help_toggle() {
    let s = AppState::default();
    // Every view but Code, which starts its worker when it first opens.
    assert!(View::ALL.iter().all(|&v| s.shows(v) == (v != View::Code)));
    let s = s.reduce(Action::ToggleView(View::Hex));
    assert!(!s.shows(View::Hex) && s.shows(View::Map));
    let s = s.reduce(Action::ToggleView(View::Hex)).reduce(Action::Help(true));
    assert!(s.shows(View::Hex) && s.help_open);
    // The inspector's "Code" shows the view, and pressing it again keeps it shown.
    let s = s.reduce(Action::ShowView(View::Code)).reduce(Action::ShowView(View::Code));
    assert!(s.shows(View::Code));
}

#[test]
fn the_code_view_opens_maximised_when_there_is_code_to_list_until_it_is_hidden() {
    let (s, d) = opened();
    let maximised = |s: &AppState| s.active_tab().unwrap().panes.maximised;
    let s = s.reduce(Action::ToggleView(View::Code));
    assert_eq!(maximised(&s), None, "with nothing to list, it opens beside the tree to pick an image from");
    let s = s.reduce(Action::ToggleView(View::Code)).reduce(Action::Select(find(&d, "AMDGPU code object")));
    let s = s.reduce(Action::ToggleView(View::Code));
    assert_eq!(maximised(&s), Some(View::Code), "opened with key 7 on a code object, the listing gets the tab");
    let s = s.reduce(Action::ToggleMaximised { id: 1, view: View::Code }).reduce(Action::ShowView(View::Code));
    assert_eq!(maximised(&s), None, "asked for again once restored, it stays where the user put it");
    let s = s.reduce(Action::ToggleView(View::Code)).reduce(Action::ShowView(View::Code));
    assert_eq!(maximised(&s), Some(View::Code), "opened again from the inspector, it takes the tab again");
    let s = s.reduce(Action::ShowView(View::Kernels));
    assert_eq!(maximised(&s), None, "the Kernels view the Code view links to is put on screen");
    let s = s.reduce(Action::ToggleMaximised { id: 1, view: View::Code }).reduce(Action::ToggleView(View::Code));
    assert_eq!(maximised(&s), None, "hidden, the Code view gives the layout back");
    assert!(!s.shows(View::Code));
}

#[test]
fn every_target_of_a_linked_library_has_its_node_and_chain() {
    let d = doc(LIB_SO, "libhip_3tu_compressed.so");
    let tree = offload::explore::explore(LIB_SO, "libhip_3tu_compressed.so", &Default::default());
    let expected = offload::report::targets::collect(&tree);
    assert_eq!(d.targets.len(), expected.len());
    assert_eq!(d.targets.len(), 6, "three translation units for two processors");
    assert_eq!(d.spaces.len(), 4, "the file and three decompressed bundles");
    for (info, e) in d.targets.iter().zip(&expected) {
        assert_eq!(&info.target, e, "the core's target, as it collects it");
        let t = &info.target;
        let node = info.node.unwrap_or_else(|| panic!("{} has no node", t.target_id));
        assert_eq!(d.nodes[node].kind, NodeKind::BundleEntry);
        assert_eq!(d.nodes[node].span, t.span);
        let chain: Vec<&str> = d.ancestors(node).iter().rev().map(|&a| d.nodes[a].label.as_str()).collect();
        assert_eq!(chain, e.chain.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(t.compression.as_deref(), Some("zstd"));
    }
    // Each decompressed space comes from a payload in the file, and the map draws it below it.
    for s in &d.spaces[1..] {
        assert_eq!(s.origin.map(|o| o.space), Some(0));
        assert_eq!(s.available, s.size, "small bundles are decompressed in full");
    }
    let maps = offload_www::page::layout::space_maps(&d);
    assert_eq!(maps.iter().map(|m| m.space).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert!(maps[1..].iter().all(|m| m.indent == 1));
    for m in &maps {
        for r in &m.regions {
            assert!(r.x >= 0.0 && r.x + r.width <= 1.0 + 1e-9, "region {} outside its band", r.node);
        }
    }
}

#[test]
fn offload_binary_fields_carry_their_raw_bytes() {
    let d = doc(OMP_O, "omp_elf_2arch.o");
    assert_eq!(d.targets.len(), 2);
    let entry = d.targets.iter().find(|t| t.target.processor == "gfx90a").and_then(|t| t.node).expect("gfx90a entry");
    assert_eq!(d.nodes[entry].kind, NodeKind::OffloadEntry);
    let with_raw: Vec<_> = d.nodes.iter().flat_map(|n| &n.fields).filter(|f| f.raw.is_some()).collect();
    assert!(!with_raw.is_empty());
    for info in with_raw {
        let f = &info.field;
        let span = f.span.unwrap();
        let raw = info.raw.as_ref().unwrap();
        assert_eq!(raw.len() as u64, span.size, "{}", f.name);
        if span.space == 0 {
            assert_eq!(&raw[..], &OMP_O[span.offset as usize..span.end() as usize], "{}", f.name);
        }
    }
    // The magic of the first offload binary reads as the bytes the format defines.
    let magic = d.nodes.iter().flat_map(|n| &n.fields).find(|f| f.field.name == "magic").expect("a magic field");
    assert_eq!(magic.raw.as_deref(), Some(&[0x10, 0xff, 0x10, 0xad][..]));
}

#[test]
fn a_share_link_selection_applies_once_the_file_is_explored() {
    let d = doc(HIP_O, "hip_elf_2arch_compressed.o");
    let gfx90a = find(&d, "AMDGPU code object gfx90a");
    let path = d.path_of(gfx90a);
    assert_eq!(path, vec![0, 0, 1, 0, 2, 0]);
    // Asked before the worker answers: kept, then applied on load.
    let s = AppState::default()
        .reduce(Action::Open {
            id: 1,
            name: "hip.o".into(),
            size: HIP_O.len() as u64,
            at_ms: 0.0,
            settings: Settings::default(),
        })
        .reduce(Action::SelectPath { id: 1, path: path.clone() });
    assert_eq!(s.active_tab().unwrap().selected, None);
    let s = s.reduce(Action::Loaded { id: 1, doc: d.clone() });
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.selected, Some(gfx90a));
    assert_eq!(tab.select_on_load, None);
    assert!(d.ancestors(gfx90a).iter().all(|&a| tab.is_expanded(a)), "the tree is open down to it");
    // Asked once explored: at once. A path past the tree stops at the deepest node it reaches.
    let (s, _) = opened();
    let parent = d.nodes[gfx90a].parent.unwrap();
    let mut past = path[..path.len() - 1].to_vec();
    past.push(9);
    let s = s.reduce(Action::SelectPath { id: 1, path: past });
    assert_eq!(s.active_tab().unwrap().selected, Some(parent));
}

/// A wheel of 1,000 small files of which members 3 and 700 hold an AMDGPU image, open in tab 1.
/// Node 0 is the file, 1 the package.
fn wheel_opened() -> (AppState, Rc<Doc>) {
    use offload::tree::{Node, Tree};
    let mut package = Node::new(NodeKind::Package, "zip package, 1000 members", Span::new(0, 0, 1));
    for m in 0..1000u64 {
        let name = format!("pkg/mod_{m}.py");
        let mut member = Node::new(NodeKind::PackageMember, format!("{name} (1 B)"), Span::new(0, m, 1));
        member.field("name", name.as_str(), None);
        if m == 3 || m == 700 {
            member.children.push(Node::new(NodeKind::Image, "AMDGPU code object gfx90a", Span::new(0, m, 1)));
        }
        package.children.push(member);
    }
    let mut root = Node::new(NodeKind::File, "w.whl", Span::new(0, 0, 1000));
    root.children.push(package);
    let d = Rc::new(Doc::from_tree(&Tree { spaces: Vec::new(), root }, &|_| None));
    let s = AppState::default()
        .reduce(Action::Open { id: 1, name: "w.whl".into(), size: 1000, at_ms: 0.0, settings: Settings::default() })
        .reduce(Action::Loaded { id: 1, doc: d.clone() });
    (s, d)
}

fn active(s: &AppState) -> RowKey {
    s.active_tab().unwrap().active_row().unwrap()
}

#[test]
fn the_keys_follow_the_rows_as_shown_device_members_first_then_the_group() {
    let (s, d) = wheel_opened();
    let member = |m: usize| d.nodes[1].children[m];
    let order = [0, 1, member(3), member(3) + 1, member(700), member(700) + 1];
    let mut s = s.reduce(Action::Nav(Nav::Home));
    for &node in &order[1..] {
        s = s.reduce(Action::Nav(Nav::Down));
        assert_eq!(active(&s), RowKey::Node(node));
    }
    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(active(&s), RowKey::Others(1), "the group row comes after the device members");
    assert_eq!(s.active_tab().unwrap().selected, Some(1), "the other views show its package");
    let s = s.reduce(Action::Nav(Nav::End));
    assert_eq!(active(&s), RowKey::Others(1), "closed, the group row is the last row");
    // Right opens the group, Right again enters its first member; Left goes back up.
    let s = s.reduce(Action::Nav(Nav::Right));
    assert!(s.active_tab().unwrap().group_is_open(1));
    assert_eq!(active(&s), RowKey::Others(1));
    let s = s.reduce(Action::Nav(Nav::Right));
    assert_eq!(active(&s), RowKey::Node(member(0)));
    let s = s.reduce(Action::Nav(Nav::Down)).reduce(Action::Nav(Nav::Down));
    assert_eq!(active(&s), RowKey::Node(member(2)));
    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(active(&s), RowKey::Node(member(4)), "a device member is not repeated in the group");
    let s = s.reduce(Action::Nav(Nav::End));
    assert_eq!(active(&s), RowKey::Node(member(999)));
    let s = s.reduce(Action::Nav(Nav::Left));
    assert_eq!(active(&s), RowKey::Others(1), "a grouped member's parent row is the group");
    let s = s.reduce(Action::Nav(Nav::Left));
    assert!(!s.active_tab().unwrap().group_is_open(1), "left closes the group");
    let s = s.reduce(Action::Nav(Nav::Left));
    assert_eq!(active(&s), RowKey::Node(1), "then goes to the package");
    // Enter on the group row (ToggleOthers) and a filter narrow what the keys walk.
    let s = s
        .reduce(Action::SelectOthers(1))
        .reduce(Action::ToggleOthers(1))
        .reduce(Action::FilterOthers { package: 1, filter: "MOD_99".into() });
    let shown: Vec<NodeId> = s.active_tab().unwrap().visible_nodes().into_iter().skip(order.len()).collect();
    assert_eq!(
        shown,
        [
            member(99),
            member(990),
            member(991),
            member(992),
            member(993),
            member(994),
            member(995),
            member(996),
            member(997),
            member(998),
            member(999)
        ]
    );
    let s = s.reduce(Action::Nav(Nav::Down));
    assert_eq!(active(&s), RowKey::Node(member(99)));
}

#[test]
fn selecting_a_member_hidden_in_the_group_opens_it_and_clears_a_filter_that_hides_it() {
    let (s, d) = wheel_opened();
    let member = |m: usize| d.nodes[1].children[m];
    let tab = s.active_tab().unwrap();
    assert!(!tab.group_is_open(1) && !tab.visible_nodes().contains(&member(500)), "closed at first");
    let s = s.reduce(Action::FilterOthers { package: 1, filter: "mod_12".into() });
    let s = s.reduce(Action::Select(member(500)));
    let tab = s.active_tab().unwrap();
    assert_eq!(tab.active_row(), Some(RowKey::Node(member(500))));
    assert!(tab.group_is_open(1));
    assert_eq!(tab.groups[&1].filter, "", "the filter hid it");
    assert!(tab.visible_nodes().contains(&member(500)));
    // A filter that shows it stays.
    let s = s.reduce(Action::FilterOthers { package: 1, filter: "mod_5".into() }).reduce(Action::Select(member(501)));
    assert_eq!(s.active_tab().unwrap().groups[&1].filter, "mod_5");
    // A member hidden since it was selected: the keys move from its group row.
    let s = s.reduce(Action::ToggleOthers(1)).reduce(Action::Nav(Nav::Up));
    assert_eq!(active(&s), RowKey::Node(member(700) + 1), "up from where the closed group stands");
}

/// The layout map of a wheel with more spaces than are drawn: the file's band and the bands on
/// the way to the selected node's space, each node on the row the count of its ancestors in the
/// same space gives, as `Doc::nodes_in_space` counts them.
#[test]
fn a_map_of_many_spaces_draws_the_bands_that_lead_to_the_selection() {
    use offload_www::page::layout::{space_maps, space_maps_around, MAX_BANDS};
    let wheel = include_bytes!("../../tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
    let d = doc(wheel, "gpu_libs.whl");
    for m in space_maps(&d) {
        let expected: Vec<(NodeId, u32)> =
            d.nodes_in_space(m.space).into_iter().filter(|&(n, _)| d.nodes[n].span.size > 0).collect();
        let drawn: Vec<(NodeId, u32)> = m.regions.iter().map(|r| (r.node, r.level)).collect();
        assert_eq!(drawn, expected, "space {}", m.space);
    }
    // Past MAX_BANDS spaces only the chain to the selection is drawn: a doc with that many.
    let mut many = (*d).clone();
    while many.spaces.len() <= MAX_BANDS {
        many.spaces.push(many.spaces[1].clone());
    }
    let deepest = (0..d.nodes.len()).max_by_key(|&n| d.space_depth(d.nodes[n].span.space)).unwrap();
    let maps = space_maps_around(&many, Some(deepest));
    let spaces: Vec<u32> = maps.iter().map(|m| m.space).collect();
    let mut chain = vec![d.nodes[deepest].span.space];
    while let Some(o) = d.spaces[*chain.last().unwrap() as usize].origin {
        chain.push(o.space);
    }
    chain.sort_unstable();
    assert_eq!(spaces, chain, "the file's band and the spaces leading to the selection");
    assert!(chain.len() >= 2, "the wheel's members open spaces");
    assert_eq!(space_maps_around(&many, None).iter().map(|m| m.space).collect::<Vec<_>>(), vec![0]);
}
