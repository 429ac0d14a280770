//! zstd: libzstd (feature `zstd-c`: the CLI and the page's workers; faster, real levels,
//! streaming from a reader) or ruzstd (feature `zstd` alone, pure Rust), decoded in bounded
//! chunks either way.

use super::*;

/// ruzstd decodes from memory: the stream is read whole, then decoded chunk by chunk.
#[cfg(all(feature = "std", feature = "zstd", not(feature = "zstd-c")))]
pub(super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
    let mut data = Vec::new();
    input.read_to_end(&mut data).map_err(|e| {
        Error::new(data.len() as u64, "zstd stream", "readable compressed data", format!("a read error: {e}"))
    })?;
    decode(&data, out)
}

#[cfg(feature = "zstd-c")]
pub(super) use libzstd::decode_read;

/// libzstd at the requested level (3, zstd's and LLVM's default, when none), with
/// long-distance matching as clang-offload-bundler uses it, on every core.
#[cfg(feature = "zstd-c")]
pub(super) fn compress(level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
    libzstd::compress(level.unwrap_or(3), data)
}

/// ruzstd implements one strategy (its `Fastest`); see the module table.
#[cfg(all(feature = "zstd", not(feature = "zstd-c")))]
pub(super) fn compress(_level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
    use ruzstd::encoding::{compress_to_vec, CompressionLevel};
    Ok(compress_to_vec(data, CompressionLevel::Fastest))
}

#[cfg(not(feature = "zstd"))]
pub(super) fn compress(_level: Option<i32>, _data: &[u8]) -> Result<Vec<u8>> {
    Err(not_built_in(Method::Zstd))
}

#[cfg(all(feature = "zstd", not(feature = "zstd-c")))]
pub(super) use decoding::decode;
/// ruzstd's decoder stays built beside libzstd's, so the two are compared in the tests.
#[cfg(all(test, feature = "zstd-c"))]
pub(super) use decoding::decode as decode_ruzstd;
#[cfg(feature = "zstd-c")]
pub(super) use libzstd::decode;

/// libzstd through the `zstd` crate (feature `zstd-c`): streaming decompression into
/// [`CHUNK`]-sized pieces counted against the budget like ruzstd's, so the same bounds hold
/// for output; libzstd's own window is capped by its default `WindowLogMax` (128 MiB).
#[cfg(feature = "zstd-c")]
mod libzstd {
    use super::*;
    use zstd_c::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

    const CONTEXT: &str = "zstd stream";

    /// Decodes with libzstd; where that fails, ruzstd decodes again, counting only, to say
    /// where and why in the same words and at the same offset as the pure-Rust build (libzstd
    /// reads ahead, so its own position is not where the stream went wrong).
    pub(in super::super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
        let Err(fast) = decode_fast(data, out) else { return Ok(()) };
        let mut discard = |_: &[u8]| {};
        let mut recount = Output { produced: 0, budget: out.budget, overflow: out.overflow, sink: &mut discard };
        match super::decoding::decode(data, &mut recount) {
            Err(precise) => Err(precise),
            Ok(()) => Err(fast),
        }
    }

    fn decode_fast(data: &[u8], out: &mut Output<'_>) -> Result<()> {
        let mut decoder = Decoder::new().map_err(|e| corrupt(0, CONTEXT, e))?;
        let mut buf = alloc::vec![0u8; CHUNK];
        let mut input = InBuffer::around(data);
        let mut frame_open = false;
        while out.flow() == Flow::Continue {
            if !frame_open && input.pos == data.len() {
                return Ok(());
            }
            let mut output = OutBuffer::around(&mut buf[..]);
            let before = input.pos;
            let left = decoder.run(&mut input, &mut output).map_err(|e| corrupt(before as u64, CONTEXT, e))?;
            let written = output.pos();
            if out.emit(&buf[..written], input.pos as u64, CONTEXT)? == Flow::Done {
                return Ok(());
            }
            // `left` is 0 exactly when a frame has just been completed and flushed.
            frame_open = left != 0;
            if frame_open && written == 0 && input.pos == before {
                return Err(truncated(input.pos as u64, CONTEXT));
            }
        }
        Ok(())
    }

    /// libzstd on a stream read [`READ_CHUNK`] bytes at a time: frames back to back and
    /// skippable frames as [`decode_fast`] takes them; the end of the input inside a frame is
    /// a truncated stream.
    #[cfg(feature = "std")]
    pub(in super::super) fn decode_read(input: &mut dyn std::io::Read, out: &mut Output<'_>) -> Result<()> {
        let mut decoder = Decoder::new().map_err(|e| corrupt(0, CONTEXT, e))?;
        let mut chunk = alloc::vec![0u8; READ_CHUNK];
        let mut buf = alloc::vec![0u8; CHUNK];
        let mut read = 0u64;
        let mut frame_open = false;
        loop {
            let n = read_some(input, &mut chunk, read, CONTEXT)?;
            if n == 0 {
                return if frame_open { Err(truncated(read, CONTEXT)) } else { Ok(()) };
            }
            let mut input = InBuffer::around(&chunk[..n]);
            // Until this chunk is used up and libzstd has nothing more to give from it (a
            // full output buffer may mean more is waiting).
            loop {
                let mut output = OutBuffer::around(&mut buf[..]);
                let before = input.pos;
                let left =
                    decoder.run(&mut input, &mut output).map_err(|e| corrupt(read + before as u64, CONTEXT, e))?;
                let written = output.pos();
                if out.emit(&buf[..written], read + input.pos as u64, CONTEXT)? == Flow::Done {
                    return Ok(());
                }
                // libzstd may take the last bytes of a chunk into its own buffer and decode
                // them only on the next call: the chunk is done once a call moves nothing.
                if written == 0 && input.pos == before {
                    if input.pos == n {
                        break;
                    }
                    // With input and room it always moves; should it not, stop, not spin.
                    return Err(corrupt(read + before as u64, CONTEXT, "a decoder that makes no progress"));
                }
                // `left` is 0 exactly when a call has completed and flushed a frame (a call
                // that moves nothing hints at the next frame's header instead).
                frame_open = left != 0;
            }
            read += n as u64;
        }
    }

    pub(super) fn compress(level: i32, data: &[u8]) -> Result<Vec<u8>> {
        let fail = |e: std::io::Error| Error::new(0, "zstd compression", "libzstd to compress", e.to_string());
        let mut encoder = zstd_c::stream::Encoder::new(Vec::new(), level).map_err(fail)?;
        encoder.long_distance_matching(true).map_err(fail)?;
        // Threads where there are some (the CLI); the browser's workers compress on one.
        #[cfg(feature = "zstd-mt")]
        {
            let workers = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            encoder.multithread(workers).map_err(fail)?;
        }
        encoder.include_contentsize(true).map_err(fail)?;
        encoder.set_pledged_src_size(Some(data.len() as u64)).map_err(fail)?;
        std::io::Write::write_all(&mut encoder, data).map_err(fail)?;
        encoder.finish().map_err(fail)
    }
}

#[cfg(feature = "zstd")]
mod decoding {
    use super::*;
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    use ruzstd::io::Read;

    const CONTEXT: &str = "zstd stream";

    /// An empty raw block marked last, followed by room for a checksum: appended after the
    /// blocks already decoded, it ends the frame early so that what was decoded can be read.
    const END_OF_FRAME: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];

    /// Decodes every frame of `data` (skippable frames are skipped, as libzstd does) into
    /// `out`. Bytes that are not a frame are an error, as they are for libzstd.
    pub(in super::super) fn decode(data: &[u8], out: &mut Output<'_>) -> Result<()> {
        let mut input = data;
        let mut buf = alloc::vec![0u8; CHUNK];
        while !input.is_empty() && out.flow() == Flow::Continue {
            let frame_start = (data.len() - input.len()) as u64;
            // A fresh decoder for every frame: reusing one would reserve the whole declared
            // window up front, and the declared window is not to be trusted.
            let mut decoder = FrameDecoder::new();
            // Memory is bounded by the output budget, not by the window, so any window the
            // format allows is accepted, within what this platform can address.
            decoder.set_max_window_size(isize::MAX as u64);
            match decoder.init(&mut input) {
                Ok(()) => {}
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    input = skip(input, length, data.len())?;
                    continue;
                }
                Err(e) => return Err(corrupt(frame_start, CONTEXT, e)),
            }
            let mut frame = Frame { decoder, input: &mut input, start: frame_start, decoded_at_least: 0 };
            frame.decode(out, &mut buf)?;
        }
        Ok(())
    }

    fn skip(input: &[u8], length: u32, total: usize) -> Result<&[u8]> {
        input.get(length as usize..).ok_or_else(|| truncated((total - input.len()) as u64, "zstd skippable frame"))
    }

    /// One frame being decoded.
    struct Frame<'i, 'd> {
        decoder: FrameDecoder,
        input: &'i mut &'d [u8],
        start: u64,
        /// A lower bound of the bytes this frame has decoded so far, including those the
        /// decoder still holds as its window and has not handed over.
        decoded_at_least: u64,
    }

    impl Frame<'_, '_> {
        fn position(&self) -> u64 {
            self.start + self.decoder.bytes_read_from_source()
        }

        fn decode(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<()> {
            let frame_base = out.produced;
            loop {
                // Each call decodes whole blocks until at least `step` more bytes exist
                // (blocks are at most 128 KiB), which gives a lower bound of the output
                // even while the decoder keeps it as its window.
                let step = self.step(out, frame_base);
                let finished = self
                    .decoder
                    .decode_blocks(&mut *self.input, BlockDecodingStrategy::UptoBytes(step))
                    .map_err(|e| corrupt(self.position(), CONTEXT, e))?;
                if !finished {
                    self.decoded_at_least = self.decoded_at_least.saturating_add(step as u64);
                }
                if self.drain(out, buf)? == Flow::Done || finished {
                    return Ok(());
                }
                let at_least = frame_base.saturating_add(self.decoded_at_least).max(out.produced);
                if at_least >= out.budget && out.overflow == Overflow::Stop {
                    return self.end_early(out, buf);
                }
                if at_least > out.budget {
                    return Err(out.too_much(self.position(), CONTEXT));
                }
            }
        }

        /// How much to decode next: a chunk, or for a prefix no more than is still wanted.
        fn step(&self, out: &Output<'_>, frame_base: u64) -> usize {
            if out.overflow == Overflow::Fail {
                return CHUNK;
            }
            let have = frame_base.saturating_add(self.decoded_at_least).max(out.produced);
            out.budget.saturating_sub(have).clamp(1, CHUNK as u64) as usize
        }

        /// Hands over everything the decoder can release.
        fn drain(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<Flow> {
            loop {
                let n = self.decoder.read(buf).map_err(|e| corrupt(self.position(), CONTEXT, e))?;
                if n == 0 {
                    return Ok(Flow::Continue);
                }
                if out.emit(&buf[..n], self.position(), CONTEXT)? == Flow::Done {
                    return Ok(Flow::Done);
                }
            }
        }

        /// Enough of a prefix is decoded: close the frame so the decoder releases the bytes
        /// it keeps as its window, and hand them over.
        fn end_early(&mut self, out: &mut Output<'_>, buf: &mut [u8]) -> Result<()> {
            self.decoder
                .decode_blocks(&END_OF_FRAME[..], BlockDecodingStrategy::All)
                .map_err(|e| corrupt(self.position(), CONTEXT, e))?;
            self.drain(out, buf).map(|_| ())
        }
    }
}
