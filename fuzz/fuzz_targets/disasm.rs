//! Fuzz target `disasm`: the AMDGPU disassembler never panics. Arbitrary bytes are decoded as
//! instructions of every family at every dword offset (at small addresses and at addresses
//! where a branch target would overflow), read as a whole code object's listing, and as kernel
//! descriptors. A decoded instruction must claim whole dwords that are there.
#![no_main]

use offload::disasm::{decode, descriptor, Isa, Listing};

/// Bytes decoded at every offset: enough for every encoding, small enough to stay fast.
const DECODED_BYTES: usize = 4096;

fn decode_everywhere(data: &[u8]) {
    let code = &data[..data.len().min(DECODED_BYTES)];
    for isa in Isa::ALL {
        for at in (0..code.len()).step_by(4) {
            let rest = &code[at..];
            for address in [at as u64, u64::MAX - 3 - at as u64] {
                let Some(decoded) = decode(isa, rest, address) else { continue };
                assert!(
                    decoded.size >= 4 && decoded.size % 4 == 0 && decoded.size <= rest.len(),
                    "{isa:?} at {at}: size {} of {} bytes left ({})",
                    decoded.size,
                    rest.len(),
                    decoded.text
                );
                assert!(!decoded.text.is_empty(), "{isa:?} at {at}: empty text");
            }
        }
        let descriptor_bytes = data.get(..descriptor::SIZE).unwrap_or(data);
        let _ = descriptor::objdump_text(isa, "kernel.kd", 0, descriptor_bytes);
    }
}

fn read_code_object(data: &[u8]) {
    if let Ok(listing) = Listing::of_code_object(data) {
        let text = listing.objdump_text();
        assert!(text.starts_with("Disassembly of section .text:\n"));
        for symbol in &listing.symbols {
            let _ = listing.lines_of(symbol);
        }
    }
    let _ = descriptor::objdump_descriptors(data);
    let _ = descriptor::kernel_descriptors(data);
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    decode_everywhere(data);
    read_code_object(data);
});
