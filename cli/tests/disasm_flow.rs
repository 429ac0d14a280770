//! `offload disasm --cfg`, `--dot` and `--pressure`: on the hand-written kernels of
//! tests/disasm/flow (what each output says of blocks, loops and peaks known by construction),
//! and over every kernel of two real ROCm wheels from PyPI (cupy-rocm-5-0, jax-rocm60-pjrt;
//! downloaded once into the wheel cache, skipped with a message offline): the peak of live
//! VGPRs, AGPRs and SGPRs never exceeds what the metadata allocates, with the distribution of
//! peak/allocated printed. `make bench` (scripts/disasm_pressure.py) adds jax-rocm7-pjrt's
//! 138,240 kernels.
//!
//!     cargo test --release -p offload-cli --test disasm_flow -- --nocapture

mod support;

use serde_json::Value;
use support::{offload_in, root, wheels, Out};

fn ok(args: &[&str]) -> String {
    let out: Out = offload_in(&root(), args);
    assert!(out.ok(), "offload {}: {}", args.join(" "), out.stderr);
    out.stdout
}

const LOOP: &str = "tests/disasm/flow/loop_gfx900.co";

#[test]
fn cfg_text_names_blocks_edges_and_the_loop() {
    let text = ok(&["disasm", "--cfg", LOOP]);
    assert!(text.contains("kernel loop_kernel at 0x1300"), "{text}");
    assert!(text.contains("3 blocks, 3 edges, 1 loops, 0 unreachable"), "{text}");
    assert!(text.contains("block 1 0x1310-0x132c 6 instructions, conditional -> 1 (taken), 2 (fallthrough)"), "{text}");
    assert!(text.contains("loop at 0x1310: header 1, blocks 1, back edges from 1, depth 0"), "{text}");
}

#[test]
fn cfg_json_and_dot() {
    let doc: Value =
        serde_json::from_str(&ok(&["disasm", "--cfg", "--json", "tests/disasm/flow/branchy_gfx1100.co"])).unwrap();
    let function = &doc["images"][0]["functions"][0];
    assert_eq!(function["name"], "branchy");
    let blocks = function["cfg"]["blocks"].as_array().unwrap();
    let reachable: Vec<bool> = blocks.iter().map(|b| b["reachable"].as_bool().unwrap()).collect();
    assert_eq!(reachable, [true, true, true, true, false]);
    assert_eq!(blocks[0]["successors"][0]["kind"], "taken");
    assert_eq!(blocks[0]["successors"][0]["block"], 2);
    assert_eq!(blocks[3]["mix"]["vector memory"], 1);
    assert_eq!(function["mix"]["branch"], 2);

    let dot = ok(&["disasm", "--dot", LOOP]);
    assert!(dot.starts_with("digraph cfg {"), "{dot}");
    assert!(dot.contains("f0_b1 -> f0_b1 [style=bold, color=red];"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
}

#[test]
fn pressure_text_and_per_instruction_lines() {
    let text = ok(&["disasm", "--pressure", LOOP]);
    assert!(
        text.contains("peak 4 VGPRs at 0x1318, inside the loop at 0x1310; 8 allocated; peak 4 SGPRs at 0x1300; 16 allocated; 10 waves per SIMD"),
        "{text}"
    );
    let one = ok(&["disasm", "--pressure", "--kernel", "loop_kernel", LOOP]);
    let row = one.lines().find(|l| l.contains("v_add_u32_e32 v5, v4, v1")).expect(&one);
    let counts: Vec<&str> = row.split_whitespace().take(3).collect();
    assert_eq!(counts, ["4", "0", "3"], "{row}");
    let doc: Value =
        serde_json::from_str(&ok(&["disasm", "--pressure", "--json", "--kernel", "loop_kernel", LOOP])).unwrap();
    let pressure = &doc["images"][0]["functions"][0]["pressure"];
    assert_eq!(pressure["peak"]["vgprs"]["count"], 4);
    assert_eq!(pressure["peak"]["vgprs"]["loop"], 0x1310);
    assert_eq!(pressure["lines"].as_array().unwrap().len(), 14);
}

#[test]
fn peaks_never_exceed_the_allocation_in_real_wheels() {
    // The distribution of peak / allocated over these wheels is `make bench`'s
    // (scripts/disasm_pressure.py); here, that no peak is above.
    let mut checked = 0;
    for prefix in ["cupy-rocm-5-0==13.3.0", "jax-rocm60-pjrt==0.5.0"] {
        let Some(wheel) = wheels::wheel_file(prefix) else {
            println!("SKIPPED {prefix}: pip could not download it (offline?)");
            continue;
        };
        let path = wheel.to_string_lossy().into_owned();
        let doc: Value = serde_json::from_str(&ok(&["disasm", "--pressure", "--json", &path])).unwrap();
        let mut kernels = 0;
        for image in doc["images"].as_array().unwrap() {
            for function in image["functions"].as_array().unwrap() {
                let pressure = &function["pressure"];
                let allocated = &pressure["allocated"];
                if allocated.is_null() {
                    continue;
                }
                kernels += 1;
                for file in ["vgprs", "sgprs", "agprs"] {
                    let (Some(peak), Some(have)) = (pressure["peak"][file]["count"].as_u64(), allocated[file].as_u64())
                    else {
                        continue;
                    };
                    assert!(
                        peak <= have,
                        "{prefix} {} {}: peak {peak} {file} above {have}",
                        image["target"],
                        function["name"]
                    );
                }
            }
        }
        println!("{prefix}: {kernels} kernels, none above its allocation");
        checked += kernels;
    }
    if checked == 0 {
        println!("SKIPPED: no ROCm wheel in the cache; nothing was checked");
    }
}
