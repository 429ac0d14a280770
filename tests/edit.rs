//! Edits to real files (`offload::edit`), checked by reading the results with the LLVM 22 tools:
//! `clang-offload-bundler --list` for bundles (plain, compressed, text), `llvm-objdump
//! --offloading` for offload binaries, `llvm-ar` and `llvm-readelf` for the containers around
//! them. Tests that need a tool say so and return when it is missing.

mod common;
use common::{tool, Scratch, XorShift};
use offload::codec::Method;
use offload::edit::{self, apply, Edit, EditError, NewEntry, NodePath};
use offload::explore::{explore, Options};
use offload::format::host;
use offload::tree::{Node, NodeKind, Tree};
use std::path::Path;
use std::process::Command;

const SUITE: &str = "edit";

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn tree_of(data: &[u8]) -> Tree {
    explore(data, "input", &Options::default())
}

/// The path of the first node (pre-order) that `pick` accepts.
fn find(tree: &Tree, pick: &dyn Fn(&Node) -> bool) -> NodePath {
    fn go(n: &Node, path: &mut NodePath, pick: &dyn Fn(&Node) -> bool) -> bool {
        if pick(n) {
            return true;
        }
        for (i, c) in n.children.iter().enumerate() {
            path.push(i);
            if go(c, path, pick) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut path = Vec::new();
    assert!(go(&tree.root, &mut path, pick), "no such node");
    path
}

fn labelled(kind: NodeKind, text: &'static str) -> impl Fn(&Node) -> bool {
    move |n: &Node| n.kind == kind && n.label.contains(text)
}

fn target_ids(data: &[u8]) -> Vec<String> {
    offload::report::targets::collect(&tree_of(data)).into_iter().map(|t| t.target_id).collect()
}

fn apply_ok(data: &[u8], e: &Edit) -> edit::Edited {
    let tree = tree_of(data);
    let edited = apply(data, &tree, e).unwrap_or_else(|e| panic!("edit refused: {e}"));
    let after = tree_of(&edited.bytes);
    assert_eq!(edit::new_errors(&tree, &after), Vec::<String>::new(), "the edit added errors");
    edited
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `clang-offload-bundler --list` of a bundle (plain, compressed or text) of `file_type`.
fn bundler_list(scratch: &Scratch, name: &str, data: &[u8], file_type: &str) -> Option<Vec<String>> {
    let bundler = tool("clang-offload-bundler", name)?;
    let path = scratch.write(name, data);
    let mut cmd = Command::new(bundler);
    for v in common::BUNDLER_ENV {
        cmd.env_remove(v);
    }
    let out = run(cmd.arg("--list").arg(format!("--type={file_type}")).arg(format!("--input={}", path.display())));
    Some(out.lines().map(str::to_string).collect())
}

fn section<'a>(data: &'a [u8], name: &str) -> &'a [u8] {
    host::read_host(data)
        .unwrap()
        .sections
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no section {name}"))
        .data
}

/// `llvm-objdump --offloading` of an object: the (triple, arch) of every image it shows.
fn objdump_images(scratch: &Scratch, name: &str, data: &[u8]) -> Option<Vec<(String, String)>> {
    let objdump = tool("llvm-objdump", name)?;
    let path = scratch.write(name, data);
    let out = run(Command::new(objdump).arg("--offloading").arg(&path));
    let mut images = Vec::new();
    let (mut triple, mut arch) = (String::new(), String::new());
    for line in out.lines() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("arch"), Some(a)) => arch = a.into(),
            (Some("triple"), Some(t)) => {
                triple = t.into();
                images.push((triple.clone(), arch.clone()));
            }
            _ => {}
        }
    }
    let _ = triple;
    Some(images)
}

#[test]
fn an_entry_id_changed_in_a_hip_object_is_what_the_bundler_lists() {
    let scratch = Scratch::new(SUITE, "entry-id");
    let input = fixture("hip_elf_2arch.o");
    let tree = tree_of(&input);
    let node = find(&tree, &labelled(NodeKind::BundleEntry, "gfx906"));
    let edited =
        apply_ok(&input, &Edit::SetEntryId { node: node.clone(), id: "hipv4-amdgcn-amd-amdhsa--gfx908".into() });
    assert_eq!(target_ids(&edited.bytes), ["hipv4-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx90a"]);
    assert_eq!(edited.mark, node, "the edited entry keeps its place");
    let Some(mut listed) = bundler_list(&scratch, "fatbin.hipfb", section(&edited.bytes, ".hip_fatbin"), "o") else {
        return;
    };
    listed.sort();
    assert_eq!(
        listed,
        ["hipv4-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"]
    );
    // The object is still one llvm-readelf reads without complaint.
    if let Some(readelf) = tool("llvm-readelf", "entry-id") {
        let path = scratch.write("edited.o", &edited.bytes);
        let out = Command::new(readelf).args(["-S", "--wide"]).arg(&path).output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn an_entry_id_changed_inside_a_compressed_bundle_is_compressed_again() {
    let scratch = Scratch::new(SUITE, "entry-id-ccob");
    let input = fixture("hip_elf_2arch_compressed.o");
    let tree = tree_of(&input);
    let node = find(&tree, &labelled(NodeKind::BundleEntry, "gfx90a"));
    let edited = apply_ok(&input, &Edit::SetEntryId { node, id: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+".into() });
    assert_eq!(
        target_ids(&edited.bytes),
        ["hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"]
    );
    let fatbin = section(&edited.bytes, ".hip_fatbin");
    assert_eq!(&fatbin[..4], b"CCOB");
    let Some(listed) = bundler_list(&scratch, "fatbin.hipfb", fatbin, "o") else {
        return;
    };
    assert!(listed.iter().any(|l| l == "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"), "{listed:?}");
}

#[test]
fn invalid_entry_ids_and_strings_are_refused_with_the_reason() {
    let input = fixture("hip_elf_2arch.o");
    let tree = tree_of(&input);
    let node = find(&tree, &labelled(NodeKind::BundleEntry, "gfx906"));
    for (id, says) in [
        ("gfx908", "at least four '-'"),
        ("cuda-nvptx64-nvidia-cuda--sm_90", "offload kind"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack", "target ID is malformed"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", "already has the ID"),
    ] {
        match apply(&input, &tree, &Edit::SetEntryId { node: node.clone(), id: id.into() }) {
            Err(EditError::Invalid(m)) => assert!(m.contains(says), "{id}: {m}"),
            other => panic!("{id}: {other:?}"),
        }
    }
    assert_eq!(edit::string_problem("triple", "amdgcn-amd-amdhsa"), None);
    assert!(edit::string_problem("triple", "not a triple").is_some());
    assert!(edit::string_problem("arch", "gfx90a:xnack").unwrap().contains("processor or target ID"));
    assert_eq!(edit::string_problem("arch", "gfx90a:xnack+"), None);
}

#[test]
fn the_canonical_form_of_an_entry_id_sorts_features_and_fills_the_triple() {
    assert_eq!(
        edit::canonical_entry_id("hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-").as_deref(),
        Some("hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+")
    );
    assert_eq!(
        edit::canonical_entry_id("host-x86_64-unknown-linux-gnu").as_deref(),
        Some("host-x86_64-unknown-linux-gnu-")
    );
    assert_eq!(edit::canonical_entry_id("gfx90a"), None);
}

#[test]
fn a_triple_changed_in_an_openmp_object_is_what_objdump_shows() {
    let scratch = Scratch::new(SUITE, "triple");
    let input = fixture("omp_elf_2arch.o");
    let tree = tree_of(&input);
    let node = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx1030"));
    let edited = apply_ok(
        &input,
        &Edit::SetString { node: node.clone(), key: "triple".into(), value: Some("amdgcn-amd-amdpal".into()) },
    );
    assert_eq!(edited.mark, node);
    let Some(images) = objdump_images(&scratch, "edited.o", &edited.bytes) else {
        return;
    };
    assert_eq!(
        images,
        [
            ("amdgcn-amd-amdpal".to_string(), "gfx1030".to_string()),
            ("amdgcn-amd-amdhsa".into(), "gfx90a:xnack+".into())
        ]
    );
}

/// Every diagnostic of a tree, errors, warnings and notes, as text.
fn all_diagnostics(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    tree.root.walk(&mut |n, _| {
        out.extend(n.diagnostics.iter().map(|d| format!("{}: {}", n.label, d.message)));
    });
    out
}

/// LLVM reads the offload binaries of a section back to back, each where the one before ends.
/// A binary that grows, again and again by different amounts, must never leave a gap before
/// the next one (an 8-byte gap of zeros once made llvm-objdump fail with "Invalid data" when the
/// next binary had come to sit at a 16-byte boundary after an earlier edit).
#[test]
fn a_binary_that_grows_again_and_again_leaves_the_next_binary_where_llvm_reads_it() {
    let scratch = Scratch::new(SUITE, "grow");
    let mut data = fixture("omp_elf_2arch.o");
    let expected = all_diagnostics(&tree_of(&data));
    for len in 1..=24 {
        let tree = tree_of(&data);
        let node = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx1030"));
        data =
            apply_ok(&data, &Edit::SetString { node, key: format!("note{len}"), value: Some("x".repeat(len)) }).bytes;
        assert_eq!(all_diagnostics(&tree_of(&data)), expected, "after adding a value of {len} bytes");
        let Some(images) = objdump_images(&scratch, &format!("grown{len}.o"), &data) else {
            return;
        };
        assert_eq!(
            images.iter().map(|i| i.1.as_str()).collect::<Vec<_>>(),
            ["gfx1030", "gfx90a:xnack+"],
            "after adding a value of {len} bytes"
        );
    }
}

#[test]
fn offload_entries_are_removed_moved_and_added_as_objdump_sees_them() {
    let scratch = Scratch::new(SUITE, "entries");
    let input = fixture("omp_elf_2arch.o");
    let tree = tree_of(&input);
    let first = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx1030"));

    let removed = apply_ok(&input, &Edit::RemoveEntry { node: first.clone() });
    let moved = apply_ok(&input, &Edit::MoveEntry { node: first.clone(), to: 1 });
    let section_path = find(&tree, &labelled(NodeKind::Section, ".llvm.offloading"));
    let image = XorShift(7).bytes(1000);
    let entry = NewEntry {
        strings: vec![("triple".into(), "amdgcn-amd-amdhsa".into()), ("arch".into(), "gfx942".into())],
        image_kind: 1,
        offload_kind: 1,
        data: image.clone(),
        ..NewEntry::default()
    };
    let added = apply_ok(&input, &Edit::AddEntry { container: section_path, entry });

    let Some(images) = objdump_images(&scratch, "removed.o", &removed.bytes) else {
        return;
    };
    assert_eq!(images, [("amdgcn-amd-amdhsa".to_string(), "gfx90a:xnack+".to_string())]);
    let images = objdump_images(&scratch, "moved.o", &moved.bytes).unwrap();
    assert_eq!(images.iter().map(|i| i.1.as_str()).collect::<Vec<_>>(), ["gfx90a:xnack+", "gfx1030"]);
    let images = objdump_images(&scratch, "added.o", &added.bytes).unwrap();
    assert_eq!(images.iter().map(|i| i.1.as_str()).collect::<Vec<_>>(), ["gfx1030", "gfx90a:xnack+", "gfx942"]);
    // The added image is stored as given: llvm-offload-binary takes it out of the section.
    let Some(packager) = tool("llvm-offload-binary", "entries") else {
        return;
    };
    let offloading = scratch.write("added.offload", section(&added.bytes, ".llvm.offloading"));
    let out = scratch.path("gfx942.img");
    run(Command::new(packager)
        .arg(&offloading)
        .arg(format!("--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx942", out.display())));
    assert_eq!(std::fs::read(out).unwrap(), image);
}

#[test]
fn bundle_entries_are_removed_moved_and_added_as_the_bundler_lists_them() {
    let scratch = Scratch::new(SUITE, "bundle-entries");
    let input = fixture("bundle_bin.bc");
    let tree = tree_of(&input);
    let ids = target_ids(&input);
    assert!(ids.len() >= 2, "{ids:?}");
    let bundle = find(&tree, &|n| n.kind == NodeKind::Bundle);
    let entry = |k: usize| {
        let id = ids[k].clone();
        find(&tree, &move |n: &Node| n.kind == NodeKind::BundleEntry && n.label.contains(&id[..]))
    };

    let removed = apply_ok(&input, &Edit::RemoveEntry { node: entry(0) });
    let moved = apply_ok(&input, &Edit::MoveEntry { node: entry(0), to: 2 });
    let new =
        NewEntry { id: "hipv4-amdgcn-amd-amdhsa--gfx1100".into(), data: XorShift(3).bytes(777), ..NewEntry::default() };
    let added = apply_ok(&input, &Edit::AddEntry { container: bundle, entry: new.clone() });

    let Some(listed) = bundler_list(&scratch, "removed.bc", &removed.bytes, "bc") else {
        return;
    };
    assert!(!listed.contains(&ids[0]) && listed.contains(&ids[1]), "{listed:?}");
    // clang lists in its own (hash) order: the order is checked on our reading, the set on clang's.
    let mut listed = bundler_list(&scratch, "moved.bc", &moved.bytes, "bc").unwrap();
    let mut moved_ids = target_ids(&moved.bytes);
    assert_eq!(moved_ids.last(), Some(&ids[0]), "{moved_ids:?}");
    listed.retain(|l| !l.starts_with("host-"));
    listed.sort();
    moved_ids.sort();
    assert_eq!(listed, moved_ids);
    let listed = bundler_list(&scratch, "added.bc", &added.bytes, "bc").unwrap();
    assert!(listed.iter().any(|l| l == "hipv4-amdgcn-amd-amdhsa--gfx1100"), "{listed:?}");
    // clang takes the added entry out byte for byte.
    let bundler = tool("clang-offload-bundler", "bundle-entries").unwrap();
    let out = scratch.path("gfx1100.bin");
    run(Command::new(bundler)
        .args(["--unbundle", "--type=bc", "--targets=hipv4-amdgcn-amd-amdhsa--gfx1100"])
        .arg(format!("--input={}", scratch.path("added.bc").display()))
        .arg(format!("--output={}", out.display())));
    assert_eq!(std::fs::read(out).unwrap(), new.data);
}

#[test]
fn a_text_bundle_entry_is_renamed_and_removed() {
    let scratch = Scratch::new(SUITE, "text");
    let input = fixture("bundle_text.ll");
    let tree = tree_of(&input);
    let node = find(&tree, &labelled(NodeKind::BundleEntry, "gfx906"));
    let renamed =
        apply_ok(&input, &Edit::SetEntryId { node: node.clone(), id: "hip-amdgcn-amd-amdhsa--gfx908".into() });
    let removed = apply_ok(&input, &Edit::RemoveEntry { node });
    let Some(listed) = bundler_list(&scratch, "renamed.ll", &renamed.bytes, "ll") else {
        return;
    };
    assert!(
        listed.iter().any(|l| l == "hip-amdgcn-amd-amdhsa--gfx908") && !listed.iter().any(|l| l.contains("gfx906")),
        "{listed:?}"
    );
    let listed = bundler_list(&scratch, "removed.ll", &removed.bytes, "ll").unwrap();
    assert_eq!(listed.len(), target_ids(&input).len(), "the host entry stays and one device entry goes: {listed:?}");
}

#[test]
fn compressing_then_decompressing_a_bundle_gives_back_its_bytes() {
    let scratch = Scratch::new(SUITE, "compress");
    let input = fixture("hip_elf_2arch.o");
    let tree = tree_of(&input);
    let bundle = find(&tree, &|n| n.kind == NodeKind::Bundle);
    let compressed =
        apply_ok(&input, &Edit::Compress { node: bundle.clone(), method: Method::Zstd, level: None, version: 3 });
    let fatbin = section(&compressed.bytes, ".hip_fatbin");
    assert_eq!(&fatbin[..4], b"CCOB");
    assert!(fatbin.len() < section(&input, ".hip_fatbin").len() / 2, "zstd should at least halve this bundle");
    if let Some(listed) = bundler_list(&scratch, "compressed.hipfb", fatbin, "o") {
        assert_eq!(listed.len(), 3);
    }
    let ctree = tree_of(&compressed.bytes);
    let ccob = find(&ctree, &|n| n.kind == NodeKind::CompressedBundle);
    assert_eq!(ccob, bundle, "the compressed bundle takes the bundle's place");
    let recompressed = apply(
        &compressed.bytes,
        &ctree,
        &Edit::Compress { node: ccob.clone(), method: Method::Zlib, level: Some(9), version: 2 },
    )
    .unwrap();
    assert!(recompressed.notes[0].contains("zlib level 9, format version 2"), "{:?}", recompressed.notes);
    let decompressed = apply(&compressed.bytes, &ctree, &Edit::Decompress { node: ccob }).unwrap();
    assert_eq!(decompressed.bytes, input, "compress then decompress is byte-identical to the original object");
}

#[test]
fn an_image_replaced_in_a_linked_library_is_written_in_place_or_refused_with_its_payload() {
    let input = fixture("libhip_3tu_compressed.so");
    let tree = tree_of(&input);
    let entry = find(&tree, &labelled(NodeKind::BundleEntry, "gfx90a"));
    // The same image again: it fits, and the library keeps its size.
    let same_id = apply_ok(
        &input,
        &Edit::SetEntryId { node: entry.clone(), id: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-".into() },
    );
    assert_eq!(same_id.bytes.len(), input.len());
    assert!(same_id.notes.iter().any(|n| n.contains("in place")), "{:?}", same_id.notes);
    assert!(target_ids(&same_id.bytes).iter().any(|t| t == "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"));
    // 64 KiB of noise does not compress: it cannot fit the compressed bundle's slot.
    let noise = XorShift(11).bytes(64 << 10);
    match apply(&input, &tree, &Edit::ReplaceContent { node: entry, data: noise }) {
        Err(EditError::DoesNotFit { message, payload, payload_kind }) => {
            assert!(message.contains("bytes over"), "{message}");
            assert_eq!(payload_kind, NodeKind::CompressedBundle);
            assert_eq!(&payload[..4], b"CCOB");
            assert!(target_ids(&payload).iter().any(|t| t.contains("gfx90a")));
        }
        other => panic!("{:?}", other.map(|e| e.notes)),
    }
}

#[test]
fn members_of_an_archive_are_rewritten_and_llvm_ar_reads_the_archive() {
    let scratch = Scratch::new(SUITE, "archive");
    let Some(ar) = tool("llvm-ar", "archive") else {
        return;
    };
    let members = [
        scratch.write("bundle_bin.bc", &fixture("bundle_bin.bc")),
        scratch.write("hip_elf_2arch.o", &fixture("hip_elf_2arch.o")),
    ];
    let archive = scratch.path("input.a");
    run(Command::new(&ar).arg("rcS").arg(&archive).args(&members));
    let input = std::fs::read(&archive).unwrap();
    let tree = tree_of(&input);
    // An entry of the bundle member, and an entry of the object member's .hip_fatbin, which
    // grows the object's section.
    let in_bundle = find(&tree, &|n: &Node| n.kind == NodeKind::BundleEntry && n.label.contains("gfx906"));
    let edited = apply_ok(&input, &Edit::SetEntryId { node: in_bundle, id: "hipv4-amdgcn-amd-amdhsa--gfx1031".into() });
    assert!(edited.notes.iter().any(|n| n.contains("GNU format")));
    let tree2 = tree_of(&edited.bytes);
    let in_object = find(&tree2, &|n: &Node| n.kind == NodeKind::Image && n.label.contains("gfx90a"));
    let image = XorShift(9).bytes(9000);
    let edited = apply_ok(&edited.bytes, &Edit::ReplaceContent { node: in_object, data: image.clone() });
    assert!(edited.notes.iter().any(|n| n.contains("section .hip_fatbin is now")), "{:?}", edited.notes);
    let ids = target_ids(&edited.bytes);
    assert!(ids.iter().any(|t| t.ends_with("gfx1031")), "{ids:?}");

    let path = scratch.write("edited.a", &edited.bytes);
    assert_eq!(run(Command::new(&ar).arg("t").arg(&path)), "bundle_bin.bc\nhip_elf_2arch.o\n");
    let out = scratch.path("x");
    std::fs::create_dir_all(&out).unwrap();
    run(Command::new(&ar).arg("x").arg(&path).current_dir(&out));
    let Some(listed) = bundler_list(&scratch, "member.bc", &std::fs::read(out.join("bundle_bin.bc")).unwrap(), "bc")
    else {
        return;
    };
    assert!(listed.iter().any(|l| l == "hipv4-amdgcn-amd-amdhsa--gfx1031"), "{listed:?}");
    let object = std::fs::read(out.join("hip_elf_2arch.o")).unwrap();
    let fatbin = scratch.write("member.hipfb", section(&object, ".hip_fatbin"));
    let bundler = tool("clang-offload-bundler", "archive").unwrap();
    let unbundled = scratch.path("gfx90a.co");
    run(Command::new(bundler)
        .args(["--unbundle", "--type=o", "--targets=hipv4-amdgcn-amd-amdhsa--gfx90a"])
        .arg(format!("--input={}", fatbin.display()))
        .arg(format!("--output={}", unbundled.display())));
    assert_eq!(std::fs::read(unbundled).unwrap(), image);
}

#[test]
fn the_entries_of_a_bundled_object_are_not_rewritten_in_place_and_the_message_says_how() {
    let input = fixture("hip_rdc_archive.a");
    let tree = tree_of(&input);
    let node = find(&tree, &|n: &Node| n.kind == NodeKind::BundleEntry && n.label.contains("gfx90a"));
    match apply(&input, &tree, &Edit::SetEntryId { node, id: "hip-amdgcn-amd-amdhsa--gfx908".into() }) {
        Err(EditError::Invalid(m)) => assert!(m.contains("offload bundle --type=o"), "{m}"),
        other => panic!("{:?}", other.map(|e| e.notes)),
    }
}

#[test]
fn an_image_replaced_in_a_hip_object_is_what_the_bundler_unbundles() {
    let scratch = Scratch::new(SUITE, "replace-image");
    let input = fixture("hip_elf_2arch_compressed.o");
    let tree = tree_of(&input);
    let image = find(&tree, &|n: &Node| n.kind == NodeKind::Image && n.label.contains("gfx906"));
    let new = XorShift(5).bytes(3000);
    let edited = apply_ok(&input, &Edit::ReplaceContent { node: image, data: new.clone() });
    let Some(bundler) = tool("clang-offload-bundler", "replace-image") else {
        return;
    };
    let fatbin = scratch.write("fatbin.hipfb", section(&edited.bytes, ".hip_fatbin"));
    let out = scratch.path("gfx906.co");
    run(Command::new(bundler)
        .args(["--unbundle", "--type=o", "--targets=hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"])
        .arg(format!("--input={}", fatbin.display()))
        .arg(format!("--output={}", out.display())));
    assert_eq!(std::fs::read(out).unwrap(), new);
}

#[test]
fn edits_to_nodes_that_do_not_exist_or_cannot_change_are_refused() {
    let input = fixture("hip_elf_2arch.o");
    let tree = tree_of(&input);
    let bad = |e: Edit| match apply(&input, &tree, &e) {
        Err(EditError::Invalid(m)) => m,
        other => panic!("{e:?} gave {:?}", other.map(|o| o.notes)),
    };
    assert!(bad(Edit::RemoveEntry { node: vec![9, 9, 9] }).contains("no node"));
    assert!(bad(Edit::SetEntryId { node: vec![], id: "host-x86_64-unknown-linux-gnu-".into() })
        .contains("expected a bundle-entry node"));
    assert!(bad(Edit::Decompress { node: vec![0] }).contains("only compressed bundles"));
    let entry = find(&tree, &labelled(NodeKind::BundleEntry, "gfx906"));
    assert!(bad(Edit::MoveEntry { node: entry, to: 7 }).contains("past the last"));
}

fn label_at(tree: &Tree, path: &[usize]) -> String {
    let node = tree.node_at(path).unwrap_or_else(|| panic!("no node at {path:?}"));
    node.label.clone()
}

/// The label of the node a view selects after `e`.
fn selected_after(data: &[u8], e: &Edit) -> String {
    let before = tree_of(data);
    let edited = apply_ok(data, e);
    let after = tree_of(&edited.bytes);
    label_at(&after, &edit::selection_after(e, &before, &after, &edited.mark))
}

/// After a move the selection is on the moved entry (so that "Move down" twice moves it two
/// places), after an add on the new entry, after a removal on the entry that took the removed
/// one's place, or on the container when none did.
#[test]
fn the_selection_follows_a_moved_or_added_entry_and_stays_in_place_after_a_removal() {
    // Offload entries of version 1 binaries move with their binary.
    let omp = fixture("omp_elf_2arch.o");
    let tree = tree_of(&omp);
    let gfx1030 = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx1030"));
    let moved = Edit::MoveEntry { node: gfx1030.clone(), to: 1 };
    assert!(selected_after(&omp, &moved).contains(" gfx1030 "));
    let section = find(&tree, &labelled(NodeKind::Section, ".llvm.offloading"));
    let added = Edit::AddEntry {
        container: section.clone(),
        entry: NewEntry {
            strings: vec![("triple".into(), "amdgcn-amd-amdhsa".into()), ("arch".into(), "gfx942".into())],
            image_kind: 1,
            offload_kind: 1,
            data: XorShift(5).bytes(300),
            ..NewEntry::default()
        },
    };
    assert!(selected_after(&omp, &added).contains(" gfx942 "));
    let removed = Edit::RemoveEntry { node: gfx1030 };
    assert!(selected_after(&omp, &removed).contains(" gfx90a:xnack+ "));
    let gfx90a = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx90a"));
    let last_removed = Edit::RemoveEntry { node: gfx90a };
    assert!(selected_after(&omp, &last_removed).starts_with("section .llvm.offloading"));

    // Bundle entries move among the entries of their bundle.
    let hip = fixture("bundle_bin.bc");
    let tree = tree_of(&hip);
    let first = find(&tree, &|n: &Node| n.kind == NodeKind::BundleEntry);
    let first_label = label_at(&tree, &first);
    let moved = Edit::MoveEntry { node: first.clone(), to: 2 };
    assert_eq!(selected_after(&hip, &moved), first_label);
    let bundle = find(&tree, &|n: &Node| n.kind == NodeKind::Bundle);
    let added = Edit::AddEntry {
        container: bundle,
        entry: NewEntry {
            id: "hipv4-amdgcn-amd-amdhsa--gfx1100".into(),
            data: XorShift(6).bytes(100),
            ..NewEntry::default()
        },
    };
    assert!(selected_after(&hip, &added).starts_with("hipv4-amdgcn-amd-amdhsa--gfx1100"));
    // An edit that keeps its node keeps the selection on it.
    let renamed = Edit::SetEntryId { node: first, id: "hipv4-amdgcn-amd-amdhsa--gfx908".into() };
    assert!(selected_after(&hip, &renamed).starts_with("hipv4-amdgcn-amd-amdhsa--gfx908"));
}

/// An image kind that does not fit the image (bitcode on an AMDGPU code object) is a warning on
/// the entry, which the page lists with the edit's result; a fitting kind has none.
#[test]
fn an_image_kind_that_does_not_fit_the_image_is_a_warning() {
    let input = fixture("offbin_two_images.offbin");
    let tree = tree_of(&input);
    let entry = find(&tree, &labelled(NodeKind::OffloadEntry, "gfx906"));
    let mismatch =
        |t: &Tree| all_diagnostics(t).into_iter().filter(|d| d.contains("does not fit the image")).collect::<Vec<_>>();
    assert_eq!(mismatch(&tree), Vec::<String>::new());
    let kind = |k: u16| {
        let edited = apply_ok(&input, &Edit::SetImageKind { node: entry.clone(), kind: k });
        mismatch(&tree_of(&edited.bytes))
    };
    assert_eq!(
        kind(2),
        ["offload entry hip amdgcn-amd-amdhsa gfx906 (bitcode, 4.6 KiB): image kind bitcode (2) does not fit the image, which is AMDGPU code object: LLVM's tools go by the kind"]
    );
    assert_eq!(kind(5).len(), 1, "PTX on a code object");
    assert_eq!(kind(3), Vec::<String>::new(), "cubin is an ELF kind too");
    assert_eq!(kind(0), Vec::<String>::new(), "kind 0 says nothing");
}

/// A version 2 binary (LLVM main's layout, several entries in one binary) written as version 1
/// binaries: byte for byte what LLVM 22's `llvm-offload-binary` wrote for the same entries, and
/// read by LLVM 22's `llvm-objdump --offloading` image by image.
#[test]
fn a_version_2_offload_binary_is_written_as_version_1_binaries_llvm_22_reads() {
    let v1 = fixture("offbin_concat2.offbin");
    let tree = tree_of(&v1);
    let walk = offload::format::offload_binary::walk(&v1);
    let entries: Vec<_> = walk.binaries().flat_map(|(_, b)| b.entries.clone()).collect();
    assert_eq!(entries.len(), 2);
    let v2 = offload::format::offload_binary::write_v2(&entries).unwrap();
    let v2_tree = tree_of(&v2);
    let node = find(&v2_tree, &|n| n.kind == NodeKind::OffloadBinary);
    let edited = apply_ok(&v2, &Edit::OffloadBinaryToV1 { node });
    assert_eq!(edited.bytes, v1, "the bytes llvm-offload-binary wrote");
    assert!(edited.notes[0].starts_with("offload binary version 2 with 2 entries written as 2 version 1 binaries"));
    let scratch = Scratch::new("edit", "to_v1");
    if let Some(images) = objdump_images(&scratch, "v1.offbin", &edited.bytes) {
        assert_eq!(images.len(), 2, "{images:?}");
        assert_eq!(images, objdump_images(&scratch, "orig.offbin", &v1).unwrap());
    }
    // A version 1 binary is left alone, with the reason.
    let node = find(&tree, &|n| n.kind == NodeKind::OffloadBinary);
    let refused = apply(&v1, &tree, &Edit::OffloadBinaryToV1 { node }).unwrap_err();
    assert_eq!(refused.to_string(), "the offload binary is version 1 already");
}
