//! The archive reader on archives rocm-kpack's own writer made (`tests/fixtures/kpack/`), and
//! on damaged copies of them.

use super::*;

const NONE: &[u8] = include_bytes!("../../../tests/fixtures/kpack/after/.kpack/kp_gfx90a.kpack");
const ZSTD: &[u8] = include_bytes!("../../../tests/fixtures/kpack/kp_gfx1100_zstd.kpack");

#[test]
fn reads_the_writers_archive() {
    let a = read(NONE).unwrap();
    assert_eq!(a.version, 1);
    assert_eq!(a.scheme.value, Scheme::None);
    assert_eq!(a.arches.iter().map(|a| a.value).collect::<Vec<_>>(), ["gfx90a"]);
    assert_eq!(a.group_name.as_ref().map(|g| g.value), Some("kp"));
    let keys: Vec<&str> = a.entries.iter().map(|e| e.key.value).collect();
    assert_eq!(keys, ["stage/lib/libkp.so#0", "stage/lib/libkp.so#1", "stage/bin/kp_app#0"]);
    for e in &a.entries {
        let s = a.stored(e, NONE.len() as u64).unwrap();
        assert_eq!(Some(s.size), e.original_size.as_ref().map(|o| o.value));
        assert!(NONE[s.offset as usize..].starts_with(b"\x7fELF"));
        assert_eq!(e.entry_id(), "hipv4-amdgcn-amd-amdhsa--gfx90a");
    }
    assert_eq!(a.toc_end(), NONE.len() as u64);
}

#[test]
fn reads_zstd_frames() {
    let a = read(ZSTD).unwrap();
    assert_eq!(a.scheme.value, Scheme::ZstdPerKernel);
    let frames = a.stored.as_ref().unwrap();
    assert_eq!(frames.len(), 3);
    for f in frames {
        assert!(ZSTD[f.offset as usize..].starts_with(&[0x28, 0xB5, 0x2F, 0xFD]));
    }
}

#[test]
fn truncation_anywhere_is_an_error_not_a_panic() {
    for n in 0..NONE.len() {
        let cut = &NONE[..n];
        if let Ok(a) = read(cut) {
            for e in &a.entries {
                let _ = a.stored(e, cut.len() as u64);
            }
        }
    }
    for n in 0..ZSTD.len() {
        let _ = read(&ZSTD[..n]);
    }
}

#[test]
fn header_errors_say_where() {
    let mut bad = NONE.to_vec();
    bad[0] = b'X';
    assert_eq!(read(&bad).unwrap_err().offset, 0);
    let mut bad = NONE.to_vec();
    bad[4] = 2;
    let e = read(&bad).unwrap_err();
    assert_eq!((e.offset, e.expected.as_str()), (4, "version 1"));
    let mut bad = NONE.to_vec();
    bad[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = read(&bad).unwrap_err();
    assert_eq!(e.offset, 8);
    assert!(e.found.contains("18446744073709551615"), "{e}");
}

#[test]
fn a_frame_count_past_the_region_reserves_nothing() {
    let a = read(ZSTD).unwrap();
    let (offset, _) = a.frame_region.unwrap();
    let mut bad = ZSTD.to_vec();
    bad[offset as usize..offset as usize + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let a = read(&bad).unwrap();
    let e = a.stored.unwrap_err();
    assert_eq!(e.offset, offset);
    assert!(e.found.contains("4294967295 frames"), "{e}");
}
