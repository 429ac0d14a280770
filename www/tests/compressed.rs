//! Every compressed fixture (clang-offload-bundler's zlib and zstd bundles, versions 1 to 3,
//! zstd level 19 among them) decompresses and verifies in the browser, where the workers decode
//! zstd with libzstd compiled to wasm32 (built without the decoder variants that only pay off
//! natively: `.cargo/config.toml`). Natively the codec suites cover both decoders; this is the
//! wasm build's own check. A hash mismatch or a decoding failure would be an error diagnostic.
#![cfg(target_arch = "wasm32")]

use offload::explore::{explore, Options};
use wasm_bindgen_test::wasm_bindgen_test as test;
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const FIXTURES: &[(&str, &[u8])] = &[
    ("ccob_zlib_v2.hipfb", include_bytes!("../../tests/fixtures/ccob_zlib_v2.hipfb")),
    ("ccob_zlib_v3.hipfb", include_bytes!("../../tests/fixtures/ccob_zlib_v3.hipfb")),
    ("ccob_zstd_v1_derived.hipfb", include_bytes!("../../tests/fixtures/ccob_zstd_v1_derived.hipfb")),
    ("ccob_zstd_v2.hipfb", include_bytes!("../../tests/fixtures/ccob_zstd_v2.hipfb")),
    ("ccob_zstd_v3.hipfb", include_bytes!("../../tests/fixtures/ccob_zstd_v3.hipfb")),
    ("ccob_zstd_v3_level19.hipfb", include_bytes!("../../tests/fixtures/ccob_zstd_v3_level19.hipfb")),
    ("hip_elf_2arch_compressed.hipfb", include_bytes!("../../tests/fixtures/hip_elf_2arch_compressed.hipfb")),
    ("libhip_3tu_compressed.so", include_bytes!("../../tests/fixtures/libhip_3tu_compressed.so")),
    ("hip_coff_compressed.obj", include_bytes!("../../tests/fixtures/hip_coff_compressed.obj")),
];

#[test]
fn every_compressed_fixture_decompresses_and_verifies() {
    for (name, data) in FIXTURES {
        let tree = explore(*data, name, &Options { verify_all: true, ..Options::default() });
        let errors: Vec<String> = tree.errors().iter().map(|(_, d)| d.message.clone()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let decompressed: Vec<u64> = tree.spaces.iter().skip(1).filter(|s| s.data.is_some()).map(|s| s.size).collect();
        assert!(
            !decompressed.is_empty() && decompressed.iter().all(|&n| n > 0),
            "{name}: decompressed {decompressed:?}"
        );
    }
}
