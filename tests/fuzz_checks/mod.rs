//! The properties every fuzz target checks, shared by `fuzz/` (libFuzzer, nightly) and
//! `tests/fuzz_replay.rs` (stable), which replays the fixtures and every input a fuzzer ever
//! found. Each function takes arbitrary bytes and panics only when a property breaks:
//!
//! - no reader panics, hangs or allocates without bound (the fuzzer's own limits catch the last
//!   two);
//! - an input that reads without error writes back byte-identical, or the writer refuses it;
//!   never different bytes (no lost data);
//! - what the writers produce from a model reads back as the same model.
#![allow(dead_code)]

use offload::explore::{explore, Options};
use offload::format::archive::ar as archive;
use offload::format::bundle::{binary as bundle, compressed, text as text_bundle};
use offload::format::{host, kpack as kp, nv_fatbin as nv, offload_binary};
use offload::ids::{self, EntryId, TargetId};

/// Decompression limit while fuzzing: large enough for real fixtures, small enough to be fast.
const LIMIT: u64 = 16 << 20;

/// The names of the targets, as in `fuzz/fuzz_targets/<name>.rs` and
/// `tests/fuzz_regressions/<name>/`.
pub const TARGETS: &[&str] = &[
    "offload_binary",
    "bundle",
    "text_bundle",
    "compressed",
    "ids",
    "archive",
    "host",
    "explore",
    "msgpack",
    "amdgpu",
    "cubin",
    "spirv",
    "bitcode",
    "ptx",
    "nv_fatbin",
    "package",
    "kpack",
    "disasm",
];

pub fn run(target: &str, data: &[u8]) {
    match target {
        "offload_binary" => offload_binary(data),
        "bundle" => bundle(data),
        "text_bundle" => text_bundle(data),
        "compressed" => compressed(data),
        "ids" => ids(data),
        "archive" => archive(data),
        "host" => host(data),
        "explore" => explore_all(data),
        "nv_fatbin" => nv_fatbin(data),
        "package" => package(data),
        "kpack" => kpack(data),
        "msgpack" => images::msgpack(data),
        "amdgpu" => images::elf_image(data, 224),
        "cubin" => images::elf_image(data, 190),
        "spirv" => images::with_magic(data, &[0x03, 0x02, 0x23, 0x07]),
        "bitcode" => images::with_magic(data, b"BC\xC0\xDE"),
        "ptx" => images::with_magic(data, b".version 8.0\n.target sm_80\n"),
        "disasm" => disasm::check(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

pub fn offload_binary(data: &[u8]) {
    for found in offload_binary::walk(data) {
        let Ok(binary) = found.binary else { continue };
        let written = binary.write().expect("an unedited binary writes back");
        assert_eq!(written, found.bytes[..written.len()], "unedited binary wrote different bytes");
        let Ok(canonical) = binary.write_canonical() else { continue };
        let again = offload_binary::parse(&canonical).expect("a binary we laid out reads back");
        assert_eq!(again.version, binary.version);
        let mut expected = binary.entries.clone();
        for e in &mut expected {
            e.strings = merged_keys(&e.strings);
        }
        assert_eq!(again.entries, expected, "entries changed through a canonical write");
    }
}

/// A string map as LLVM writes it: a repeated key keeps its first place and its last value
/// (strings that were not UTF-8 may repeat once decoded).
fn merged_keys(strings: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in strings {
        match out.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => slot.1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    out
}

pub fn bundle(data: &[u8]) {
    let Ok(b) = bundle::Bundle::parse(data) else { return };
    if let Ok(written) = b.write() {
        assert_eq!(written, data, "unedited bundle wrote different bytes");
    }
    let ids: Vec<(String, std::borrow::Cow<[u8]>)> = b.entries.iter().map(|e| (e.id.clone(), e.data.clone())).collect();
    let Ok(fresh) = bundle::Bundle::new(ids, 1) else { return };
    let bytes = fresh.write().expect("a bundle laid out from scratch writes");
    let back = bundle::Bundle::parse(&bytes).expect("a bundle we wrote reads back");
    assert_eq!(back.entries.len(), b.entries.len());
    for (x, y) in back.entries.iter().zip(&b.entries) {
        assert_eq!((&x.id, &x.data), (&y.id, &y.data));
    }
}

pub fn text_bundle(data: &[u8]) {
    for comment in ["//", "#", ";"] {
        if let Ok((b, _)) = text_bundle::TextBundle::parse(data, comment) {
            assert_eq!(b.write(), data, "unedited text bundle wrote different bytes");
        }
    }
}

pub fn compressed(data: &[u8]) {
    for found in compressed::walk(data) {
        let compressed::Piece::Bundle(cb) = &found.piece else { continue };
        let written = cb.to_bytes().expect("an unedited compressed bundle writes back");
        let start = found.offset as usize;
        assert_eq!(written, data[start..start + written.len()], "unedited compressed bundle wrote different bytes");
        if let Ok(plain) = cb.decompress(LIMIT) {
            let again = compressed::compress(&plain, cb.header.method, None, cb.header.version);
            if let Ok(again) = again {
                let back =
                    compressed::CompressedBundle::parse(&again).expect("a compressed bundle we wrote reads back");
                assert_eq!(back.decompress(LIMIT).expect("and decompresses"), plain);
            }
        }
    }
}

/// NVIDIA fatbins: an unedited container writes back byte-identical; an entry's data, stored
/// again plainly, with LZ4 or with zstd, reads back as the same data; `decompress_all` gives
/// containers that read back with nothing compressed.
pub fn nv_fatbin(data: &[u8]) {
    for found in nv::walk(data) {
        let nv::Piece::Container(c, _) = &found.piece else { continue };
        assert_eq!(
            c.write().expect("an unedited container writes back"),
            found.bytes,
            "unedited container wrote different bytes"
        );
        for e in c.entries.iter().take(4) {
            let Ok(plain) = nv::payload::entry_data(e, LIMIT) else { continue };
            for method in [nv::Compression::None, nv::Compression::Lz4, nv::Compression::Zstd] {
                let Ok(new) = e.with_data(&plain, method) else { continue };
                let mut bytes = Vec::new();
                new.write(&mut bytes).expect("a rewritten entry writes");
                let back = nv::Entry::parse(&bytes).expect("a rewritten entry reads back");
                let again = nv::payload::entry_data(&back, LIMIT).expect("and decompresses");
                assert_eq!(&again[..plain.len()], &plain[..], "an entry stored again holds other data");
            }
        }
    }
    if let Ok(plain) = nv::decompress_all(data, LIMIT) {
        for found in nv::walk(&plain) {
            if let nv::Piece::Container(c, _) = found.piece {
                assert!(
                    c.entries.iter().all(|e| e.compression() == nv::Compression::None),
                    "decompress_all left an entry compressed"
                );
            }
        }
    }
}

pub fn ids(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (left, right) = text.split_once('\n').unwrap_or((text, text));
    if let Ok(id) = TargetId::parse(left) {
        let canonical = id.canonical();
        let again = TargetId::parse(&canonical).expect("a canonical target ID reads back");
        assert_eq!(again.canonical(), canonical, "canonical form is not stable");
        assert!(again.is_compatible_with(&id) || !id.is_canonical() || again == id);
    }
    let (Ok(a), Ok(b)) = (EntryId::parse(left), EntryId::parse(right)) else { return };
    let standard = a.standardized();
    let _ = EntryId::parse(&standard).expect("a standardized entry ID reads back");
    let _ = ids::compatible_with(&a, &b, true);
    let _ = ids::check_composition(&[left, right]);
    let _ = ids::find_entry(&[left, right], &b, false);
}

pub fn archive(data: &[u8]) {
    let Ok(ar) = archive::read(data) else { return };
    if ar.thin {
        return;
    }
    let mut members = Vec::new();
    for m in &ar.members {
        let bytes = m.data(data).expect("a member the reader listed has its bytes in the input");
        members.push(archive::NewMember { name: m.name.clone(), data: bytes });
    }
    // Whatever we can write must read back as the same names and bytes.
    let Ok(written) = archive::write_gnu(&members) else { return };
    let back =
        archive::read(&written[..]).and_then(archive::Archive::complete).expect("an archive we wrote reads back");
    assert_eq!(back.members.len(), members.len());
    for (m, want) in back.members.iter().zip(&members) {
        assert_eq!(m.name, want.name);
        assert_eq!(m.data(&written[..]).unwrap(), want.data);
    }
}

/// Every package reader on the input: members and problems lie within the input, every member
/// a reader lists reads back in place, and exploring it as a package keeps every span in its
/// byte space (decompression held to the fuzzing limit).
pub fn package(data: &[u8]) {
    use offload::format::package::{cpio, deb, rpm, tar, zip, Compression};
    let len = data.len() as u64;
    for listing in [zip::read(data), tar::read(data), cpio::read(data), deb::read(data), rpm::read(data)] {
        let Ok(listing) = listing else { continue };
        for m in listing.members.iter().filter(|m| m.is_explorable()) {
            assert!(m.data_end() <= len, "member `{}` runs past the input", m.name);
            if m.compression == Compression::Stored {
                assert_eq!(m.stored_size, m.size, "stored member `{}` has two sizes", m.name);
            }
        }
    }
    let opts = Options { max_decompressed: LIMIT, max_package_decompressed: 4 * LIMIT, ..Options::default() };
    let tree = explore(data, "fuzz.whl", &opts);
    tree.root.walk(&mut |node, _| {
        let space = tree.spaces.get(node.span.space as usize).expect("a node in a byte space that exists");
        assert!(node.span.end() <= space.size, "node `{}` ends past its byte space", node.label);
    });
    let _ = offload::report::targets::collect(&tree);
    arriving(data);
}

/// A zip explored as it arrives (`explore::arriving`, as the CLI reads a host without ranges):
/// its local headers walked front to back, each lying within the input and each step going
/// forward; each member worth it explored from the bytes up to its data end alone; confirmed by
/// the listing and merged, the tree is the whole input's.
fn arriving(data: &[u8]) {
    use offload::explore::arriving::{confirmed, explore_early, in_order};
    use offload::explore::shares::{self, Share};
    use offload::explore::Hooks;
    use offload::format::package::zip::{self, LocalRead};
    let opts = Options {
        verify_all: true,
        max_threads: 1,
        max_decompressed: LIMIT,
        max_package_decompressed: 4 * LIMIT,
        ..Options::default()
    };
    let mut early = Vec::new();
    let mut at = 0u64;
    while let Some(rest) = data.get(at as usize..) {
        let Ok(LocalRead::Entry(entry)) = zip::local_entry(rest, at) else { break };
        assert!(entry.header.0 == at && entry.data_offset() <= data.len() as u64, "a local header past the input");
        let Some((end, (stored, _))) = entry.data_end().zip(entry.sizes) else { break };
        let descriptor = match (entry.has_descriptor(), data.get(end as usize..)) {
            (true, Some(after)) => zip::read_descriptor(after, stored).map_or(0, |(_, length)| length),
            _ => 0,
        };
        if let Some(upto) = data.get(..end as usize) {
            early.extend(explore_early(upto, &opts, entry, Hooks::default()));
        }
        let Some(next) = end.checked_add(descriptor).filter(|&n| n > at) else { break };
        at = next;
    }
    let Ok(listing) = zip::read(data) else { return };
    let whole = offload::tree::Span::new(0, 0, data.len() as u64);
    let Some(found) = confirmed(&listing, whole, &opts, early) else { return };
    let mut members = found.explored;
    for one in &found.rest {
        members.extend(shares::explore_share(data, &opts, &[], std::slice::from_ref(one), Hooks::default()).members);
    }
    let merged = shares::explore_merged(
        data,
        "fuzz.whl",
        &opts,
        &[],
        listing,
        vec![Share { base: 1, members: in_order(&opts, members) }],
        Hooks::default(),
    );
    assert!(merged == explore(data, "fuzz.whl", &opts), "explored as it arrives, the tree is another");
}

pub fn host(data: &[u8]) {
    if let Ok(file) = host::read_host(data) {
        for s in &file.sections {
            let end = s.file_offset as usize + s.data.len();
            assert!(end <= data.len(), "section {} runs past the input", s.name);
        }
    }
}

/// A kpack'd binary made by rocm-kpack, whose companion the input is made in [`kpack`].
static KPACKED: &[u8] = include_bytes!("../fixtures/kpack/after/lib/libkp.so");

/// The kpack archive reader, reference and wrappers on arbitrary bytes; then the input as the
/// archive of a kpack'd binary: joined or refused, every span inside its byte space.
pub fn kpack(data: &[u8]) {
    if let Ok(archive) = kp::read(data) {
        for e in &archive.entries {
            if let Ok(s) = archive.stored(e, data.len() as u64) {
                assert!(s.offset + s.size <= data.len() as u64, "an entry's bytes past the archive");
            }
        }
    }
    let _ = kp::reference::read(data);
    let _ = kp::wrapper::parse_all(data, 8);
    let opts = Options { max_decompressed: LIMIT, ..Options::default() };
    let companions = [offload::explore::Companion { name: "kp_gfx90a.kpack", data }];
    let tree = offload::explore::explore_with_companions(KPACKED, "libkp.so", &opts, &companions);
    tree.root.walk(&mut |node, _| {
        let space = tree.spaces.get(node.span.space as usize).expect("a node in a byte space that exists");
        assert!(node.span.end() <= space.size, "node `{}` ends past its byte space", node.label);
    });
    let _ = offload::report::targets::collect(&tree);
    let _ = offload::report::kernels::collect(&tree);
}

pub fn explore_all(data: &[u8]) {
    let opts = Options { max_decompressed: LIMIT, ..Options::default() };
    let tree = explore(data, "fuzz", &opts);
    // Every span must lie inside its byte space: the views draw them without further checks.
    tree.root.walk(&mut |node, _| {
        let space = tree.spaces.get(node.span.space as usize).expect("a node in a byte space that exists");
        assert!(node.span.end() <= space.size, "node `{}` ends past its byte space", node.label);
    });
    let _ = offload::report::targets::collect(&tree);
    edit_some_nodes(data, &tree);
}

/// Edits must refuse what they cannot do, never panic: a few edits on the first nodes of each
/// kind an editor changes, each result explored again.
fn edit_some_nodes(data: &[u8], tree: &offload::tree::Tree) {
    use offload::edit::{apply, Edit};
    use offload::tree::{Node, NodeKind};
    fn paths(n: &Node, path: &mut Vec<usize>, out: &mut Vec<(NodeKind, Vec<usize>)>) {
        if out.len() >= 12 {
            return;
        }
        out.push((n.kind, path.clone()));
        for (i, c) in n.children.iter().enumerate() {
            path.push(i);
            paths(c, path, out);
            path.pop();
        }
    }
    let mut nodes = Vec::new();
    paths(&tree.root, &mut Vec::new(), &mut nodes);
    for (kind, node) in nodes {
        let edits = match kind {
            NodeKind::BundleEntry => vec![
                Edit::SetEntryId { node: node.clone(), id: "hipv4-amdgcn-amd-amdhsa--gfx90a".into() },
                Edit::RemoveEntry { node: node.clone() },
                Edit::ReplaceContent { node, data: vec![1, 2, 3] },
            ],
            NodeKind::OffloadEntry => vec![
                Edit::SetString { node: node.clone(), key: "triple".into(), value: Some("amdgcn-amd-amdhsa".into()) },
                Edit::MoveEntry { node, to: 0 },
            ],
            NodeKind::CompressedBundle => vec![Edit::Decompress { node }],
            NodeKind::FatbinEntry => vec![
                Edit::Decompress { node: node.clone() },
                Edit::Compress { node: node.clone(), method: offload::codec::Method::Zstd, level: None, version: 3 },
                Edit::ReplaceContent { node: node.clone(), data: vec![7; 17] },
                Edit::RemoveEntry { node },
            ],
            NodeKind::Bundle => {
                vec![Edit::Compress { node, method: offload::codec::Method::Zlib, level: Some(1), version: 3 }]
            }
            NodeKind::Image | NodeKind::Section => vec![Edit::ReplaceContent { node, data: vec![0; 9] }],
            _ => continue,
        };
        for e in edits {
            if let Ok(edited) = apply(data, tree, &e) {
                let _ =
                    explore(&edited.bytes[..], "edited", &Options { max_decompressed: LIMIT, ..Options::default() });
            }
        }
    }
}

/// The device image decoders (`src/image/`): no panic, every node and field span inside the
/// image, and the kernel table agreeing with the tree.
pub mod images {
    use offload::image;
    use offload::tree::{Node, NodeKind, Span, Tree};

    pub fn msgpack(data: &[u8]) {
        if let Ok(v) = image::msgpack::parse(data) {
            assert!(v.offset == 0 && v.size <= data.len() as u64, "a value past its input");
            let _ = v.scalar_text();
        }
    }

    /// Bytes as the image decoders see them: the node of the image at a span that is not at 0,
    /// so that a span computed from the image's start and not from its own shows.
    fn describe(data: &[u8]) {
        let span = Span::new(3, 1000, data.len() as u64);
        let Some(node) = image::describe(data, span) else { return };
        node.walk(&mut |n, _| {
            let within = |s: &Span| s.space == 3 && s.offset >= 1000 && s.end() <= 1000 + data.len() as u64;
            assert!(within(&n.span), "node {} outside its image", n.label);
            for f in &n.fields {
                assert!(f.span.as_ref().is_none_or(within), "field {} of {} outside its image", f.name, n.label);
            }
            for d in &n.diagnostics {
                assert!(d.span.as_ref().is_none_or(within), "diagnostic of {} outside its image", n.label);
            }
        });
        let kernels = node.children.iter().filter(|c| c.kind == NodeKind::Kernel).count();
        let mut root = Node::new(NodeKind::File, "f", Span::new(0, 0, 0));
        root.children.push(node);
        let table = offload::report::kernels::collect(&Tree { spaces: Vec::new(), root });
        assert_eq!(table.cells(), kernels, "the kernel table lost or invented kernels");
    }

    /// An ELF file of machine `machine` (AMDGPU 224, CUDA 190): the first 64 bytes of the input
    /// become the header, with the magic, a 64-bit little-endian class and the machine set.
    pub fn elf_image(data: &[u8], machine: u16) {
        let mut bytes = data.to_vec();
        if bytes.len() < 64 {
            bytes.resize(64, 0);
        }
        bytes[..4].copy_from_slice(b"\x7fELF");
        bytes[4] = 2;
        bytes[5] = 1;
        bytes[18..20].copy_from_slice(&machine.to_le_bytes());
        describe(&bytes);
        if let Ok(elf) = image::elf::Elf::parse(&bytes) {
            for s in &elf.sections {
                if let Some(d) = s.data {
                    let (attrs, _) = image::cubin::attributes(d, s.offset);
                    assert!(attrs
                        .iter()
                        .all(|a| a.offset >= s.offset && a.offset + a.size <= s.offset + d.len() as u64));
                }
            }
        }
    }

    pub fn with_magic(data: &[u8], magic: &[u8]) {
        describe(data);
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(data);
        describe(&bytes);
    }
}

/// The AMDGPU disassembler never panics: arbitrary bytes are decoded as instructions of every
/// family at every dword offset (at small addresses and at addresses where a branch target would
/// overflow), read as a whole code object's listing, and as kernel descriptors. A decoded
/// instruction must claim whole dwords that are there.
pub mod disasm {
    use offload::disasm::{decode, descriptor, Isa, Listing};

    pub fn check(data: &[u8]) {
        decode_everywhere(data);
        read_code_object(data);
    }

    /// Bytes decoded at every offset: enough for every encoding, small enough to stay fast.
    const DECODED_BYTES: usize = 4096;

    fn decode_everywhere(data: &[u8]) {
        let code = &data[..data.len().min(DECODED_BYTES)];
        for isa in Isa::ALL {
            for at in (0..code.len()).step_by(4) {
                let rest = &code[at..];
                for address in [at as u64, u64::MAX - 3 - at as u64] {
                    let Some(decoded) = decode(isa, rest, address) else { continue };
                    assert!(
                        decoded.size >= 4 && decoded.size % 4 == 0 && decoded.size <= rest.len(),
                        "{isa:?} at {at}: size {} of {} bytes left ({})",
                        decoded.size,
                        rest.len(),
                        decoded.text
                    );
                    assert!(!decoded.text.is_empty(), "{isa:?} at {at}: empty text");
                }
            }
            let descriptor_bytes = data.get(..descriptor::SIZE).unwrap_or(data);
            let _ = descriptor::objdump_text(isa, "kernel.kd", 0, descriptor_bytes);
        }
    }

    fn read_code_object(data: &[u8]) {
        if let Ok(listing) = Listing::of_code_object(data) {
            let text = listing.objdump_text();
            assert!(text.starts_with("Disassembly of section .text:\n"));
            for symbol in &listing.symbols {
                let _ = listing.lines_of(symbol);
            }
        }
        let _ = descriptor::objdump_descriptors(data);
        let _ = descriptor::kernel_descriptors(data);
    }
}
