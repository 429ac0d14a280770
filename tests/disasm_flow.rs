//! Control flow and register pressure (`offload::disasm::flow`):
//!
//! - hand-written kernels assembled by llvm-mc 22 (`tests/disasm/flow/`, `generate.sh`) whose
//!   blocks, edges, loops, unreachable blocks and register peaks are known by construction;
//! - over every function of the compiled fixtures (`tests/disasm/*.co`, `tests/images/*.co`):
//!   the blocks cover the function's lines in order, and the CFG's taken edges are exactly the
//!   branch targets the listing prints;
//! - over every kernel of those fixtures: the peak of live VGPRs, AGPRs and SGPRs never exceeds
//!   what the metadata allocates; the distribution of peak/allocated is printed.
//!
//! - over every instruction of those fixtures and of two real ROCm wheels (jax-rocm60-plugin,
//!   cupy-rocm-5-0; GFX8 to GFX11, downloaded once into the wheel cache, skipped with a message
//!   offline): every decoded instruction hands over its register operands, and the read and
//!   write sets they give equal the ones the former text rules give, except the listed cases
//!   where the text's were wrong; and over the wheels' kernels, the peaks never exceed the
//!   allocation;
//! - the register operands a listing keeps from its decoding equal a second decoding's.
//!
//! The same never-above check over more real ROCm wheels is `cli/tests/disasm_flow.rs`.
//!
//!     cargo test --release -p offload --test disasm_flow -- --nocapture

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use offload::disasm::flow::access::{self, Access, Mode, Range, RegSet};
use offload::disasm::flow::{self, Allocation, EdgeKind, Exit, File, Flow};
use offload::disasm::{decode, Generation, LineKind, Listing};
use offload::explore::{explore, Options};
use offload::report::targets;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn code_object(path: &Path) -> (Vec<u8>, Listing) {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e} (tests/disasm/flow/generate.sh)", path.display()));
    let listing = Listing::of_code_object(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bytes, listing)
}

/// The one kernel of a hand-written code object, analysed, with its allocation.
fn only_kernel(name: &str) -> (Listing, Flow, Allocation) {
    let (bytes, listing) = code_object(&root().join("tests/disasm/flow").join(name));
    let functions = flow::functions(&listing);
    assert_eq!(functions.len(), 1, "{name}: {functions:?}");
    let (kernel, _, lines) = functions.into_iter().next().unwrap();
    let allocation = flow::budget::allocations(&bytes, &listing.processor, listing.isa)
        .into_iter()
        .find(|a| a.kernel == kernel)
        .unwrap_or_else(|| panic!("{name}: no allocation for {kernel}"));
    let wave64 = allocation.wave_size == 64;
    let analysed = flow::analyze(&listing, &kernel, lines, wave64);
    (listing, analysed, allocation)
}

/// The address of the kernel's line whose text starts with `text`.
fn address_of(listing: &Listing, flow: &Flow, text: &str) -> u64 {
    let lines = &listing.lines[flow.lines.clone()];
    lines.iter().find(|l| l.text.starts_with(text)).unwrap_or_else(|| panic!("no line {text}")).address
}

fn peak_address(listing: &Listing, flow: &Flow, file: File) -> u64 {
    listing.lines[flow.peak(file).line].address
}

/// (successor block, kind) of each edge out of block `b`.
fn successors(flow: &Flow, b: usize) -> Vec<(Option<usize>, EdgeKind)> {
    flow.blocks[b].successors.iter().map(|e| (e.to, e.kind)).collect()
}

#[test]
fn a_counted_loop() {
    let (listing, flow, allocation) = only_kernel("loop_gfx900.co");
    assert_eq!(flow.blocks.len(), 3);
    assert_eq!(successors(&flow, 0), [(Some(1), EdgeKind::Fallthrough)]);
    assert_eq!(successors(&flow, 1), [(Some(1), EdgeKind::Taken), (Some(2), EdgeKind::Fallthrough)]);
    assert_eq!(flow.blocks[2].exit, Exit::End);
    assert_eq!(flow.loops.len(), 1);
    assert_eq!(
        (flow.loops[0].header, flow.loops[0].body.clone(), flow.loops[0].latches.clone()),
        (1, vec![1], vec![1])
    );
    assert!(flow.blocks.iter().all(|b| b.reachable));

    assert_eq!(flow.peak(File::Vgpr).count, 4);
    assert_eq!(peak_address(&listing, &flow, File::Vgpr), address_of(&listing, &flow, "v_add_u32_e32 v5, v4, v1"));
    assert_eq!(flow.peak(File::Sgpr).count, 4);
    assert_eq!(peak_address(&listing, &flow, File::Sgpr), flow.address);
    assert_eq!(flow.peak(File::Agpr).count, 0);
    let summary = flow.summary(&listing, Some(&allocation));
    let header = flow.blocks[1].address;
    assert!(
        summary.starts_with(&format!(
            "peak 4 VGPRs at {:#x}, inside the loop at {header:#x}; 8 allocated",
            flow.blocks[1].address + 8
        )),
        "{summary}"
    );
    assert!(summary.ends_with("; 10 waves per SIMD"), "{summary}");
}

#[test]
fn an_if_else_and_an_unreachable_block() {
    let (listing, flow, _) = only_kernel("branchy_gfx1100.co");
    assert_eq!(flow.blocks.len(), 5);
    assert_eq!(successors(&flow, 0), [(Some(2), EdgeKind::Taken), (Some(1), EdgeKind::Fallthrough)]);
    assert_eq!(successors(&flow, 1), [(Some(3), EdgeKind::Taken)]);
    assert_eq!(successors(&flow, 2), [(Some(3), EdgeKind::Fallthrough)]);
    assert_eq!((flow.blocks[3].exit, flow.blocks[4].exit), (Exit::End, Exit::End));
    assert_eq!(flow.blocks[3].predecessors, [1, 2]);
    let reachable: Vec<bool> = flow.blocks.iter().map(|b| b.reachable).collect();
    assert_eq!(reachable, [true, true, true, true, false]);
    assert!(flow.loops.is_empty());

    assert_eq!(flow.peak(File::Vgpr).count, 2);
    assert_eq!(peak_address(&listing, &flow, File::Vgpr), address_of(&listing, &flow, "v_mov_b32_e32 v2, 0"));
    // wave32: vcc is vcc_lo alone.
    assert_eq!(flow.peak(File::Sgpr).count, 4);
    assert_eq!(peak_address(&listing, &flow, File::Sgpr), address_of(&listing, &flow, "s_and_saveexec_b32"));
}

#[test]
fn agprs_of_a_matrix_kernel() {
    let (listing, flow, allocation) = only_kernel("agpr_gfx90a.co");
    assert_eq!(flow.blocks.len(), 1);
    assert_eq!(flow.peak(File::Agpr).count, 16);
    assert_eq!(peak_address(&listing, &flow, File::Agpr), address_of(&listing, &flow, "v_accvgpr_write_b32 a15, 0"));
    let mfma = address_of(&listing, &flow, "v_mfma_f32_16x16x1f32");
    let at = listing.lines[flow.lines.clone()].iter().position(|l| l.address == mfma).unwrap();
    assert_eq!(flow.pressure[at].agprs, 16);
    assert_eq!(flow.peak(File::Vgpr).count, 3);
    assert_eq!(peak_address(&listing, &flow, File::Vgpr), address_of(&listing, &flow, "v_mov_b32_e32 v5, s1"));
    assert_eq!(allocation.vgprs, Some(24));
}

/// Every code object the fixtures hold for the disassembler.
fn fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["tests/disasm", "tests/images", "tests/disasm/flow"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "co") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 20, "fixtures: {out:?}");
    out
}

#[test]
fn edges_are_the_branch_targets_the_listing_prints() {
    let mut checked = 0;
    for path in fixtures() {
        let (_, listing) = code_object(&path);
        for (name, _, lines) in flow::functions(&listing) {
            let flow = flow::analyze(&listing, &name, lines.clone(), true);
            let code = &listing.lines[lines.clone()];
            let at = format!("{} {name}", path.display());
            // The blocks cover the lines in order, each edge starts where its block ends.
            let mut next = 0;
            for block in &flow.blocks {
                assert_eq!(block.first, next, "{at}");
                assert!(block.end > block.first, "{at}");
                next = block.end;
                for e in block.successors.iter().filter(|e| e.kind != EdgeKind::Taken) {
                    assert_eq!(e.address, block.end_address, "{at}");
                }
                for e in &block.successors {
                    if let Some(to) = e.to {
                        assert_eq!(flow.blocks[to].address, e.address, "{at}");
                    }
                }
            }
            assert_eq!(next, code.len(), "{at}");
            // Taken edges, as (branch address, target) pairs, equal the listing's targets.
            let mut printed: Vec<(u64, u64)> = code.iter().filter_map(|l| l.target.map(|t| (l.address, t))).collect();
            let mut taken: Vec<(u64, u64)> = flow
                .blocks
                .iter()
                .flat_map(|b| {
                    let last = code[b.end - 1].address;
                    b.successors.iter().filter(|e| e.kind == EdgeKind::Taken).map(move |e| (last, e.address))
                })
                .collect();
            printed.sort();
            taken.sort();
            assert_eq!(taken, printed, "{at}");
            checked += printed.len();
        }
    }
    println!("{checked} branch edges equal the listing's targets");
    assert!(checked > 100, "only {checked} branches in the fixtures");
}

/// peak / allocated, in tenths, counted: the distribution printed by the tests.
pub fn histogram(ratios: &[f64]) -> String {
    let mut buckets = [0usize; 11];
    for r in ratios {
        buckets[((r * 10.0).floor() as usize).min(10)] += 1;
    }
    let mut out = String::new();
    for (i, n) in buckets.iter().enumerate() {
        let range = if i == 10 { String::from("100%     ") } else { format!("{:>3}-{:>3}%", i * 10, i * 10 + 9) };
        out.push_str(&format!("  {range} {n:>6} {}\n", "#".repeat((n * 50).div_ceil(ratios.len().max(1)))));
    }
    out
}

#[test]
fn peaks_never_exceed_the_allocation() {
    let mut ratios = [Vec::new(), Vec::new()];
    for path in fixtures() {
        let (bytes, listing) = code_object(&path);
        let allocations = flow::budget::allocations(&bytes, &listing.processor, listing.isa);
        for (name, _, lines) in flow::functions(&listing) {
            let Some(allocation) = allocations.iter().find(|a| a.kernel == name) else { continue };
            let flow = flow::analyze(&listing, &name, lines, allocation.wave_size == 64);
            let at = format!("{} {name}", path.display());
            for (i, (file, allocated)) in
                [(File::Vgpr, allocation.vgprs), (File::Sgpr, allocation.sgprs), (File::Agpr, allocation.agprs)]
                    .into_iter()
                    .enumerate()
            {
                let Some(allocated) = allocated else { continue };
                let peak = u32::from(flow.peak(file).count);
                assert!(peak <= allocated, "{at}: peak {peak} {file:?} above the {allocated} allocated");
                if i < 2 && allocated > 0 {
                    ratios[i].push(f64::from(peak) / f64::from(allocated));
                }
            }
        }
    }
    assert!(ratios[0].len() >= 50, "only {} kernels with an allocation", ratios[0].len());
    println!("peak VGPRs / allocated over {} fixture kernels:\n{}", ratios[0].len(), histogram(&ratios[0]));
    println!("peak SGPRs / allocated over {} fixture kernels:\n{}", ratios[1].len(), histogram(&ratios[1]));
}

/// A pair of sets: (written, read).
type Sets = (RegSet, RegSet);
/// Whether the difference between the operands' sets and the text's has a known case's shape.
type Shape = fn(&Sets, &Sets) -> bool;

/// The cases where the sets from the decoder's operands differ from the text's, because the
/// text's rules were wrong: (mnemonic prefix, what is right, the shape the difference must
/// have to be accepted as that case).
const TEXT_WAS_WRONG: [(&str, &str, Shape); 9] = [
    (
        "flat_atomic_",
        "a returning FLAT atomic writes the old value to VDST (dword 1 bits 31:24), a field of its \
         own beside DATA (15:8), so VDST is written and not read; a MUBUF atomic, by contrast, \
         returns into its one VDATA field, which it also reads",
        text_took_destination_for_tied,
    ),
    ("global_atomic_", "as flat_atomic_: GLOBAL is the FLAT encoding with SEG = 2", text_took_destination_for_tied),
    (
        "v_mfma_ld_scale_b32",
        "gfx950's scale load has no destination (llvm-mc 22 rejects a nonzero VDST field): both \
         operands are scale sources, read, where the text took the first for written",
        text_took_a_source_for_written,
    ),
    (
        "v_dot2acc_",
        "GFX11's name for v_dot2c: D += dot(A, B), the destination tied to the accumulator \
         (`llvm-mc -show-inst` lists VGPR D again as the last source); the text rules knew only \
         the v_dot2c_ spelling",
        operands_read_the_destination_too,
    ),
    ("v_dual_dot2acc_", "as v_dot2acc_, in a VOPD half", operands_read_the_destination_too),
    (
        "v_dual_cndmask_",
        "VOPD's v_dual_cndmask_b32 selects by vcc like VOP2's v_cndmask_b32_e32 but does not print \
         it (in kernels_gfx1151.co the compiler sets vcc_lo with v_cmp_lt_f32_e32 just before one), \
         so the text rules missed the read",
        operands_also_read_vcc,
    ),
    (
        "ds_param_load",
        "GFX12's name for lds_param_load (the LDSDIR encoding, not DS): it loads an attribute into \
         its VGPR, written; the text rules took it for a DS operation without a result",
        text_took_a_destination_for_read,
    ),
    ("ds_direct_load", "as ds_param_load: GFX12's lds_direct_load", text_took_a_destination_for_read),
    (
        "v_interp_p2_f32_e32",
        "VINTRP's second pass adds to the first pass's result in its destination (`llvm-mc \
         -show-inst` lists VGPR D twice)",
        operands_read_the_destination_too,
    ),
];

/// The operands write what the text read, and read nothing.
fn text_took_a_destination_for_read(new: &Sets, old: &Sets) -> bool {
    old.0 == RegSet::default() && new.1 == RegSet::default() && new.0 == old.1 && new.0 != RegSet::default()
}

/// The operands read the written registers too; the text read only the rest.
fn operands_read_the_destination_too(new: &Sets, old: &Sets) -> bool {
    text_took_destination_for_tied(old, new)
}

/// The operands read `vcc` (SGPRs 106, 107) besides what the text read.
fn operands_also_read_vcc(new: &Sets, old: &Sets) -> bool {
    let mut reads = old.1;
    reads.insert(Range { file: File::Sgpr, first: 106, count: 2 });
    let mut reads_new = new.1;
    reads_new.insert(Range { file: File::Sgpr, first: 106, count: 2 });
    new.0 == old.0 && reads == reads_new && new.1 != old.1
}

/// The text's sets are the operands' with the written registers read as well.
fn text_took_destination_for_tied(new: &Sets, old: &Sets) -> bool {
    let mut reads = new.1;
    reads.union_with(&new.0);
    new.0 == old.0 && reads == old.1 && new.1 != old.1
}

/// The operands write nothing; the text wrote registers the operands read.
fn text_took_a_source_for_written(new: &Sets, old: &Sets) -> bool {
    let mut all = old.1;
    all.union_with(&old.0);
    new.0 == RegSet::default() && old.0 != RegSet::default() && all == new.1
}

/// (defs, uses) of an access as register sets, so that order does not matter.
fn sets(access: &Access) -> Sets {
    let (mut defs, mut uses) = (RegSet::default(), RegSet::default());
    access.defs.iter().for_each(|&r| defs.insert(r));
    access.uses.iter().for_each(|&r| uses.insert(r));
    (defs, uses)
}

/// Compares both sources of the sets over every instruction of `listing` whose decoder gives
/// operands; counts agreeing lines and the known differences by mnemonic prefix, and returns
/// the unexplained differences as text.
fn compare_sets(listing: &Listing, at: &str, counts: &mut BTreeMap<String, usize>) -> Vec<String> {
    let mut unexplained = Vec::new();
    // Only the implicit `vcc` depends on the wave size; GFX8 and GFX9 run wave64 only.
    let wave32 = listing.isa.generation() >= Generation::Gfx10;
    for wave64 in [true, false].into_iter().filter(|&w| w || wave32) {
        let mode = Mode { isa: listing.isa, wave64 };
        for line in listing.lines.iter().filter(|l| l.kind == LineKind::Instruction) {
            let Some(registers) = listing.registers(line) else {
                unexplained.push(format!("{at} {:#x}: {} hands over no operands", line.address, line.text));
                continue;
            };
            assert!(registers.is_complete(), "{at}: {} has more operands than fit", line.text);
            let new = sets(&access::from_operands(&registers, mode));
            let old = sets(&access::from_text(&line.text, line.target.is_some(), mode));
            if new == old {
                *counts.entry(String::from("(equal)")).or_default() += 1;
                continue;
            }
            // A VOPD line has two mnemonics, one per half.
            let mnemonics: Vec<&str> =
                line.text.split(" :: ").map(|half| half.split(' ').next().unwrap_or("")).collect();
            let known = TEXT_WAS_WRONG.iter().find(|(prefix, _, _)| mnemonics.iter().any(|m| m.starts_with(prefix)));
            match known.filter(|(_, _, shape)| shape(&new, &old)) {
                Some((prefix, _, _)) => *counts.entry(String::from(*prefix)).or_default() += 1,
                None => unexplained.push(format!(
                    "{at} {:#x} wave{}: {}\n  operands {:?}\n  text     {:?}",
                    line.address,
                    if wave64 { 64 } else { 32 },
                    line.text,
                    access::from_operands(&registers, mode),
                    access::from_text(&line.text, line.target.is_some(), mode)
                )),
            }
        }
    }
    unexplained
}

fn report_sets(counts: &BTreeMap<String, usize>, unexplained: &[String]) {
    for (what, n) in counts {
        let why = TEXT_WAS_WRONG.iter().find(|(p, _, _)| p == what).map_or("", |(_, why, _)| why);
        println!("  {n:>9} {what} {why}");
    }
    let shown: Vec<&String> = unexplained.iter().take(40).collect();
    assert!(unexplained.is_empty(), "{} unexplained differences:\n{shown:#?}", unexplained.len());
}

#[test]
fn operand_sets_equal_the_text_sets_over_the_fixtures() {
    let mut counts = BTreeMap::new();
    let mut unexplained = Vec::new();
    for path in fixtures() {
        let (_, listing) = code_object(&path);
        unexplained.extend(compare_sets(&listing, &path.display().to_string(), &mut counts));
    }
    println!("instructions (wave32 again for GFX10+) of the fixtures, by how their sets compare:");
    report_sets(&counts, &unexplained);
    assert!(counts.get("(equal)").copied().unwrap_or(0) > 10_000, "{counts:?}");
}

/// The listing keeps each line's register operands from its one decoding (the flow analysis
/// no longer decodes every line again): over every line of the fixtures they equal what a fresh
/// decoding of the line's bytes gives, and lines that are not instructions have none.
#[test]
fn kept_operands_equal_a_second_decoding() {
    let mut compared = 0usize;
    for path in fixtures() {
        let (bytes, listing) = code_object(&path);
        for line in &listing.lines {
            let start = usize::try_from(line.file_offset).unwrap();
            let fresh = match line.kind {
                LineKind::Instruction => decode(listing.isa, &bytes[start..], line.address).and_then(|d| d.registers),
                _ => None,
            };
            let kept = listing.registers(line);
            assert_eq!(kept, fresh, "{} {:#x}: {}", path.display(), line.address, line.text);
            compared += usize::from(kept.is_some());
        }
    }
    assert!(compared > 10_000, "only {compared} lines with operands");
}

/// The AMDGPU code objects of a cached real wheel, or `None` (printed) when pip cannot get it.
fn real_code_objects(requirement: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let wheel = common::wheels::wheel_file(requirement)?;
    let data = std::fs::read(&wheel).unwrap();
    let options = Options { verify_all: true, keep_bytes: true, ..Options::default() };
    let tree = explore(&data[..], requirement, &options);
    let mut out = Vec::new();
    // Libraries of one wheel carry the same code object more than once: each is checked once.
    let mut seen = HashSet::new();
    for target in targets::collect(&tree) {
        let Some(bytes) = tree.bytes(&data, target.span) else { continue };
        let amdgpu = bytes.starts_with(b"\x7fELF") && bytes.get(18..20) == Some(&[224, 0][..]);
        if amdgpu && seen.insert(bytes) {
            out.push((format!("{requirement} {}", target.target_id), bytes.to_vec()));
        }
    }
    Some(out)
}

#[test]
fn operand_sets_equal_the_text_sets_and_peaks_stay_within_the_allocation_in_real_wheels() {
    let mut counts = BTreeMap::new();
    let mut unexplained = Vec::new();
    let (mut objects, mut kernels) = (0, 0);
    for requirement in ["jax-rocm60-plugin==0.5.0", "cupy-rocm-5-0==13.3.0"] {
        let Some(code_objects) = real_code_objects(requirement) else {
            println!("SKIPPED {requirement}: pip could not download it (offline?)");
            continue;
        };
        assert!(!code_objects.is_empty(), "{requirement}: no AMDGPU code objects");
        for (at, bytes) in code_objects {
            let Ok(listing) = Listing::of_code_object(&bytes) else { continue };
            objects += 1;
            unexplained.extend(compare_sets(&listing, &at, &mut counts));
            let allocations = flow::budget::allocations(&bytes, &listing.processor, listing.isa);
            for (name, _, lines) in flow::functions(&listing) {
                let Some(allocation) = allocations.iter().find(|a| a.kernel == name) else { continue };
                let flow = flow::analyze(&listing, &name, lines, allocation.wave_size == 64);
                kernels += 1;
                for (file, allocated) in
                    [(File::Vgpr, allocation.vgprs), (File::Sgpr, allocation.sgprs), (File::Agpr, allocation.agprs)]
                {
                    let Some(allocated) = allocated else { continue };
                    let peak = u32::from(flow.peak(file).count);
                    assert!(peak <= allocated, "{at} {name}: peak {peak} {file:?} above the {allocated} allocated");
                }
            }
        }
    }
    if objects == 0 {
        println!("SKIPPED: no ROCm wheel in the cache; nothing was checked");
        return;
    }
    println!("{objects} real code objects, {kernels} kernels within their allocation; instructions by how their sets compare:");
    report_sets(&counts, &unexplained);
}
