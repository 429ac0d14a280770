//! SYCL device code in bundled-object sections (`__CLANG_OFFLOAD_BUNDLE__sycl-spir64`,
//! `__CLANG_OFFLOAD_BUNDLE__sycl-spir64_gen`), as Intel's compilers leave it in a linked
//! library: the linker joins the section of every object, each at a 16-byte boundary with zero
//! bytes between them, so one section is a sequence of pieces. A piece is one device image,
//! either compressed as one zstd frame (no CCOB header) or an uncompressed SPIR-V module.
//! Inside a frame is a SPIR-V module (`spir64`) or an `ar` archive of Intel GPU binaries
//! (`spir64_gen`); the explorer reads those as it reads any image.
//!
//! | piece | starts with (bytes) | its length |
//! |---|---|---|
//! | zstd frame | `28 B5 2F FD` | RFC 8878: 4-byte magic; 1-byte frame header descriptor (bits 7–6 content-size flag, bit 5 single segment, bit 2 checksum, bits 1–0 dictionary-ID flag); 1-byte window descriptor unless single segment; 0/1/2/4-byte dictionary ID; 0/1/2/4/8-byte content size (2 bytes store size − 256); blocks, each a 3-byte little-endian header (bit 0 last block, bits 2–1 type: 0 raw, 1 RLE, 2 compressed, 3 reserved; bits 23–3 size) followed by `size` bytes (1 byte for RLE); a 4-byte checksum if the flag is set |
//! | SPIR-V module | `03 02 23 07` | 5-word header (magic, version, generator, bound, schema), then instructions, each `word count << 16 \| opcode`, up to the end, a zero word (padding) or the next piece's magic |
//! | padding | `00` | zero bytes up to the next piece |
//!
//! Reading never trusts a length: a frame whose blocks run past the data, or a module whose
//! instruction does, is one `Unknown` piece to the end.

use crate::error::{Error, Result};
use alloc::vec::Vec;

/// The zstd frame magic, little-endian `0xFD2FB528`.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// The SPIR-V magic word `0x07230203`, little-endian.
pub const SPIRV_MAGIC: [u8; 4] = [0x03, 0x02, 0x23, 0x07];

const CONTEXT: &str = "zstd frame";

/// What one piece of the sequence is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceKind {
    /// A zstd frame; `content_size` is what its header declares, if it does.
    Zstd {
        content_size: Option<u64>,
    },
    Spirv,
    Padding,
    /// Bytes that are none of the above, or a piece whose lengths run past the data.
    Unknown,
}

/// One piece: its kind and its bytes, `offset` and `size` within the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub kind: PieceKind,
    pub offset: usize,
    pub size: usize,
}

/// Whether `data` reads as such a sequence: it starts with a zstd frame or a SPIR-V module.
pub fn is_sequence(data: &[u8]) -> bool {
    data.starts_with(&ZSTD_MAGIC) || data.starts_with(&SPIRV_MAGIC)
}

/// The pieces of `data`, in order, covering it from start to end.
pub fn pieces(data: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = &data[pos..];
        let (kind, size) = if rest.starts_with(&ZSTD_MAGIC) {
            match zstd_frame(rest) {
                Ok((size, content_size)) => (PieceKind::Zstd { content_size }, size),
                Err(_) => (PieceKind::Unknown, rest.len()),
            }
        } else if rest.starts_with(&SPIRV_MAGIC) {
            (PieceKind::Spirv, spirv_module_len(rest))
        } else if rest[0] == 0 {
            (PieceKind::Padding, rest.iter().take_while(|&&b| b == 0).count())
        } else {
            (PieceKind::Unknown, rest.len())
        };
        out.push(Piece { kind, offset: pos, size });
        pos += size;
    }
    out
}

/// The length of the zstd frame at the start of `data` and the content size its header
/// declares. Fails where the frame's header or blocks run past `data` or a block is of the
/// reserved type.
pub fn zstd_frame(data: &[u8]) -> Result<(usize, Option<u64>)> {
    let descriptor = *data.get(4).ok_or_else(|| past_end(4, 1, data.len()))?;
    let single_segment = descriptor & 0x20 != 0;
    let dictionary_bytes = [0usize, 1, 2, 4][usize::from(descriptor & 0x3)];
    let content_bytes = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let window_bytes = usize::from(!single_segment);
    let content_at = 5 + window_bytes + dictionary_bytes;
    let mut pos = content_at + content_bytes;
    let field = data.get(content_at..pos).ok_or_else(|| past_end(content_at, content_bytes, data.len()))?;
    let content_size = (content_bytes > 0).then(|| {
        let mut le = [0u8; 8];
        le[..content_bytes].copy_from_slice(field);
        // A 2-byte field stores the size less 256 (RFC 8878, Frame_Content_Size).
        u64::from_le_bytes(le) + if content_bytes == 2 { 256 } else { 0 }
    });
    loop {
        let header = data.get(pos..pos + 3).ok_or_else(|| past_end(pos, 3, data.len()))?;
        let header = u32::from(header[0]) | u32::from(header[1]) << 8 | u32::from(header[2]) << 16;
        let last = header & 1 != 0;
        let block_type = (header >> 1) & 3;
        let stored = match block_type {
            1 => 1,
            3 => {
                let found = alloc::format!("reserved block type 3 in the block header at byte {pos}");
                return Err(Error::new(pos as u64, CONTEXT, "a raw, RLE or compressed block", found));
            }
            _ => (header >> 3) as usize,
        };
        pos += 3;
        if data.len() - pos < stored {
            return Err(past_end(pos, stored, data.len()));
        }
        pos += stored;
        if last {
            break;
        }
    }
    if descriptor & 0x04 != 0 {
        if data.len() - pos < 4 {
            return Err(past_end(pos, 4, data.len()));
        }
        pos += 4;
    }
    Ok((pos, content_size))
}

fn past_end(at: usize, wanted: usize, len: usize) -> Error {
    Error::new(
        at as u64,
        CONTEXT,
        alloc::format!("{wanted} more bytes"),
        alloc::format!("{} bytes to the end", len.saturating_sub(at)),
    )
}

/// The length of the SPIR-V module at the start of `data`: its header and every instruction
/// up to the end, a zero word or the next piece's magic. A header cut short, or an instruction
/// running past the end, takes the module to the end of `data`.
pub fn spirv_module_len(data: &[u8]) -> usize {
    const HEADER: usize = 20;
    if data.len() < HEADER {
        return data.len();
    }
    let mut pos = HEADER;
    while let Some(word) = data.get(pos..pos + 4) {
        if word == [0, 0, 0, 0] || word == SPIRV_MAGIC || word == ZSTD_MAGIC {
            return pos;
        }
        let words = usize::from(u16::from_le_bytes([word[2], word[3]]));
        if words == 0 {
            // No instruction has zero words: the module ended before these bytes.
            return pos;
        }
        match pos.checked_add(words * 4) {
            Some(next) if next <= data.len() => pos = next,
            _ => return data.len(),
        }
    }
    data.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spirv(words_after_header: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        for w in [0x0723_0203u32, 0x0001_0400, 0, 8, 0].iter().chain(words_after_header) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[test]
    fn splits_modules_at_padding_and_at_the_next_magic() {
        // OpCapability Shader (2 words), then padding to 48, then a second module.
        let mut data = spirv(&[0x0002_0011, 1]);
        data.resize(48, 0);
        data.extend(spirv(&[0x0002_0011, 1]));
        let found = pieces(&data);
        let kinds: Vec<PieceKind> = found.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [PieceKind::Spirv, PieceKind::Padding, PieceKind::Spirv]);
        assert_eq!((found[0].size, found[1].size, found[2].offset), (28, 20, 48));
    }

    #[test]
    fn an_instruction_past_the_end_takes_the_module_to_the_end() {
        let data = spirv(&[0x0009_0011, 1]);
        assert_eq!(spirv_module_len(&data), data.len());
        assert_eq!(spirv_module_len(&data[..7]), 7);
    }

    #[test]
    fn frames_made_by_the_codec_are_measured_exactly() {
        #[cfg(feature = "zstd")]
        {
            let frame = crate::codec::compress(crate::codec::Method::Zstd, None, &[7u8; 5000]).unwrap();
            let mut data = frame.clone();
            data.extend_from_slice(&[0; 9]);
            let (len, content) = zstd_frame(&data).unwrap();
            assert_eq!(len, frame.len());
            assert!(content.is_none() || content == Some(5000));
            for cut in 0..frame.len() {
                assert!(zstd_frame(&frame[..cut]).is_err(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn a_reserved_block_type_is_refused_with_its_offset() {
        // Magic, single-segment descriptor with a 1-byte size, size 5, block header type 3.
        let data = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 5, 0b111, 0, 0];
        let e = zstd_frame(&data).unwrap_err();
        assert_eq!(e.offset, 6);
    }
}
