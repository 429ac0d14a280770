//! The reading limits every reading command accepts (`--max-decompressed`, `--max-depth`,
//! `--max-entries`): a file past a limit ends in an error that names the limit, and raising the
//! limit lets the same file through.

mod support;

use support::{fixture, offload, s, Out, Scratch};

fn text(out: &Out) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn max_entries_cuts_a_bundle_and_says_so() {
    let bundle = s(&fixture("bundle_bin.bc"));
    let cut = offload(&["list", &bundle, "--max-entries", "1"]);
    assert_eq!(cut.code, Some(1), "{}", text(&cut));
    assert!(text(&cut).contains("2 more entries are not shown"), "{}", text(&cut));
    let whole = offload(&["list", &bundle, "--max-entries", "3"]);
    assert!(whole.ok(), "{}", text(&whole));
}

#[test]
fn max_depth_stops_nesting_and_says_so() {
    let object = s(&fixture("hip_elf_2arch_compressed.o"));
    let shallow = offload(&["list", &object, "--max-depth", "1"]);
    assert_eq!(shallow.code, Some(1), "{}", text(&shallow));
    assert!(text(&shallow).contains("nested deeper than 1 levels"), "{}", text(&shallow));
    assert!(offload(&["list", &object]).ok());
}

#[test]
fn max_decompressed_refuses_a_bigger_bundle_in_every_command() {
    // The fixture decompresses to 10755 bytes.
    let ccob = s(&fixture("ccob_zstd_v3.hipfb"));
    let dir = Scratch::new("limits", "decompressed");
    let out = s(&dir.path("out"));
    let out = out.as_str();
    let small = "10000";
    let runs: [Vec<&str>; 3] = [
        vec!["decompress", &ccob, "-o", out, "--max-decompressed", small],
        vec![
            "unbundle",
            "--type=bc",
            "--input",
            &ccob,
            "--targets=host-x86_64-unknown-linux-gnu",
            "--output",
            out,
            "--max-decompressed",
            small,
        ],
        vec!["list", &ccob, "--verify", "--max-decompressed", small],
    ];
    for args in &runs {
        let refused = offload(args);
        assert_eq!(refused.code, Some(1), "{args:?}: {}", text(&refused));
        assert!(text(&refused).contains("limit of 10000 bytes"), "{args:?}: {}", text(&refused));
        let mut raised = args.clone();
        *raised.last_mut().unwrap() = "20000";
        let allowed = offload(&raised);
        assert!(allowed.ok(), "{raised:?}: {}", text(&allowed));
    }
}
