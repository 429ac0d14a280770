//! `ar` archives against the reference tools: what `llvm-ar` writes (GNU, BSD, thin, long
//! names, symbol tables) we read with the same member names and bytes; what we write `llvm-ar`
//! reads back, and without a symbol table it is byte-identical to `llvm-ar rcS`. Malformed
//! headers give errors with the byte offset. The heterogeneous device archive fixtures are
//! explored into the annotated tree, members and header fields with their spans.
//! Tests that need a tool print why and return when it is not installed.

use offload::explore::{self, Options};
use offload::format::archive::ar::{self, Archive, Format, NewMember, SpecialKind};
use offload::format::archive::device::{self, MemberKind};
use offload::ids::EntryId;
use offload::report::targets;
use offload::tree::{Node, NodeKind, Severity, Tree, Value};
mod common;
use common::{tool, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn read_fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("cannot read fixture {name}: {e}"))
}

fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn read_complete(bytes: &[u8]) -> Archive {
    ar::read(bytes).and_then(Archive::complete).unwrap_or_else(|e| panic!("cannot read the archive: {e}"))
}

/// Bytes that differ from member to member, with odd and even sizes.
fn noise(seed: u32, n: usize) -> Vec<u8> {
    common::XorShift(seed | 1).bytes(n)
}

/// Member files in `dir`: short names, a name of exactly 15 bytes (the most `name/` holds), 16
/// bytes (the first long one), a long one, odd and even sizes, an empty file and a real ELF
/// object from the fixtures (which gives `llvm-ar` symbols for its symbol table).
fn member_files(s: &Scratch) -> Vec<(String, Vec<u8>)> {
    let files = vec![
        ("a.o".to_string(), noise(1, 101)),
        ("b.bin".to_string(), noise(2, 64)),
        ("fifteen_chars.o".to_string(), noise(3, 7)),
        ("sixteen_chars_.o".to_string(), noise(4, 8)),
        ("a_member_name_longer_than_fifteen_bytes.o".to_string(), noise(5, 33)),
        ("empty".to_string(), Vec::new()),
        ("host.o".to_string(), read_fixture("omp_elf_2arch.o")),
    ];
    for (name, data) in &files {
        let path = s.write(name, data);
        // llvm-ar records the file mode; ours is always 644.
        Command::new("chmod").arg("644").arg(&path).status().unwrap();
    }
    files
}

fn llvm_ar(s: &Scratch, ar: &Path, flags: &[&str], archive: &str, files: &[(String, Vec<u8>)]) {
    let mut cmd = Command::new(ar);
    cmd.current_dir(s.dir()).args(flags).arg(archive);
    cmd.args(files.iter().map(|(n, _)| n));
    run_ok(&mut cmd);
}

fn llvm_ar_names(ar: &Path, archive: &Path) -> Vec<String> {
    String::from_utf8(run_ok(Command::new(ar).arg("t").arg(archive))).unwrap().lines().map(str::to_string).collect()
}

/// Everything an archive made by llvm-ar must give: names as `llvm-ar t` prints them, each
/// member's bytes as written, name bytes where `name_range` says, and header fields that read
/// back from their spans.
fn check_against_llvm_ar(ar: &Path, path: &Path, files: &[(String, Vec<u8>)], want: Format) {
    let bytes = std::fs::read(path).unwrap();
    let parsed = read_complete(&bytes);
    assert_eq!(parsed.format, want, "{}", path.display());
    assert_eq!(parsed.member_names(), llvm_ar_names(ar, path), "{}: names differ from llvm-ar t", path.display());
    for (m, (name, data)) in parsed.members.iter().zip(files) {
        assert_eq!(&m.name, name);
        assert_eq!(m.data(&bytes[..]).unwrap(), &data[..], "{}: bytes of {name}", path.display());
        let stored = &bytes[m.name_range.start as usize..m.name_range.end as usize];
        assert!(stored.starts_with(name.as_bytes()), "{name}: name range holds {:?}", String::from_utf8_lossy(stored));
        assert_eq!(m.header.mode, Some(0o644));
        let size_field = &bytes[m.header.field_range("size").start as usize..m.header.field_range("size").end as usize];
        assert_eq!(String::from_utf8_lossy(size_field).trim().parse::<u64>().unwrap(), m.header.size);
    }
}

#[test]
fn reads_gnu_and_bsd_archives_like_llvm_ar() {
    let Some(ar) = tool("llvm-ar", "reads_gnu_and_bsd_archives_like_llvm_ar") else { return };
    let s = Scratch::new("archive", "llvm-ar-formats");
    let files = member_files(&s);
    llvm_ar(&s, &ar, &["rc"], "gnu.a", &files);
    llvm_ar(&s, &ar, &["--format=bsd", "rc"], "bsd.a", &files);
    llvm_ar(&s, &ar, &["--format=gnu", "rcS"], "gnu_nosym.a", &files);
    llvm_ar(&s, &ar, &["--format=bsd", "rcS"], "bsd_nosym.a", &files);
    check_against_llvm_ar(&ar, &s.path("gnu.a"), &files, Format::Gnu);
    check_against_llvm_ar(&ar, &s.path("bsd.a"), &files, Format::Bsd);
    check_against_llvm_ar(&ar, &s.path("gnu_nosym.a"), &files, Format::Gnu);
    check_against_llvm_ar(&ar, &s.path("bsd_nosym.a"), &files, Format::Bsd);
    let gnu = read_complete(&s.read("gnu.a"));
    assert!(gnu.special.iter().any(|sp| sp.kind == SpecialKind::LongNames), "long names go through //");
    let long = gnu.members.iter().find(|m| m.name.starts_with("a_member_name")).unwrap();
    assert!(long.header.name_field.starts_with('/'), "{}", long.header.name_field);
    let bsd = read_complete(&s.read("bsd.a"));
    assert!(bsd.members.iter().any(|m| m.header.name_field.starts_with("#1/")));
}

#[test]
fn symbol_tables_count_what_llvm_nm_lists() {
    let Some(nm) = tool("llvm-nm", "symbol_tables_count_what_llvm_nm_lists") else { return };
    let Some(ar) = tool("llvm-ar", "symbol_tables_count_what_llvm_nm_lists") else { return };
    let s = Scratch::new("archive", "symbols");
    let files = member_files(&s);
    llvm_ar(&s, &ar, &["rc"], "gnu.a", &files);
    llvm_ar(&s, &ar, &["--format=bsd", "rc"], "bsd.a", &files);
    let fixture_path = fixture("hip_rdc_archive.a");
    for path in [s.path("gnu.a"), s.path("bsd.a"), fixture_path] {
        let map = String::from_utf8(run_ok(Command::new(&nm).arg("--print-armap").arg(&path))).unwrap();
        let listed = map.lines().skip(1).take_while(|l| !l.is_empty()).count() as u64;
        assert!(listed > 0, "{}: llvm-nm lists no symbols", path.display());
        let parsed = read_complete(&std::fs::read(&path).unwrap());
        let counted = parsed.special.iter().find_map(|sp| match &sp.kind {
            SpecialKind::SymbolTable { symbols, .. } => *symbols,
            _ => None,
        });
        assert_eq!(counted, Some(listed), "{}", path.display());
    }
}

#[test]
fn writer_is_byte_identical_to_llvm_ar_without_symbol_table() {
    let Some(ar) = tool("llvm-ar", "writer_is_byte_identical_to_llvm_ar_without_symbol_table") else { return };
    let s = Scratch::new("archive", "writer");
    let files = member_files(&s);
    llvm_ar(&s, &ar, &["--format=gnu", "rcS"], "theirs.a", &files);
    let members: Vec<NewMember> = files.iter().map(|(n, d)| NewMember { name: n.clone(), data: d }).collect();
    let ours = ar::write_gnu(&members).unwrap();
    let theirs = s.read("theirs.a");
    assert!(ours == theirs, "our GNU archive differs from llvm-ar rcS ({} vs {} bytes)", ours.len(), theirs.len());
    // And llvm-ar reads every member of ours back.
    let path = s.write("ours.a", &ours);
    for (name, data) in &files {
        assert_eq!(&run_ok(Command::new(&ar).arg("p").arg(&path).arg(name)), data, "llvm-ar p {name}");
    }
}

#[test]
fn empty_archive_is_the_magic_alone_as_llvm_writes_it() {
    let out = ar::write_gnu(&[]).unwrap();
    assert_eq!(out, b"!<arch>\n");
    assert!(read_complete(&out).members.is_empty());
    let Some(ar) = tool("llvm-ar", "empty_archive_is_the_magic_alone_as_llvm_writes_it") else { return };
    let s = Scratch::new("archive", "empty");
    run_ok(Command::new(&ar).current_dir(s.dir()).args(["rc", "empty.a"]));
    assert_eq!(s.read("empty.a"), out);
    let path = s.write("ours.a", &out);
    assert!(llvm_ar_names(&ar, &path).is_empty());
}

#[test]
fn writer_refuses_names_it_cannot_store() {
    for bad in ["", "a\nb", "nul\0"] {
        let e = ar::write_gnu(&[NewMember { name: bad.into(), data: b"x" }]).unwrap_err();
        assert_eq!(e.context, "archive member name", "{bad:?}");
    }
    // A `/` cannot end a short name field: such names go to the table, and read back whole.
    let out = ar::write_gnu(&[NewMember { name: "dir/x.o".into(), data: b"x" }]).unwrap();
    assert_eq!(read_complete(&out).member_names(), ["dir/x.o"]);
}

#[test]
fn thin_archive_lists_member_names_and_reads_no_data() {
    let Some(ar) = tool("llvm-ar", "thin_archive_lists_member_names_and_reads_no_data") else { return };
    let s = Scratch::new("archive", "thin");
    let files = member_files(&s);
    llvm_ar(&s, &ar, &["rcT"], "thin.a", &files);
    let bytes = s.read("thin.a");
    assert!(bytes.starts_with(ar::THIN_MAGIC));
    let parsed = read_complete(&bytes);
    assert!(parsed.thin);
    // llvm-ar prints a thin member as a path from the archive's directory.
    let theirs: Vec<String> = llvm_ar_names(&ar, &s.path("thin.a"))
        .iter()
        .map(|p| Path::new(p).strip_prefix(s.dir()).unwrap().display().to_string())
        .collect();
    assert_eq!(parsed.member_names(), theirs);
    for (m, (_, data)) in parsed.members.iter().zip(&files) {
        assert!(m.thin);
        assert_eq!(m.size, data.len() as u64, "the header says how big the outside file is");
        assert!(m.data(&bytes[..]).unwrap().is_empty());
    }
    // Unbundling refuses it, naming the members that live elsewhere.
    let e = device::read_members(&bytes, 1 << 30).unwrap_err();
    let text = e.to_string();
    for (name, _) in &files {
        assert!(text.contains(name.as_str()), "{text}");
    }
    assert!(text.contains("thin"), "{text}");
    // Exploring shows the members and a warning, and opens no member.
    let tree = explore::explore(&bytes[..], "thin.a", &Options::default());
    let root = archive_node(&tree);
    assert_eq!(members(root).len(), files.len());
    assert!(members(root).iter().all(|m| m.children.is_empty()));
    assert!(root
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning && d.message.contains("a_member_name_longer_than_fifteen_bytes.o")));
}

// ---------------------------------------------------------------------------------------------
// Malformed archives
// ---------------------------------------------------------------------------------------------

/// A small GNU archive: `//` table, one long and one short member.
fn small_archive() -> Vec<u8> {
    ar::write_gnu(&[
        NewMember { name: "a_long_member_name.o".into(), data: b"first member, odd size" },
        NewMember { name: "b.o".into(), data: b"second" },
    ])
    .unwrap()
}

fn error_of(bytes: &[u8]) -> offload::Error {
    match ar::read(bytes) {
        Ok(ar) => ar.error.unwrap_or_else(|| panic!("no error for {:?}", String::from_utf8_lossy(bytes))),
        Err(e) => e,
    }
}

#[test]
fn truncated_header_says_where_and_how_many_bytes() {
    let full = small_archive();
    let second_header = full.len() - 60 - 6;
    let e = error_of(&full[..second_header + 30]);
    assert_eq!(e.offset, second_header as u64);
    assert_eq!(e.expected, "a 60-byte member header");
    assert_eq!(e.found, "30 bytes before the end of the archive");
    // The first member survives the truncation after it.
    let partial = ar::read(&full[..second_header + 30]).unwrap();
    assert_eq!(partial.member_names(), ["a_long_member_name.o"]);
}

#[test]
fn corrupt_header_fields_give_their_own_offsets() {
    let full = small_archive();
    let first = 8 + 60 + 22; // magic, `//` header, `//` data: the first member header
    let mut bad_term = full.clone();
    bad_term[first + 58] = b'x';
    let e = error_of(&bad_term);
    assert_eq!((e.offset, e.expected.as_str()), (first as u64 + 58, "the header terminator \"`\\n\""));

    let mut bad_size = full.clone();
    bad_size[first + 48] = b'z';
    let e = error_of(&bad_size);
    assert_eq!(e.offset, first as u64 + 48);
    assert!(e.expected.contains("decimal digits"), "{e}");
    assert!(e.found.contains('z'), "{e}");

    let mut too_big = full.clone();
    too_big[first + 48..first + 58].copy_from_slice(b"99999     ");
    let e = error_of(&too_big);
    assert_eq!(e.offset, first as u64 + 48);
    assert_eq!(e.found, "99999 bytes");

    let mut bad_mode = full.clone();
    bad_mode[first + 40] = b'9'; // not octal
    assert_eq!(error_of(&bad_mode).offset, first as u64 + 40);

    let mut bad_name_ref = full.clone();
    bad_name_ref[first..first + 4].copy_from_slice(b"/900");
    let e = error_of(&bad_name_ref);
    assert_eq!(e.offset, first as u64);
    assert!(e.expected.contains("long-name table"), "{e}");
    assert_eq!(e.found, "`/900`");

    let e = error_of(b"!<arch\n");
    assert_eq!(e.offset, 0);
    assert!(e.expected.contains("!<arch>"), "{e}");
}

#[test]
fn bsd_name_longer_than_its_member_is_an_error() {
    let mut bytes = b"!<arch>\n".to_vec();
    bytes.extend_from_slice(b"#1/40           0           0     0     644     8         `\n");
    bytes.extend_from_slice(b"short.o\0");
    let e = error_of(&bytes);
    assert_eq!(e.offset, 8);
    assert!(e.expected.contains("at most the member size 8"), "{e}");
}

#[test]
fn every_truncation_of_real_archives_is_an_error_not_a_panic() {
    for name in ["hip_rdc_archive.a", "hip_rdc_archive_gfx90a.a"] {
        let full = read_fixture(name);
        let whole = read_complete(&full);
        // Cutting exactly between members leaves a valid, shorter archive.
        let mut boundaries: Vec<usize> = whole.special.iter().map(|s| s.header.offset as usize).collect();
        boundaries.extend(whole.members.iter().map(|m| m.header.offset as usize));
        for cut in 0..full.len() {
            let prefix = &full[..cut];
            match ar::read(prefix) {
                Err(e) => assert!(cut < 8, "{name} cut at {cut}: {e}"),
                Ok(ar) => match ar.error {
                    Some(e) => {
                        assert!(e.offset <= cut as u64, "{name} cut at {cut}: error at {}", e.offset);
                        assert!(ar.members.len() < whole.members.len());
                    }
                    None => assert!(boundaries.contains(&cut), "{name} cut at {cut}: no error"),
                },
            }
            // Exploring a cut archive never panics either.
            let _ = explore::explore(prefix, name, &Options::default());
        }
    }
}

#[test]
fn corrupting_any_header_byte_is_an_error_or_a_reading_never_a_panic() {
    // Every byte of every header (special members included) of both fixtures, set to a few
    // telling values: the reader, the explorer and the unbundler must all come back.
    for name in ["hip_rdc_archive.a", "hip_rdc_archive_gfx90a.a"] {
        let full = read_fixture(name);
        let whole = read_complete(&full);
        let headers =
            whole.special.iter().map(|s| s.header.offset).chain(whole.members.iter().map(|m| m.header.offset));
        for at in headers.flat_map(|h| h..h + ar::HEADER_SIZE) {
            for value in [b' ', b'0', b'9', b'/', b'#', b'`', b'\n', 0, 0xff] {
                let mut bytes = full.clone();
                bytes[at as usize] = value;
                if let Ok(ar) = ar::read(&bytes[..]) {
                    if let Some(e) = &ar.error {
                        assert!(e.offset < bytes.len() as u64, "{name}[{at}]={value}: error past the end: {e}");
                    }
                }
                let _ = explore::explore(&bytes[..], name, &Options::default());
                let _ = device::read_members(&bytes, 1 << 30);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The explorer's tree
// ---------------------------------------------------------------------------------------------

fn archive_node(tree: &Tree) -> &Node {
    tree.root.children.iter().find(|n| n.kind == NodeKind::Archive).expect("an archive node")
}

fn members(archive: &Node) -> Vec<&Node> {
    archive.children.iter().filter(|n| n.kind == NodeKind::ArchiveMember).collect()
}

/// The bundle entries of a member that is a bundled object: under its bundle node.
fn bundle_entries(member: &Node) -> Vec<&Node> {
    member
        .children
        .iter()
        .filter(|c| c.kind == NodeKind::Bundle)
        .flat_map(|b| &b.children)
        .filter(|c| c.kind == NodeKind::BundleEntry)
        .collect()
}

fn field_bytes<'a>(tree: &'a Tree, input: &'a [u8], node: &Node, name: &str) -> &'a [u8] {
    let span = node
        .fields
        .iter()
        .find(|f| f.name == name)
        .and_then(|f| f.span)
        .unwrap_or_else(|| panic!("no span for {name}"));
    tree.bytes(input, span).unwrap()
}

#[test]
fn heterogeneous_archive_tree_has_members_fields_and_entries() {
    let bytes = read_fixture("hip_rdc_archive.a");
    let tree = explore::explore(&bytes[..], "hip_rdc_archive.a", &Options::default());
    let root = archive_node(&tree);
    assert_eq!(root.text("format"), Some("GNU"));
    assert!(root.children.iter().any(|n| n.kind == NodeKind::SymbolTable && n.get("symbols") == Some(&Value::Uint(9))));
    let ms = members(root);
    assert_eq!(ms.iter().map(|m| m.text("name").unwrap()).collect::<Vec<_>>(), ["rdc_a.o", "rdc_c.o"]);
    for m in &ms {
        assert_eq!(field_bytes(&tree, &bytes, m, "name"), m.text("name").unwrap().as_bytes());
        assert_eq!(field_bytes(&tree, &bytes, m, "mode"), b"644     ");
        assert_eq!(field_bytes(&tree, &bytes, m, "date"), b"0           ");
        let size = match m.get("size") {
            Some(Value::Uint(n)) => *n,
            other => panic!("size {other:?}"),
        };
        assert_eq!(field_bytes(&tree, &bytes, m, "data_offset").len() as u64, size);
        // The member is an ELF object: the bundle entries are its sections, with spans inside it.
        let entries = bundle_entries(m);
        assert_eq!(entries.len(), 3, "{}", m.label);
        for e in entries {
            assert!(e.span.offset >= m.span.offset && e.span.end() <= m.span.end(), "{} outside {}", e.label, m.label);
        }
    }
    // The device entries' spans hold what the reference tool extracted (see expected.txt);
    // here: they are bitcode, at the offsets the section headers give.
    let found = targets::collect(&tree);
    assert_eq!(found.len(), 4);
    for t in &found {
        assert!(tree.bytes(&bytes, t.span).unwrap().starts_with(b"BC\xC0\xDE"), "{}", t.target_id);
        assert!(matches!(t.member.as_deref(), Some("rdc_a.o" | "rdc_c.o")));
    }
    let per_member: Vec<_> = found.iter().map(|t| (t.member.clone().unwrap(), t.target_id.clone())).collect();
    assert_eq!(per_member[0], ("rdc_a.o".into(), "hip-amdgcn-amd-amdhsa--gfx906:xnack-".into()));
    assert_eq!(per_member[3], ("rdc_c.o".into(), "hip-amdgcn-amd-amdhsa--gfx90a".into()));
}

#[test]
fn device_archive_tree_resolves_long_names() {
    let bytes = read_fixture("hip_rdc_archive_gfx90a.a");
    let tree = explore::explore(&bytes[..], "x.a", &Options::default());
    let root = archive_node(&tree);
    let ms = members(root);
    assert_eq!(ms[0].text("name"), Some("rdc_a-hip-amdgcn-amd-amdhsa--gfx90ardc_a.bc"));
    assert_eq!(ms[0].text("name_field"), Some("/0"));
    assert_eq!(field_bytes(&tree, &bytes, ms[0], "name"), b"rdc_a-hip-amdgcn-amd-amdhsa--gfx90ardc_a.bc");
    assert_eq!(field_bytes(&tree, &bytes, ms[0], "name_field"), b"/0              ");
    assert_eq!(ms[1].children[0].label, "LLVM bitcode");
}

#[test]
fn max_depth_stops_at_member_contents() {
    let bytes = read_fixture("hip_rdc_archive.a");
    let tree = explore::explore(&bytes[..], "x.a", &Options { max_depth: 0, ..Options::default() });
    let ms = members(archive_node(&tree));
    assert_eq!(ms.len(), 2, "members are listed whatever the depth");
    for m in ms {
        assert_eq!(m.children.len(), 1);
        assert_eq!(m.children[0].label, "nested too deeply");
    }
    // One level more opens the members.
    let tree = explore::explore(&bytes[..], "x.a", &Options { max_depth: 1, ..Options::default() });
    assert!(!bundle_entries(members(archive_node(&tree))[0]).is_empty());
}

#[test]
fn archive_members_of_every_kind_are_explored() {
    // Bundled object, binary bundle, compressed bundle, offload binary, an archive in the
    // archive, and a plain file: each member explored as a file of its own would be.
    let inner = read_fixture("hip_rdc_archive_gfx90a.a");
    let parts: Vec<(&str, Vec<u8>)> = vec![
        ("hip_elf_rdc.o", read_fixture("hip_elf_rdc.o")),
        ("bundle_bin.bc", read_fixture("bundle_bin.bc")),
        ("ccob_zstd_v3.hipfb", read_fixture("ccob_zstd_v3.hipfb")),
        ("omp_elf_2arch.offload", read_fixture("omp_elf_2arch.offload")),
        ("nested.a", inner),
        ("notes.txt", b"nothing offloaded here\n".to_vec()),
    ];
    let members_in: Vec<NewMember> = parts.iter().map(|(n, d)| NewMember { name: n.to_string(), data: d }).collect();
    let bytes = ar::write_gnu(&members_in).unwrap();
    let tree = explore::explore(&bytes[..], "mixed.a", &Options::default());
    let ms = members(archive_node(&tree));
    let kinds = |m: &Node| m.children.iter().map(|c| c.kind).collect::<Vec<_>>();
    assert!(!bundle_entries(ms[0]).is_empty());
    assert_eq!(kinds(ms[1]), [NodeKind::Bundle]);
    assert_eq!(kinds(ms[2]), [NodeKind::CompressedBundle]);
    assert_eq!(kinds(ms[3]).first(), Some(&NodeKind::OffloadBinary));
    assert_eq!(kinds(ms[4]), [NodeKind::Archive]);
    assert!(ms[5].children.is_empty());
    // Spans of things inside members point at the right bytes: each bundle entry of the
    // bundle member is where the standalone bundle has it, shifted by the member's offset.
    let standalone = explore::explore(&parts[1].1[..], "bundle_bin.bc", &Options::default());
    let data_at = match ms[1].get("data_offset") {
        Some(Value::Uint(at)) => *at,
        other => panic!("data_offset {other:?}"),
    };
    let ours: Vec<u64> = ms[1].children[0].children.iter().map(|e| e.span.offset).collect();
    let theirs: Vec<u64> = standalone.root.children[0].children.iter().map(|e| e.span.offset + data_at).collect();
    assert_eq!(ours, theirs);
    // Targets from every member, each naming it.
    let found = targets::collect(&tree);
    for member in ["hip_elf_rdc.o", "bundle_bin.bc", "ccob_zstd_v3.hipfb", "omp_elf_2arch.offload"] {
        assert!(found.iter().any(|t| t.member.as_deref() == Some(member)), "no target from {member}");
    }
    // The compressed member's decompressed space starts from the member's payload.
    let ccob = &ms[2].children[0];
    let origin =
        tree.spaces.iter().find_map(|s| s.origin.filter(|o| o.offset > ccob.span.offset && o.end() <= ccob.span.end()));
    assert!(origin.is_some(), "the decompressed space's origin lies in the compressed member");
}

#[test]
fn host_member_spans_are_moved_to_the_member() {
    // The same object inside and outside an archive: every span of the member's subtree is
    // the standalone one plus the member's data offset.
    let object = read_fixture("hip_elf_rdc.o");
    let bytes = ar::write_gnu(&[
        NewMember { name: "pad.o".into(), data: b"odd" },
        NewMember { name: "x.o".into(), data: &object },
    ])
    .unwrap();
    let alone = explore::explore(&object[..], "x.o", &Options::default());
    let tree = explore::explore(&bytes[..], "x.a", &Options::default());
    let m = members(archive_node(&tree))[1];
    let base = read_complete(&bytes).members[1].data_offset;
    let mut inside = Vec::new();
    for c in &m.children {
        c.walk(&mut |n, _| inside.push((n.label.clone(), n.span.offset - base, n.span.size)));
    }
    let mut outside = Vec::new();
    for c in &alone.root.children {
        c.walk(&mut |n, _| outside.push((n.label.clone(), n.span.offset, n.span.size)));
    }
    assert_eq!(inside, outside);
}

// ---------------------------------------------------------------------------------------------
// Heterogeneous archive members and device-specific names
// ---------------------------------------------------------------------------------------------

#[test]
fn member_entries_by_kind() {
    let rdc = read_fixture("hip_elf_rdc.o");
    let (kind, entries) = device::member_entries(&rdc, 1 << 30).unwrap();
    assert_eq!(kind, MemberKind::BundledObject);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-pc-linux-gnu-"]
    );
    let ccob = read_fixture("ccob_zstd_v3.hipfb");
    let (kind, entries) = device::member_entries(&ccob, 1 << 30).unwrap();
    assert_eq!(kind, MemberKind::CompressedBundle);
    assert_eq!(entries.len(), 3);
    let plain = read_fixture("omp_elf_2arch.o");
    assert_eq!(device::member_entries(&plain, 1 << 30).unwrap().0, MemberKind::NotBundled);
    // A compressed member with a wrong hash is refused, never unbundled.
    let mut bad = ccob.clone();
    let hash_at = 24;
    bad[hash_at] ^= 1;
    let e = device::member_entries(&bad, 1 << 30).unwrap_err();
    assert!(e.to_string().contains("hash"), "{e}");
}

#[test]
fn device_member_names_follow_the_documented_rule() {
    let name = |parent: &str, id: &str| device::device_member_name(parent, &EntryId::parse(id).unwrap(), id);
    assert_eq!(name("rdc_a.o", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"), "rdc_a-gfx90a_xnack+.bc");
    assert_eq!(name("rdc_a.o", "hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+"), "rdc_a-gfx906_sramecc-_xnack+.bc");
    assert_eq!(name("lib.tar.o", "openmp-nvptx64-nvidia-cuda--sm_70"), "lib.tar-sm_70.cubin");
    assert_eq!(name("dir/sub/k.obj", "hipv4-amdgcn-amd-amdhsa--gfx1030"), "k-gfx1030.bc");
    // No target ID: the entry ID says what the code is for, with the member's own extension.
    assert_eq!(name("host_code.o", "openmp-x86_64-pc-linux-gnu"), "host_code-openmp-x86_64-pc-linux-gnu.o");
    assert_eq!(name("noext", "hip-amdgcn-amd-amdhsa-"), "noext-hip-amdgcn-amd-amdhsa");
    assert_eq!(name(".o", "hip-amdgcn-amd-amdhsa--gfx90a"), ".o-gfx90a.bc");
}

#[test]
fn unbundle_picks_compatible_entries_from_every_member() {
    let bytes = read_fixture("hip_rdc_archive.a");
    let members = device::read_members(&bytes, 1 << 30).unwrap();
    let targets = [
        EntryId::parse("hip-amdgcn-amd-amdhsa--gfx90a:xnack+").unwrap(),
        EntryId::parse("hipv4-amdgcn-amd-amdhsa--gfx906").unwrap(),
        EntryId::parse("hip-amdgcn-amd-amdhsa--gfx906:xnack-").unwrap(),
    ];
    let out = device::unbundle(&members, &targets, false).unwrap();
    // gfx90a (any xnack) serves a request for xnack+; gfx906:xnack- does not serve "any".
    let names = |i: usize| out[i].iter().map(|e| e.name.as_str()).collect::<Vec<_>>();
    assert_eq!(names(0), ["rdc_a-gfx90a.bc", "rdc_c-gfx90a.bc"]);
    assert!(out[1].is_empty());
    assert_eq!(names(2), ["rdc_a-gfx906_xnack-.bc", "rdc_c-gfx906_xnack-.bc"]);
    let written = device::write_device_archive(&out[0]).unwrap();
    let back = read_complete(&written);
    assert_eq!(back.member_names(), names(0));
    assert_eq!(back.members[0].data(&written[..]).unwrap(), out[0][0].data);
}
