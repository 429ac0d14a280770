use super::*;
use alloc::string::ToString;

#[test]
fn method_numbers_and_names_are_llvms() {
    assert_eq!(Method::Zlib as u16, 0);
    assert_eq!(Method::Zstd as u16, 1);
    assert_eq!(Method::from_u16(1), Some(Method::Zstd));
    assert_eq!(Method::from_u16(2), None);
    assert_eq!(Method::from_name("ZSTD"), Some(Method::Zstd));
    assert_eq!(Method::Zlib.to_string(), "zlib");
}

#[test]
fn zlib_levels_map_like_llvm() {
    assert_eq!(zlib_level(None), 6);
    assert_eq!(zlib_level(Some(-1)), 6);
    assert_eq!(zlib_level(Some(0)), 0);
    assert_eq!(zlib_level(Some(9)), 9);
    assert_eq!(zlib_level(Some(22)), 9);
}

#[test]
fn truncated_md5_is_first_eight_digest_bytes_little_endian() {
    // MD5("") = d41d8cd98f00b204e9800998ecf8427e
    assert_eq!(truncated_md5(b""), 0x04b2_008f_d98c_1dd4);
    assert_eq!(truncated_md5(b"").to_le_bytes(), [0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04]);
}

#[test]
fn hashing_beside_hashes_what_is_produced_in_pieces_of_any_size() {
    let data: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i * 7 + i / 251) as u8).collect();
    // Pieces around and across the hashing buffers' size, empty ones among them.
    let sizes = [0, 1, CHUNK - 1, 0, CHUNK + 1, 5, CHUNK, 2 * CHUNK];
    let (given, digest) = hashing_beside(|feed| {
        let mut at = 0;
        for n in sizes.iter().cycle() {
            let n = (*n).min(data.len() - at);
            feed(&data[at..at + n]);
            at += n;
            if at == data.len() {
                break;
            }
        }
        at
    });
    assert_eq!(given, data.len());
    assert_eq!(digest, md5(&data));
    assert_eq!(hashing_beside(|_| ()).1, md5(b""));
}

#[cfg(all(feature = "zlib", feature = "zstd"))]
mod with_codecs {
    use super::*;
    use alloc::vec;

    const GIB: u64 = 1 << 30;

    fn sample(n: usize) -> Vec<u8> {
        // Compressible but not trivial: a counter pattern with some variety.
        (0..n).map(|i| ((i / 7) as u8).wrapping_mul(31) ^ (i % 13) as u8).collect()
    }

    #[test]
    fn round_trips_and_prefixes() {
        for method in Method::ALL {
            for size in [0usize, 1, 1000, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
                let data = sample(size);
                let packed = compress(method, None, &data).unwrap();
                let unpacked = decompress(method, &packed, size as u64, u64::MAX).unwrap();
                assert_eq!(unpacked, data, "{method} {size}");
                for n in [0usize, 1, 100, CHUNK, CHUNK + 5, size, size + 10] {
                    let prefix = decompress_prefix(method, &packed, n).unwrap();
                    assert_eq!(prefix, data[..n.min(size)], "{method} {size} prefix {n}");
                }
                let digest = decompressed_md5(method, &packed, size as u64, u64::MAX).unwrap();
                assert_eq!(digest.md5, md5(&data));
                assert_eq!(digest.truncated(), truncated_md5(&data));
                assert_eq!(digest.size, size as u64);
            }
        }
    }

    #[test]
    fn wrong_declared_sizes_are_errors() {
        for method in Method::ALL {
            let data = sample(5000);
            let packed = compress(method, Some(9), &data).unwrap();
            let short = decompress(method, &packed, 4999, u64::MAX).unwrap_err();
            assert!(short.found.contains("more"), "{short}");
            let long = decompress(method, &packed, 5001, u64::MAX).unwrap_err();
            assert!(long.found.contains("5000"), "{long}");
            let limited = decompress(method, &packed, 5000, 4000).unwrap_err();
            assert!(limited.expected.contains("4000"), "{limited}");
        }
    }

    #[test]
    fn declared_sizes_near_2_pow_63_allocate_nothing() {
        for method in Method::ALL {
            let packed = compress(method, None, b"tiny").unwrap();
            // Refused up front by the limit...
            assert!(decompress(method, &packed, 1 << 63, GIB).is_err());
            // ...and without a limit, the stream ends long before: no huge buffer is made.
            let e = decompress(method, &packed, 1 << 63, u64::MAX).unwrap_err();
            assert!(e.found.contains("ends after 4 bytes") || e.expected.contains("memory"), "{e}");
        }
    }

    #[test]
    fn truncated_and_corrupt_streams_are_errors() {
        for method in Method::ALL {
            let data = sample(300_000);
            let packed = compress(method, None, &data).unwrap();
            for cut in [0, 1, 2, 5, packed.len() / 2, packed.len() - 1] {
                assert!(
                    decompress(method, &packed[..cut], data.len() as u64, u64::MAX).is_err(),
                    "{method} cut at {cut}"
                );
            }
            let mut bad = packed.clone();
            bad[0] ^= 0xff;
            assert!(decompress(method, &bad, data.len() as u64, u64::MAX).is_err());
            assert!(decompress_prefix(method, &bad, 10).is_err());
        }
    }

    #[test]
    fn zstd_trailing_garbage_is_an_error_but_skippable_frames_are_skipped() {
        let data = sample(1000);
        let mut packed = compress(Method::Zstd, None, &data).unwrap();
        let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9];
        skippable.extend_from_slice(&packed);
        assert_eq!(decompress(Method::Zstd, &skippable, 1000, u64::MAX).unwrap(), data);
        packed.extend_from_slice(&[0, 0, 0, 0]);
        assert!(decompress(Method::Zstd, &packed, 1000, u64::MAX).is_err());
    }

    #[test]
    fn concatenated_zstd_frames_decode_in_order() {
        let (a, b) = (sample(70_000), vec![7u8; 200_000]);
        let mut packed = compress(Method::Zstd, None, &a).unwrap();
        packed.extend(compress(Method::Zstd, None, &b).unwrap());
        let whole = [a.clone(), b].concat();
        let n = whole.len() as u64;
        assert_eq!(decompress(Method::Zstd, &packed, n, n).unwrap(), whole);
        assert_eq!(decompress_prefix(Method::Zstd, &packed, 80_000).unwrap(), whole[..80_000]);
        assert!(decompress(Method::Zstd, &packed, n - 1, n).is_err());
    }

    /// A reader handing out at most `step` bytes per call, so chunk edges fall everywhere.
    #[cfg(feature = "std")]
    struct Dribble<'d> {
        data: &'d [u8],
        step: usize,
    }

    #[cfg(feature = "std")]
    impl std::io::Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[cfg(feature = "std")]
    fn read_all_of(method: Method, packed: &[u8], limit: u64, step: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut input = Dribble { data: packed, step };
        decompress_read(method, &mut input, limit, &mut |c| out.extend_from_slice(c)).map(|_| out)
    }

    /// Reading from a stream gives what decoding from memory gives, and fails where it fails.
    #[cfg(feature = "std")]
    #[test]
    fn streams_read_in_pieces_decode_like_memory() {
        let big = sample(3 * READ_CHUNK + 12_345);
        for method in Method::ALL {
            for data in [Vec::new(), sample(1000), big.clone()] {
                let packed = compress(method, None, &data).unwrap();
                for step in [1usize << 30, READ_CHUNK - 1, 4093] {
                    let n = data.len() as u64;
                    assert_eq!(read_all_of(method, &packed, n, step).unwrap(), data, "{method} {n} by {step}");
                }
                if !data.is_empty() {
                    let n = data.len() as u64;
                    assert!(read_all_of(method, &packed, n - 1, 1 << 30).is_err(), "{method}: over the limit");
                    for cut in [1, packed.len() / 2, packed.len() - 1] {
                        assert!(read_all_of(method, &packed[..cut], n, 4093).is_err(), "{method} cut at {cut}");
                    }
                }
            }
            let packed = compress(method, None, &big).unwrap();
            let mut bad = packed.clone();
            let at = packed.len() / 2;
            bad[at..at + 16].iter_mut().for_each(|b| *b ^= 0x5a);
            let (from_memory, from_reader) = (
                decompress(method, &bad, big.len() as u64, u64::MAX),
                read_all_of(method, &bad, big.len() as u64, 4093),
            );
            // Corrupt data may still decode (to other bytes, which the hash catches); the two
            // ways agree on whether it does.
            assert_eq!(from_memory.is_ok(), from_reader.is_ok(), "{method}: corrupt");
            if let (Ok(a), Ok(b)) = (from_memory, from_reader) {
                assert_eq!(a, b);
            }
        }
        // zstd: frames back to back and skippable frames; zlib: bytes after the stream ignored.
        let (a, b) = (sample(70_000), vec![7u8; 2 * READ_CHUNK]);
        let mut two = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9];
        two.extend(compress(Method::Zstd, None, &a).unwrap());
        two.extend(compress(Method::Zstd, None, &b).unwrap());
        let whole = [a.clone(), b].concat();
        assert_eq!(read_all_of(Method::Zstd, &two, whole.len() as u64, 4093).unwrap(), whole);
        let mut zlib = compress(Method::Zlib, None, &a).unwrap();
        zlib.extend_from_slice(b"trailing");
        assert_eq!(read_all_of(Method::Zlib, &zlib, a.len() as u64, 4093).unwrap(), a);
    }

    #[cfg(feature = "std")]
    #[test]
    fn bombs_read_from_a_stream_fail_fast_under_a_limit() {
        for (method, bomb) in [(Method::Zlib, zlib_bomb()), (Method::Zstd, zstd_bomb())] {
            let limit = 8 << 20;
            let mut seen = 0u64;
            let mut input = Dribble { data: &bomb, step: 1 << 30 };
            let e = decompress_read(method, &mut input, limit, &mut |c| seen += c.len() as u64).unwrap_err();
            assert!(seen <= limit && e.found.contains("more"), "{method}: {e}");
        }
    }

    #[test]
    fn methods_not_built_in_say_so() {
        assert!(Method::Zlib.is_built_in() && Method::Zstd.is_built_in());
    }

    /// A zlib stream of about 1 MiB that inflates to 1 GiB of zeros: the raw deflate blocks
    /// of 1 MiB of zeros, ended by a sync flush so they are byte-aligned and self-contained,
    /// repeated 1024 times, then a final empty stored block and the Adler-32 of the zeros.
    fn zlib_bomb() -> Vec<u8> {
        use miniz_oxide::deflate::core::{compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush};
        let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(9, -15, 0));
        let zeros = vec![0u8; 1 << 20];
        let mut out = vec![0u8; 1 << 16];
        let (_, used, written) = compress(&mut c, &zeros, &mut out, TDEFLFlush::Sync);
        assert_eq!(used, zeros.len());
        let mut packed = vec![0x78, 0x9c];
        for _ in 0..1024 {
            packed.extend_from_slice(&out[..written]);
        }
        packed.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]);
        let adler = (((1u64 << 30) % 65521) << 16 | 1) as u32;
        packed.extend_from_slice(&adler.to_be_bytes());
        packed
    }

    /// A zstd frame of a few KiB that expands to 4 GiB: RLE blocks of 128 KiB, 4 bytes each.
    fn zstd_bomb() -> Vec<u8> {
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88]; // no size, window 128 MiB
        let blocks = 32 * 1024;
        for i in 0..blocks {
            let last = (i == blocks - 1) as u32;
            let header = last | (1 << 1) | ((128 * 1024) << 3); // RLE block of 128 KiB
            frame.extend_from_slice(&header.to_le_bytes()[..3]);
            frame.push(0xab);
        }
        frame
    }

    #[test]
    fn bombs_fail_fast_under_a_limit() {
        let zlib = zlib_bomb();
        assert!(zlib.len() < 2 << 20);
        let zstd = zstd_bomb();
        for (method, bomb) in [(Method::Zlib, &zlib), (Method::Zstd, &zstd)] {
            let limit = 8 << 20;
            let e = decompress(method, bomb, limit, limit).unwrap_err();
            assert!(e.found.contains("more"), "{method}: {e}");
            let mut seen = 0u64;
            let e = decompress_chunks(method, bomb, limit, &mut |c| seen += c.len() as u64).unwrap_err();
            assert!(seen <= limit, "{method}: {e}");
            assert!(decompressed_md5(method, bomb, limit, limit).is_err());
            // A prefix of a bomb is cheap and fine.
            assert_eq!(decompress_prefix(method, bomb, 4096).unwrap().len(), 4096);
        }
    }
}

/// With libzstd built in, both zstd decoders read the same inputs the same way: the same
/// bytes out, or both an error.
#[cfg(feature = "zstd-c")]
#[test]
fn libzstd_and_ruzstd_agree() {
    let decode_with = |ruzstd: bool, data: &[u8], budget: u64| {
        let mut bytes = Vec::new();
        let mut sink = |c: &[u8]| bytes.extend_from_slice(c);
        let mut out = Output { produced: 0, budget, overflow: Overflow::Fail, sink: &mut sink };
        let result = if ruzstd { zstd::decode_ruzstd(data, &mut out) } else { zstd::decode(data, &mut out) };
        result.map(|()| bytes)
    };
    let text: Vec<u8> = (0..400_000u32).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect();
    let ruzstd_frame = {
        use ruzstd::encoding::{compress_to_vec, CompressionLevel};
        compress_to_vec(&text[..], CompressionLevel::Fastest)
    };
    let libzstd_frame = compress(Method::Zstd, Some(19), &text).unwrap();
    let mut inputs = vec![ruzstd_frame.clone(), libzstd_frame.clone(), [&ruzstd_frame[..], &libzstd_frame].concat()];
    inputs.push([&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 7, 7][..], &libzstd_frame].concat());
    for cut in [0, 3, 4, 9, libzstd_frame.len() / 2, libzstd_frame.len() - 1] {
        inputs.push(libzstd_frame[..cut].to_vec());
    }
    let mut flipped = libzstd_frame.clone();
    flipped[libzstd_frame.len() / 2] ^= 0x5a;
    inputs.push(flipped);
    inputs.push([&libzstd_frame[..], &[1, 2, 3, 4]].concat());
    for (i, data) in inputs.iter().enumerate() {
        for budget in [u64::MAX, 100_000] {
            let (a, b) = (decode_with(true, data, budget), decode_with(false, data, budget));
            match (&a, &b) {
                (Ok(x), Ok(y)) => assert!(x == y, "input {i}, budget {budget}: different bytes"),
                (Err(_), Err(_)) => {}
                _ => panic!("input {i}, budget {budget}: ruzstd {:?} vs libzstd {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}

#[cfg(not(feature = "zstd"))]
#[test]
fn zstd_not_built_in_is_a_clear_error() {
    let e = decompress(Method::Zstd, b"", 0, 0).unwrap_err();
    assert!(e.expected.contains("`zstd` feature"), "{e}");
    assert!(compress(Method::Zstd, None, b"").is_err());
}

/// A raw deflate stream of several `READ_CHUNK` pieces inflates through a reader of pieces as
/// from the whole slice; a failed read, or stored bytes that end early, is an error at its
/// offset, and a wrong declared size is refused.
#[cfg(feature = "zlib")]
#[test]
fn raw_deflate_read_a_piece_at_a_time() {
    // Barely compressible bytes (a xorshift sequence), so the stored stream spans pieces.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let plain: Vec<u8> = (0..3 * READ_CHUNK)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    let stored = miniz_oxide::deflate::compress_to_vec(&plain, 1);
    assert!(stored.len() > 2 * READ_CHUNK);
    let n = stored.len() as u64;
    let size = plain.len() as u64;
    let whole = |o: u64, len: u64| stored.get(o as usize..(o + len) as usize).map(<[u8]>::to_vec);
    assert_eq!(inflate_raw_read(&whole, n, size, u64::MAX).unwrap(), plain);
    assert_eq!(inflate_raw(&stored, size, u64::MAX).unwrap(), plain);

    let failing = |o: u64, len: u64| if o >= READ_CHUNK as u64 { None } else { whole(o, len) };
    let e = inflate_raw_read(&failing, n, size, u64::MAX).unwrap_err();
    assert_eq!(e.offset, READ_CHUNK as u64, "{e}");
    assert!(e.to_string().contains("a read that failed"), "{e}");

    let short = n - 1000;
    let e = inflate_raw_read(&whole, short, size, u64::MAX).unwrap_err();
    assert_eq!(e.offset, short, "{e}");

    assert!(inflate_raw_read(&whole, n, size + 1, u64::MAX).is_err());
    assert!(inflate_raw_read(&whole, n, size, size - 1).is_err());
}
