//! New payloads in the offload sections of real host files (`offload::replace`): HIP objects
//! built in the test run by clang-22 against `llvm-objcopy --update-section`, the committed
//! COFF and Mach-O objects checked with llvm-readobj, llvm-objcopy and the LLVM linkers, a HIP
//! shared library written in place, and damaged inputs. Tests that need a tool say so and return
//! when it is missing.

mod common;
use common::{hosts, tool, Scratch};
use offload::codec::Method;
use offload::explore::{explore, Options};
use offload::format::bundle::binary::Bundle;
use offload::format::bundle::compressed::{self, CompressedBundle};
use offload::format::host;
use offload::replace::replace_section;
use std::path::{Path, PathBuf};
use std::process::Command;

const SUITE: &str = "replace";

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
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

fn target_ids(data: &[u8]) -> Vec<String> {
    let tree = explore(data, "x", &Options::default());
    offload::report::targets::collect(&tree).into_iter().map(|t| t.target_id).collect()
}

/// Runs a tool, requires success, returns (stdout, stderr).
fn run(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(out.status.success(), "{cmd:?} failed:\n{}\n{}", text(&out.stdout), text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// `llvm-readelf -a --wide` reads the file without a warning or an error.
fn readelf_is_clean(readelf: &Path, file: &Path) {
    let (_, stderr) = run(Command::new(readelf).args(["-a", "--wide"]).arg(file));
    assert!(stderr.is_empty(), "llvm-readelf -a --wide {}: {stderr}", file.display());
}

/// The bytes of `section` as llvm-objcopy dumps them.
fn dump_section(objcopy: &Path, file: &Path, section: &str, s: &Scratch) -> Vec<u8> {
    let out = s.path("dumped.bin");
    run(Command::new(objcopy)
        .arg(format!("--dump-section={section}={}", out.display()))
        .arg(file)
        .arg(s.path("objcopy-discard")));
    std::fs::read(out).unwrap()
}

fn decompress(ccob: &[u8]) -> Vec<u8> {
    CompressedBundle::parse(ccob).unwrap().decompress(1 << 30).unwrap()
}

/// A bigger and a smaller valid payload for a `.hip_fatbin` that holds `original`: a compressed
/// bundle is decompressed, or re-wrapped under a version 2 header (8 bytes shorter); a bundle is
/// re-laid out at 8192-byte alignment, or compressed.
fn bigger_and_smaller(original: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let (bigger, smaller) = if compressed::is_compressed(original) {
        let cb = CompressedBundle::parse(original).unwrap();
        (decompress(original), cb.with_version(2).unwrap().to_bytes().unwrap())
    } else {
        let mut b = Bundle::parse(original).unwrap();
        b.relayout(8192).unwrap();
        (b.write().unwrap(), compressed::compress(original, Method::Zstd, None, 3).unwrap())
    };
    assert!(bigger.len() > original.len() && smaller.len() < original.len());
    (bigger, smaller)
}

/// The HIP object's `.hip_fatbin` replaced by a bigger and a smaller payload, with and without
/// `--offload-compress`: byte-identical to `llvm-objcopy --update-section`, readable by
/// llvm-readelf without a warning, and exploring to the same device targets.
#[test]
fn elf_hip_objects_match_llvm_objcopy_update_section() {
    const TEST: &str = "elf_hip_objects_match_llvm_objcopy_update_section";
    let (Some(clang), Some(objcopy), Some(readelf)) =
        (tool("clang", TEST), tool("llvm-objcopy", TEST), tool("llvm-readelf", TEST))
    else {
        return;
    };
    let s = Scratch::new(SUITE, "elf");
    for compress in [false, true] {
        let extra: &[&str] = if compress { &["--offload-compress"] } else { &[] };
        let obj = hosts::hip_object(&clang, s.dir(), "kern.hip", hosts::KERN_HIP, "kern.o", extra);
        let input = std::fs::read(&obj).unwrap();
        let original = section(&input, ".hip_fatbin").to_vec();
        let (bigger, smaller) = bigger_and_smaller(&original);
        assert_eq!(compressed::is_compressed(&original), compress);
        for (what, payload) in [("bigger", &bigger), ("smaller", &smaller)] {
            let r = replace_section(&input, ".hip_fatbin", payload).unwrap();
            assert!(!r.in_place && r.new_size == payload.len() as u64, "{what}");
            let payload_path = s.write("payload.bin", payload);
            let reference = s.path("reference.o");
            run(Command::new(&objcopy)
                .arg(format!("--update-section=.hip_fatbin={}", payload_path.display()))
                .arg(&obj)
                .arg(&reference));
            let ours = s.write("ours.o", &r.bytes);
            assert!(
                r.bytes == std::fs::read(&reference).unwrap(),
                "compress={compress} {what}: differs from llvm-objcopy --update-section"
            );
            readelf_is_clean(&readelf, &ours);
            assert_eq!(dump_section(&objcopy, &ours, ".hip_fatbin", &s), *payload);
            assert_eq!(
                target_ids(&r.bytes),
                ["hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a"],
                "compress={compress} {what}"
            );
        }
    }
}

/// llvm-readobj's view of a COFF object, split into the lines that may change when a section's
/// raw data is replaced (file pointers, the section's size, its definition's length and
/// checksum) and everything else, which must not.
fn coff_view(readobj: &Path, file: &Path) -> (Vec<String>, Vec<String>) {
    let (text, _) = run(Command::new(readobj).args(["--sections", "--relocations", "--symbols"]).arg(file));
    let movable = ["File:", "PointerToRawData:", "PointerToRelocations:", "RawDataSize:", "Length:", "Checksum:"];
    let (moved, fixed) =
        text.lines().map(str::to_string).partition(|l: &String| movable.iter().any(|m| l.trim_start().starts_with(m)));
    (fixed, moved)
}

/// LLVM's COFF section checksum, written independently of the code under test: CRC-32 (bit by
/// bit) from 0 without the final inversion.
fn coff_checksum(data: &[u8]) -> u32 {
    let mut crc = 0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xedb8_8320 & (crc & 1).wrapping_neg());
        }
    }
    crc
}

/// COFF objects made by clang-22: the section grows and shrinks, relocations and symbols are
/// unchanged (llvm-readobj), the section holds the payload (llvm-objcopy --dump-section), the
/// section definition's length and checksum follow it, and lld-link links the result.
#[test]
fn coff_objects_grow_and_shrink() {
    const TEST: &str = "coff_objects_grow_and_shrink";
    let (Some(readobj), Some(objcopy)) = (tool("llvm-readobj", TEST), tool("llvm-objcopy", TEST)) else { return };
    let s = Scratch::new(SUITE, "coff");
    for name in ["hip_coff_2arch.obj", "hip_coff_compressed.obj"] {
        let input = fixture(name);
        let original = section(&input, ".hip_fatbin").to_vec();
        // The checksum LLVM wrote is the one this test computes, so the test's definition is LLVM's.
        let (_, before) = run(Command::new(&readobj).arg("--symbols").arg(fixture_path(name)))
            .0
            .split_once(".hip_fatbin")
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap();
        assert!(before.contains(&format!("Checksum: 0x{:X}", coff_checksum(&original))), "{name}: {before}");
        // Replacing with the same bytes gives the same file.
        assert_eq!(replace_section(&input, ".hip_fatbin", &original).unwrap().bytes, input, "{name}");
        let (grow, shrink) = bigger_and_smaller(&original);
        // A payload that would not read back (a compressed bundle cut short) is refused.
        let cut = compressed::compress(&original, Method::Zlib, Some(9), 3).unwrap();
        let e = replace_section(&input, ".hip_fatbin", &cut[..cut.len() - 1]).unwrap_err();
        assert_eq!(
            (e.context, e.expected.as_str()),
            ("rewritten file", "a file that explores without new errors"),
            "{name}"
        );
        for (what, payload) in [("grown", &grow), ("shrunk", &shrink)] {
            let r = replace_section(&input, ".hip_fatbin", payload).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
            let out = s.write("out.obj", &r.bytes);
            let (fixed_in, movable_in) = coff_view(&readobj, &fixture_path(name));
            let (fixed_out, movable_out) = coff_view(&readobj, &out);
            assert_eq!(fixed_in, fixed_out, "{name} {what}: relocations, symbols or section headers changed");
            assert!(
                movable_out.contains(&format!("    RawDataSize: {}", payload.len())),
                "{name} {what}: {movable_out:?}"
            );
            assert!(
                movable_out.contains(&format!("      Length: {}", payload.len())),
                "{name} {what}: {movable_out:?}"
            );
            assert!(
                movable_out.contains(&format!("      Checksum: 0x{:X}", coff_checksum(payload))),
                "{name} {what}: {movable_out:?}"
            );
            assert_ne!(movable_in, movable_out);
            assert_eq!(dump_section(&objcopy, &out, ".hip_fatbin", &s), *payload, "{name} {what}");
            if let Some(lld_link) = tool("lld-link", TEST) {
                let dll = s.path("out.dll");
                run(Command::new(&lld_link)
                    .args(["/dll", "/noentry", "/force:unresolved", "/nodefaultlib"])
                    .arg(format!("/out:{}", dll.display()))
                    .arg(&out));
                // The linker cuts the name to 8 characters.
                assert_eq!(
                    &dump_section(&objcopy, &dll, ".hip_fat", &s)[..payload.len()],
                    &payload[..],
                    "{name} {what}: linked DLL"
                );
                pe_section_is_rewritten_in_place(&read_back(&dll), &objcopy, &s);
            }
        }
    }
}

fn read_back(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// A linked PE (DLL): a smaller payload goes in place with a zero tail and the section keeps its
/// size; a bigger one is refused.
fn pe_section_is_rewritten_in_place(dll: &[u8], objcopy: &Path, s: &Scratch) {
    // The explorer recognises the PE (its NT headers lie beyond the first 64 bytes) and finds
    // the fat binary in its section rather than by scanning the whole file.
    let tree = explore(dll, "out.dll", &Options::default());
    assert!(tree.root.children.iter().any(|n| n.label.starts_with("section .hip_fat")), "{:#?}", tree.root);
    let old = section(dll, ".hip_fat").to_vec();
    // A small valid payload: a compressed bundle holding only an empty host entry.
    let host_only =
        Bundle::new(vec![("host-x86_64-pc-windows-msvc-".to_string(), std::borrow::Cow::Borrowed(&[][..]))], 1)
            .unwrap()
            .write()
            .unwrap();
    let payload = &compressed::compress(&host_only, Method::Zstd, None, 3).unwrap()[..];
    assert!(payload.len() < old.len());
    // A cut-off compressed bundle would not read back, and is refused.
    let e = replace_section(dll, ".hip_fat", &payload[..payload.len() - 1]).unwrap_err();
    assert_eq!(e.context, "rewritten file");
    let r = replace_section(dll, ".hip_fat", payload).unwrap();
    assert!(r.in_place && r.new_size == old.len() as u64 && r.bytes.len() == dll.len());
    let dumped = dump_section(objcopy, &s.write("inplace.dll", &r.bytes), ".hip_fat", s);
    assert_eq!(&dumped[..payload.len()], payload);
    assert!(dumped[payload.len()..old.len()].iter().all(|&b| b == 0));
    let mut bigger = old.clone();
    bigger.extend_from_slice(&[0xee; 25]);
    let e = replace_section(dll, ".hip_fat", &bigger).unwrap_err();
    assert_eq!(e.found, format!("{} bytes, 25 bytes over", bigger.len()));
    assert!(e.expected.contains("PE"), "{e}");
}

/// The committed Mach-O object (an offload binary added by llvm-objcopy as `__LLVM,__offloading`,
/// the last section by address) takes a bigger payload; only the section size changes in
/// llvm-readobj's view, the section holds the payload and ld64.lld links the object.
#[test]
fn macho_object_last_section_grows() {
    const TEST: &str = "macho_object_last_section_grows";
    let (Some(readobj), Some(objcopy)) = (tool("llvm-readobj", TEST), tool("llvm-objcopy", TEST)) else { return };
    let s = Scratch::new(SUITE, "macho");
    let input = fixture("macho_objcopy_offloading.o");
    assert_eq!(
        replace_section(&input, "__LLVM,__offloading", section(&input, "__LLVM,__offloading")).unwrap().bytes,
        input
    );
    let payload = fixture("omp_elf_2arch.offload");
    let r = replace_section(&input, "__LLVM,__offloading", &payload).unwrap();
    let out = s.write("out.o", &r.bytes);
    let view = |f: &Path| {
        run(Command::new(&readobj).args(["--sections", "--relocations", "--symbols"]).arg(f))
            .0
            .lines()
            .filter(|l| !l.starts_with("File:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (a, b) = (view(&fixture_path("macho_objcopy_offloading.o")), view(&out));
    let changed: Vec<(&String, &String)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
    assert_eq!(changed, [(&"    Size: 0x1E40".to_string(), &format!("    Size: 0x{:X}", payload.len()))]);
    assert_eq!(dump_section(&objcopy, &out, "__LLVM,__offloading", &s), payload);
    assert_eq!(target_ids(&r.bytes), ["amdgcn-amd-amdhsa-gfx1030", "amdgcn-amd-amdhsa-gfx90a:xnack+"]);
    if let Some(ld64) = tool("ld64.lld", TEST) {
        run(Command::new(ld64)
            .args([
                "-arch",
                "x86_64",
                "-platform_version",
                "macos",
                "11.0",
                "11.0",
                "-dylib",
                "-undefined",
                "dynamic_lookup",
            ])
            .arg(&out)
            .arg("-o")
            .arg(s.path("out.dylib")));
    }
}

/// A Mach-O object whose `__HIP,__hip_fatbin` has `__DATA,__data` right after it: growing is
/// refused (addresses are fixed), shrinking works with symbols and relocations unchanged, and
/// ld64.lld links the result with the new bytes in place.
#[test]
fn macho_object_middle_section_shrinks_but_does_not_grow() {
    const TEST: &str = "macho_object_middle_section_shrinks_but_does_not_grow";
    let (Some(clang), Some(objdump), Some(objcopy)) =
        (tool("clang", TEST), tool("llvm-objdump", TEST), tool("llvm-objcopy", TEST))
    else {
        return;
    };
    let s = Scratch::new(SUITE, "macho-middle");
    std::fs::write(
        s.path("fat.c"),
        "__attribute__((section(\"__HIP,__hip_fatbin\"), used)) const unsigned char fatbin[64] = \"__CLANG_OFFLOAD_BUNDLE__\";\n\
         __attribute__((used)) int counter = 7;\n\
         const unsigned char *get(void) { return fatbin; }\n",
    )
    .unwrap();
    run(Command::new(&clang).current_dir(s.dir()).args([
        "--target=x86_64-apple-macos11",
        "-O2",
        "-c",
        "fat.c",
        "-o",
        "fat.o",
    ]));
    let input = std::fs::read(s.path("fat.o")).unwrap();
    let e = replace_section(&input, "__HIP,__hip_fatbin", &[7u8; 100]).unwrap_err();
    assert_eq!(e.context, "Mach-O section address range");
    assert!(e.found.contains("section `__DATA,__data`"), "{e}");
    let payload: Vec<u8> = (0..30).collect();
    // The bare section name is enough when it is unambiguous.
    let r = replace_section(&input, "__hip_fatbin", &payload).unwrap();
    let out = s.write("out.o", &r.bytes);
    let view = |f: &Path| {
        run(Command::new(&objdump).args(["-r", "-t"]).arg(f)).0.lines().skip(2).map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(view(&s.path("fat.o")), view(&out), "symbols or relocations changed");
    assert_eq!(dump_section(&objcopy, &out, "__HIP,__hip_fatbin", &s), payload);
    if let Some(ld64) = tool("ld64.lld", TEST) {
        let dylib = s.path("out.dylib");
        run(Command::new(ld64)
            .args([
                "-arch",
                "x86_64",
                "-platform_version",
                "macos",
                "11.0",
                "11.0",
                "-dylib",
                "-undefined",
                "dynamic_lookup",
            ])
            .arg(&out)
            .arg("-o")
            .arg(&dylib));
        assert_eq!(dump_section(&objcopy, &dylib, "__HIP,__hip_fatbin", &s), payload);
        // In the linked library the section is rewritten in place, and cannot grow.
        let linked = std::fs::read(&dylib).unwrap();
        let r = replace_section(&linked, "__HIP,__hip_fatbin", &[9u8; 10]).unwrap();
        assert!(r.in_place && r.new_size == 30);
        let mut expected = vec![9u8; 10];
        expected.resize(30, 0);
        assert_eq!(dump_section(&objcopy, &s.write("inplace.dylib", &r.bytes), "__HIP,__hip_fatbin", &s), expected);
        let e = replace_section(&linked, "__HIP,__hip_fatbin", &[1u8; 31]).unwrap_err();
        assert_eq!(e.found, "31 bytes, 1 byte over");
    }
}

/// A linked HIP shared library (three compressed bundles in `.hip_fatbin`): a payload that fits
/// is written in place, zero-filled, the section size unchanged; one that does not is refused
/// with the number of bytes it is over.
#[test]
fn linked_library_is_rewritten_in_place_only_when_the_payload_fits() {
    const TEST: &str = "linked_library_is_rewritten_in_place_only_when_the_payload_fits";
    let (Some(clang), Some(readelf)) = (tool("clang", TEST), tool("llvm-readelf", TEST)) else { return };
    let s = Scratch::new(SUITE, "library");
    let lib = hosts::hip_shared_library(&clang, s.dir());
    let input = std::fs::read(&lib).unwrap();
    let fatbin = section(&input, ".hip_fatbin").to_vec();
    let first = compressed::walk(&fatbin).next().unwrap().bytes.to_vec();
    assert_eq!(target_ids(&input).len(), 6, "three translation units, two targets each");
    let r = replace_section(&input, ".hip_fatbin", &first).unwrap();
    assert!(r.in_place && r.new_size == fatbin.len() as u64 && r.bytes.len() == input.len());
    let out = s.write("out.so", &r.bytes);
    readelf_is_clean(&readelf, &out);
    let (before, _) = run(Command::new(&readelf).args(["-S", "-W"]).arg(&lib));
    let (after, _) = run(Command::new(&readelf).args(["-S", "-W"]).arg(&out));
    assert_eq!(
        before.lines().filter(|l| !l.contains("File:")).collect::<Vec<_>>(),
        after.lines().filter(|l| !l.contains("File:")).collect::<Vec<_>>(),
        "section headers changed"
    );
    assert_eq!(&section(&r.bytes, ".hip_fatbin")[..first.len()], &first[..]);
    assert_eq!(target_ids(&r.bytes), ["hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a"]);
    let too_big = decompress(&first);
    let over = too_big.len() - fatbin.len();
    let e = replace_section(&input, ".hip_fatbin", &too_big).unwrap_err();
    assert_eq!(e.found, format!("{} bytes, {over} bytes over", too_big.len()));
    assert!(e.expected.contains("fixed addresses"), "{e}");
}

#[test]
fn unknown_sections_are_refused_with_the_list_of_offload_sections() {
    let e = replace_section(&fixture("hip_elf_2arch.o"), ".text", b"x").unwrap_err();
    assert_eq!(e.context, "section to replace");
    assert_eq!(e.expected, "one of this file's offload sections: .hip_fatbin");
    assert_eq!(e.found, "`.text`");
    let e = replace_section(&fixture("bundle_obj_elf.o"), "__CLANG_OFFLOAD_BUNDLE__nope", b"x").unwrap_err();
    assert!(e.expected.contains("__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx906"), "{e}");
    let e = replace_section(&fixture("bundle_bin.bc"), ".hip_fatbin", b"x").unwrap_err();
    assert_eq!(e.context, "host file headers");
}

/// A symbol or relocation inside the section's tail stops a shrink (ELF, COFF and Mach-O
/// objects assembled by clang), and the same payload grown past them is accepted.
#[test]
fn shrinking_never_cuts_off_a_symbol_or_relocation() {
    const TEST: &str = "shrinking_never_cuts_off_a_symbol_or_relocation";
    let Some(clang) = tool("clang", TEST) else { return };
    let s = Scratch::new(SUITE, "shrink");
    let cases = [
        ("x86_64-unknown-linux-gnu", ".section .hip_fatbin,\"a\",@progbits", ".hip_fatbin"),
        ("x86_64-pc-windows-msvc", ".section .hip_fatbin,\"dr\"", ".hip_fatbin"),
        ("x86_64-apple-macos11", ".section __HIP,__hip_fatbin", "__HIP,__hip_fatbin"),
    ];
    for (triple, directive, name) in cases {
        for (kind, body) in
            [("symbol", "start:\n.zero 64\ntail:\n.quad 1\n"), ("relocation", "start:\n.zero 64\n.quad start\n")]
        {
            let asm = format!("{directive}\n.p2align 4\n{body}");
            std::fs::write(s.path("fat.s"), asm).unwrap();
            run(Command::new(&clang)
                .current_dir(s.dir())
                .arg(format!("--target={triple}"))
                .args(["-c", "fat.s", "-o", "fat.o"]));
            let input = std::fs::read(s.path("fat.o")).unwrap();
            let e = replace_section(&input, name, &[0u8; 16]).unwrap_err();
            assert_eq!(e.context, "replacement payload", "{triple} {kind}: {e}");
            assert!(e.found.contains(kind), "{triple} {kind}: {e}");
            let r = replace_section(&input, name, &[0u8; 80]).unwrap_or_else(|e| panic!("{triple} {kind}: {e}"));
            assert_eq!(section(&r.bytes, name), &[0u8; 80][..]);
        }
    }
}

/// Truncated and corrupted hosts give errors, never panics.
#[test]
fn damaged_hosts_never_panic() {
    for (name, section_name) in [
        ("hip_coff_compressed.obj", ".hip_fatbin"),
        ("macho_objcopy_offloading.o", "__LLVM,__offloading"),
        ("hip_elf_2arch_compressed.o", ".hip_fatbin"),
        ("libhip_3tu_compressed.so", ".hip_fatbin"),
    ] {
        let data = fixture(name);
        for n in (0..data.len()).step_by(97) {
            let _ = replace_section(&data[..n], section_name, b"payload");
        }
        let mut damaged = data.clone();
        for i in (0..data.len().min(4096)).step_by(5) {
            let keep = damaged[i];
            damaged[i] = keep ^ 0xa5;
            let _ = replace_section(&damaged, section_name, b"a longer payload than before, maybe");
            damaged[i] = keep;
        }
    }
}
