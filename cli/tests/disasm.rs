//! `offload disasm`: code objects wherever they sit, listed with llvm-objdump's labels,
//! addresses and words; `--target`, `--kernel` (mangled or demangled), `--json`; PTX text; a
//! cubin's note. How many instruction texts equal llvm-objdump's is measured per processor by
//! the core's `disasm_agreement` test and `scripts/disasm_agreement.py`.

mod support;

use support::{assert_clean_failure, llvm_tool, offload_in, root, run, Out};

fn at_root(args: &[&str]) -> Out {
    offload_in(&root(), args)
}

fn stdout(out: &Out) -> String {
    assert!(out.ok(), "{}", out.stderr);
    out.stdout.clone()
}

/// The label lines of a listing: `0000000000001e00 <_Z10reduce_ldsPKiPi>:`.
fn labels(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.len() > 18 && l.as_bytes()[16] == b' ' && l.ends_with(">:")).collect()
}

/// The `// ADDRESS: WORDS` column of every instruction line.
fn addresses_and_words(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with('\t'))
        .filter_map(|l| l.split_once("// ").map(|(_, rest)| rest.split(" <").next().unwrap_or(rest).trim_end()))
        .collect()
}

#[test]
fn a_code_object_inside_a_host_object_has_llvm_objdumps_labels_addresses_and_words() {
    let Some(objdump) = llvm_tool("llvm-objdump") else { return };
    let code_object = root().join("tests/images/hip_kernels_gfx90a.co");
    let reference = run(&objdump, &[std::ffi::OsStr::new("-d"), code_object.as_os_str()]);
    if !reference.ok() {
        eprintln!("skipped: llvm-objdump gave no answer: {}", reference.stderr);
        return;
    }
    // The gfx90a entry of the object's bundle is that very code object (tests/images/generate.sh).
    let ours = stdout(&at_root(&["disasm", "tests/images/hip_kernels.o", "--target", "gfx90a"]));
    assert_eq!(labels(&ours), labels(&reference.stdout));
    let (mine, theirs) = (addresses_and_words(&ours), addresses_and_words(&reference.stdout));
    let first_difference = mine.iter().zip(&theirs).position(|(a, b)| a != b);
    assert_eq!(
        first_difference,
        None,
        "first different line: ours {:?}, llvm-objdump {:?}",
        first_difference.map(|i| mine[i]),
        first_difference.map(|i| theirs[i])
    );
    assert_eq!(mine.len(), theirs.len());
    assert!(ours.lines().next().unwrap().ends_with("clang offload bundle, 3 entries: gfx90a"), "{ours}");
}

#[test]
fn every_code_object_of_a_compressed_bundle_is_listed() {
    let text = stdout(&at_root(&["disasm", "tests/fixtures/ccob_zstd_v3.hipfb"]));
    let headers: Vec<&str> = text.lines().filter(|l| l.contains("compressed bundle v3")).collect();
    assert!(headers.len() >= 2, "{text}");
    assert!(labels(&text).iter().any(|l| l.ends_with("<_Z5scalePffi>:")), "{text}");
}

#[test]
fn a_kernel_named_demangled_gives_its_code_only() {
    let text = stdout(&at_root(&[
        "disasm",
        "tests/images/hip_kernels.o",
        "--target",
        "gfx1100",
        "--kernel",
        "reduce_lds(int const*, int*)",
    ]));
    // Its code, then its kernel descriptor as `llvm-objdump -D --disassemble-symbols=….kd` prints it.
    assert_eq!(
        labels(&text),
        ["0000000000001e00 <_Z10reduce_ldsPKiPi>:", "0000000000000c80 <_Z10reduce_ldsPKiPi.kd>:"],
        "{text}"
    );
    let descriptor = text.split_once("<_Z10reduce_ldsPKiPi.kd>:\n").unwrap().1;
    assert!(descriptor.starts_with(".amdhsa_kernel _Z10reduce_ldsPKiPi\n"), "{text}");
    assert!(descriptor.contains("\t.amdhsa_group_segment_fixed_size 1024\n"), "{text}");
    assert!(descriptor.trim_end().ends_with(".end_amdhsa_kernel"), "{text}");
    // The kernel's code runs from its label to the next kernel's (0x2000 in this object).
    let words = addresses_and_words(&text);
    assert!(words.first().unwrap().starts_with("000000001E00:"), "{text}");
    assert!(words.last().unwrap() < &"000000002000:", "{text}");
}

#[test]
fn json_lines_carry_address_offset_words_and_class() {
    let out = stdout(&at_root(&["disasm", "--json", "tests/images/hip_kernels_gfx90a.co", "--kernel", "_Z3fibi"]));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let image = &doc["images"][0];
    assert_eq!(image["processor"], "gfx90a");
    assert_eq!(image["labels"][0]["name"], "_Z3fibi");
    assert_eq!(image["labels"][0]["demangled"], "fib(int)");
    let lines = image["lines"].as_array().unwrap();
    assert!(!lines.is_empty());
    let start = image["labels"][0]["address"].as_u64().unwrap();
    assert_eq!(lines[0]["address"].as_u64(), Some(start));
    for line in lines {
        let words = line["words"].as_str().unwrap();
        assert!(words.split(' ').all(|w| w.len() == 8), "{line}");
        assert!(line.get("class").is_some() && line.get("offset").is_some(), "{line}");
    }
}

#[test]
fn ptx_prints_its_text_and_one_function_with_kernel() {
    let all = stdout(&at_root(&["disasm", "tests/images/cuda_kernels_sm80.ptx"]));
    assert!(all.contains(".version") && all.contains(".visible .entry"), "{all}");
    let one = stdout(&at_root(&["disasm", "tests/images/cuda_kernels_sm80.ptx", "--kernel", "uses_helper"]));
    let body: Vec<&str> = one.lines().skip(1).collect();
    assert!(body[0].starts_with(".visible .entry _Z11uses_helperPfi("), "{one}");
    assert_eq!(body.last(), Some(&"}"), "{one}");
    assert!(!one.contains(".version"), "{one}");
}

#[test]
fn a_cubin_says_sass_has_no_public_encoding() {
    let text = stdout(&at_root(&["disasm", "tests/fixtures/nvidia/nv_3arch_default.fatbin"]));
    assert!(text.contains("(nv_3arch_default.1.sm_75.cubin)"), "{text}");
    assert!(text.contains("SASS has no public encoding"), "{text}");
    assert!(text.contains("(nv_3arch_default.1.sm_80.ptx)") && text.contains(".entry"), "{text}");
}

#[test]
fn an_unknown_target_or_kernel_is_refused_with_what_there_is() {
    let args = ["disasm", "tests/images/hip_kernels.o", "--target", "gfx942"];
    let out = at_root(&args);
    assert_clean_failure(&out, &args, "gfx942", false);
    assert!(out.stderr.contains("gfx90a") && out.stderr.contains("gfx1100"), "{}", out.stderr);
    let args = ["disasm", "tests/images/hip_kernels.o", "--kernel", "no_such_kernel"];
    assert_clean_failure(&at_root(&args), &args, "no_such_kernel", false);
}
