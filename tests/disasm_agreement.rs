//! How far `offload::disasm` agrees with llvm-objdump 22 on the fixtures of `tests/disasm/`
//! (kernels.hip compiled for one processor of each family by `tests/disasm/generate.sh`).
//!
//! For each code object, every instruction line of llvm-objdump's `-d` output is compared with
//! our listing's line at the same address: the instruction text, and the whole line (words and
//! branch label included). The table gives both agreements per processor and, by encoding (as
//! read from llvm-objdump's mnemonic), where the differences are; then the first differences of
//! each processor. Agreement must reach the floor `tests/disasm/agreement.txt` sets for the
//! processor. The kernel descriptors must print exactly as `llvm-objdump -D
//! --disassemble-symbols=<kernel>.kd` prints them.
//!
//!     cargo test --release -p offload --test disasm_agreement -- --nocapture
//!
//! `DISASM_SHOWN=N` lists N differences per processor instead of 25.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use offload::disasm::listing::Options;
use offload::disasm::{descriptor, Line, LineKind, Listing};

/// The processors generate.sh compiles for.
const PROCESSORS: [&str; 12] = [
    "gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1151",
    "gfx1201",
];
/// The processors generate.sh assembles tests/disasm/zeros.s for.
const ZEROS: [&str; 4] = ["gfx803", "gfx900", "gfx1030", "gfx1100"];
/// The assembly fixtures generate.sh assembles (tests/disasm/<name>_<processor>.s), each with
/// the mnemonic prefix its instructions share: images, VINTERP interpolation, VOP3 DPP and MFMA.
const ASSEMBLED: [(&str, &str, &[&str]); 6] = [
    ("images", "image_", &["gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1201"]),
    ("interp", "v_interp_", &["gfx1100", "gfx1201"]),
    ("vop3dpp", "v_", &["gfx1100", "gfx1201"]),
    ("mfma", "v_mfma", &["gfx950"]),
    ("sdwa", "v_cvt_", &["gfx942", "gfx950"]),
    ("sdwa_gfx10", "v_movrel", &["gfx1010", "gfx1030"]),
];
/// Differences listed per processor, unless `DISASM_SHOWN` says how many.
const SHOWN_PER_PROCESSOR: usize = 25;

fn shown_per_processor() -> usize {
    std::env::var("DISASM_SHOWN").ok().and_then(|v| v.parse().ok()).unwrap_or(SHOWN_PER_PROCESSOR)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/disasm")
}

fn read(name: &str) -> Vec<u8> {
    let path = fixtures().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (tests/disasm/generate.sh writes it)", path.display()))
}

fn read_text(name: &str) -> String {
    String::from_utf8(read(name)).expect("UTF-8 reference text")
}

/// One instruction line of llvm-objdump's output.
struct ReferenceLine {
    address: u64,
    /// The instruction as printed, without its leading tab and padding.
    text: String,
    /// The whole line, as printed.
    line: String,
    words: String,
}

/// The instruction lines of `llvm-objdump -d`: `\t<text padded> // <address>: <words>[ <label>]`.
fn reference_lines(objdump: &str) -> Vec<ReferenceLine> {
    objdump
        .lines()
        .filter(|l| l.starts_with('\t'))
        .filter_map(|l| {
            let comment = l.rfind("// ")?;
            let (address, rest) = l[comment + 3..].split_once(": ")?;
            let words = rest.split(" <").next().unwrap_or(rest);
            Some(ReferenceLine {
                address: u64::from_str_radix(address, 16).ok()?,
                text: l[1..comment].trim_end().to_string(),
                line: l.to_string(),
                words: words.to_string(),
            })
        })
        .collect()
}

/// A rough encoding name for an instruction, from llvm-objdump's text, to group the differences.
fn encoding_of(text: &str) -> &'static str {
    let mnemonic = text.split_whitespace().next().unwrap_or("");
    let suffixes = [("_dpp", "DPP"), ("_sdwa", "SDWA"), ("_e64", "VOP3"), ("_e32", "VOP1/VOP2/VOPC")];
    if mnemonic.starts_with(".long") {
        return ".long";
    }
    if mnemonic.starts_with("v_mfma") || mnemonic.starts_with("v_smfmac") {
        return "MFMA";
    }
    if mnemonic.starts_with("v_wmma") || mnemonic.starts_with("v_swmmac") {
        return "WMMA";
    }
    if mnemonic.starts_with("v_pk_") || mnemonic.starts_with("v_dot") || mnemonic.starts_with("v_fma_mix") {
        return "VOP3P";
    }
    if mnemonic.starts_with("v_dual_") {
        return "VOPD";
    }
    if mnemonic.starts_with("v_") {
        if text.contains(" dpp8:") || text.contains("quad_perm:") || text.contains("row_") {
            return "DPP";
        }
        return suffixes.iter().find(|(s, _)| mnemonic.ends_with(s)).map_or("VOP3", |(_, e)| e);
    }
    let prefixes = [
        ("s_load", "SMEM"),
        ("s_buffer_load", "SMEM"),
        ("s_store", "SMEM"),
        ("s_memtime", "SMEM"),
        ("s_memrealtime", "SMEM"),
        ("s_dcache", "SMEM"),
        ("s_waitcnt", "SOPP wait"),
        ("s_wait_", "SOPP wait"),
        ("s_cbranch", "SOPP branch"),
        ("s_branch", "SOPP branch"),
        ("s_nop", "SOPP other"),
        ("s_endpgm", "SOPP other"),
        ("s_code_end", "SOPP other"),
        ("s_barrier", "SOPP other"),
        ("s_sleep", "SOPP other"),
        ("s_setprio", "SOPP other"),
        ("s_sendmsg", "SOPP other"),
        ("s_delay_alu", "SOPP other"),
        ("s_clause", "SOPP other"),
        ("s_trap", "SOPP other"),
        ("s_", "SOP"),
        ("ds_", "DS"),
        ("buffer_", "MUBUF"),
        ("tbuffer_", "MTBUF"),
        ("global_", "GLOBAL"),
        ("flat_", "FLAT"),
        ("scratch_", "SCRATCH"),
        ("image_", "MIMG"),
        ("exp", "EXP"),
    ];
    prefixes.iter().find(|(p, _)| mnemonic.starts_with(p)).map_or("other", |(_, e)| e)
}

/// The agreement floors of `tests/disasm/agreement.txt`: `processor percent` lines.
fn floors() -> HashMap<String, f64> {
    read_text("agreement.txt")
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (processor, percent) = l.split_once(char::is_whitespace).expect("`processor percent`");
            (processor.to_string(), percent.trim().parse().expect("a percentage"))
        })
        .collect()
}

/// One processor's comparison.
#[derive(Default)]
struct Agreement {
    instructions: usize,
    equal_text: usize,
    equal_line: usize,
    /// Instructions and equal texts without `s_nop` and `s_code_end`, which mostly pad kernels to
    /// their alignment and would flatter the agreement.
    without_padding: (usize, usize),
    /// By encoding: instructions and equal texts.
    by_encoding: BTreeMap<&'static str, (usize, usize)>,
    differences: Vec<String>,
    whole_text_equal: bool,
}

impl Agreement {
    fn percent(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            100.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    }
}

/// `s_nop` and `s_code_end`: what pads a kernel to its alignment and the code to its end.
fn is_padding(text: &str) -> bool {
    text.starts_with("s_nop") || text.starts_with("s_code_end")
}

fn compare_code(processor: &str) -> Agreement {
    let data = read(&format!("kernels_{processor}.co"));
    let reference = read_text(&format!("kernels_{processor}.objdump.txt"));
    let listing = Listing::of_code_object(&data).unwrap_or_else(|e| panic!("{processor}: {e}"));
    assert_eq!(listing.processor, processor, "the code object's processor");
    let ours: HashMap<u64, &Line> = listing.lines.iter().map(|l| (l.address, l)).collect();
    let mut agreement = Agreement { whole_text_equal: listing.objdump_text() == reference, ..Agreement::default() };
    for expected in reference_lines(&reference) {
        agreement.instructions += 1;
        let encoding = agreement.by_encoding.entry(encoding_of(&expected.text)).or_default();
        encoding.0 += 1;
        let Some(line) = ours.get(&expected.address) else {
            if !is_padding(&expected.text) {
                agreement.without_padding.0 += 1;
            }
            agreement.differences.push(format!(
                "{:012X}  {:<26} ours: (no line at this address: the previous instruction's size differs)\n{:40}llvm: {}",
                expected.address, expected.words, "", expected.text
            ));
            continue;
        };
        let text_equal = line.text == expected.text;
        if text_equal {
            agreement.equal_text += 1;
            encoding.1 += 1;
        }
        if !is_padding(&expected.text) {
            agreement.without_padding.0 += 1;
            agreement.without_padding.1 += usize::from(text_equal);
        }
        let full = listing.objdump_line(line);
        if full == expected.line {
            agreement.equal_line += 1;
        } else {
            let ours = if text_equal {
                format!("{} (same text; the line differs: {full:?})", line.text)
            } else {
                line.text.clone()
            };
            agreement.differences.push(format!(
                "{:012X}  {:<26} ours: {ours}\n{:40}llvm: {}",
                expected.address, expected.words, "", expected.text
            ));
        }
    }
    agreement
}

#[test]
fn disassembly_agrees_with_llvm_objdump() {
    let floors = floors();
    let mut table = String::from(
        "\nprocessor  instructions  equal text  agreement  equal line  line agreement  w/o padding  floor  whole text\n",
    );
    let mut details = String::new();
    let mut below_floor = Vec::new();
    let mut totals = (0usize, 0usize, 0usize);
    for processor in PROCESSORS {
        let a = compare_code(processor);
        let text_percent = Agreement::percent(a.equal_text, a.instructions);
        let line_percent = Agreement::percent(a.equal_line, a.instructions);
        let floor = *floors.get(processor).unwrap_or_else(|| panic!("agreement.txt has no floor for {processor}"));
        let _ = writeln!(
            table,
            "{processor:<10} {:>12}  {:>10}  {text_percent:>8.2}%  {:>10}  {line_percent:>13.2}%  {:>10.2}%  {floor:>5.1}  {}",
            a.instructions,
            a.equal_text,
            a.equal_line,
            Agreement::percent(a.without_padding.1, a.without_padding.0),
            if a.whole_text_equal { "identical" } else { "differs" }
        );
        totals = (totals.0 + a.instructions, totals.1 + a.equal_text, totals.2 + a.equal_line);
        if text_percent < floor {
            below_floor.push(format!("{processor}: {text_percent:.2}% < floor {floor}%"));
        }
        let _ = writeln!(details, "\n== {processor}: by encoding (equal text / instructions)");
        for (encoding, (count, equal)) in &a.by_encoding {
            let _ = writeln!(details, "   {encoding:<16} {equal:>5} / {count:<5}");
        }
        if !a.differences.is_empty() {
            let _ = writeln!(
                details,
                "== {processor}: {} lines differ; the first {}:",
                a.differences.len(),
                a.differences.len().min(shown_per_processor())
            );
            for difference in a.differences.iter().take(shown_per_processor()) {
                let _ = writeln!(details, "{difference}");
            }
        }
    }
    let _ = writeln!(
        table,
        "{:<10} {:>12}  {:>10}  {:>8.2}%  {:>10}  {:>13.2}%",
        "all",
        totals.0,
        totals.1,
        Agreement::percent(totals.1, totals.0),
        totals.2,
        Agreement::percent(totals.2, totals.0)
    );
    println!("{table}{details}");
    assert!(totals.0 > 0, "the references hold no instruction lines");
    assert!(
        below_floor.is_empty(),
        "agreement below the floor of tests/disasm/agreement.txt:\n{}",
        below_floor.join("\n")
    );
}

/// Runs of zero bytes (tests/disasm/zeros.s): `llvm-objdump -d` skips them as `...` lines and
/// `-d -z` decodes them; so do our listing and its streamed text, word for word. The code before
/// the first symbol gets a `<.text>` label, a symbol inside an instruction starts decoding again,
/// and the last partial dword is printed as `.byte`.
#[test]
fn zero_runs_are_printed_as_llvm_objdump_prints_them() {
    for processor in ZEROS {
        let data = read(&format!("zeros_{processor}.co"));
        for (zeroes, suffix) in [(false, "objdump"), (true, "objdump-z")] {
            let reference = read_text(&format!("zeros_{processor}.{suffix}.txt"));
            let options = Options { disassemble_zeroes: zeroes };
            let listing = Listing::of_code_object_with(&data, options).unwrap_or_else(|e| panic!("{processor}: {e}"));
            assert_eq!(listing.objdump_text(), reference, "{processor} {suffix}");
            let mut streamed = String::new();
            offload::disasm::listing::write_objdump_with(&data, options, &mut |t| streamed.push_str(t)).unwrap();
            assert_eq!(streamed, reference, "{processor} {suffix}: streamed");
            let zeros: Vec<&Line> = listing.lines.iter().filter(|l| l.kind == LineKind::Zeros).collect();
            assert_eq!(zeros.len(), if zeroes { 0 } else { reference.matches("\t\t...").count() }, "{processor}");
            for line in zeros {
                assert!(line.size >= 8 && line.size % 4 == 0 && line.class.is_none() && listing.words(line).is_empty());
            }
        }
    }
}

/// Assembled encodings: images (tests/disasm/images_*.s: gfx90a MIMG with AGPR data, GFX10 and
/// GFX11 MIMG with one-tuple and NSA addresses, GFX12 VIMAGE and VSAMPLE), GFX11/GFX12 VINTERP
/// (interp_*.s), VOP3 DPP16/DPP8 (vop3dpp_*.s), gfx950's f8f6f4 and scaled MFMAs
/// (mfma_gfx950.s), gfx940's SDWA conversions without destination selects (sdwa.s, for gfx942
/// and gfx950) and GFX10's SDWA moves with scalar sources (sdwa_gfx10.s), listed as llvm-objdump
/// lists them, line for line.
#[test]
fn assembled_encodings_are_printed_as_llvm_objdump_prints_them() {
    for (name, prefix, processors) in ASSEMBLED {
        for processor in processors {
            let data = read(&format!("{name}_{processor}.co"));
            let reference = read_text(&format!("{name}_{processor}.objdump.txt"));
            let listing = Listing::of_code_object(&data).unwrap_or_else(|e| panic!("{name} {processor}: {e}"));
            assert_eq!(listing.objdump_text(), reference, "{name} {processor}");
            let expected = reference.matches(&format!("\t{prefix}")).count();
            let decoded = listing.lines.iter().filter(|l| l.text.starts_with(prefix)).count();
            assert!(expected >= 7 && decoded == expected, "{name} {processor}: {decoded} of {expected} decoded");
        }
    }
}

/// The processors generate.sh writes tests/disasm/misaligned_<processor>.s for (misaligned.py).
const MISALIGNED: [&str; 7] = ["gfx803", "gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"];

/// Scalar register tuples named from a register off their alignment (misaligned_*.s: SOP, SMEM,
/// VOP1/VOPC/VOP3, VOP3P and GFX12 image operands, SGPRs and trap temporaries, and instructions
/// with two or three such operands): llvm-objdump prints each tuple from the aligned register
/// below and warns after the words, once per operand (`; Warning: SGPR_64: scalar reg isn't
/// aligned 5`); so does our listing, line for line, and its lines say which are warned of.
#[test]
fn misaligned_scalar_tuples_are_printed_with_llvm_objdumps_warnings() {
    for processor in MISALIGNED {
        let data = read(&format!("misaligned_{processor}.co"));
        let reference = read_text(&format!("misaligned_{processor}.objdump.txt"));
        let listing = Listing::of_code_object(&data).unwrap_or_else(|e| panic!("misaligned {processor}: {e}"));
        assert_eq!(listing.objdump_text(), reference, "misaligned {processor}");
        let mut streamed = String::new();
        offload::disasm::listing::write_objdump_with(&data, Options::default(), &mut |t| streamed.push_str(t)).unwrap();
        assert_eq!(streamed, reference, "misaligned {processor}: streamed");
        let warned = reference.lines().filter(|l| l.contains(" ; Warning: ")).count();
        let flagged = listing.lines.iter().filter(|l| l.misaligned).count();
        assert!(warned >= 30 && flagged == warned, "{processor}: {flagged} lines flagged, {warned} warned of");
        assert!(reference.contains("aligned 5Warning: "), "{processor}: an instruction with several warnings");
        assert!(!listing.lines.iter().any(|l| l.kind == LineKind::Undecoded), "{processor}: every word decodes");
    }
}

/// llvm-objdump's descriptor blocks: `<NAME.kd>` → the lines after that header line.
fn reference_descriptors(kd: &str) -> BTreeMap<String, String> {
    let mut blocks = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in kd.lines() {
        if let Some(symbol) = line.split_once(" <").and_then(|(_, s)| s.strip_suffix(">:")) {
            blocks.extend(current.take());
            current = Some((symbol.to_string(), String::new()));
        } else if let Some((_, text)) = current.as_mut().filter(|_| !line.is_empty()) {
            text.push_str(line);
            text.push('\n');
        }
    }
    blocks.extend(current);
    blocks
}

/// The fixtures with descriptor references: `kernels_<name>.kd.txt`, one per processor and a
/// few variants (wave64, preloaded kernel arguments, a dynamic stack).
fn descriptor_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .expect("tests/disasm")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| Some(f.strip_prefix("kernels_")?.strip_suffix(".kd.txt")?.to_string()))
        .collect();
    names.sort();
    names
}

#[test]
fn kernel_descriptors_match_llvm_objdump() {
    let mut report = String::from("\nfixture          kernels  equal\n");
    let mut failures = Vec::new();
    let names = descriptor_fixtures();
    assert!(names.len() > PROCESSORS.len(), "descriptor references: {names:?}");
    for name in names {
        let data = read(&format!("kernels_{name}.co"));
        let reference = read_text(&format!("kernels_{name}.kd.txt"));
        let expected = reference_descriptors(&reference);
        let isa = Listing::of_code_object(&data).unwrap_or_else(|e| panic!("{name}: {e}")).isa;
        let symbols = descriptor::descriptor_symbols(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours: BTreeMap<String, String> = symbols.iter().map(|s| (s.symbol.clone(), s.objdump_text(isa))).collect();
        assert_eq!(ours.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "{name}: the .kd symbols");
        let mut equal = 0;
        for (symbol, text) in &expected {
            if ours.get(symbol) == Some(text) {
                equal += 1;
            } else {
                failures.push(format!("{name} {symbol}:\nours:\n{}\nllvm-objdump:\n{text}", ours[symbol]));
            }
        }
        let _ = writeln!(report, "{name:<16} {:>7}  {equal:>5}", expected.len());
        // The whole text, section header and addresses included.
        let whole = descriptor::objdump_descriptors(&data).expect("descriptors");
        assert_eq!(format!("Disassembly of section .rodata:\n{whole}"), reference, "{name}: the whole text");
    }
    println!("{report}");
    assert!(failures.is_empty(), "descriptors that differ:\n{}", failures.join("\n"));
}

#[test]
fn kernel_descriptors_decode_into_fields() {
    let data = read("kernels_gfx90a.co");
    let descriptors = descriptor::kernel_descriptors(&data).expect("descriptors");
    assert_eq!(descriptors.len(), 12);
    let (_, lds) = descriptors.iter().find(|(name, _)| name == "_Z3ldsPKiPi").expect("the lds kernel");
    // 256 + 1 ints and 64 floats of LDS.
    assert!(lds.group_segment_fixed_size >= 4 * (256 + 1 + 64));
    let (_, scratch) = descriptors.iter().find(|(name, _)| name == "_Z7scratchPKiPii").expect("the scratch kernel");
    assert!(scratch.private_segment_fixed_size >= 4 * 24);
    assert!(scratch.kernel_code_entry_byte_offset != 0);
}

/// A small deterministic generator for the damaged inputs below.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Everything the disassembler offers, on one input; must not panic.
fn read_everything(data: &[u8]) {
    if let Ok(listing) = Listing::of_code_object(data) {
        let _ = listing.objdump_text();
        for symbol in &listing.symbols {
            let _ = listing.lines_of(symbol);
        }
    }
    let _ = descriptor::objdump_descriptors(data);
    let _ = descriptor::kernel_descriptors(data);
}

/// The stable-toolchain side of the `disasm` fuzz target: truncated code objects and code
/// objects with bytes overwritten (anywhere, and in the section headers and symbols that
/// locate `.text` and the descriptors) read without panicking, and every family decodes the
/// fixtures' code at every dword offset.
#[test]
fn damaged_code_objects_never_panic() {
    let mut rng = Lcg(0x5eed);
    for processor in PROCESSORS {
        let data = read(&format!("kernels_{processor}.co"));
        for cut in (0..data.len()).step_by(97) {
            read_everything(&data[..cut]);
        }
        // e_shoff: the section header table, which says where .text and the symbols are.
        let shoff = u64::from_le_bytes(data[0x28..0x30].try_into().unwrap()) as usize;
        for round in 0..300 {
            let mut damaged = data.clone();
            for _ in 0..1 + rng.below(4) {
                let at = match round % 3 {
                    0 => rng.below(damaged.len()),
                    1 => shoff + rng.below(damaged.len().saturating_sub(shoff)),
                    _ => rng.below(64),
                };
                if let Some(byte) = damaged.get_mut(at) {
                    *byte = [0, 0xff, 0x80, rng.next() as u8][rng.below(4)];
                }
            }
            read_everything(&damaged);
        }
        for isa in offload::disasm::Isa::ALL {
            for at in (0..data.len().min(8192)).step_by(4) {
                if let Some(d) = offload::disasm::decode(isa, &data[at..], u64::MAX - at as u64) {
                    assert!(d.size >= 4 && d.size % 4 == 0 && d.size <= data.len() - at, "{isa:?} at {at}: {d:?}");
                }
            }
        }
    }
}
