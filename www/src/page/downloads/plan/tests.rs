//! Download names on the real fixtures. (That every fixture's images are named as extract names
//! them, and that every offer reads back with the worker's rule: `www/tests/downloads.rs`.)

use super::*;
use crate::wire::doc::explore_bytes;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn node_named(doc: &Doc, label_start: &str) -> NodeId {
    doc.nodes.iter().position(|n| n.label.starts_with(label_start)).unwrap_or_else(|| panic!("no node {label_start}"))
}

#[test]
fn shared_library_images_are_named_as_offload_extract_names_them() {
    let data = fixture("libhip_3tu_compressed.so");
    let doc = explore_bytes(&data, "libhip_3tu_compressed.so");
    let plan = Plan::of(&doc);
    let names: Vec<&str> = plan.images().map(|o| o.name.as_str()).collect();
    let p = "libhip_3tu_compressed.so.hipv4-amdgcn-amd-amdhsa--";
    assert_eq!(
        names,
        [
            format!("{p}gfx906_xnack-.co"),
            format!("{p}gfx90a.co"),
            format!("{p}gfx906_xnack-.1.co"),
            format!("{p}gfx90a.1.co"),
            format!("{p}gfx906_xnack-.2.co"),
            format!("{p}gfx90a.2.co"),
        ]
    );
    let entry = doc.targets[1].node.unwrap();
    let offer = plan.for_node(&doc, entry).unwrap();
    assert_eq!(offer.name, format!("{p}gfx90a.co"));
    assert_eq!(offer.what, "AMDGPU code object for hipv4-amdgcn-amd-amdhsa--gfx90a");
    // The code object node below the entry downloads the same bytes under the same name.
    let code_object = doc.nodes[entry].children[0];
    assert_eq!(plan.for_node(&doc, code_object).unwrap(), offer);

    let name_of = |label: &str| plan.for_node(&doc, node_named(&doc, label)).map(|o| o.name.clone());
    assert_eq!(name_of("libhip_3tu_compressed.so (").unwrap(), "libhip_3tu_compressed.so");
    assert_eq!(name_of("section .hip_fatbin").unwrap(), "libhip_3tu_compressed.so.hip_fatbin.bin");
    assert_eq!(name_of("compressed bundle v3").unwrap(), "libhip_3tu_compressed.so.compressed-bundle-1.hipfb");
    assert_eq!(name_of("zstd payload").unwrap(), "libhip_3tu_compressed.so.compressed-payload-1.zst");
    assert_eq!(name_of("decompressed bundle").unwrap(), "libhip_3tu_compressed.so.decompressed-1.hipfb");
    // The bundle spans its whole decompressed space: the same download as the space.
    assert_eq!(name_of("clang offload bundle").unwrap(), "libhip_3tu_compressed.so.decompressed-1.hipfb");
    assert_eq!(name_of("zero padding").unwrap(), "libhip_3tu_compressed.so.padding-1.bin");
    // The empty host entry has nothing to download.
    assert_eq!(name_of("host-x86_64-unknown-linux-gnu-"), Err(EMPTY));
}

#[test]
fn fatbin_images_are_named_as_cuobjdump_names_them() {
    let data = fixture("nvidia/nv_3arch_size.fatbin");
    let doc = explore_bytes(&data, "nv_3arch_size.fatbin");
    let plan = Plan::of(&doc);
    let names: Vec<&str> = plan.images().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "nv_3arch_size.1.sm_75.cubin",
            "nv_3arch_size.2.sm_80.cubin",
            "nv_3arch_size.1.sm_80.ptx",
            "nv_3arch_size.3.sm_90a.cubin"
        ]
    );
    // Selecting the entry offers its decompressed image.
    let entry = doc.targets[0].node.unwrap();
    let offer = plan.for_node(&doc, entry).unwrap();
    assert_eq!((offer.name.as_str(), offer.what.as_str()), ("nv_3arch_size.1.sm_75.cubin", "sm_75 cubin"));
}

#[test]
fn offload_binaries_and_archive_members_are_named_by_what_they_hold() {
    let data = fixture("omp_elf_2arch.o");
    let doc = explore_bytes(&data, "omp_elf_2arch.o");
    let plan = Plan::of(&doc);
    let names: Vec<&str> = plan.images().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        ["omp_elf_2arch.o.amdgcn-amd-amdhsa-gfx1030.bc", "omp_elf_2arch.o.amdgcn-amd-amdhsa-gfx90a_xnack+.bc"]
    );
    let binary = node_named(&doc, "offload binary v1");
    assert_eq!(plan.for_node(&doc, binary).unwrap().name, "omp_elf_2arch.o.amdgcn-amd-amdhsa-gfx1030.offbin");
    // The offload entry downloads its image, not its 40-byte header.
    let entry = node_named(&doc, "offload entry openmp amdgcn-amd-amdhsa gfx1030");
    assert_eq!(plan.for_node(&doc, entry).unwrap().span, doc.targets[0].target.span);

    let data = fixture("hip_rdc_archive.a");
    let doc = explore_bytes(&data, "hip_rdc_archive.a");
    let plan = Plan::of(&doc);
    assert_eq!(plan.for_node(&doc, node_named(&doc, "member rdc_a.o")).unwrap().name, "rdc_a.o");
    assert_eq!(plan.images().next().unwrap().name, "hip_rdc_archive.a.rdc_a.o.hip-amdgcn-amd-amdhsa--gfx906_xnack-.bc");
    assert_eq!(
        plan.for_node(&doc, node_named(&doc, "symbol table")).unwrap().name,
        "hip_rdc_archive.a.symbol-table.bin"
    );
}

#[test]
fn device_archives_are_offered_for_the_archive_targets() {
    let data = fixture("hip_rdc_archive.a");
    let doc = explore_bytes(&data, "hip_rdc_archive.a");
    let targets = device_archive_targets(&doc);
    assert_eq!(targets, ["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a"]);
    assert_eq!(device_archive_name("hip_rdc_archive.a", &targets[0]), "hip_rdc_archive-gfx906_xnack-.a");
    assert_eq!(device_archive_name("hip_rdc_archive.a", &targets[1]), "hip_rdc_archive-gfx90a.a");
    assert_eq!(device_archive_name("lib", "openmp-x86_64-pc-linux-gnu"), "lib-openmp-x86_64-pc-linux-gnu.a");

    // Not an archive: nothing offered.
    let doc = explore_bytes(&fixture("omp_elf_2arch.o"), "omp_elf_2arch.o");
    assert!(device_archive_targets(&doc).is_empty());
}

#[test]
fn whole_file_and_tar_names() {
    assert_eq!(file_download_name("libhip_3tu_compressed.so"), "libhip_3tu_compressed.so");
    assert_eq!(images_tar_name("omp_elf_2arch.o"), "omp_elf_2arch.o.images.tar");
    assert_eq!(file_download_name("../x"), ".._x");
    assert_eq!(file_download_name(".."), "file");
}
