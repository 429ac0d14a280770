//! zlib (RFC 1950) and raw deflate through miniz_oxide, feature `zlib`: compression at the
//! levels of the module table, and decoding in bounded chunks.

use super::*;
#[cfg(feature = "zlib")]
use alloc::string::String;

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

/// One inflater: zlib-rs's with the feature `zlib-rs` (the CLI, the page), else miniz_oxide's.
/// Both buffer what they are given, so input can come in pieces of any size.
#[cfg(feature = "zlib")]
struct Inflater {
    #[cfg(feature = "zlib-rs")]
    state: flate2::Decompress,
    #[cfg(not(feature = "zlib-rs"))]
    state: alloc::boxed::Box<miniz_oxide::inflate::stream::InflateState>,
}

/// What one [`Inflater::step`] did: input bytes taken, output bytes written, and whether the
/// stream ended.
#[cfg(feature = "zlib")]
struct Step {
    taken: usize,
    written: usize,
    ended: bool,
}

#[cfg(feature = "zlib")]
impl Inflater {
    /// An inflater of a zlib stream (`raw` false) or a raw deflate stream (zip and gzip members).
    fn new(raw: bool) -> Inflater {
        #[cfg(feature = "zlib-rs")]
        let state = flate2::Decompress::new(!raw);
        #[cfg(not(feature = "zlib-rs"))]
        let state = miniz_oxide::inflate::stream::InflateState::new_boxed(if raw {
            miniz_oxide::DataFormat::Raw
        } else {
            miniz_oxide::DataFormat::Zlib
        });
        Inflater { state }
    }

    /// Inflates what it can of `input` into `buf`; corrupt data is an error (the input bytes
    /// taken up to it, and its text). No progress is not an error here: the caller knows
    /// whether more input may come.
    #[cfg(feature = "zlib-rs")]
    fn step(&mut self, input: &[u8], buf: &mut [u8]) -> core::result::Result<Step, (usize, String)> {
        use flate2::{FlushDecompress, Status};
        let (before_in, before_out) = (self.state.total_in(), self.state.total_out());
        let status = self.state.decompress(input, buf, FlushDecompress::None);
        let taken = (self.state.total_in() - before_in) as usize;
        let written = (self.state.total_out() - before_out) as usize;
        let status = status.map_err(|e| (taken, format!("{e}")))?;
        Ok(Step { taken, written, ended: status == Status::StreamEnd })
    }

    #[cfg(not(feature = "zlib-rs"))]
    fn step(&mut self, input: &[u8], buf: &mut [u8]) -> core::result::Result<Step, (usize, String)> {
        use miniz_oxide::inflate::stream::inflate;
        use miniz_oxide::{MZError, MZFlush, MZStatus};
        let r = inflate(&mut self.state, input, buf, MZFlush::None);
        let step = |ended| Step { taken: r.bytes_consumed, written: r.bytes_written, ended };
        match r.status {
            Ok(MZStatus::StreamEnd) => Ok(step(true)),
            // `Buf`: no progress possible with what it was given.
            Ok(_) | Err(MZError::Buf) => Ok(step(false)),
            Err(e) => Err((r.bytes_consumed, format!("{e:?}"))),
        }
    }
}

/// Inflates one zlib stream (`raw` false) or one raw deflate stream (`raw` true: zip and
/// gzip members) into `out`; returns how many input bytes the stream took.
#[cfg(feature = "zlib")]
pub(super) fn inflate_stream(data: &[u8], raw: bool, out: &mut Output<'_>) -> Result<usize> {
    inflate_from(Input::Slice(data), raw, out).map(|taken| taken as usize)
}

/// Inflates one stream whose bytes `pull` gives `chunk` bytes at a time (filling the chunk it
/// is given, less only at the end of the input, `0` once there is none; it is told where the
/// chunk starts) into `out`; returns how many input bytes the stream took. The end of the
/// input before the end of the stream is a truncated stream; bytes after it are not read.
#[cfg(feature = "zlib")]
pub(super) fn inflate_pulled(
    pull: &mut dyn FnMut(&mut [u8], u64) -> Result<usize>,
    chunk: usize,
    raw: bool,
    out: &mut Output<'_>,
) -> Result<u64> {
    inflate_from(Input::Pulled { pull, chunk: alloc::vec![0u8; chunk] }, raw, out)
}

/// Where a stream's bytes come from: a slice, given to the inflater as it is, or pieces
/// pulled into a buffer.
#[cfg(feature = "zlib")]
enum Input<'d, 'p> {
    Slice(&'d [u8]),
    Pulled { pull: &'p mut dyn FnMut(&mut [u8], u64) -> Result<usize>, chunk: Vec<u8> },
}

#[cfg(feature = "zlib")]
impl Input<'_, '_> {
    /// The input's bytes from `read` on: all that is left of a slice, the next piece pulled.
    fn next(&mut self, read: u64) -> Result<&[u8]> {
        match self {
            Input::Slice(data) => Ok(data.get(read as usize..).unwrap_or_default()),
            Input::Pulled { pull, chunk } => {
                let n = pull(chunk, read)?;
                Ok(&chunk[..n])
            }
        }
    }
}

#[cfg(feature = "zlib")]
fn inflate_from(mut input: Input<'_, '_>, raw: bool, out: &mut Output<'_>) -> Result<u64> {
    let context: &'static str = if raw { "deflate stream" } else { "zlib stream" };
    if out.flow() == Flow::Done {
        return Ok(0);
    }
    let mut inflater = Inflater::new(raw);
    let mut buf = alloc::vec![0u8; CHUNK];
    let mut read = 0u64;
    loop {
        let chunk = input.next(read)?;
        let n = chunk.len();
        if n == 0 {
            return Err(truncated(read, context));
        }
        let mut pos = 0usize;
        // Until this chunk is used up and the inflater has no more output waiting.
        loop {
            let step = inflater.step(&chunk[pos..], &mut buf);
            let at = |taken: usize| read + (pos + taken) as u64;
            let step = step.map_err(|(taken, e)| corrupt(at(taken), context, format_args!("corrupt data ({e})")))?;
            pos += step.taken;
            let at = read + pos as u64;
            if out.emit(&buf[..step.written], at, context)? == Flow::Done || step.ended {
                return Ok(at);
            }
            // The chunk is used up and no output waits: the next chunk is needed (or its
            // absence says the stream is truncated).
            if pos == n && step.written < buf.len() {
                break;
            }
            if step.taken == 0 && step.written == 0 {
                return Err(corrupt(at, context, "a stream that makes no progress"));
            }
        }
        read += n as u64;
    }
}

/// [`decode`] on a stream read [`READ_CHUNK`] bytes at a time. The end of the input before
/// the end of the zlib stream is a truncated stream; bytes after it are not read.
#[cfg(all(feature = "std", feature = "zlib"))]
pub(super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
    inflate_pulled(&mut |chunk, at| read_some(input, chunk, at, "zlib stream"), READ_CHUNK, false, out).map(|_| ())
}
