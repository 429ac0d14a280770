use super::*;
use alloc::vec;

const SIZE: &[u8] = include_bytes!("../../../tests/fixtures/nvidia/nv_3arch_size.fatbin");
const NONE: &[u8] = include_bytes!("../../../tests/fixtures/nvidia/nv_3arch_none.fatbin");
const LZ4: &[u8] = include_bytes!("../../../tests/fixtures/nvidia/nv_3arch_lz4_all.fatbin");
const CONCAT: &[u8] = include_bytes!("../../../tests/fixtures/nvidia/nv_concat.fatbin");

fn only_container(data: &[u8]) -> Container<'_> {
    let (c, _) = Container::parse(data).unwrap();
    assert_eq!(c.size(), data.len() as u64, "one container fills the fixture");
    c
}

#[test]
fn unedited_containers_write_back_byte_identical() {
    for data in [SIZE, NONE, LZ4, CONCAT] {
        assert_eq!(only_container(data).write().unwrap(), data);
    }
}

#[test]
fn compressed_and_plain_entries_hold_the_same_images() {
    let plain = only_container(NONE);
    for data in [SIZE, LZ4] {
        let packed = only_container(data);
        assert_eq!(packed.entries.len(), plain.entries.len());
        for (p, q) in packed.entries.iter().zip(&plain.entries) {
            assert_ne!(p.compression(), Compression::None);
            assert_eq!((p.kind, p.arch, p.arch_name()), (q.kind, q.arch, q.arch_name()));
            let a = payload::entry_data(p, 1 << 20).unwrap();
            let b = payload::entry_data(q, 1 << 20).unwrap();
            assert_eq!(a[..image_extent(p.kind, &a)], b[..image_extent(q.kind, &b)]);
        }
    }
}

#[test]
fn an_entry_decompressed_then_compressed_again_reads_back() {
    let c = only_container(LZ4);
    for e in &c.entries {
        let data = payload::entry_data(e, 1 << 20).unwrap();
        for method in [Compression::None, Compression::Lz4, Compression::Zstd] {
            let new = e.with_data(&data, method).unwrap();
            let mut bytes = Vec::new();
            new.write(&mut bytes).unwrap();
            let back = Entry::parse(&bytes).unwrap();
            assert_eq!(back.compression(), method);
            assert_eq!(payload::entry_data(&back, 1 << 20).unwrap()[..data.len()], data[..]);
        }
    }
}

#[test]
fn lz4_bomb_is_refused_before_allocating() {
    let e = payload::decompress(Compression::Lz4, &[0x1f, 0], 8 << 30, u64::MAX).unwrap_err();
    assert!(e.expected.contains("LZ4 can expand to"), "{e}");
    let e = payload::decompress(Compression::Zstd, &[0; 4], 8 << 30, 1 << 30).unwrap_err();
    assert!(e.expected.contains("--max-decompressed"), "{e}");
}

#[test]
fn concat_entries_list_their_images() {
    let c = only_container(CONCAT);
    let concat = c.entries.iter().find(|e| e.kind == KIND_CONCAT).unwrap();
    let images = concat.concat_table().unwrap();
    assert!(images.len() >= 2);
    let data = payload::entry_data(concat, 1 << 20).unwrap();
    for i in &images {
        let bytes = &data[i.offset as usize..(i.offset as u64 + i.size) as usize];
        assert!(bytes.starts_with(b"\x7fELF"));
        assert_eq!(elf_size(bytes), Some(i.size));
    }
}

#[test]
fn arch_names_follow_cuobjdump() {
    assert_eq!(arch_name(80, FLAG_64BIT), "sm_80");
    assert_eq!(arch_name(90, FLAG_ARCH_SPECIFIC), "sm_90a");
    assert_eq!(arch_name(100, FLAG_FAMILY_SPECIFIC), "sm_100f");
    assert_eq!(file_arch_name(100, FLAG_FAMILY_SPECIFIC), "sm_100");
    assert_eq!(file_arch_name(100, FLAG_ARCH_SPECIFIC), "sm_100a");
}

#[test]
fn truncation_anywhere_is_an_error_not_a_panic() {
    for cut in 0..SIZE.len() {
        assert!(Container::parse(&SIZE[..cut]).is_err(), "cut at {cut}");
    }
    let mut huge = SIZE.to_vec();
    huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(Container::parse(&huge).is_err());
    let zeros = vec![0u8; 24];
    let pieces = walk(&zeros);
    assert!(matches!(pieces[0].piece, Piece::Padding));
}
