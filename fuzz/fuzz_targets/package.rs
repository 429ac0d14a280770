//! Fuzz target `package`: the properties in tests/fuzz_checks/mod.rs (zip, tar, cpio, deb and
//! rpm readers, and the explorer on packages), on arbitrary bytes.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::run("package", data));
