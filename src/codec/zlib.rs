//! zlib (RFC 1950) and raw deflate through miniz_oxide, feature `zlib`: compression at the
//! levels of the module table, and decoding in bounded chunks.

use super::*;

#[cfg(feature = "zlib")]
pub(super) fn compress(level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
    Ok(miniz_oxide::deflate::compress_to_vec_zlib(data, zlib_level(level)))
}

#[cfg(not(feature = "zlib"))]
pub(super) fn compress(_level: Option<i32>, _data: &[u8]) -> Result<Vec<u8>> {
    Err(not_built_in(Method::Zlib))
}

/// Inflates one zlib stream into `out`, chunk by chunk. Bytes after the end of the stream are
/// ignored, as zlib's `uncompress` (which LLVM uses) ignores them.
#[cfg(feature = "zlib")]
pub(super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
    inflate_stream(data, false, out).map(|_| ())
}

/// Inflates one zlib stream (`raw` false) or one raw deflate stream (`raw` true: zip and
/// gzip members) into `out`; returns how many input bytes the stream took. With the feature
/// `zlib-rs`, zlib-rs inflates; the errors and the bytes taken are the same.
#[cfg(feature = "zlib-rs")]
pub(super) fn inflate_stream(data: &[u8], raw: bool, out: &mut Output<'_>) -> Result<usize> {
    use flate2::{Decompress, FlushDecompress, Status};
    let context: &'static str = if raw { "deflate stream" } else { "zlib stream" };

    if out.flow() == Flow::Done {
        return Ok(0);
    }
    let mut state = Decompress::new(!raw);
    let mut buf = alloc::vec![0u8; CHUNK];
    loop {
        let (before_in, before_out) = (state.total_in(), state.total_out());
        let start = usize::try_from(before_in).unwrap_or(data.len()).min(data.len());
        let step = state.decompress(&data[start..], &mut buf, FlushDecompress::None);
        let pos = usize::try_from(state.total_in()).unwrap_or(data.len());
        let written = (state.total_out() - before_out) as usize;
        if out.emit(&buf[..written], pos as u64, context)? == Flow::Done {
            return Ok(pos);
        }
        match step {
            Ok(Status::StreamEnd) => return Ok(pos),
            Ok(_) if state.total_in() == before_in && written == 0 => return Err(truncated(pos as u64, context)),
            Ok(_) => {}
            Err(e) => return Err(corrupt(pos as u64, context, format_args!("corrupt data ({e})"))),
        }
    }
}

/// Inflates one zlib stream (`raw` false) or one raw deflate stream (`raw` true: zip and
/// gzip members) into `out`; returns how many input bytes the stream took.
#[cfg(all(feature = "zlib", not(feature = "zlib-rs")))]
pub(super) fn inflate_stream(data: &[u8], raw: bool, out: &mut Output<'_>) -> Result<usize> {
    use miniz_oxide::inflate::stream::{inflate, InflateState};
    use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
    let context: &'static str = if raw { "deflate stream" } else { "zlib stream" };

    if out.flow() == Flow::Done {
        return Ok(0);
    }
    let format = if raw { DataFormat::Raw } else { DataFormat::Zlib };
    let mut state = InflateState::new_boxed(format);
    let mut buf = alloc::vec![0u8; CHUNK];
    let mut pos = 0usize;
    loop {
        let step = inflate(&mut state, &data[pos..], &mut buf, MZFlush::None);
        pos += step.bytes_consumed;
        if out.emit(&buf[..step.bytes_written], pos as u64, context)? == Flow::Done {
            return Ok(pos);
        }
        match step.status {
            Ok(MZStatus::StreamEnd) => return Ok(pos),
            Ok(_) if step.bytes_consumed == 0 && step.bytes_written == 0 => return Err(truncated(pos as u64, context)),
            Ok(_) => {}
            Err(MZError::Buf) => return Err(truncated(pos as u64, context)),
            Err(e) => return Err(corrupt(pos as u64, context, format_args!("corrupt data ({e:?})"))),
        }
    }
}

/// [`decode`] on a stream read [`READ_CHUNK`] bytes at a time. The end of the input before
/// the end of the zlib stream is a truncated stream; bytes after it are not read.
#[cfg(all(feature = "std", feature = "zlib"))]
pub(super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
    use miniz_oxide::inflate::stream::{inflate, InflateState};
    use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
    const CONTEXT: &str = "zlib stream";

    let mut state = InflateState::new_boxed(DataFormat::Zlib);
    let mut chunk = alloc::vec![0u8; READ_CHUNK];
    let mut buf = alloc::vec![0u8; CHUNK];
    let mut read = 0u64;
    loop {
        let n = read_some(input, &mut chunk, read, CONTEXT)?;
        if n == 0 {
            return Err(truncated(read, CONTEXT));
        }
        let mut pos = 0usize;
        // Until this chunk is used up and the inflater has no more output waiting.
        loop {
            let step = inflate(&mut state, &chunk[pos..n], &mut buf, MZFlush::None);
            pos += step.bytes_consumed;
            let at = read + pos as u64;
            if out.emit(&buf[..step.bytes_written], at, CONTEXT)? == Flow::Done {
                return Ok(());
            }
            match step.status {
                Ok(MZStatus::StreamEnd) => return Ok(()),
                // `Buf`: no progress possible with what it was given; see below.
                Ok(_) | Err(MZError::Buf) => {}
                Err(e) => return Err(corrupt(at, CONTEXT, format_args!("corrupt data ({e:?})"))),
            }
            // The chunk is used up and no output waits: the next chunk is needed (or its
            // absence says the stream is truncated).
            if pos == n && step.bytes_written < buf.len() {
                break;
            }
            if step.bytes_consumed == 0 && step.bytes_written == 0 {
                return Err(corrupt(at, CONTEXT, "a stream that makes no progress"));
            }
        }
        read += n as u64;
    }
}
