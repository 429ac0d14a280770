//! NVIDIA fatbins in the core: every container of every fixture written back byte-identical;
//! the explorer's tree (containers, entries, wrappers, places); and every edit of a fatbin
//! entry read back by cuobjdump 13.5 (skipped, saying so, when it is not installed).

mod common;
use common::{nvidia, XorShift};

#[path = "fuzz_checks/mod.rs"]
mod fuzz_checks;

use offload::edit::{self, Edit};
use offload::explore::{explore, Options};
use offload::format::nv_fatbin::{self, Piece};
use offload::format::{host, offload_binary};
use offload::report::targets;
use offload::tree::{Node, NodeKind, Tree};
use std::path::{Path, PathBuf};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(nvidia::fixture_dir().join(name)).unwrap()
}

fn verified(data: &[u8], name: &str) -> Tree {
    explore(data, name, &Options { verify_all: true, ..Options::default() })
}

/// Paths of the nodes of `kind`, in tree order.
fn paths_of(tree: &Tree, kind: NodeKind) -> Vec<Vec<usize>> {
    fn go(n: &Node, path: &mut Vec<usize>, kind: NodeKind, out: &mut Vec<Vec<usize>>) {
        if n.kind == kind {
            out.push(path.clone());
        }
        for (i, c) in n.children.iter().enumerate() {
            path.push(i);
            go(c, path, kind, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    go(&tree.root, &mut Vec::new(), kind, &mut out);
    out
}

/// The fatbin bytes of a fixture: the file, or its fatbin sections one after another.
fn fatbin_bytes(data: &[u8]) -> Vec<u8> {
    if nv_fatbin::is_fatbin(data) {
        return data.to_vec();
    }
    let h = host::read_host(data).unwrap();
    h.sections.iter().filter(|s| s.role == host::SectionRole::NvFatbin).flat_map(|s| s.data.to_vec()).collect()
}

#[test]
fn unedited_containers_write_back_byte_identical() {
    let mut containers = 0;
    for path in nvidia::fixtures() {
        let data = std::fs::read(&path).unwrap();
        let fatbin = fatbin_bytes(&data);
        for found in nv_fatbin::walk(&fatbin) {
            match found.piece {
                Piece::Container(c, _) => {
                    assert_eq!(c.write().unwrap(), found.bytes, "{}", path.display());
                    containers += 1;
                }
                Piece::Padding => {}
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
    assert!(containers >= 11, "{containers} containers");
}

#[test]
fn every_place_a_fatbin_lives_is_explored() {
    for path in nvidia::fixtures() {
        let data = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let tree = verified(&data, &name);
        assert!(tree.errors().is_empty(), "{name}: {:?}", tree.errors());
        let entries = paths_of(&tree, NodeKind::FatbinEntry);
        assert!(!entries.is_empty(), "{name} has fatbin entries");
        // Every target's image is the bytes its span says, and starts as a cubin or PTX does.
        for t in targets::collect(&tree) {
            let bytes = tree.bytes(&data, t.span).unwrap();
            assert_eq!(bytes.len() as u64, t.image_size, "{name} {}", t.target_id);
            assert!(bytes.starts_with(b"\x7fELF") || t.target_id.ends_with("PTX"), "{name} {}", t.target_id);
            assert!(t.file_name.is_some());
        }
        // Objects and libraries carry the wrapper in .nvFatBinSegment; a linked one points at its fatbin.
        if !nv_fatbin::is_fatbin(&data) {
            let wrappers = paths_of(&tree, NodeKind::FatbinWrapper);
            assert!(!wrappers.is_empty(), "{name}: wrapper");
            let w = tree.node_at(&wrappers[0]).unwrap();
            assert_eq!(w.text("magic"), Some("0x466243b1"));
            if name.ends_with(".so") {
                assert!(w.text("points_to").is_some_and(|p| p.contains(".nv_fatbin")), "{name}: {w:?}");
            }
        }
    }
}

#[test]
fn a_fatbin_inside_an_offload_binary_is_explored() {
    let fatbin = read("nv_3arch_size.fatbin");
    let mut entry =
        offload_binary::OffloadEntry::new(offload_binary::ImageKind::FATBINARY, offload_binary::OffloadKind(2), fatbin);
    entry.strings.push(("triple".into(), "nvptx64-nvidia-cuda".into()));
    entry.strings.push(("arch".into(), "sm_80".into()));
    let packed = offload_binary::OffloadBinary::v1(entry).write_canonical().unwrap();
    let tree = verified(&packed, "fatbin.offbin");
    assert!(tree.errors().is_empty(), "{:?}", tree.errors());
    let cubins = targets::collect(&tree).into_iter().filter(|t| t.target_id.ends_with("cubin")).count();
    assert_eq!(cubins, 3);
}

/// cuobjdump's listing of a file written by an edit, or `None` when it gave no answer.
fn cuobjdump_list(cuobjdump: &Path, data: &[u8], name: &str) -> Option<Vec<nvidia::Listed>> {
    let dir = std::env::temp_dir().join(format!("offload-nv-edit-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, data).unwrap();
    let a = nvidia::run(cuobjdump, &["--list-elf", "--list-ptx", file.to_str().unwrap()], &dir);
    let _ = std::fs::remove_dir_all(&dir);
    if a.crashed(name) {
        return None;
    }
    assert!(a.ok, "cuobjdump refused the edited {name}: {}", a.stderr);
    Some(nvidia::parse_list(&a.stdout))
}

fn images(tree: &Tree, data: &[u8]) -> Vec<(String, Vec<u8>)> {
    targets::collect(tree).iter().map(|t| (t.target_id.clone(), tree.bytes(data, t.span).unwrap().to_vec())).collect()
}

#[test]
fn edits_of_fatbin_entries_read_back_in_cuobjdump() {
    let cuobjdump = nvidia::cuobjdump("fatbin edits against cuobjdump");
    for name in [
        "nv_3arch_size.fatbin",
        "nv_3arch_lz4_all.fatbin",
        "nv_3arch_none.fatbin",
        "nv_rdc.o",
        "nv_elf.o",
        "libnv_2arch.so",
    ] {
        let data = read(name);
        let tree = verified(&data, name);
        let before = images(&tree, &data);
        let entries = paths_of(&tree, NodeKind::FatbinEntry);
        for (i, path) in entries.iter().enumerate() {
            let node = tree.node_at(path).unwrap();
            let compressed = node.text("compressed") != Some("none");
            let mut edits = vec![Edit::RemoveEntry { node: path.clone() }];
            edits.push(if compressed {
                Edit::Decompress { node: path.clone() }
            } else {
                Edit::Compress { node: path.clone(), method: offload::codec::Method::Zstd, level: None, version: 3 }
            });
            for e in edits {
                let edited = match edit::apply(&data, &tree, &e) {
                    Ok(edited) => edited,
                    // A decompressed entry may not fit in a linked library's section: refused
                    // with the new fatbin alone.
                    Err(edit::EditError::DoesNotFit { .. }) if name.ends_with(".so") => continue,
                    Err(err) => panic!("{name} {e:?}: {err}"),
                };
                if name.ends_with(".so") {
                    assert_eq!(edited.bytes.len(), data.len(), "{name}: a linked library keeps its size");
                }
                let after = verified(&edited.bytes, name);
                assert!(after.errors().is_empty(), "{name} {e:?}: {:?}", after.errors());
                let now = images(&after, &edited.bytes);
                let mut expected = before.clone();
                if matches!(e, Edit::RemoveEntry { .. }) {
                    expected.remove(i);
                }
                assert_eq!(now, expected, "{name} {e:?}: the other images are unchanged");
                if let Some(tool) = &cuobjdump {
                    let Some(listed) = cuobjdump_list(tool, &edited.bytes, name) else { continue };
                    assert_eq!(listed.len(), expected.len(), "{name} {e:?}: cuobjdump lists every image");
                }
            }
        }
    }
}

#[test]
fn a_replaced_image_is_stored_like_the_one_before() {
    let data = read("nv_3arch_lz4_all.fatbin");
    let tree = verified(&data, "x.fatbin");
    let donor = read("nv_3arch_none.fatbin");
    let donor_tree = verified(&donor, "d.fatbin");
    let new_cubin = images(&donor_tree, &donor).into_iter().find(|(t, _)| t == "sm_80 cubin").unwrap().1;
    // The sm_75 entry gets the sm_80 cubin: still LZ4-compressed, and the image reads back.
    let entry = paths_of(&tree, NodeKind::FatbinEntry)[0].clone();
    let edited =
        edit::apply(&data, &tree, &Edit::ReplaceContent { node: entry.clone(), data: new_cubin.clone() }).unwrap();
    let after = verified(&edited.bytes, "x.fatbin");
    let node = after.node_at(&entry).unwrap();
    assert_eq!(node.text("compressed"), Some("lz4"));
    assert_eq!(images(&after, &edited.bytes)[0].1, new_cubin);
}

#[test]
fn concatenated_images_are_edited_as_a_whole() {
    let data = read("nv_concat.fatbin");
    let tree = verified(&data, "c.fatbin");
    let inner: Vec<_> = paths_of(&tree, NodeKind::FatbinEntry)
        .into_iter()
        .filter(|p| tree.node_at(p).unwrap().get("in_concat").is_some())
        .collect();
    assert_eq!(inner.len(), 2);
    let refused = edit::apply(&data, &tree, &Edit::RemoveEntry { node: inner[0].clone() }).unwrap_err();
    assert!(refused.to_string().contains("concatenated"), "{refused}");
    let whole = inner[0][..inner[0].len() - 1].to_vec();
    let edited = edit::apply(&data, &tree, &Edit::Decompress { node: whole }).unwrap();
    let after = verified(&edited.bytes, "c.fatbin");
    assert_eq!(images(&after, &edited.bytes), images(&tree, &data));
}

/// In a linked library the containers after an edited one keep their addresses (the CUDA
/// runtime finds them through the wrappers), so a shrunk container leaves zeros before the
/// next: cuobjdump must still list everything else.
#[test]
fn an_entry_removed_from_a_real_library_leaves_the_rest_readable() {
    let Some(cuobjdump) = nvidia::cuobjdump("an edited real library against cuobjdump") else { return };
    let Some(lib) = nvidia::real_library(&nvidia::REAL_LIBRARIES[1]) else { return };
    let data = std::fs::read(&lib).unwrap();
    let tree = explore(&data[..], "libnvjpeg.so.13", &Options::default());
    let before = targets::collect(&tree).len();
    let first = paths_of(&tree, NodeKind::FatbinEntry)[0].clone();
    let edited = edit::apply(&data, &tree, &Edit::RemoveEntry { node: first }).unwrap();
    assert_eq!(edited.bytes.len(), data.len());
    let after = explore(&edited.bytes[..], "libnvjpeg.so.13", &Options::default());
    assert!(after.errors().is_empty(), "{:?}", after.errors());
    assert_eq!(targets::collect(&after).len(), before - 1);
    if let Some(listed) = cuobjdump_list(&cuobjdump, &edited.bytes, "libnvjpeg.so.13") {
        assert_eq!(listed.len(), before - 1, "cuobjdump lists every other image");
    }
}

#[test]
fn unknown_flags_and_fields_are_shown_raw_and_kept() {
    let mut data = read("nv_3arch_none.fatbin");
    data[16 + 40 + 3] |= 0x40; // flag bit 30
    data[16 + 48] = 7; // the unknown u64 at entry byte 48
    let tree = verified(&data, "x.fatbin");
    let entry = tree.node_at(&paths_of(&tree, NodeKind::FatbinEntry)[0]).unwrap().clone();
    assert_eq!(entry.get("unknown_flags"), Some(&offload::tree::Value::Uint(0x4000_0000)));
    assert_eq!(entry.get("unknown_48"), Some(&offload::tree::Value::Uint(7)));
    assert!(entry.diagnostics.iter().any(|d| d.message.contains("0x40000000")));
    let (c, _) = nv_fatbin::Container::parse(&data).unwrap();
    assert_eq!(c.write().unwrap(), data);
}

/// A stand-in for fuzzing where nightly Rust is not at hand: seeded random damage to the
/// fixtures (bytes set, runs of bytes copied from elsewhere, cuts), each mutant through the
/// `nv_fatbin` and `explore` fuzz properties. The seed is printed; `OFFLOAD_NV_MUTANTS` sets how many.
#[test]
fn random_damage_holds_the_fuzz_properties() {
    let seed = common::seed("OFFLOAD_NV_SEED", common::clock_seed());
    let count: usize = std::env::var("OFFLOAD_NV_MUTANTS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    println!("seed {seed} (replay with OFFLOAD_NV_SEED={seed}), {count} mutants");
    let mut rng = XorShift(seed);
    let mut next = move || rng.next_u32() as usize;
    let sources: Vec<Vec<u8>> =
        ["nv_3arch_size.fatbin", "nv_3arch_lz4_all.fatbin", "nv_concat.fatbin", "nv_debug.fatbin"]
            .iter()
            .map(|n| read(n))
            .collect();
    for i in 0..count {
        let mut data = sources[i % sources.len()].clone();
        // Most damage goes into the headers, where the sizes are.
        let header_bias = |r: usize, len: usize| if r % 3 == 0 { r % len } else { r % 200.min(len) };
        for _ in 0..1 + next() % 4 {
            let at = header_bias(next(), data.len());
            match next() % 3 {
                0 => data[at] = next() as u8,
                1 => {
                    let from = next() % data.len();
                    let n = (next() % 8).min(data.len() - at).min(data.len() - from);
                    let run = data[from..from + n].to_vec();
                    data[at..at + n].copy_from_slice(&run);
                }
                _ => data.truncate(at.max(1)),
            }
        }
        for target in ["nv_fatbin", "explore"] {
            let outcome = std::panic::catch_unwind(|| fuzz_checks::run(target, &data));
            assert!(outcome.is_ok(), "seed {seed}, mutant {i}: property of `{target}` broken");
        }
    }
}

/// Places nvcc on Linux cannot make: a COFF object's `.nv_fatbin` (a long name) and a Mach-O
/// object's `__NV_CUDA,__nv_fatbin`, added by llvm-objcopy 22 to objects clang-22 made.
#[test]
fn fatbins_in_coff_and_macho_objects_are_explored() {
    let llvm_bin = std::env::var("LLVM_BIN").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into());
    let objcopy = Path::new(&llvm_bin).join("llvm-objcopy");
    if !objcopy.exists() {
        println!("skipping COFF and Mach-O fatbin sections: {} is missing", objcopy.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("offload-nv-hosts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fatbin = nvidia::fixture_dir().join("nv_3arch_size.fatbin");
    let expected = images(&verified(&read("nv_3arch_size.fatbin"), "f"), &read("nv_3arch_size.fatbin"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (host, section) in
        [("hip_coff_2arch.obj", ".nv_fatbin"), ("macho_objcopy_offloading.o", "__NV_CUDA,__nv_fatbin")]
    {
        let out = dir.join(host);
        let status = std::process::Command::new(&objcopy)
            .arg(format!("--add-section={section}={}", fatbin.display()))
            .arg(fixtures.join(host))
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "llvm-objcopy --add-section {section} {host}");
        let data = std::fs::read(&out).unwrap();
        let tree = verified(&data, host);
        let found: Vec<(String, Vec<u8>)> =
            images(&tree, &data).into_iter().filter(|(t, _)| t.ends_with("cubin") || t.ends_with("PTX")).collect();
        assert_eq!(found, expected, "{host}: the fatbin's images in {section}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
