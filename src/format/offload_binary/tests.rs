//! Unit tests of offload binaries: real outputs of LLVM 22 tools, round trips and hostile input.

use super::packager::{dense_map_order, parse_image_spec};
use super::*;
use crate::util::llvm_hash::hash_bytes;
use alloc::vec;

/// `llvm-offload-binary -o out --image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip`
/// (LLVM 22.1.8) with a.o = "hello world image".
const TOOL_V1: &str = "10ff10ad01000000a8000000000000002000000000000000280000000000000001000400000000004800000000000000020000000000000090000000000000001100000000000000690000000000000087000000000000006e000000000000007500000000000000006172636800747269706c6500616d6467636e2d616d642d616d646873610067667839306100000068656c6c6f20776f726c6420696d61676500000000000000";
/// The same image with `kind=openmp,arch=gfx90a,triple=amdgcn-amd-amdhsa,zeta=1,alpha=,beta=arch`.
const TOOL_V1_EMPTY_VALUE: &str = "10ff10ad01000000e80000000000000020000000000000002800000000000000010001000000000048000000000000000500000000000000d00000000000000011000000000000009900000000000000c700000000000000a500000000000000ce000000000000009e00000000000000af00000000000000aa000000000000009900000000000000c1000000000000009800000000000000006172636800747269706c65007a657461006265746100616d6467636e2d616d642d616d6468736100616c7068610067667839306100310068656c6c6f20776f726c6420696d61676500000000000000";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn entry(kind: OffloadKind, triple: &str, arch: &str, image: &'static [u8]) -> OffloadEntry<'static> {
    let mut e = OffloadEntry::new(ImageKind::OBJECT, kind, image);
    e.set("triple", triple).set("arch", arch);
    e
}

fn sample_entries() -> Vec<OffloadEntry<'static>> {
    let mut a = entry(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a", b"first image");
    a.set("feature", "+xnack");
    let mut b = entry(OffloadKind::OPENMP, "nvptx64-nvidia-cuda", "sm_70", b"second");
    b.image_kind = ImageKind::PTX;
    b.set("value-with-nul", "a\0b").set("empty", "");
    let mut c = OffloadEntry::new(ImageKind::NONE, OffloadKind::SYCL, &b""[..]);
    c.flags = FLAG_METADATA;
    c.set("triple", "spirv64-intel");
    vec![a, b, c]
}

// --- kinds ---

#[test]
fn kind_names_and_caveats() {
    assert_eq!(ImageKind(6).name(), "spirv");
    assert_eq!(ImageKind(7).name(), "unknown");
    assert_eq!(ImageKind::from_extension("fatbin"), ImageKind::FATBINARY);
    assert_eq!(ImageKind::from_extension("elf"), ImageKind::NONE);
    assert_eq!(ImageKind::from_name("bc"), Some(ImageKind::BITCODE));
    assert_eq!(ImageKind::from_name("ptx"), Some(ImageKind::PTX));
    assert_eq!(ImageKind::SPIRV.extension(), "spv");
    assert_eq!(OffloadKind(3).name(), "hip");
    assert_eq!(OffloadKind(4).name(), "hip");
    assert_eq!(OffloadKind(8).name(), "sycl");
    assert_eq!(OffloadKind(16).name(), "unknown");
    assert!(OffloadKind(4).caveat().unwrap().1.contains("ambiguous"));
    assert_eq!(OffloadKind(3).caveat().unwrap().0, Severity::Warning);
    assert!(OffloadKind(1).caveat().is_none());
    assert_eq!(OffloadKind::from_llvm_name("HIP"), OffloadKind::NONE);
    assert_eq!(OffloadKind::from_name("hip"), Some(OffloadKind::HIP));
    assert_eq!(OffloadKind::from_name("none"), Some(OffloadKind::NONE));
    assert_eq!(OffloadKind::from_name("bogus"), None);
}

// --- v1 against bytes written by LLVM 22 ---

#[test]
fn writes_v1_like_llvm_22() {
    let e = entry(OffloadKind::HIP, "amdgcn-amd-amdhsa", "gfx90a", b"hello world image");
    let mut e = e;
    // The tool stores arch before triple (its DenseMap order).
    e.strings.reverse();
    assert_eq!(write_v1(&e).unwrap(), unhex(TOOL_V1));
}

#[test]
fn reads_v1_written_by_llvm_22() {
    let data = unhex(TOOL_V1);
    let bin = parse(&data).unwrap();
    assert_eq!(bin.version, 1);
    let e = &bin.entries[0];
    assert_eq!(e.image_kind, ImageKind::OBJECT);
    assert_eq!(e.offload_kind, OffloadKind::HIP);
    assert_eq!(e.triple(), Some("amdgcn-amd-amdhsa"));
    assert_eq!(e.arch(), Some("gfx90a"));
    assert_eq!(&*e.image, b"hello world image");
    assert!(!bin.is_edited());
    assert!(bin.layout().unwrap().notes.is_empty(), "{:?}", bin.layout().unwrap().notes);
    assert_eq!(bin.write().unwrap(), data);
    assert_eq!(bin.write_canonical().unwrap(), data);
}

#[test]
fn packager_order_matches_llvm_22() {
    let spec = parse_image_spec("file=a.o,kind=openmp,arch=gfx90a,triple=amdgcn-amd-amdhsa,zeta=1,alpha=,beta=arch");
    assert_eq!(spec.files, vec!["a.o"]);
    assert_eq!(spec.offload_kind, OffloadKind::OPENMP);
    let mut e = OffloadEntry::new(ImageKind::OBJECT, spec.offload_kind, &b"hello world image"[..]);
    e.strings = spec.strings;
    assert_eq!(write_v1(&e).unwrap(), unhex(TOOL_V1_EMPTY_VALUE));
    let data = unhex(TOOL_V1_EMPTY_VALUE);
    let read = parse(&data).unwrap().entries[0].clone();
    assert_eq!(read.get("alpha"), Some(""));
    assert_eq!(read.strings, e.strings);
}

#[test]
fn package_image_from_pairs() {
    let pairs = [("file", "a.o"), ("kind", "openmp"), ("arch", "gfx90a"), ("triple", "amdgcn-amd-amdhsa")];
    let mut pairs: Vec<(&str, &str)> = pairs.to_vec();
    pairs.extend([("zeta", "1"), ("alpha", ""), ("beta", "arch")]);
    let bin = package_image(&pairs, b"hello world image").unwrap();
    assert_eq!(bin.write().unwrap(), unhex(TOOL_V1_EMPTY_VALUE));
    assert!(package_image(&[("file", "a"), ("file", "b")], b"").is_err());
}

#[test]
fn packager_joins_repeated_keys_and_files() {
    let spec = parse_image_spec("file=a.o,triple=t,file=b.bc,x=1,x=2,flag");
    assert_eq!(spec.files, vec!["a.o", "b.bc"]);
    assert!(spec.strings.contains(&("x".into(), "1,2".into())));
    assert!(spec.strings.contains(&("flag".into(), "".into())));
    assert_eq!(packager::image_kind_for("dir.x/a", b""), ImageKind::NONE);
    assert_eq!(packager::image_kind_for("a.cubin", b"\x7fELF"), ImageKind::CUBIN);
    assert_eq!(packager::image_kind_for("a.spv", b""), ImageKind::NONE);
    assert_eq!(ImageKind::from_extension("spv"), ImageKind::SPIRV);
    assert_eq!(packager::image_kind_for("a.o", b"BC\xc0\xde"), ImageKind::BITCODE);
    assert_eq!(packager::image_kind_for("a.o", &[0xDE, 0xC0, 0x17, 0x0B]), ImageKind::BITCODE);
}

#[test]
fn llvm_hash_matches_reference_values() {
    // From a program calling llvm::hash_combine_range (LLVM 22 headers, release seed).
    assert_eq!(hash_bytes(b"triple"), 0x45f9d3270819b0d8);
    assert_eq!(hash_bytes(b"arch"), 0x1499ea7cf386c709);
    assert_eq!(hash_bytes(b"kind"), 0xe421e5cbc8207aa5);
    assert_eq!(hash_bytes(b"a"), 0xaeb6f9d5517c61f8);
    assert_eq!(hash_bytes(b""), 0x65b0c5ecc2c5cc82);
    assert_eq!(hash_bytes(b"amdgcn-amd-amdhsa"), 0x9d6aeebe37d4b48f);
    let big: Vec<u8> = (0..200u32).map(|i| b'a' + ((i * 7) % 26) as u8).collect();
    let expected: [(usize, u64); 14] = [
        (3, 0x06714f3bf5387efb),
        (4, 0x78f26d04dc68025b),
        (8, 0x4550fbbf223b7bd7),
        (9, 0x3080a41390b0e186),
        (16, 0x902e6a0a0db11d1a),
        (17, 0xea78fb97f6f57763),
        (32, 0x1c1e8c048c8beb22),
        (33, 0xf68ef1fe19f2bc68),
        (64, 0x69736c5b2bac5389),
        (65, 0x405d536c0f82f42f),
        (100, 0x3b404860d99c76d5),
        (128, 0x30eb5294e03a6574),
        (129, 0xc5b13cba7b848272),
        (200, 0x0d3f83298d0f1a7f),
    ];
    for (len, hash) in expected {
        assert_eq!(hash_bytes(&big[..len]), hash, "length {len}");
    }
}

#[test]
fn dense_map_grows_past_48_keys() {
    let names: Vec<String> = (0..100).map(|i| format!("key{i}")).collect();
    let keys: Vec<&str> = names.iter().map(String::as_str).collect();
    let order = dense_map_order(&keys);
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..100).collect::<Vec<_>>());
}

// --- v2 and v3 ---

#[test]
fn v2_round_trip_and_layout() {
    let entries = sample_entries();
    let data = write_v2(&entries).unwrap();
    assert_eq!(&data[4..8], &2u32.to_le_bytes());
    assert_eq!(u64::from_le_bytes(data[16..24].try_into().unwrap()), 32);
    assert_eq!(u64::from_le_bytes(data[24..32].try_into().unwrap()), 3);
    assert_eq!(data.len() % 8, 0);
    let bin = parse(&data).unwrap();
    assert_eq!(bin.version, 2);
    assert_eq!(bin.entries, entries);
    assert_eq!(bin.entries[1].get("value-with-nul"), Some("a\0b"));
    assert!(!bin.is_edited());
    assert_eq!(bin.write().unwrap(), data);
    // Images are back to back, not aligned one by one.
    let l = bin.layout().unwrap();
    assert_eq!(l.entries[1].raw.image_offset, l.entries[0].raw.image_offset + 11);
}

#[test]
fn v3_uncompressed_round_trip() {
    let entries = sample_entries();
    let data = write_v3(&entries, None).unwrap();
    assert_eq!(u64::from_le_bytes(data[16..24].try_into().unwrap()), 40);
    assert_eq!(&data[32..40], &[0; 8]);
    let bin = parse(&data).unwrap();
    assert_eq!((bin.version, bin.compression), (3, None));
    assert_eq!(bin.entries, entries);
    assert_eq!(bin.write().unwrap(), data);
}

#[cfg(feature = "zlib")]
#[test]
fn v3_zlib_round_trip() {
    v3_compressed_round_trip(CompressionMethod::Zlib);
}

#[cfg(feature = "zstd")]
#[test]
fn v3_zstd_round_trip() {
    v3_compressed_round_trip(CompressionMethod::Zstd);
}

fn v3_compressed_round_trip(method: CompressionMethod) {
    let mut entries = sample_entries();
    let big: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
    entries[0].image = Cow::Owned(big);
    let compression = Compression { method, level: None };
    let data = write_v3(&entries, Some(compression)).unwrap();
    let plain = write_v3(&entries, None).unwrap();
    assert!(data.len() < plain.len());
    assert_eq!(data.len() % 8, 0);
    assert_eq!(u64::from_le_bytes(data[32..40].try_into().unwrap()), plain.len() as u64);
    let bin = parse(&data).unwrap();
    assert_eq!(bin.compression, Some(compression));
    assert_eq!(bin.entries, entries);
    assert!(!bin.is_edited());
    assert_eq!(bin.write().unwrap(), data);
    assert_eq!(bin.layout().unwrap().compressed.as_ref().unwrap().inflated, plain);
    // Decompressing (an edit) gives LLVM's uncompressed v3 bytes.
    let mut edited = bin.clone();
    edited.compression = None;
    assert_eq!(edited.write().unwrap(), plain);
    let mut spaces = vec![ByteSpace { label: "input".into(), size: data.len() as u64, origin: None, data: None }];
    let node = to_node_with_spaces(&bin, Span::new(0, 0, data.len() as u64), &mut spaces);
    assert_eq!(spaces.len(), 2);
    assert_eq!(spaces[1].data.as_deref(), Some(&plain[40..]));
    let decompressed = &node.children.iter().find(|n| n.kind == NodeKind::Decompressed).unwrap();
    let first = decompressed.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
    assert_eq!(first.span.space, 1);
    assert_eq!(first.text("triple"), Some("amdgcn-amd-amdhsa"));
    // Without byte spaces the entries are listed at the payload.
    let flat = to_node(&bin, Span::new(0, 0, data.len() as u64));
    let entries: Vec<_> = flat.children.iter().filter(|n| n.kind == NodeKind::OffloadEntry).collect();
    assert_eq!(entries.len(), 3);
    let stored_size = u64::from_le_bytes(data[8..16].try_into().unwrap());
    assert_eq!(entries[0].span, Span::new(0, 40, stored_size - 40));
    assert!(flat.children.iter().all(|n| n.kind != NodeKind::Decompressed));
    // Truncating a compressed binary anywhere fails cleanly.
    for len in 0..data.len() {
        let _ = parse(&data[..len]);
    }
}

// --- editing ---

#[test]
fn edits_relayout_like_llvm() {
    let data = unhex(TOOL_V1);
    let mut bin = parse(&data).unwrap();
    bin.entries[0].set("arch", "gfx942");
    assert!(bin.is_edited());
    let written = bin.write().unwrap();
    let expected = write_v1(&bin.entries[0]).unwrap();
    assert_eq!(written, expected);
    let back = parse(&written).unwrap();
    assert_eq!(back.entries[0].arch(), Some("gfx942"));
    // Reverting the edit gives the input bytes again.
    bin.entries[0].set("arch", "gfx90a");
    assert!(!bin.is_edited());
    // Upgrading to v2 works; v1 with two entries does not.
    bin.version = 2;
    assert_eq!(parse(&bin.write().unwrap()).unwrap().version, 2);
    bin.version = 1;
    bin.entries.push(bin.entries[0].clone());
    assert!(bin.write().is_err());
}

#[test]
fn unusual_but_valid_layout_round_trips() {
    // Strings stored without tail merging and in another order, an image before the strings.
    let mut data = vec![0u8; 128];
    data[..4].copy_from_slice(&MAGIC);
    data[4..8].copy_from_slice(&1u32.to_le_bytes());
    data[8..16].copy_from_slice(&128u64.to_le_bytes());
    data[16..24].copy_from_slice(&32u64.to_le_bytes());
    data[24..32].copy_from_slice(&40u64.to_le_bytes());
    let e = 32;
    data[e..e + 2].copy_from_slice(&2u16.to_le_bytes());
    data[e + 2..e + 4].copy_from_slice(&3u16.to_le_bytes());
    data[e + 8..e + 16].copy_from_slice(&72u64.to_le_bytes());
    data[e + 16..e + 24].copy_from_slice(&1u64.to_le_bytes());
    data[e + 24..e + 32].copy_from_slice(&88u64.to_le_bytes());
    data[e + 32..e + 40].copy_from_slice(&4u64.to_le_bytes());
    data[72..80].copy_from_slice(&100u64.to_le_bytes());
    data[80..88].copy_from_slice(&107u64.to_le_bytes());
    data[88..92].copy_from_slice(b"IMG!");
    data[100..107].copy_from_slice(b"triple\0");
    data[107..117].copy_from_slice(b"x86_64-pc\0");
    let bin = parse(&data).unwrap();
    assert_eq!(bin.entries[0].triple(), Some("x86_64-pc"));
    assert_eq!(bin.entries[0].offload_kind.name(), "hip");
    assert_eq!(bin.write().unwrap(), data);
    let node = to_node(&bin, Span::new(0, 0, 128));
    let entry = &node.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
    assert!(entry.diagnostics.iter().any(|d| d.message.contains("older numbering")));
}

#[test]
fn duplicate_keys_follow_map_vector() {
    let mut e = entry(OffloadKind::CUDA, "nvptx64-nvidia-cuda", "sm_80", b"x");
    e.strings.push(("triple".into(), "later".into()));
    let written = write_v1(&e).unwrap();
    let back = parse(&written).unwrap();
    assert_eq!(back.entries[0].strings[0], ("triple".into(), "later".into()));
    assert_eq!(back.entries[0].strings.len(), 2);
}

#[test]
fn nul_in_key_is_refused() {
    let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
    e.set("bad\0key", "v");
    assert!(write_v1(&e).is_err());
    assert!(write_v2(&[e]).is_err());
    let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
    e.set("k", "v\0w");
    assert!(write_v1(&e).is_err());
    assert!(write_v2(&[e]).is_ok());
    assert!(write_v2(&[]).is_err());
}

// --- tree ---

#[test]
fn tree_fields_spans_and_labels() {
    let data = unhex(TOOL_V1);
    let bin = parse(&data).unwrap();
    let node = to_node(&bin, Span::new(0, 100, data.len() as u64));
    assert_eq!(node.kind, NodeKind::OffloadBinary);
    let entry = node.children.iter().find(|n| n.kind == NodeKind::OffloadEntry).unwrap();
    assert_eq!(entry.label, "offload entry hip amdgcn-amd-amdhsa gfx90a (object, 17 B)");
    assert_eq!(entry.text("image_kind"), Some("object"));
    assert_eq!(entry.text("offload_kind"), Some("hip"));
    assert_eq!(entry.get("offload_kind_value"), Some(&Value::Uint(4)));
    let triple = entry.fields.iter().find(|f| f.name == "triple").unwrap();
    assert_eq!(triple.span, Some(Span::new(0, 100 + 0x75, 17)));
    assert!(triple.editable);
    let strings = entry.fields.iter().find(|f| f.name == "strings").unwrap();
    assert_eq!(strings.span, Some(Span::new(0, 100 + 72, 32)));
    assert!(matches!(&strings.value, Value::Map(m) if m.len() == 2));
    let image = &entry.children[0];
    assert_eq!((image.kind, image.span), (NodeKind::Image, Span::new(0, 100 + 0x90, 17)));
    assert!(node.children.iter().any(|n| n.kind == NodeKind::StringTable));
    assert!(entry.diagnostics.iter().any(|d| d.message.contains("ambiguous") && d.message.contains("suggests HIP")));
    assert_eq!(node.worst_severity(), Some(Severity::Note));
}

#[test]
fn file_tree_reports_gaps() {
    let one = unhex(TOOL_V1);
    let mut data = one.clone();
    data.extend_from_slice(&[0u8; 16]);
    data.extend_from_slice(&one);
    data.extend_from_slice(b"junk");
    let tree = file_tree(&data, "input.bin");
    let kinds: Vec<NodeKind> = tree.root.children.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, [NodeKind::OffloadBinary, NodeKind::Padding, NodeKind::OffloadBinary, NodeKind::Unknown]);
    assert!(tree.root.label.contains("2 offload binaries"));
}

// --- several binaries ---

#[test]
fn walk_finds_binaries_at_aligned_steps() {
    let one = unhex(TOOL_V1);
    let v2 = write_v2(&sample_entries()).unwrap();
    let mut data = one.clone();
    data.extend_from_slice(&v2);
    data.extend_from_slice(&[0u8; 8]);
    data.extend_from_slice(&MAGIC);
    data.extend_from_slice(&[9u8; 12]);
    data.extend_from_slice(&one);
    data.extend_from_slice(b"tail");
    let w = walk(&data);
    let offsets: Vec<u64> = w.binaries().map(|(o, _)| o).collect();
    let third = (one.len() + v2.len() + 24) as u64;
    assert_eq!(offsets, [0, one.len() as u64, third]);
    let unused: Vec<_> = w.unused().collect();
    assert_eq!(unused.len(), 3);
    assert_eq!(unused[0].1, Unused::Zeros);
    assert_eq!((unused[1].0.start, unused[1].1), ((one.len() + v2.len() + 8) as u64, Unused::Invalid));
    assert_eq!(unused[1].2.offset, 4, "the version field of the bad binary");
    assert_eq!((unused[2].0.clone(), unused[2].1), (third + one.len() as u64..data.len() as u64, Unused::Unrecognized));
    assert_eq!(unused[2].2.offset, 0);
    let sizes: u64 = w.items.iter().map(|f| f.size).sum();
    assert_eq!(sizes, data.len() as u64);
    assert!(!w.is_clean());
    assert_eq!(w.write().unwrap(), data);
}

#[test]
fn nested_unreadable_binaries_stay_linear() {
    // A magic at every 8 bytes, each claiming the rest of the buffer and failing at its last
    // string: without a bound on failed reads this is quadratic.
    let n = 1usize << 17;
    let mut data = vec![0u8; n];
    for pos in (0..n).step_by(8) {
        data[pos..pos + 4].copy_from_slice(&MAGIC);
        data[pos + 4..pos + 8].copy_from_slice(&7u32.to_le_bytes());
    }
    let w = walk(&data);
    assert_eq!(w.binaries().count(), 0);
    assert_eq!(w.write().unwrap(), data);
}

#[test]
fn walk_of_empty_and_clean_buffers() {
    assert!(walk(&[]).items.is_empty());
    let one = unhex(TOOL_V1);
    let twice = [one.clone(), one].concat();
    let w = walk(&twice);
    assert!(w.is_clean());
    assert_eq!(w.binaries().count(), 2);
}

// --- hostile input ---

fn put(data: &mut [u8], at: usize, v: u64) {
    data[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn truncation_at_every_length_fails_cleanly() {
    let samples = [unhex(TOOL_V1), write_v2(&sample_entries()).unwrap(), write_v3(&sample_entries(), None).unwrap()];
    for data in &samples {
        for len in 0..data.len() {
            let r = parse(&data[..len]);
            // Zero padding past `size` is optional; anything shorter than `size` must fail.
            let size = u64::from_le_bytes(data[8..16].try_into().unwrap()) as usize;
            assert_eq!(r.is_ok(), len >= size, "length {len}");
        }
    }
    assert_eq!(parse(&[0x10, 0xFF]).unwrap_err().offset, 0);
    assert_eq!(parse(&unhex(TOOL_V1)[..20]).unwrap_err().offset, 16);
}

#[test]
fn header_errors_say_what_and_where() {
    let mut data = unhex(TOOL_V1);
    data[0] = 0;
    let e = parse(&data).unwrap_err();
    assert_eq!((e.offset, e.expected.as_str(), e.found.as_str()), (0, "magic 10 FF 10 AD", "00 FF 10 AD"));
    let mut data = unhex(TOOL_V1);
    data[4] = 4;
    assert_eq!(parse(&data).unwrap_err().offset, 4);
    let mut data = unhex(TOOL_V1);
    put(&mut data, 8, 16);
    assert_eq!(parse(&data).unwrap_err().offset, 8);
    let mut data = unhex(TOOL_V1);
    put(&mut data, 8, u64::MAX);
    assert!(parse(&data).unwrap_err().expected.contains("within the 168 bytes"));
}

#[test]
fn offsets_past_end_and_wrapping_are_errors() {
    let base = unhex(TOOL_V1);
    let cases: [(usize, u64, u64); 8] = [
        (16, 200, 16),               // entry offset past the end
        (16, u64::MAX - 8, 16),      // entry offset wrapping
        (32 + 8, 1000, 40),          // string entries offset past the end
        (32 + 24, 1000, 56),         // image offset past the end
        (32 + 24, u64::MAX - 3, 56), // image offset wrapping with its size
        (32 + 32, u64::MAX, 56),     // image size huge
        (72, 5000, 72),              // key offset past the end
        (80, u64::MAX, 80),          // value offset past the end
    ];
    for (at, value, error_at) in cases {
        let mut data = base.clone();
        put(&mut data, at, value);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, error_at, "field at {at} = {value}: {e}");
    }
}

#[test]
fn huge_counts_are_rejected_before_allocating() {
    let mut data = unhex(TOOL_V1);
    put(&mut data, 32 + 16, 1 << 60);
    let e = parse(&data).unwrap_err();
    assert_eq!(e.offset, 48);
    assert!(e.expected.contains("at most 6 string entries"), "{e}");
    let mut v2 = write_v2(&sample_entries()).unwrap();
    put(&mut v2, 24, 1 << 60);
    let e = parse(&v2).unwrap_err();
    assert_eq!(e.offset, 24);
    assert!(e.found.contains("1152921504606846976 entries"));
}

#[test]
fn overlapping_string_arrays_are_bounded() {
    // Many v2 entries all claiming the same big string array.
    let mut e = entry(OffloadKind::CUDA, "t", "a", b"");
    for i in 0..20 {
        e.set(&format!("k{i}"), "v");
    }
    let mut entries = vec![e];
    entries.extend((0..30).map(|_| OffloadEntry::new(ImageKind::NONE, OffloadKind::NONE, &b""[..])));
    let mut data = write_v2(&entries).unwrap();
    let first = 32 + 8;
    let (offset, count) = (data[first..first + 8].to_vec(), data[first + 8..first + 16].to_vec());
    for i in 1..31 {
        let at = 32 + i * 40 + 8;
        data[at..at + 8].copy_from_slice(&offset);
        data[at + 8..at + 16].copy_from_slice(&count);
    }
    let e = parse(&data).unwrap_err();
    assert!(e.expected.contains("string entries in total"), "{e}");
}

#[test]
fn unterminated_and_shared_strings() {
    let mut data = unhex(TOOL_V1);
    // The value of the second string points at the image, whose bytes reach the end without NUL.
    let size = data.len();
    data[size - 7..].copy_from_slice(b"NO NUL!");
    data[0x90 + 17..size - 7].fill(b'x');
    put(&mut data, 96, 0x90);
    let e = parse(&data).unwrap_err();
    assert_eq!(e.offset, 96);
    assert!(e.found.contains("no NUL"), "{e}");
}

#[test]
fn decoded_string_bytes_are_bounded() {
    // 20,000 keys each starting one byte further into a 400 KB run ending in one NUL would
    // decode to 8 GB of keys from a 720 KB binary.
    let n = 20_000u64;
    let run = 400_000u64;
    let strings_at = 72u64;
    let run_at = strings_at + 16 * n;
    let size = align_to_entry(run_at + run + 1);
    let mut data = vec![0u8; size as usize];
    data[..4].copy_from_slice(&MAGIC);
    data[4..8].copy_from_slice(&1u32.to_le_bytes());
    put(&mut data, 8, size);
    put(&mut data, 16, 32);
    put(&mut data, 24, 40);
    put(&mut data, 40, strings_at);
    put(&mut data, 48, n);
    put(&mut data, 56, run_at);
    put(&mut data, 64, 0);
    for i in 0..n {
        let at = (strings_at + 16 * i) as usize;
        put(&mut data, at, run_at + i);
        put(&mut data, at + 8, run_at + run);
    }
    data[run_at as usize..(run_at + run) as usize].fill(b'k');
    let e = parse(&data).unwrap_err();
    assert!(e.expected.contains("limit of decoded bytes"), "{e}");
    // With room for them, the keys read (the NUL search stays linear, see below).
    let options = ReadOptions { max_string_bytes: 1 << 33, ..ReadOptions::default() };
    let short = &mut data.clone();
    put(short, 48, 30);
    assert_eq!(parse_with(short, &options).unwrap().entries[0].strings.len(), 30);
}

#[test]
fn nul_finder_scans_each_byte_once() {
    // 200,000 lookups at consecutive offsets of a 1 MB run: a naive scan would read 100 GB.
    let mut data = vec![b'x'; 1 << 20];
    data[(1 << 20) - 1] = 0;
    let mut finder = NulFinder::new(&data);
    for from in (0..200_000u64).rev() {
        assert_eq!(finder.find(from), Some((1 << 20) - 1));
    }
    for from in 200_000..400_000u64 {
        assert_eq!(finder.find(from), Some((1 << 20) - 1));
    }
    let unterminated = vec![b'y'; 1 << 20];
    let mut finder = NulFinder::new(&unterminated);
    for from in (0..200_000u64).step_by(3) {
        assert_eq!(finder.find(from), None);
    }
}

#[test]
fn compressed_header_checks() {
    let mut data = write_v3(&sample_entries(), None).unwrap();
    put(&mut data, 32, 1 << 40);
    let e = parse(&data).unwrap_err();
    assert_eq!(e.offset, 32);
    assert!(e.expected.contains("limit"), "{e}");
    put(&mut data, 32, 8);
    assert_eq!(parse(&data).unwrap_err().offset, 32);
    put(&mut data, 32, 100);
    put(&mut data, 16, 8);
    assert_eq!(parse(&data).unwrap_err().offset, 16);
    put(&mut data, 16, 40);
    // Not a valid zlib stream: an error from the decompressor, at the payload.
    let e = parse(&data).unwrap_err();
    assert!(e.offset >= 40, "{e}");
}

#[test]
fn every_single_byte_corruption_is_handled() {
    let samples = [unhex(TOOL_V1), write_v2(&sample_entries()).unwrap(), write_v3(&sample_entries(), None).unwrap()];
    for data in &samples {
        for at in 0..data.len() {
            for value in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut bad = data.clone();
                bad[at] = value;
                if let Ok(bin) = parse(&bad) {
                    let mut spaces = Vec::new();
                    let _ = to_node_with_spaces(&bin, Span::new(0, 0, bad.len() as u64), &mut spaces);
                    let _ = to_node(&bin, Span::new(0, 0, bad.len() as u64));
                    assert_eq!(bin.write().unwrap(), bad[..bin.stored_len() as usize]);
                }
                let _ = walk(&bad);
            }
        }
    }
}

#[test]
fn invalid_utf8_is_lossy_with_a_warning() {
    let mut e = entry(OffloadKind::CUDA, "t", "a", b"x");
    e.set("k", "ok");
    let mut data = write_v1(&e).unwrap();
    let pos = data.windows(3).position(|w| w == b"ok\0").unwrap();
    data[pos] = 0xff;
    let bin = parse(&data).unwrap();
    assert_eq!(bin.entries[0].get("k"), Some("\u{fffd}k"));
    assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("not UTF-8")));
    assert_eq!(bin.write().unwrap(), data);
}

#[test]
fn warnings_for_odd_layouts() {
    let mut data = unhex(TOOL_V1);
    put(&mut data, 24, 48);
    let bin = parse(&data).unwrap();
    assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("entry size is 48")));
    // Image overlapping the string entries.
    let mut data = unhex(TOOL_V1);
    put(&mut data, 56, 80);
    let bin = parse(&data).unwrap();
    assert!(
        bin.layout().unwrap().notes.iter().any(|n| n.message.contains("overlaps")),
        "{:?}",
        bin.layout().unwrap().notes
    );
    // A key pointing into the image: outside the string table.
    let mut data = unhex(TOOL_V1);
    put(&mut data, 72, 0x90);
    let bin = parse(&data).unwrap();
    assert!(bin.layout().unwrap().notes.iter().any(|n| n.message.contains("outside the string table")));
}
