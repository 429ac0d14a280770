//! The bad-input catalogue: real fixtures broken one way at a time, each of which must end in a
//! clear message (an error, or a diagnostic when the rest of the file stays usable) that points
//! at the byte where the input goes wrong, within bounded memory and without hanging.
//!
//! Every case names the parser it feeds, the byte offset the message must point at (in the byte
//! space the broken structure lives in) and words the message must contain. Cases run one after
//! another on a worker thread: a case that does not finish within a generous deadline is a hang,
//! and the allocator below records the peak heap use of each case, which must stay within a
//! budget of a few times the input size, however large the sizes the input declares.
//!
//! `cargo test --test bad_input -- --nocapture` prints the catalogue with each case's message.

use offload::explore::{explore, Options};
use offload::format::archive::ar as archive;
use offload::format::bundle::{binary as bundle, compressed, text as text_bundle};
use offload::format::{kpack, nv_fatbin, offload_binary};
use offload::tree::{Node, Severity};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Peak heap tracking

struct PeakAlloc;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// Heap a case may use beyond its input: room for the tree, messages and a decoder window.
const MEMORY_ALLOWANCE: usize = 48 << 20;
/// A case still running after this long is stuck, not slow: the whole catalogue takes seconds.
const HANG_DEADLINE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// Cases

/// Which reader a case feeds.
#[derive(Clone, Copy, Debug)]
enum Parser {
    /// The whole-file explorer; the case reads its first error or warning diagnostic.
    Explore,
    OffloadBinary,
    Bundle,
    /// Header, then decompression with the default limit and the hash check.
    Compressed,
    /// A text bundle with this line comment.
    Text(&'static str),
    /// An ar archive, read to its last member.
    Archive,
    /// NVIDIA fatbin containers back to back, every entry decompressed with the default limit.
    NvFatbin,
    /// A ROCm `.kpack` archive: header, table of contents, and where every entry's bytes lie.
    Kpack,
    /// An AMDGPU code object's `.text`, disassembled.
    Disasm,
    /// A 64-byte kernel descriptor, as gfx90a directives.
    KernelDescriptor,
}

/// How bad the outcome must be.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// The reader refuses the input.
    Error,
    /// The explorer keeps going and reports at least a warning.
    Warning,
}

struct Case {
    format: &'static str,
    name: String,
    input: Vec<u8>,
    parser: Parser,
    outcome: Outcome,
    /// Where the message must point, in the byte space of the broken structure.
    at: u64,
    /// Words the message must contain (lower case comparison).
    says: Vec<&'static str>,
}

fn case(format: &'static str, name: impl Into<String>, input: Vec<u8>, parser: Parser) -> Case {
    Case { format, name: name.into(), input, parser, outcome: Outcome::Error, at: 0, says: Vec::new() }
}

impl Case {
    fn at(mut self, at: u64) -> Self {
        self.at = at;
        self
    }

    fn says(mut self, words: &[&'static str]) -> Self {
        self.says.extend_from_slice(words);
        self
    }

    fn warning(mut self) -> Self {
        self.outcome = Outcome::Warning;
        self
    }
}

/// What a reader said about a case.
#[derive(Debug)]
struct Report {
    severity: Outcome,
    at: u64,
    message: String,
}

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn put_u16(mut data: Vec<u8>, at: usize, value: u16) -> Vec<u8> {
    data[at..at + 2].copy_from_slice(&value.to_le_bytes());
    data
}

fn put_u32(mut data: Vec<u8>, at: usize, value: u32) -> Vec<u8> {
    data[at..at + 4].copy_from_slice(&value.to_le_bytes());
    data
}

fn put_u64(mut data: Vec<u8>, at: usize, value: u64) -> Vec<u8> {
    data[at..at + 8].copy_from_slice(&value.to_le_bytes());
    data
}

fn put(mut data: Vec<u8>, at: usize, bytes: &[u8]) -> Vec<u8> {
    data[at..at + bytes.len()].copy_from_slice(bytes);
    data
}

fn cut(data: &[u8], len: usize) -> Vec<u8> {
    data[..len].to_vec()
}

fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(data[at..at + 8].try_into().unwrap())
}

fn find(data: &[u8], needle: &[u8]) -> usize {
    data.windows(needle.len()).position(|w| w == needle).expect("needle in fixture")
}

// ---------------------------------------------------------------------------------------------
// Offload binaries (v1 written by llvm-offload-binary 22; header and entry fields from
// src/offload_binary.rs)

fn offload_binary_cases() -> Vec<Case> {
    let good = fixture("offbin_openmp_elf.offbin");
    let ob = |name: &str, input: Vec<u8>| case("offload binary", name.to_string(), input, Parser::OffloadBinary);
    let mut cases = Vec::new();
    // A field that is cut off is reported where it starts; a binary cut after its header is
    // reported at its size field, which claims more than there is.
    for (len, what, at) in [
        (0, "magic", 0),
        (3, "magic", 0),
        (4, "version", 4),
        (8, "size", 8),
        (16, "entry offset", 16),
        (24, "entry size", 24),
        (40, "entry", 8),
    ] {
        cases.push(ob(&format!("truncated to {len} bytes, inside the {what}"), cut(&good, len)).at(at));
    }
    let size = u64_at(&good, 8);
    let entry_at = u64_at(&good, 16) as usize;
    let strings_at = u64_at(&good, entry_at + 8) as usize;
    let image_at = u64_at(&good, entry_at + 24);
    cases.extend([
        ob("truncated inside the image", cut(&good, (image_at + 16) as usize)).at(8).says(&["size"]),
        ob("wrong magic", put(good.clone(), 0, b"\x10\xFF\x10\xAE")).at(0).says(&["magic"]),
        ob("version 0", put_u32(good.clone(), 4, 0)).at(4).says(&["version"]),
        ob("version 99", put_u32(good.clone(), 4, 99)).at(4).says(&["version", "99"]),
        ob("size past the end", put_u64(good.clone(), 8, size + 8)).at(8).says(&["size"]),
        ob("size smaller than the header", put_u64(good.clone(), 8, 16)).at(8).says(&["size"]),
        ob("entry offset past the end", put_u64(good.clone(), 16, size + 64)).at(16).says(&["entry"]),
        ob("entry offset pointing back into the header", put_u64(good.clone(), 16, 8)).at(16).says(&["entry"]),
        ob("entry offset wrapping around", put_u64(good.clone(), 16, u64::MAX - 7)).at(16).says(&["entry"]),
        ob("string count near 2^64", put_u64(good.clone(), entry_at + 16, u64::MAX)).at(entry_at as u64 + 16),
        // The count is blamed: it claims records the bytes after the offset cannot hold.
        ob("string entries past the end", put_u64(good.clone(), entry_at + 8, size))
            .at(entry_at as u64 + 16)
            .says(&["string entries"]),
        ob("string offset past the end", put_u64(good.clone(), strings_at, size + 100)).at(strings_at as u64),
        ob("image offset past the end", put_u64(good.clone(), entry_at + 24, size + 8)).at(entry_at as u64 + 24),
        // An image range is reported at its start, with the size that breaks it.
        ob("image size wrapping around", put_u64(good.clone(), entry_at + 32, u64::MAX))
            .at(entry_at as u64 + 24)
            .says(&["64 bits"]),
        ob("image size of many gigabytes", put_u64(good.clone(), entry_at + 32, 64 << 30))
            .at(entry_at as u64 + 24)
            .says(&["68719476880"]),
    ]);
    cases
}

// ---------------------------------------------------------------------------------------------
// Binary bundles (written by clang-offload-bundler 22)

fn bundle_cases() -> Vec<Case> {
    let good = fixture("bundle_bin.bc");
    let b = |name: &str, input: Vec<u8>| case("bundle", name.to_string(), input, Parser::Bundle);
    let mut cases = Vec::new();
    let id_len = u64_at(&good, 48) as usize;
    let second = 56 + id_len;
    // A cut magic is reported at the start; once the count is read, a cut anywhere in the entry
    // headers is reported at the count, which claims more entries than the bytes can hold.
    for (len, what, at) in [
        (10, "magic", 0),
        (24, "entry count", 24),
        (32, "first entry offset", 24),
        (40, "first entry size", 24),
        (48, "first ID length", 24),
        (60, "first ID", 24),
        (second, "second entry", 24),
    ] {
        cases.push(b(&format!("truncated to {len} bytes, inside the {what}"), cut(&good, len)).at(at));
    }
    let len = good.len() as u64;
    cases.extend([
        b("wrong magic", put(good.clone(), 2, b"X")).at(0).says(&["magic"]),
        b("entry count near 2^64", put_u64(good.clone(), 24, u64::MAX)).at(24).says(&["entries"]),
        b("entry offset past the end", put_u64(good.clone(), 32, len + 1)).at(32),
        // Entry ranges are reported at the entry's header, with the range that breaks.
        b("entry size past the end", put_u64(good.clone(), 40, len)).at(32).says(&["10630"]),
        b("entry range wrapping around", put_u64(put_u64(good.clone(), 32, 16), 40, u64::MAX - 8))
            .at(32)
            .says(&["64 bits"]),
        b("ID length near 2^64", put_u64(good.clone(), 48, u64::MAX - 3)).at(56),
    ]);
    cases
}

/// Bundle problems the explorer reports while showing the rest.
fn bundle_diagnostic_cases() -> Vec<Case> {
    let good = fixture("bundle_bin.bc");
    let id_at = 56;
    let e = |name: &str, input: Vec<u8>| case("bundle", name.to_string(), input, Parser::Explore).warning();
    let second_entry = 56 + u64_at(&good, 48);
    vec![
        e("entry overlapping the header", put_u64(good.clone(), 32, 8)).at(8).says(&["overlaps the bundle header"]),
        e("entry ID that is not UTF-8", put(good.clone(), id_at + 20, &[0xC3, 0x28])).at(id_at as u64).says(&["utf-8"]),
        // An unknown offload kind (`HOST`) is read as written, as LLVM reads it: a note, not bad
        // input (src/ids/tests.rs). Joining kind and arch leaves `unknown` as the architecture.
        e("entry ID with kind and arch joined", put(good.clone(), id_at + 4, b"_"))
            .at(id_at as u64 + 12)
            .says(&["'unknown' is not an architecture"]),
        e("entry at offset 0", put_u64(good.clone(), 32, 0)).at(32),
        e("two entries overlapping", put_u64(good.clone(), second_entry as usize, u64_at(&good, 32) + 16))
            .at(u64_at(&good, 32) + 16)
            .says(&["overlap"]),
    ]
}

// ---------------------------------------------------------------------------------------------
// Text bundles

fn text_bundle_cases() -> Vec<Case> {
    let good = fixture("bundle_text.ll");
    let t = |name: &str, input: Vec<u8>| case("text bundle", name.to_string(), input, Parser::Text(";"));
    let e = |name: &str, input: Vec<u8>| case("text bundle", name.to_string(), input, Parser::Explore).warning();
    let first_id = find(&good, b"__START__ ") + 10;
    let first_content = first_id + find(&good[first_id..], b"\n") + 1;
    let end_line = find(&good, b"\n; __CLANG_OFFLOAD_BUNDLE____END__");
    let end_word = end_line + 3 + 26;
    let second_start = end_line + 1 + find(&good[end_line + 1..], b"\n; __CLANG_OFFLOAD_BUNDLE____START__") + 1;
    vec![
        t("no start marker at all", good[first_content..end_line].to_vec()).at(0).says(&["no start marker"]),
        t("truncated inside a start marker", cut(&good, first_id + 5)).at(first_id as u64).says(&["newline"]),
        t("truncated inside the first entry", cut(&good, end_line - 40)).at(first_content as u64).says(&["end marker"]),
        t("entry ID that is not UTF-8", put(good.clone(), first_id + 1, &[0xFF]))
            .at(first_id as u64 + 1)
            .says(&["utf-8"]),
        e("end marker damaged, so one entry swallows the next", put(good.clone(), end_word, b"EMD"))
            .at(second_start as u64)
            .says(&["start marker"]),
        e("end marker naming another ID", put(good.clone(), end_word + 6, b"X"))
            .at(end_line as u64)
            .says(&["end marker names"]),
    ]
}

// ---------------------------------------------------------------------------------------------
// Compressed bundles, v1 to v3 (written by clang-offload-bundler 22; v1 derived, see fixtures)

fn compressed_cases() -> Vec<Case> {
    let v3 = fixture("ccob_zstd_v3.hipfb");
    let v2 = fixture("ccob_zstd_v2.hipfb");
    let v1 = fixture("ccob_zstd_v1_derived.hipfb");
    let zlib = fixture("ccob_zlib_v3.hipfb");
    let c = |name: &str, input: Vec<u8>| case("compressed bundle", name.to_string(), input, Parser::Compressed);
    let mut cases = Vec::new();
    // A cut field is reported where it starts; a header that is whole but alone is reported at
    // its total size (v2, v3), or as a stream that ends at once (v1, which has no total size).
    for (version, data, cuts) in [
        (3, &v3, &[(4usize, 4u64), (6, 6), (8, 8), (16, 16), (24, 24), (32, 8)][..]),
        (2, &v2, &[(4, 4), (6, 6), (8, 8), (12, 12), (16, 16), (24, 8)][..]),
        (1, &v1, &[(4, 4), (6, 6), (8, 8), (12, 12), (20, 20)][..]),
    ] {
        for &(len, at) in cuts {
            cases.push(c(&format!("v{version} truncated to {len} bytes"), cut(data, len)).at(at));
        }
    }
    let total = v3.len() as u64;
    cases.extend([
        c("wrong magic", put(v3.clone(), 3, b"C")).at(0).says(&["ccob"]),
        c("version 0", put_u16(v3.clone(), 4, 0)).at(4).says(&["version"]),
        c("version 4", put_u16(v3.clone(), 4, 4)).at(4).says(&["version", "4"]),
        c("method 7", put_u16(v3.clone(), 6, 7)).at(6).says(&["method"]),
        c("v3 total size past the end", put_u64(v3.clone(), 8, total + 1)).at(8).says(&["size"]),
        c("v3 total size smaller than the header", put_u64(v3.clone(), 8, 8)).at(8).says(&["size"]),
        c("v3 total size near 2^64", put_u64(v3.clone(), 8, u64::MAX)).at(8),
        c("v2 total size past the end", put_u32(v2.clone(), 8, v2.len() as u32 + 100)).at(8),
        c("declared uncompressed size of 64 GiB", put_u64(v3.clone(), 16, 64 << 30)).at(16).says(&["limit"]),
        // Listing reads only the header of a bundle this large, and must still say it is over.
        case("compressed bundle", "declared 64 GiB, only listed", put_u64(v3.clone(), 16, 64 << 30), Parser::Explore)
            .at(16)
            .says(&["over the limit", "--max-decompressed"]),
        // Stream problems are reported where the decoder stood: the end of a stream that stops
        // short, the block that overflows or does not decode.
        c("declared uncompressed size of 3 GiB, payload of a few KiB", put_u64(v3.clone(), 16, 3 << 30))
            .at(total)
            .says(&["3221225472", "10755"]),
        c("declared uncompressed size smaller than the payload expands to (bomb)", put_u64(v3.clone(), 16, 100))
            .at(total)
            .says(&["at most 100"]),
        c("v1 declared size smaller than the payload expands to", put_u32(v1.clone(), 8, 10))
            .at(v1.len() as u64)
            .says(&["at most 10 "]),
        c("hash mismatch", put(v3.clone(), 24, &[0, 0, 0, 0])).at(24).says(&["hash"]),
        c("zlib hash mismatch", put(zlib.clone(), 24, &[1])).at(24).says(&["hash"]),
        c("corrupted zstd frame header", put(v3.clone(), 32, &[0, 0, 0, 0])).at(32),
        c("corrupted zstd block", put(v3.clone(), 80, &[0xFF; 16])).at(42),
        c("corrupted zlib stream", put(zlib.clone(), 34, &[0xFF; 8])).at(35),
        c("payload truncated", {
            let mut d = cut(&v3, v3.len() - 64);
            let len = d.len() as u64;
            d = put_u64(d, 8, len);
            d
        })
        .at(42),
    ]);
    cases.push(bomb_case());
    cases
}

/// A zstd frame of 256 MiB of zeros, a few KiB compressed, declaring 1 KiB: decompression must
/// stop at the declared size instead of inflating it.
/// A zstd frame that declares no size and expands to `blocks` × 128 KiB of zeros: RLE blocks of
/// 4 bytes each, a 1 MiB window. Made by hand because encoders declare the size (or, like
/// ruzstd, do not), and a bomb must fail the same way whichever encoder the build has.
fn rle_zeros_frame(blocks: u32) -> Vec<u8> {
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50];
    for i in 0..blocks {
        let header = u32::from(i == blocks - 1) | (1 << 1) | ((128 * 1024) << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(0);
    }
    frame
}

fn bomb_case() -> Case {
    // A real version 3 header (made by the core from a tiny bundle), then the bomb as payload:
    // 256 MiB of zeros under a header that declares 1 KiB. The first block already overflows,
    // so the error is at the byte after its header: 32 + 6 + 3 + 1.
    let header = compressed::compress(b"tiny", compressed::Method::Zstd, None, 3).expect("compress");
    let frame = rle_zeros_frame(2048);
    let mut bundle = [&header[..32], &frame[..]].concat();
    bundle = put_u64(bundle, 8, 32 + frame.len() as u64);
    bundle = put_u64(bundle, 16, 1024);
    case("compressed bundle", "256 MiB of zeros declared as 1 KiB (bomb)", bundle, Parser::Compressed)
        .at(42)
        .says(&["1024"])
}

// ---------------------------------------------------------------------------------------------
// Archives (made by llvm-ar 22: a `/` symbol table, then bundled objects)

fn archive_cases() -> Vec<Case> {
    let good = fixture("hip_rdc_archive.a");
    let a = |name: &str, input: Vec<u8>| case("archive", name.to_string(), input, Parser::Archive);
    // The first header is the symbol table's, at 8; the first object member's follows it.
    let first = 8usize;
    let symtab_size: usize = std::str::from_utf8(&good[first + 48..first + 58]).unwrap().trim().parse().unwrap();
    let member = first + 60 + symtab_size + symtab_size % 2;
    vec![
        a("truncated inside the global magic", cut(&good, 5)).at(0).says(&["!<arch>"]),
        a("truncated inside the first member header", cut(&good, first + 30)).at(first as u64),
        a("truncated inside a member's data", cut(&good, member + 100)).at(member as u64 + 48).says(&["size"]),
        a("header terminator damaged", put(good.clone(), member + 58, b"x\n")).at(member as u64 + 58),
        a("size field not a number", put(good.clone(), member + 48, b"12z4")).at(member as u64 + 48),
        a("size field of 9999999999 bytes", put(good.clone(), member + 48, b"9999999999")).at(member as u64 + 48),
        a("mode field not octal", put(good.clone(), member + 40, b"999")).at(member as u64 + 40),
        a("long-name reference past the name table", put(good.clone(), member, b"/9999           ")).at(member as u64),
        case("archive", "archives nested deeper than the limit", nested_archives(12), Parser::Explore)
            .says(&["nested deeper than 8"])
            .at(nested_archive_offset(Options::default().max_depth + 1)),
    ]
}

/// An archive whose only member is an archive whose only member is ... `depth` times.
fn nested_archives(depth: usize) -> Vec<u8> {
    let mut inner = fixture("hip_rdc_archive.a");
    for _ in 0..depth {
        inner = archive::write_gnu(&[archive::NewMember { name: "inner.a".into(), data: &inner }]).unwrap();
    }
    inner
}

/// Where the archive nested `depth` levels down starts: each level adds a magic and a header.
fn nested_archive_offset(depth: u32) -> u64 {
    (8 + 60) * u64::from(depth)
}

// ---------------------------------------------------------------------------------------------
// Whole files: host containers, nesting and sequences, through the explorer

fn explorer_cases() -> Vec<Case> {
    let elf = fixture("hip_elf_2arch_compressed.o");
    let so = fixture("libhip_3tu_compressed.so");
    let coff = fixture("hip_coff_2arch.obj");
    let e = |name: &str, input: Vec<u8>| case("host file", name.to_string(), input, Parser::Explore);
    let ccob = find(&elf, b"CCOB");
    let so_ccob = find(&so, b"CCOB");
    vec![
        e("ELF truncated inside the compressed bundle", cut(&elf, ccob + 100)).at(0x28).says(&["truncated"]),
        e("ELF with the section table offset past the end", put_u64(elf.clone(), 0x28, elf.len() as u64 + 64))
            .at(0x28)
            .says(&["section header"]),
        e("ELF truncated inside the file header", cut(&elf, 40)).at(0),
        e("ELF compressed bundle with a hash mismatch", put(elf.clone(), ccob + 24, &[0xAA]))
            .at(ccob as u64 + 24)
            .says(&["hash"]),
        e("shared library whose first compressed bundle claims too much", put_u64(so.clone(), so_ccob + 8, 1 << 40))
            .at(so_ccob as u64 + 8),
        e("COFF truncated inside the section table", cut(&coff, 60)).at(0),
        // llvm-readelf: "Invalid ELF class", "Invalid ELF data"; a header of zeros after the magic
        // was once listed as an ELF object without device code.
        e("ELF identification with class 0", [&b"\x7fELF"[..], &[0; 60]].concat()).at(4).says(&["ELF class"]),
        e("ELF identification with class 3", put(elf.clone(), 4, &[3])).at(4).says(&["ELF class"]),
        e("ELF identification with byte order 0", put(elf.clone(), 5, &[0])).at(5).says(&["byte order"]),
        e("ELF identification with version 2", put(elf.clone(), 6, &[2])).at(6).says(&["ELF version"]),
        e("nested bundles deeper than the limit", nested_bundles(12))
            .at(nested_bundle_offset(Options::default().max_depth + 1))
            .says(&["nested deeper than 8"]),
    ]
}

/// Where the bundle nested `depth` levels down starts: each level's device entry follows its
/// header directly.
fn nested_bundle_offset(depth: u32) -> u64 {
    let header = bundle::read_header(&nested_bundles(1)).unwrap();
    header.size * u64::from(depth)
}

/// A bundle whose device entry is a bundle whose device entry is a bundle ... `depth` times.
fn nested_bundles(depth: usize) -> Vec<u8> {
    let mut inner = fixture("bundle_bin.bc");
    for _ in 0..depth {
        let entries = vec![
            ("host-x86_64-unknown-linux-gnu-".to_string(), std::borrow::Cow::Owned(Vec::new())),
            ("hip-amdgcn-amd-amdhsa--gfx90a".to_string(), std::borrow::Cow::Owned(inner)),
        ];
        inner = bundle::Bundle::new(entries, 1).unwrap().write().unwrap();
    }
    inner
}

// ---------------------------------------------------------------------------------------------
// SYCL entries (raw zstd frames, see offload::format::sycl), in a bundle written by the core

/// A bundle with one `sycl-spir64` entry holding `payload`, and where the payload starts.
fn sycl_bundle(payload: Vec<u8>) -> (Vec<u8>, u64) {
    let entries = vec![("sycl-spir64".to_string(), std::borrow::Cow::Owned(payload))];
    let bundle = bundle::Bundle::new(entries, 1).unwrap();
    let at = bundle.entries[0].offset;
    (bundle.write().unwrap(), at)
}

fn sycl_cases() -> Vec<Case> {
    let e = |name: &str, input: Vec<u8>| case("SYCL entry", name.to_string(), input, Parser::Explore);
    let frame = offload::codec::compress(offload::codec::Method::Zstd, None, &[7u8; 3000]).unwrap();
    let (cut_frame, at) = sycl_bundle(frame[..frame.len() - 3].to_vec());
    // A frame that declares no content size is bounded by the listing budget.
    let zeros = rle_zeros_frame(512);
    assert_eq!(
        offload::format::sycl::zstd_frame(&zeros).unwrap(),
        (zeros.len(), None),
        "a frame without a declared size"
    );
    let (bomb, bomb_at) = sycl_bundle(zeros);
    vec![
        e("a zstd frame cut short", cut_frame).warning().at(at).says(&["zstd frame"]),
        e("a frame of 64 MiB of zeros that declares no size (bomb)", bomb).at(bomb_at).says(&["decompression failed"]),
    ]
}

// ---------------------------------------------------------------------------------------------
// NVIDIA fatbins (written by nvcc 13.5; layout in src/format/nv_fatbin/mod.rs). The first entry
// starts at 16; its payload at 80.

fn nv_fixture(name: &str) -> Vec<u8> {
    fixture(&format!("nvidia/{name}"))
}

fn nv_fatbin_cases() -> Vec<Case> {
    let zstd = nv_fixture("nv_3arch_size.fatbin");
    let lz4 = nv_fixture("nv_3arch_lz4_all.fatbin");
    let nv = |name: &str, input: Vec<u8>| case("NVIDIA fatbin", name.to_string(), input, Parser::NvFatbin);
    let e = |name: &str, input: Vec<u8>| case("NVIDIA fatbin", name.to_string(), input, Parser::Explore).warning();
    let mut cases = Vec::new();
    // Cut inside the container header: reported at the field; cut later, the entries size
    // claims more than there is.
    for (len, what, at) in [
        (0, "magic", 0),
        (3, "magic", 0),
        (4, "version", 4),
        (6, "header size", 6),
        (8, "entries size", 8),
        (12, "entries size", 8),
        (16, "first entry", 8),
        (90, "first payload", 8),
    ] {
        cases.push(nv(&format!("truncated to {len} bytes, inside the {what}"), cut(&zstd, len)).at(at));
    }
    // Cut inside the first entry's header, with the entries size made to fit: reported at the
    // entry field that is cut (or, for the payload, at the payload size that claims too much).
    for (len, what, at) in [
        (18, "entry kind", 18),
        (20, "header size", 20),
        (24, "payload size", 24),
        (32, "compressed size", 32),
        (40, "version", 40),
        (44, "arch", 44),
        (56, "flags", 56),
        (72, "uncompressed size", 72),
        (80, "payload", 24),
        (100, "payload", 24),
    ] {
        let cut_one = put_u64(cut(&zstd, len), 8, len as u64 - 16);
        cases.push(nv(&format!("entry cut at byte {len}, inside the {what}"), cut_one).at(at));
    }
    let len = zstd.len() as u64;
    let payload_size = u64_at(&zstd, 24);
    cases.extend([
        nv("wrong magic", put(zstd.clone(), 0, b"\x50\xED\x55\xBB")).at(0).says(&["magic"]),
        nv("container header size below 16", put_u16(zstd.clone(), 6, 8)).at(6).says(&["header size"]),
        nv("entries size past the end", put_u64(zstd.clone(), 8, len)).at(8).says(&["entries size"]),
        nv("entries size wrapping around", put_u64(zstd.clone(), 8, u64::MAX - 4)).at(8).says(&["64 bits"]),
        nv("entry header size below 64", put_u32(zstd.clone(), 20, 8)).at(20).says(&["header size"]),
        nv("entry header size of 4 GiB", put_u32(zstd.clone(), 20, u32::MAX)).at(80).says(&["extension"]),
        nv("entry payload size past the end", put_u64(zstd.clone(), 24, len)).at(24).says(&["payload size"]),
        nv("entry payload size near 2^64", put_u64(zstd.clone(), 24, u64::MAX)).at(24),
        nv("compressed size over the payload size", put_u32(zstd.clone(), 32, payload_size as u32 + 64))
            .at(32)
            .says(&["compressed size"]),
        nv("zstd entry declaring 64 GiB", put_u64(zstd.clone(), 72, 64 << 30)).at(72).says(&["--max-decompressed"]),
        nv("zstd entry declaring more than it holds", put_u64(zstd.clone(), 72, u64_at(&zstd, 72) + 1)).at(80),
        nv("LZ4 entry declaring 64 GiB", put_u64(lz4.clone(), 72, 64 << 30)).at(72).says(&["--max-decompressed"]),
        nv("LZ4 entry declaring 1 GiB (past what LZ4 can expand to)", put_u64(lz4.clone(), 72, 1 << 30))
            .at(72)
            .says(&["lz4 can expand to"]),
        nv("LZ4 entry whose data is cut short", put_u32(lz4.clone(), 32, u64_at(&lz4, 32) as u32 / 2))
            .at(80)
            .says(&["lz4"]),
        nv("zstd bomb: 256 MiB of zeros declared as 1 MiB", zstd_bomb()).at(80),
        e("container version 2", put_u16(zstd.clone(), 4, 2)).at(4).says(&["version 2"]),
        e("entry of unknown kind 0x40", put_u16(zstd.clone(), 16, 0x40)).at(16).says(&["kind 0x40"]),
        e("identifier outside the entry header", put_u32(put_u32(zstd.clone(), 48, 4096), 52, 8))
            .at(48)
            .says(&["identifier"]),
        e("bytes after the last container", [zstd.clone(), b"not a fatbin".to_vec()].concat())
            .at(len)
            .says(&["neither a container"]),
        case("NVIDIA fatbin", "explored zstd bomb", zstd_bomb(), Parser::Explore)
            .at(80)
            .says(&["decompression failed"]),
    ]);
    cases
}

// ---------------------------------------------------------------------------------------------
// Device images (tests/images/, made by tests/images/generate.sh): the AMDGPU metadata note,
// msgpack, cubin attribute records, SPIR-V and bitcode streams.

/// The offset of `value`, a msgpack value in the TOC, after the key `key` (both as bytes).
fn toc_value(data: &[u8], key: &[u8]) -> usize {
    find(data, key) + key.len()
}

fn kpack_cases() -> Vec<Case> {
    let plain = fixture("kpack/after/.kpack/kp_gfx90a.kpack");
    let zstd = fixture("kpack/kp_gfx1100_zstd.kpack");
    let host = fixture("kpack/after/lib/libkp.so");
    let k = |name: &str, input: Vec<u8>| case("kpack archive", name.to_string(), input, Parser::Kpack);
    let len = plain.len() as u64;
    let toc = u64_at(&plain, 8) as usize;
    // The first blob's `size` (4648, `cd 12 28`) and the first entry's `ordinal` (fixint 0).
    let blob_size = toc_value(&plain[toc..], b"\xa4size") + toc;
    let first_blob = find(&plain[toc..], b"\xa5blobs") + toc + 7;
    let ordinal = toc_value(&plain[toc..], b"\xa7ordinal") + toc;
    let ztoc = u64_at(&zstd, 8) as usize;
    let zstd_size = toc_value(&zstd[ztoc..], b"\xa9zstd_size") + ztoc;
    // The section's bytes are the last copy of the map: the transform leaves the one it first
    // appended where it was.
    let needle = b"\x82\xb2kpack_search_paths";
    let reference = host.windows(needle.len()).rposition(|w| w == needle).expect("reference in fixture");
    let mut cases = Vec::new();
    for (n, what, at) in [(0, "magic", 0), (3, "magic", 0), (6, "version", 4), (12, "TOC offset", 8)] {
        cases.push(k(&format!("truncated to {n} bytes, inside the {what}"), cut(&plain, n)).at(at));
    }
    cases.extend([
        k("wrong magic", put(plain.clone(), 0, b"KPAX")).at(0).says(&["KPAK"]),
        k("version 2", put_u32(plain.clone(), 4, 2)).at(4).says(&["version 1"]),
        k("TOC offset past the end", put_u64(plain.clone(), 8, len)).at(8).says(&["TOC offset"]),
        k("TOC offset inside the header", put_u64(plain.clone(), 8, 4)).at(8).says(&["TOC offset"]),
        k("TOC offset at the zero padding (not a map)", put_u64(plain.clone(), 8, 16)).at(16).says(&["map"]),
        k("truncated inside the TOC", cut(&plain, toc + 2)).at(toc as u64).says(&["msgpack", "7 items"]),
        k("a blob past the end", put(plain.clone(), blob_size, &[0xcd, 0xff, 0xff]))
            .at(first_blob as u64)
            .says(&["within the", "archive"]),
        k("an ordinal past the blobs", put(plain.clone(), ordinal, &[0x7f])).at(ordinal as u64).says(&["ordinal 127"]),
        k("absurd frame count", put_u32(zstd.clone(), 64, u32::MAX)).at(64).says(&["4294967295 frames"]),
        k("frame region past the end", put(zstd.clone(), zstd_size, &[0xcd, 0xff, 0xff]))
            .at(zstd_size as u64)
            .says(&["frame region"]),
        case("kpack reference", "reference that is not a map", put(host.clone(), reference, &[0x92]), Parser::Explore)
            .at(reference as u64)
            .says(&["msgpack map"]),
    ]);
    cases
}

fn image(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn image_cases() -> Vec<Case> {
    use offload::image::elf::Elf;
    let co = image("hip_kernels_gfx90a.co");
    let elf = Elf::parse(&co).unwrap();
    let (notes, _) = elf.notes();
    let note = notes.iter().find(|n| n.note_type == 32).unwrap();
    let (note_at, desc_at, desc_len) = (note.offset as usize, note.desc_offset as usize, note.desc.len());
    let note_section = elf.sections.iter().find(|s| s.sh_type == 7).unwrap();
    let e = |name: &str, input: Vec<u8>| case("AMDGPU code object", name.to_string(), input, Parser::Explore);
    let with_desc = |bytes: &[u8]| {
        let mut d = co.clone();
        d[desc_at..desc_at + desc_len].fill(0);
        d[desc_at..desc_at + bytes.len()].copy_from_slice(bytes);
        d
    };
    let vgpr = find(&co[desc_at..], b"\xab.vgpr_count") + desc_at + 12;
    let target = find(&co[desc_at..], b"\xadamdhsa.target") + desc_at + 14;
    let mut bin_target = vec![0xc4, 24];
    bin_target.extend([b'x'; 24]);
    let mut cases = vec![
        e("note descriptor size past the note section", put_u32(co.clone(), note_at + 4, 0xffff_ffff))
            .at(note_at as u64 + 4)
            .says(&["descriptor size 4294967295"]),
        e("note name size past the note section", put_u32(co.clone(), note_at, 0x7fff_ffff))
            .at(note_at as u64)
            .says(&["name size"]),
        e(
            "note section cut to half a note header",
            put_u64(co.clone(), section_size_field(&co, note_section.index), 6),
        )
        .at(note_section.offset)
        .says(&["12-byte note header"]),
        e("msgpack nesting bomb", with_desc(&[0x91; 4096][..desc_len.min(4096)]))
            .at(desc_at as u64 + 32)
            .says(&["nested"]),
        e("msgpack array of 2^32 - 1 elements", with_desc(&[0xdd, 0xff, 0xff, 0xff, 0xff]))
            .at(desc_at as u64)
            .says(&["4294967295 items"]),
        e("msgpack map of 2^32 - 1 pairs", with_desc(&[0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, b'k']))
            .at(desc_at as u64)
            .says(&["4294967295 items"]),
        e(
            "an amdhsa.kernels array claiming 65535 kernels in a 1.9 KB note",
            with_desc(&[
                0x81, 0xae, b'a', b'm', b'd', b'h', b's', b'a', b'.', b'k', b'e', b'r', b'n', b'e', b'l', b's', 0xdc,
                0xff, 0xff,
            ]),
        )
        .at(desc_at as u64 + 16)
        .says(&["65535 items"]),
        e("msgpack string longer than the note", with_desc(&[0xdb, 0x7f, 0xff, 0xff, 0xff, b'a']))
            .at(desc_at as u64 + 5)
            .says(&["string"]),
        e("an amdhsa.kernels array of 1897 empty kernels", with_desc(&many_empty_kernels(desc_len)))
            .at(desc_at as u64 + 19 + 64)
            .says(&["only the first 64 of 1897 kernels"]),
        e("msgpack never-used marker", with_desc(&[0xc1])).at(desc_at as u64).says(&["0xc1"]),
        e("metadata that is not a map", with_desc(&[0x93, 1, 2, 3]))
            .at(desc_at as u64)
            .says(&["expected a map, found an array"]),
        e(
            "amdhsa.kernels that is not an array",
            with_desc(&[
                0x81, 0xae, b'a', b'm', b'd', b'h', b's', b'a', b'.', b'k', b'e', b'r', b'n', b'e', b'l', b's', 0x07,
            ]),
        )
        .at(desc_at as u64 + 16)
        .says(&["amdhsa.kernels", "expected an array, found an integer"]),
        e("a kernel's .vgpr_count that is a boolean", put(co.clone(), vgpr, &[0xc3]))
            .warning()
            .at(vgpr as u64)
            .says(&[".vgpr_count", "expected a non-negative integer, found a boolean"]),
        e("amdhsa.target that is binary data", put(co.clone(), target, &bin_target))
            .warning()
            .at(target as u64)
            .says(&["amdhsa.target", "expected a string"]),
        e("an EF_AMDGPU_MACH no processor has", put(co.clone(), 48, &[0xee])).warning().at(48).says(&["0xee"]),
        e("section table past the end", put_u64(co.clone(), 0x28, co.len() as u64 + 64))
            .at(0)
            .says(&["section header"]),
    ];
    // Cubin: a record whose size runs past its .nv.info section, a format byte no record has.
    let cubin = image("cuda_kernels_sm80.cubin");
    let celf = Elf::parse(&cubin).unwrap();
    let info = celf.sections.iter().find(|s| s.name == ".nv.info").unwrap().offset as usize;
    let c = |name: &str, input: Vec<u8>| case("CUDA cubin", name.to_string(), input, Parser::Explore);
    cases.extend([
        c(".nv.info record size past its section", put_u16(cubin.clone(), info + 2, 0xffff))
            .at(info as u64 + 2)
            .says(&["65535 bytes declared"]),
        c(".nv.info record format 9", put(cubin.clone(), info, &[9])).at(info as u64).says(&["format 0x9"]),
    ]);
    // SPIR-V: an instruction of zero words, a header cut short.
    let spv = image("hip_kernels_amdgcnspirv.spv");
    let v = |name: &str, input: Vec<u8>| case("SPIR-V", name.to_string(), input, Parser::Explore);
    cases.extend([
        v("an instruction of zero words", put_u32(spv.clone(), 20, 0x0000_0011)).at(20).says(&["declares 0 words"]),
        v("an instruction longer than the module", put_u32(spv.clone(), 20, 0xffff_0011)).at(20).says(&["65535 words"]),
        v("a header of 12 bytes", cut(&spv, 12)).at(0).says(&["20 bytes"]),
    ]);
    // Bitcode: cut inside the module block; a block length past the end.
    let bc = image("hip_kernels_gfx90a.bc");
    let b = |name: &str, input: Vec<u8>| case("LLVM bitcode", name.to_string(), input, Parser::Explore);
    cases.extend([
        b("cut 2 bytes after the magic", cut(&bc, 6)).at(6).says(&["bits"]),
        b(
            "wrapper offset past the end",
            [&[0xDE, 0xC0, 0x17, 0x0B, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0][..], &bc[..]].concat(),
        )
        .at(8)
        .says(&["bitcode wrapper"]),
    ]);
    cases
}

/// The fixture with its first entry's payload replaced by a zstd frame of 256 MiB of zeros
/// (a few KiB) that declares 1 MiB.
fn zstd_bomb() -> Vec<u8> {
    use std::sync::OnceLock;
    static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
    BOMB.get_or_init(|| {
        let good = nv_fixture("nv_3arch_size.fatbin");
        let (mut c, _) = nv_fatbin::Container::parse(&good).unwrap();
        let frame = offload::codec::compress(offload::codec::Method::Zstd, None, &vec![0u8; 256 << 20]).unwrap();
        let mut e = c.entries[0].clone();
        e.payload =
            std::borrow::Cow::Owned([frame.clone(), vec![0; frame.len().next_multiple_of(8) - frame.len()]].concat());
        e.payload_size = e.payload.len() as u64;
        e.compressed_size = frame.len() as u32;
        e.uncompressed_size = 1 << 20;
        c.entries[0] = e;
        c.write_new().unwrap()
    })
    .clone()
}

/// A metadata map whose amdhsa.kernels array fills the note with empty maps: a kernel per byte.
fn many_empty_kernels(len: usize) -> Vec<u8> {
    let mut d = vec![0x81, 0xae];
    d.extend(b"amdhsa.kernels");
    let n = len - d.len() - 3;
    d.extend([0xdc, (n >> 8) as u8, n as u8]);
    d.extend(std::iter::repeat_n(0x80, n));
    d
}

/// Where the `sh_size` of section `index` lies in an ELF64 file.
fn section_size_field(elf: &[u8], index: usize) -> usize {
    let shoff = u64_at(elf, 0x28) as usize;
    shoff + index * 64 + 32
}

// ---------------------------------------------------------------------------------------------
// Packages (made by zip, tar, gzip and dpkg-deb: tests/fixtures/packages/generate.sh), and zips
// written here where the tools will not write the hostile thing

fn package_fixture(name: &str) -> Vec<u8> {
    fixture(&format!("packages/{name}"))
}

/// One zip member for [`zip_of`]: its name, the bytes stored, the method, and the uncompressed
/// size the headers declare (written in a ZIP64 extra field when it does not fit 32 bits).
struct ZipMember<'a> {
    name: &'a str,
    stored: Vec<u8>,
    method: u16,
    size: u64,
}

/// A zip of `members`, as `zip` lays it out: local headers and data, central directory, end
/// record. Returns the bytes and where each member's data starts.
fn zip_of(members: &[ZipMember]) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut data_at = Vec::new();
    for m in members {
        let offset = out.len() as u32;
        let big = m.size > u32::MAX as u64;
        let extra: Vec<u8> = if big {
            [&1u16.to_le_bytes()[..], &8u16.to_le_bytes(), &m.size.to_le_bytes()].concat()
        } else {
            Vec::new()
        };
        let common = |h: &mut Vec<u8>| {
            h.extend_from_slice(&45u16.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&m.method.to_le_bytes());
            h.extend_from_slice(&[0; 8]); // time, date, CRC-32
            h.extend_from_slice(&(m.stored.len() as u32).to_le_bytes());
            h.extend_from_slice(&(if big { u32::MAX } else { m.size as u32 }).to_le_bytes());
            h.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(m.name.as_bytes());
        out.extend_from_slice(&extra);
        data_at.push(out.len() as u64);
        out.extend_from_slice(&m.stored);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&45u16.to_le_bytes());
        common(&mut central);
        central.extend_from_slice(&[0; 10]); // comment length, disk, attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(m.name.as_bytes());
        central.extend_from_slice(&extra);
    }
    let cd = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    (out, data_at)
}

fn stored<'a>(name: &'a str, data: &[u8]) -> ZipMember<'a> {
    ZipMember { name, stored: data.to_vec(), method: 0, size: data.len() as u64 }
}

/// Zips in zips, `depth` levels, the innermost holding a ROCm library.
fn nested_zips(depth: usize) -> Vec<u8> {
    let mut inner = fixture("libhip_3tu_compressed.so");
    for _ in 0..depth {
        inner = zip_of(&[stored("z", &inner)]).0;
    }
    inner
}

/// `tar` with `bytes` written at `field` of the header at `header`, its checksum made right, so
/// that the header is read and the field is what is wrong.
fn tar_header_changed(tar: &[u8], header: usize, field: usize, bytes: &[u8]) -> Vec<u8> {
    let mut t = put(tar.to_vec(), header + field, bytes);
    t[header + 148..header + 156].copy_from_slice(b"        ");
    let sum: u32 = t[header..header + 512].iter().map(|&b| u32::from(b)).sum();
    t[header + 148..header + 156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    t
}

fn package_cases() -> Vec<Case> {
    let e = |name: &str, input: Vec<u8>| case("package", name.to_string(), input, Parser::Explore);
    let whl = package_fixture("gpu_libs-1.0-py3-none-linux_x86_64.whl");
    let stored_zip = package_fixture("stored.zip");
    let tar = package_fixture("pkg.tar");
    let tgz = package_fixture("pkg.tar.gz");
    let deb = package_fixture("gpu-libs_1.0_amd64.deb");
    let end = whl.len() - 22;
    let so = fixture("libhip_3tu_compressed.so");
    let so_header = find(&tar, b"./pkg/lib/libhip_3tu.so");

    // A deflated library that claims 100 GiB (ZIP64), and one whose 64 MiB of zeros are
    // declared as 1 KiB (a deflate bomb).
    let elf = miniz_oxide::deflate::compress_to_vec(&so, 6);
    let (claims_100_gib, at_100) = zip_of(&[ZipMember { name: "lib.so", stored: elf, method: 8, size: 100 << 30 }]);
    let mut zeros = so[..64].to_vec();
    zeros.resize(64 << 20, 0);
    let bomb_data = miniz_oxide::deflate::compress_to_vec(&zeros, 6);
    let bomb_at = offload::codec::inflate_raw(&bomb_data, 1024, 1 << 30).unwrap_err().offset;
    let (bomb, bomb_data_at) = zip_of(&[ZipMember { name: "bomb.so", stored: bomb_data, method: 8, size: 1024 }]);
    // Two members whose central entries point at the same local header.
    let (two, _) = zip_of(&[stored("a.so", &so), stored("b.so", &so)]);
    let cd = u32::from_le_bytes(two[two.len() - 6..two.len() - 2].try_into().unwrap()) as usize;
    let second = cd + 46 + "a.so".len();
    let overlapping = put_u32(two, second + 42, 0);
    // Names that climb out: every `pkg/` in the wheel made `..//`.
    let mut climbing = whl.clone();
    while let Some(at) = climbing.windows(4).position(|w| w == b"pkg/") {
        climbing[at..at + 4].copy_from_slice(b"..//");
    }
    let deb_data = find(&deb, b"data.tar");
    let cd_start = find(&stored_zip, b"PK\x01\x02");
    let readme = cd_start + find(&stored_zip[cd_start..], b"pkg/doc/README.txt") - 46;
    let max = offload::format::package::MAX_PACKAGE_DEPTH as u64;
    vec![
        e("zip truncated inside its end record", cut(&whl, whl.len() - 10)).at(0).says(&["no end record"]),
        e("zip whose entry count is past its central directory", put_u16(whl.clone(), end + 10, 60000))
            .at(end as u64 + 10)
            .says(&["entries"]),
        e("zip whose central directory is larger than the file", put_u32(whl.clone(), end + 12, 1 << 30))
            .at(end as u64 + 12)
            .says(&["central directory size"]),
        e("zip stored member whose sizes disagree", put_u32(stored_zip.clone(), readme + 24, 1 << 30))
            .at(readme as u64 + 20)
            .says(&["stored member"]),
        e("zip member that claims 100 GiB", claims_100_gib).at(at_100[0]).says(&["107374182400", "limit"]),
        e("zip deflate bomb: 64 MiB of zeros declared as 1 KiB", bomb)
            .at(bomb_data_at[0] + bomb_at)
            .says(&["expands to more"]),
        e("zip members that overlap", overlapping).at(0).says(&["overlap"]),
        e("zip member names with ../", climbing).warning().at(0).says(&["never used as a path"]),
        e("zips nested deeper than the package limit", nested_zips(6))
            .warning()
            .at(31 * max)
            .says(&["nested deeper than 4"]),
        e("tar truncated inside a header", cut(&tar, 1024 + 100)).at(1024).says(&["512-byte header"]),
        e("tar header checksum damaged", put(tar.clone(), so_header + 10, b"X"))
            .at(so_header as u64 + 148)
            .says(&["checksum"]),
        e("tar member that claims 100 GiB", tar_header_changed(&tar, so_header, 124, b"\x80\0\0\0\0\0\0\x19\0\0\0\0"))
            .at(so_header as u64 + 124)
            .says(&["107374182400 bytes"]),
        e("gzip truncated inside its header", cut(&tgz, 6)).at(0).says(&["10-byte header"]),
        e("deb truncated inside its data member", cut(&deb, deb.len() - 100)).at(deb_data as u64 + 48).says(&["size"]),
    ]
}

// ---------------------------------------------------------------------------------------------
// Running

fn catalogue() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(offload_binary_cases());
    all.extend(bundle_cases());
    all.extend(bundle_diagnostic_cases());
    all.extend(text_bundle_cases());
    all.extend(compressed_cases());
    all.extend(archive_cases());
    all.extend(explorer_cases());
    all.extend(sycl_cases());
    all.extend(nv_fatbin_cases());
    all.extend(kpack_cases());
    all.extend(package_cases());
    all.extend(image_cases());
    all.extend(disasm_cases());
    all
}

/// Code objects the disassembler cannot list, and kernel descriptors it cannot print.
fn disasm_cases() -> Vec<Case> {
    let co = image("hip_kernels_gfx90a.co");
    let d = |name: &str, input: Vec<u8>| case("AMDGPU disassembly", name.to_string(), input, Parser::Disasm);
    let kd = |name: &str, input: Vec<u8>| {
        case("AMDGPU kernel descriptor", name.to_string(), input, Parser::KernelDescriptor)
    };
    // The section name string table holds ".text" once; renamed, the code object has no code.
    let shstrtab = {
        let elf = offload::image::elf::Elf::parse(&co).unwrap();
        elf.sections.iter().find(|s| s.name == ".shstrtab").unwrap().offset as usize
    };
    let text_name = find(&co[shstrtab..], b".text\0") + shstrtab;
    let descriptor = |at: usize, byte: u8| {
        let mut bytes = vec![0u8; 64];
        bytes[at] = byte;
        bytes
    };
    vec![
        d("a CUDA cubin", image("cuda_kernels_sm80.cubin")).at(18).says(&["e_machine 224"]),
        d("EF_AMDGPU_MACH 0xff", put(co.clone(), 48, &[0xff])).at(48).says(&["EF_AMDGPU_MACH"]),
        d("a gfx700 code object (GFX7 is not decoded)", put(co.clone(), 48, &[0x22])).at(48).says(&["gfx700"]),
        d("no .text section", put(co.clone(), text_name, b".txet")).at(0).says(&[".text section"]),
        kd("32 bytes", vec![0u8; 32]).at(0).says(&["64 bytes", "32 bytes"]),
        kd("a priority set in COMPUTE_PGM_RSRC1", descriptor(49, 0x04)).at(48).says(&["PRIORITY", "(11:10)"]),
        kd("a reserved bit of kernel_code_properties", descriptor(57, 0x80)).at(56).says(&["(463:460)"]),
        kd("the last reserved dword", descriptor(63, 1)).at(60).says(&["(511:480)"]),
    ]
}

/// Everything the reader said: one error for a parser, every error and warning for the explorer.
fn run(parser: Parser, input: &[u8]) -> Vec<Report> {
    let error = |e: offload::Error| Report { severity: Outcome::Error, at: e.offset, message: e.to_string() };
    let refused = match parser {
        Parser::OffloadBinary => offload_binary::parse(input).err(),
        Parser::Bundle => bundle::Bundle::parse(input).err(),
        Parser::Text(comment) => text_bundle::TextBundle::parse(input, comment).err(),
        Parser::Compressed => compressed_problem(input),
        Parser::Archive => archive::read(input).and_then(archive::Archive::complete).err(),
        Parser::NvFatbin => nv_fatbin_problem(input),
        Parser::Kpack => kpack_problem(input),
        Parser::Disasm => offload::disasm::Listing::of_code_object(input).err(),
        Parser::KernelDescriptor => {
            offload::disasm::descriptor::directives(offload::disasm::Isa::Gfx90a, "k", input).err()
        }
        Parser::Explore => return problems(&explore(input, "case", &Options::default()).root),
    };
    refused.map(error).into_iter().collect()
}

/// What reading, decompressing and checking a compressed bundle ends in, as the CLI checks it.
fn compressed_problem(input: &[u8]) -> Option<offload::Error> {
    let cb = match compressed::CompressedBundle::parse(input) {
        Ok(cb) => cb,
        Err(e) => return Some(e),
    };
    match cb.verify(Options::default().max_decompressed) {
        Err(e) => Some(e),
        Ok(v) if !v.ok() => Some(compressed::hash_mismatch(&cb.header, v.computed)),
        Ok(_) => None,
    }
}

/// What reading a buffer of fatbin containers and decompressing every entry ends in.
fn nv_fatbin_problem(input: &[u8]) -> Option<offload::Error> {
    if !nv_fatbin::is_fatbin(input) {
        return nv_fatbin::Container::parse(input).err();
    }
    for found in nv_fatbin::walk(input) {
        match found.piece {
            nv_fatbin::Piece::Container(c, layout) => {
                for (e, at) in c.entries.iter().zip(&layout.entries) {
                    if let Err(err) = nv_fatbin::payload::entry_data(e, Options::default().max_decompressed) {
                        return Some(err.shifted(found.offset + at));
                    }
                }
            }
            nv_fatbin::Piece::Unreadable(e) => return Some(e),
            nv_fatbin::Piece::Unknown => {
                return Some(offload::Error::new(found.offset, "fatbin", "a container or zero padding", "other bytes"))
            }
            nv_fatbin::Piece::Padding => {}
        }
    }
    None
}

/// What reading a kpack archive and locating every entry's code object ends in.
fn kpack_problem(input: &[u8]) -> Option<offload::Error> {
    let archive = match kpack::read(input) {
        Ok(a) => a,
        Err(e) => return Some(e),
    };
    if let Err(e) = &archive.stored {
        return Some(e.clone());
    }
    archive.entries.iter().find_map(|e| archive.stored(e, input.len() as u64).err())
}

/// The explorer's errors and warnings, in tree order.
fn problems(root: &Node) -> Vec<Report> {
    let mut found = Vec::new();
    root.walk(&mut |node, _| {
        for d in &node.diagnostics {
            let severity = match d.severity {
                Severity::Error => Outcome::Error,
                Severity::Warning => Outcome::Warning,
                _ => continue,
            };
            let at = d.span.map_or(node.span.offset, |s| s.offset);
            found.push(Report { severity, at, message: format!("{}: {}", node.label, d.message) });
        }
    });
    found
}

/// Runs one case on its own thread, returning its report and its peak heap use.
fn run_bounded(parser: Parser, input: Vec<u8>) -> Result<(Vec<Report>, usize), String> {
    let (tx, rx) = mpsc::channel();
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    std::thread::spawn(move || {
        let report = run(parser, &input);
        let _ = tx.send(report);
    });
    match rx.recv_timeout(HANG_DEADLINE) {
        Ok(report) => Ok((report, PEAK.load(Ordering::Relaxed).saturating_sub(base))),
        Err(_) => Err(format!("no answer within {HANG_DEADLINE:?}: the reader hangs")),
    }
}

/// The report that answers the case: the first one at the right byte with the right words and
/// severity; otherwise an explanation listing what was said instead.
fn check(case: &Case, reports: Vec<Report>) -> Result<String, String> {
    if reports.is_empty() {
        return Err("accepted without a word".into());
    }
    let mut misses = Vec::new();
    for report in &reports {
        match mismatch(case, report) {
            None => return Ok(report.message.clone()),
            Some(why) => misses.push(format!("{why} — message: {}", report.message)),
        }
    }
    Err(misses.join(" | "))
}

fn mismatch(case: &Case, report: &Report) -> Option<String> {
    let text = report.message.to_lowercase();
    let mut problems = Vec::new();
    if case.outcome == Outcome::Error && report.severity != Outcome::Error {
        problems.push("only a warning where an error is due".to_string());
    }
    if report.at != case.at {
        problems.push(format!("points at byte {} instead of {}", report.at, case.at));
    }
    for word in &case.says {
        if !text.contains(&word.to_lowercase()) {
            problems.push(format!("does not say '{word}'"));
        }
    }
    let explained = text.contains("expected") && text.contains("found");
    if !(explained || case.parser_is_explore()) {
        problems.push("does not say what was expected and found".into());
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

impl Case {
    fn parser_is_explore(&self) -> bool {
        matches!(self.parser, Parser::Explore)
    }
}

#[test]
fn every_bad_input_gets_a_clear_bounded_answer() {
    let cases = catalogue();
    assert!(cases.len() >= 60, "the catalogue holds {} cases, fewer than 60", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let budget = MEMORY_ALLOWANCE + 4 * case.input.len();
        let outcome = run_bounded(case.parser, case.input.clone());
        let verdict = outcome.and_then(|(reports, peak)| {
            let message = check(case, reports)?;
            if peak > budget {
                return Err(format!("used {peak} bytes of heap, over the budget of {budget}"));
            }
            Ok(format!("{message} [peak heap {} KiB]", peak >> 10))
        });
        match verdict {
            Ok(message) => println!("ok   {:<18} {:<70} {message}", case.format, case.name),
            Err(problem) => {
                println!("FAIL {:<18} {:<70} {problem}", case.format, case.name);
                failures.push(format!("{} / {}: {problem}", case.format, case.name));
            }
        }
    }
    println!("{} cases", cases.len());
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// A shared library cut short after its `.hip_fatbin` (so its section table is gone) still shows
/// every compressed bundle, found by their magic, beside the error that says it is truncated.
#[test]
fn a_truncated_library_still_shows_its_bundles() {
    let so = fixture("libhip_3tu_compressed.so");
    let whole = explore(&so[..], "whole", &Options::default());
    let bundles = |root: &Node| {
        let mut n = 0;
        root.walk(&mut |node, _| n += usize::from(node.kind == offload::tree::NodeKind::CompressedBundle));
        n
    };
    let expected = bundles(&whole.root);
    assert!(expected >= 3, "the fixture has {expected} compressed bundles");
    let fatbin = offload::format::host::read_host(&so[..])
        .unwrap()
        .sections
        .into_iter()
        .find(|s| s.name == ".hip_fatbin")
        .unwrap();
    let cut_at = (fatbin.file_offset + fatbin.data.len() as u64) as usize;
    let truncated = explore(&so[..cut_at], "cut", &Options::default());
    assert_eq!(bundles(&truncated.root), expected);
    let said = problems(&truncated.root);
    assert!(said.iter().any(|r| r.at == 0x28 && r.message.contains("truncated")), "{said:?}");
}
