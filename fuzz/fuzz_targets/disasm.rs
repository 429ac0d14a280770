//! Fuzz target `disasm`: the properties in tests/fuzz_checks/mod.rs, on arbitrary bytes.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::run("disasm", data));
