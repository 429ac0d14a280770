//! Texts llvm-objdump 22 printed for real words, and a check that random words never panic.

use alloc::vec::Vec;

use crate::disasm::{decode, Class, Isa};

fn text(isa: Isa, words: &[u32]) -> Option<alloc::string::String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let decoded = decode(isa, &bytes, 0)?;
    assert_eq!(decoded.size, words.len() * 4);
    Some(decoded.text)
}

#[test]
fn gfx9_words_print_as_llvm_objdump_does() {
    let cases: &[(Isa, &[u32], &str)] = &[
        (Isa::Gfx90a, &[0xDC508000, 0x027F0002], "global_load_dword v2, v[2:3], off"),
        (Isa::Gfx90a, &[0xD81A0000, 0x00000201], "ds_write_b32 v1, v2"),
        (Isa::Gfx90a, &[0xD9FE0010, 0x06000000], "ds_read_b128 v[6:9], v0 offset:16"),
        (Isa::Gfx942, &[0xDC708000, 0x00000100], "global_store_dword v0, v1, s[0:1]"),
        (Isa::Gfx942, &[0xDC7C4000, 0x007F0200], "scratch_store_dwordx4 off, v[2:5], off"),
        (Isa::Gfx942, &[0xDC506000, 0x007F0000], "scratch_load_dword v0, v0, off"),
        (Isa::Gfx900, &[0xE0700000, 0x80000100], "buffer_store_dword v1, off, s[0:3], 0"),
        (Isa::Gfx900, &[0xE0501000, 0x80000101], "buffer_load_dword v1, v1, s[0:3], 0 offen"),
    ];
    for (isa, words, expected) in cases {
        assert_eq!(text(*isa, words).as_deref(), Some(*expected), "{words:08X?}");
    }
}

#[test]
fn gfx11_and_gfx12_words_print_as_llvm_objdump_does() {
    let cases: &[(Isa, &[u32], &str)] = &[
        (Isa::Gfx1100, &[0xDC520000, 0x017C0001], "global_load_b32 v1, v[1:2], off"),
        (Isa::Gfx1100, &[0xD8340000, 0x00000102], "ds_store_b32 v2, v1"),
        (Isa::Gfx1100, &[0xDC750000, 0x007C0000], "scratch_store_b128 off, v[0:3], off"),
        (Isa::Gfx1100, &[0xDC510000, 0x00FC0010], "scratch_load_b32 v0, v16, off"),
        (Isa::Gfx1200, &[0xEE05007C, 0x00000001, 0x00000001], "global_load_b32 v1, v[1:2], off"),
        (Isa::Gfx1200, &[0xEE068000, 0x00000000, 0x00000001], "global_store_b32 v1, v0, s[0:1]"),
        (
            Isa::Gfx1200,
            &[0xED05C07C, 0x00300005, 0x00015000],
            "scratch_load_b128 v[5:8], off, off offset:336 th:TH_LOAD_LU",
        ),
        (Isa::Gfx1200, &[0xED05007C, 0x00020000, 0x00000010], "scratch_load_b32 v0, v16, off"),
    ];
    for (isa, words, expected) in cases {
        assert_eq!(text(*isa, words).as_deref(), Some(*expected), "{words:08X?}");
    }
}

#[test]
fn memory_classes() {
    let lds = decode(Isa::Gfx90a, &[0x01, 0x00, 0x1A, 0xD8, 0x01, 0x02, 0x00, 0x00], 0);
    assert_eq!(lds.map(|d| d.class), Some(Class::Lds));
    let global = decode(Isa::Gfx90a, &[0x00, 0x80, 0x50, 0xDC, 0x02, 0x00, 0x7F, 0x02], 0);
    assert_eq!(global.map(|d| d.class), Some(Class::VectorMemory));
}

#[test]
fn random_words_never_panic() {
    // A small xorshift generator: the words only need to cover the fields, not be unpredictable.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u32
    };
    let tops = [0x36u32, 0x37, 0x38, 0x3A, 0x31, 0x3B];
    for isa in Isa::ALL {
        for i in 0..4000 {
            let top = tops[i % tops.len()];
            let words = [(next() & 0x03FF_FFFF) | top << 26, next(), next()];
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            for len in [4, 8, 12] {
                let _ = decode(isa, &bytes[..len], 0);
            }
        }
    }
}

#[test]
fn gds_only_and_cache_operations_print_as_llvm_objdump_does() {
    let cases: &[(Isa, &[u32], Option<&str>)] = &[
        (Isa::Gfx900, &[0xD93B0000, 0x0000000D], Some("ds_gws_barrier v13 gds")),
        (Isa::Gfx900, &[0xD93A0000, 0x0000000D], None),
        (Isa::Gfx90a, &[0xD93B0000, 0x0000000D], Some("ds_gws_barrier v13 gds")),
        (Isa::Gfx1030, &[0xD8760000, 0x0000000E], Some("ds_gws_barrier v14 gds")),
        (Isa::Gfx1030, &[0xD8740000, 0x0000000E], None),
        (Isa::Gfx900, &[0xE0FC0000, 0x00000000], Some("buffer_wbinvl1_vol")),
        (Isa::Gfx900, &[0xE0FE0000, 0x06000000], Some("buffer_wbinvl1_vol")),
        (Isa::Gfx900, &[0xE0FC4000, 0x00000000], None),
        (Isa::Gfx900, &[0xE0FC1000, 0x00000000], None),
        (Isa::Gfx900, &[0xE0F80000, 0x00000000], Some("buffer_wbinvl1")),
        (Isa::Gfx90a, &[0xE0A0C000, 0x00000000], Some("buffer_wbl2")),
        (Isa::Gfx942, &[0xE0A08000, 0x00000000], Some("buffer_wbl2 sc1")),
        (Isa::Gfx950, &[0xE0A44000, 0x00000000], Some("buffer_inv sc0")),
        (Isa::Gfx1030, &[0xE1C40000, 0x00000000], Some("buffer_gl0_inv")),
        (Isa::Gfx1030, &[0xE1C80000, 0x00000000], Some("buffer_gl1_inv")),
        (Isa::Gfx1030, &[0xE1C48000, 0x00000000], None),
        (Isa::Gfx1100, &[0xE0AC0000, 0x00000000], Some("buffer_gl0_inv")),
        (Isa::Gfx1100, &[0xE0B00000, 0x00000000], Some("buffer_gl1_inv")),
        (Isa::Gfx1100, &[0xE0AC2000, 0x00000000], None),
        (Isa::Gfx1100, &[0xE0AC0000, 0x00400000], None),
    ];
    for (isa, words, expected) in cases {
        assert_eq!(text(*isa, words).as_deref(), *expected, "{isa:?} {words:08X?}");
    }
}

/// Buffer and global atomics and LDS loads with a bit their instruction does not have, which llvm-objdump
/// 22 prints as `.long` (found by `scripts/disasm/check_memory.py`), beside the same words
/// without that bit, which it decodes.
#[test]
fn memory_bits_an_instruction_lacks_are_rejected_as_llvm_objdump_does() {
    let cases: &[(Isa, &[u32], Option<&str>)] = &[
        // GFX10's atomics have no `dlc`.
        (Isa::Gfx1030, &[0xE100C000, 0x7C26CC00], None),
        (Isa::Gfx1010, &[0xE100C000, 0x7C26CC00], None),
        (Isa::Gfx1030, &[0xE1004000, 0x7C26CC00], Some("buffer_atomic_fmax v204, off, s[24:27], m0 glc")),
        // gfx90a's floating-point atomics have no `scc`.
        (Isa::Gfx90a, &[0xE33483CA, 0x75232C21], None),
        (Isa::Gfx90a, &[0xE33403CA, 0x75232C21], Some("buffer_atomic_add_f32 v44, off, s[12:15], ttmp9 offset:970")),
        // gfx908's floating-point atomics return nothing: no `glc`.
        (Isa::Gfx908, &[0xE3364000, 0x8F000061], None),
        (Isa::Gfx908, &[0xE3360000, 0x8F000061], Some("buffer_atomic_add_f32 v0, off, s[0:3], 15 slc")),
        // A load into LDS has no `acc` (gfx90a and later).
        (Isa::Gfx950, &[0xE0018000, 0x85B50000], None),
        (Isa::Gfx950, &[0xE0018000, 0x85350000], Some("buffer_load_format_x off, s[84:87], 5 sc1 lds")),
        // gfx908's floating-point global atomics take neither bit 25 nor `glc`.
        (Isa::Gfx908, &[0xDF34902D, 0x00130030], None),
        (Isa::Gfx908, &[0xDD358000, 0x377D7000], None),
        (Isa::Gfx908, &[0xDD34902D, 0x00130030], Some("global_atomic_add_f32 v48, v0, s[18:19] offset:-4051")),
        // gfx940's global atomics returning into AGPRs: no `add_f32` nor `pk_add_f16`, and no
        // `sc1` on f64 ones (found by `check_memory.py gfx942 2000 global`, probed by llvm-mc).
        (Isa::Gfx942, &[0xDD358000, 0x01FF0402], None),
        (Isa::Gfx950, &[0xDD358000, 0x01FF0402], None),
        (Isa::Gfx942, &[0xDD398000, 0x01FF0402], None),
        (Isa::Gfx942, &[0xDD358000, 0x017F0402], Some("global_atomic_add_f32 v1, v[2:3], v4, off sc0")),
        (Isa::Gfx950, &[0xDF498000, 0x01FF0402], Some("global_atomic_pk_add_bf16 a1, v[2:3], a4, off sc0 sc1")),
        (Isa::Gfx942, &[0xDF3D8000, 0x00FF0402], None),
        (Isa::Gfx950, &[0xDF3D8000, 0x00FF0402], None),
        (Isa::Gfx942, &[0xDD3D8000, 0x00FF0402], Some("global_atomic_add_f64 a[0:1], v[2:3], a[4:5], off sc0")),
        (Isa::Gfx942, &[0xDF3C8000, 0x00FF0402], Some("global_atomic_add_f64 v[2:3], a[4:5], off sc1")),
        // GFX9's `lds` forms take `exec` as their base without a complaint; the others with one.
        (Isa::Gfx900, &[0xDE50A000, 0x007E007D], Some("global_load_dword v125, exec lds")),
        (
            Isa::Gfx900,
            &[0xDE508000, 0x007E007D],
            Some("global_load_dword v0, v125, exec/*Invalid register, operand has 'SReg_64_XEXEC_XNULL' register class*/"),
        ),
    ];
    for (isa, words, expected) in cases {
        assert_eq!(text(*isa, words).as_deref(), *expected, "{isa:?} {words:08X?}");
    }
}
