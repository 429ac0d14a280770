//! `offload kernels`: the table of every kernel across targets, its JSON, `--target`, and names
//! demangled (`--mangled`: as the images name them).

mod support;

use support::{offload_in, root, Out};

/// Runs our tool in the repository's root (the paths below are relative to it).
fn at_root(args: &[&str]) -> Out {
    offload_in(&root(), args)
}

fn stdout(out: &Out) -> String {
    assert!(out.ok(), "{}", out.stderr);
    out.stdout.clone()
}

#[test]
fn one_row_per_kernel_a_column_group_per_target() {
    let text = stdout(&at_root(&["kernels", "tests/images/hip_kernels.o"]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("4 kernels across 2 targets"), "{text}");
    assert!(lines[1].contains("gfx90a") && lines[1].contains("gfx1100"), "{text}");
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["kernel", "regs", "SGPR", "LDS", "scratch", "waves", "regs", "SGPR", "LDS", "scratch", "waves"]
    );
    // The LDS kernel (`_Z10reduce_ldsPKiPi`, shown demangled) uses 1024 bytes of LDS for both
    // targets.
    let row = lines.iter().find_map(|l| l.strip_prefix("reduce_lds(int const*, int*) ")).expect(&text);
    let lds: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((lds[2], lds[7]), ("1024", "1024"), "{text}");
    // Occupancy: 16 waves per SIMD on gfx1100, 8 on gfx90a (clang-22's remark for this kernel).
    assert_eq!((lds[4], lds[9]), ("16", "8"), "{text}");
}

#[test]
fn json_cells_point_at_the_kernel_nodes_of_list_json() {
    let kernels: serde_json::Value =
        serde_json::from_str(&stdout(&at_root(&["kernels", "--json", "tests/images/hip_kernels.o"]))).unwrap();
    let list: serde_json::Value =
        serde_json::from_str(&stdout(&at_root(&["list", "--json", "tests/images/hip_kernels.o"]))).unwrap();
    let targets: Vec<&str> =
        kernels["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["gfx1100", "gfx90a"]);
    let rows = kernels["kernels"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let mut cells = 0;
    for row in rows {
        for (target, cell) in row["targets"].as_object().unwrap() {
            let mut node = &list["root"];
            for i in cell["path"].as_array().unwrap() {
                node = &node["children"][i.as_u64().unwrap() as usize];
            }
            assert_eq!(node["kind"], "kernel", "{target}");
            assert_eq!(node["fields"]["name"], row["name"]);
            assert!(row["demangled"] != row["name"] && row["demangled"].as_str().unwrap().ends_with(')'), "{row}");
            assert_eq!(node["fields"]["vgpr_count"], cell["registers"]);
            assert_eq!(node["fields"]["sgpr_count"], cell["sgprs"]);
            assert_eq!(node["fields"]["lds_size"], cell["lds"]);
            assert_eq!(node["fields"]["scratch_size"], cell["scratch"]);
            assert_eq!(node["fields"]["occupancy"], cell["occupancy"]);
            cells += 1;
        }
    }
    assert_eq!(cells, 8);
}

#[test]
fn target_filter_keeps_the_named_columns() {
    let text = stdout(&at_root(&["kernels", "--target", "gfx90a", "tests/images/hip_kernels.o"]));
    assert!(text.starts_with("4 kernels across 1 target "), "{text}");
    assert!(!text.contains("gfx1100"), "{text}");
    // A processor names a column with features too.
    let text = stdout(&at_root(&["kernels", "--target", "gfx90a", "tests/images/omp_kernels.o"]));
    assert!(text.contains("gfx90a:xnack+"), "{text}");
    let out = at_root(&["kernels", "--target", "sm_90", "tests/images/hip_kernels.o"]);
    assert_eq!(out.code, Some(1));
    let err = &out.stderr;
    assert!(err.contains("no kernels for target sm_90 (targets with kernels: gfx1100, gfx90a)"), "{err}");
}

#[test]
fn cubins_show_entry_kernels_and_device_functions() {
    let text = stdout(&at_root(&["kernels", "tests/images/cuda_kernels_sm80.cubin"]));
    assert!(text.lines().nth(2).unwrap().starts_with("kernel") && text.contains(" kind "), "{text}");
    let helper = text.lines().find(|l| l.starts_with("helper(float const*, int) ")).unwrap();
    assert!(helper.contains(" device "), "{text}");
    let lds = text.lines().find(|l| l.starts_with("lds ")).unwrap();
    assert!(lds.contains(" kernel ") && lds.contains(" 1024 "), "{text}");
}

#[test]
fn a_file_without_kernels_says_so() {
    let text = stdout(&at_root(&["kernels", "tests/fixtures/bundle_text.ll"]));
    assert_eq!(text.trim(), "no kernels found");
}

#[test]
fn cubins_inside_a_fatbin_have_their_kernels_under_the_entry_arch() {
    let kernels: serde_json::Value =
        serde_json::from_str(&stdout(&at_root(&["kernels", "--json", "tests/fixtures/nvidia/nv_3arch_size.fatbin"])))
            .unwrap();
    let targets: Vec<&str> =
        kernels["targets"].as_array().unwrap().iter().map(|t| t["target"].as_str().unwrap()).collect();
    // The sm_90a cubin says sm_90 in its ELF flags (CUDA 13); the entry names the variant.
    assert_eq!(targets, ["sm_75", "sm_80", "sm_80 (PTX)", "sm_90a"]);
    let names: Vec<&str> = kernels["kernels"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["_Z3addPKfS0_Pfi", "_Z5scalePffi"]);
    // Every compressed cubin is decoded: registers for each of the three.
    for row in kernels["kernels"].as_array().unwrap() {
        for t in ["sm_75", "sm_80", "sm_90a"] {
            assert!(row["targets"][t]["registers"].as_u64().unwrap() > 0, "{row}");
        }
    }
}

#[test]
fn names_are_demangled_and_mangled_on_request() {
    let text = stdout(&at_root(&["kernels", "tests/images/cuda_kernels_sm80.cubin"]));
    assert!(text.lines().any(|l| l.starts_with("uses_helper(float*, int) ")), "{text}");
    // nvcc's clone of a device function has a name llvm-cxxfilt leaves as it is: so do we.
    assert!(text.lines().any(|l| l.starts_with("_Z6helperPKfi$1 ")), "{text}");
    let text = stdout(&at_root(&["kernels", "--mangled", "tests/images/cuda_kernels_sm80.cubin"]));
    assert!(text.lines().any(|l| l.starts_with("_Z11uses_helperPfi ")), "{text}");
    assert!(!text.contains("uses_helper("), "{text}");
    // JSON: `name` stays the mangled symbol, `demangled` is beside it.
    let doc: serde_json::Value =
        serde_json::from_str(&stdout(&at_root(&["kernels", "--json", "tests/images/cuda_kernels_sm80.cubin"])))
            .unwrap();
    let pairs: Vec<(&str, &str)> = doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap(), k["demangled"].as_str().unwrap()))
        .collect();
    assert!(pairs.contains(&("_Z11uses_helperPfi", "uses_helper(float*, int)")), "{pairs:?}");
    assert!(pairs.contains(&("lds", "lds")), "{pairs:?}");
}
