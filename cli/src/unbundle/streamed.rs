//! Unbundling (and `--list`) straight from a compressed bundle, without ever holding the bundle
//! it decompresses to.
//!
//! The payload is decoded in chunks ([`crate::input::stream_hashing`]: MD5 on a second thread).
//! The first decoded bytes are kept until they hold the binary bundle's header; from then on
//! each chunk is written, where it overlaps a requested entry's byte range, to that output's
//! temporary file next to the output, and dropped. Once the stream has ended at its declared
//! size and its hash matches, the temporary files are renamed to the outputs; on any failure
//! they are removed, so no output is left looking valid.
//!
//! Failures are reported as reading the whole bundle first reports them, in the same order and
//! words: the compressed bundle, then decoding, then the hash, then the bundle's header and entry
//! ranges, then the targets. A failure found early (a target missing from the header) is kept
//! until the stream has been decoded and hashed, since a decoding error or a wrong hash would
//! have come first.
//!
//! What is not a binary bundle once decompressed (a text bundle, a bundled object, anything
//! else) or is read with a text `--type` is gathered whole and handed to the ordinary path: its
//! layouts need the whole input. So is a binary bundle whose header never reads; the header is
//! then the whole of what can be said, within `--max-decompressed`.

use super::whole::{self, Source};
use crate::bundler::BundlerArgs;
use crate::fail::{Failure, InFile, Outcome};
use crate::input::{self, Single};
use crate::io::AtomicFile;
use offload::format::bundle::binary;
use std::ops::Range;
use std::path::Path;

/// Lists or unbundles the compressed bundle of the input file at `path`.
pub fn run(a: &BundlerArgs, path: &Path, mut single: Single) -> Outcome<()> {
    let mut reader = Reader::new(a, path, single.header.uncompressed_size);
    let computed =
        input::stream_hashing(&mut single, a.decompress_limit(), &mut |chunk| reader.take(chunk)).in_file(path)?;
    input::check_hash(path, &single.header, computed)?;
    reader.finish()
}

/// One requested output being written.
struct Output {
    file: AtomicFile,
    /// The entry's bytes in the decompressed bundle; empty for an empty output.
    range: Range<u64>,
}

/// Where the decompressed bundle's reader is.
enum State {
    /// The first bytes, kept until they show a binary bundle's complete header (or that the
    /// input is something else).
    Start { prefix: Vec<u8>, next_try: usize },
    /// Something that is not a binary bundle: gathered whole for the ordinary path.
    Whole(Vec<u8>),
    /// The header is read; chunks go to the outputs whose ranges they overlap.
    Streaming { ids: Vec<String>, outputs: Vec<Output> },
    /// A failure found on the way, reported once decoding and the hash have been checked.
    Failed(Failure),
}

/// Takes the decompressed bundle chunk by chunk.
struct Reader<'a> {
    args: &'a BundlerArgs,
    path: &'a Path,
    /// The declared uncompressed size: entry ranges are checked against it when the header is
    /// read (the stream is checked to end there before anything is kept).
    size: u64,
    /// Decompressed bytes seen so far.
    pos: u64,
    state: State,
}

/// Headers are tried again only when what is kept has doubled, so a huge header costs linear
/// time, not quadratic.
const FIRST_TRY: usize = 4096;

impl<'a> Reader<'a> {
    fn new(args: &'a BundlerArgs, path: &'a Path, size: u64) -> Self {
        Reader { args, path, size, pos: 0, state: State::Start { prefix: Vec::new(), next_try: FIRST_TRY } }
    }

    fn take(&mut self, chunk: &[u8]) {
        let at = self.pos;
        self.pos += chunk.len() as u64;
        match &mut self.state {
            State::Failed(_) => {}
            State::Whole(data) => data.extend_from_slice(chunk),
            State::Start { prefix, next_try } => {
                prefix.extend_from_slice(chunk);
                if prefix.len() >= *next_try || prefix.len() as u64 == self.size {
                    *next_try = prefix.len().saturating_mul(2);
                    let prefix = std::mem::take(prefix);
                    self.state = self.after_prefix(prefix);
                }
            }
            State::Streaming { outputs, .. } => {
                if let Err(f) = write_overlaps(outputs, at, chunk) {
                    self.state = State::Failed(f);
                }
            }
        }
    }

    /// What to do with the first bytes `prefix`: stream (the header is complete), keep
    /// gathering, or gather everything.
    fn after_prefix(&self, prefix: Vec<u8>) -> State {
        let magic = binary::MAGIC.len();
        if prefix.len() < magic && (prefix.len() as u64) < self.size {
            return State::Start { next_try: magic, prefix };
        }
        if !whole::is_binary_type(&self.args.file_type) || !binary::is_bundle(&prefix) {
            return State::Whole(prefix);
        }
        match binary::read_header(&prefix) {
            Ok(header) => self.start_streaming(&header, &prefix),
            // Only a prefix: more bytes may complete the header. The stream's end settles it.
            Err(_) => State::Start { next_try: prefix.len().saturating_mul(2), prefix },
        }
    }

    /// The header is read: checks every entry's range as reading the whole bundle would, picks
    /// the outputs, and writes what `prefix` already holds of them.
    fn start_streaming(&self, header: &binary::Header, prefix: &[u8]) -> State {
        match self.open_outputs(header) {
            Ok(mut outputs) => match write_overlaps(&mut outputs, 0, prefix) {
                Ok(()) => State::Streaming { ids: header.entries.iter().map(|e| e.id.clone()).collect(), outputs },
                Err(f) => State::Failed(f),
            },
            Err(f) => State::Failed(f),
        }
    }

    fn open_outputs(&self, header: &binary::Header) -> Outcome<Vec<Output>> {
        let mut ranges = Vec::with_capacity(header.entries.len());
        for e in &header.entries {
            ranges.push(e.range_in(self.size).in_file(self.path)?);
        }
        if self.args.list {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = header.entries.iter().map(|e| e.id.as_str()).collect();
        let plan = whole::plan(self.args, self.path, &ids, false)?;
        let mut outputs = Vec::with_capacity(plan.len());
        for (out, source) in plan {
            let range = match source {
                // The first entry with that ID, as `Bundle::entry` picks it.
                Source::Entry(id) => ids.iter().position(|i| *i == id).map_or(0..0, |i| ranges[i].clone()),
                Source::WholeInput | Source::Empty => 0..0,
            };
            outputs.push(Output { file: AtomicFile::create(out)?, range });
        }
        Ok(outputs)
    }

    /// After a stream that ended at its declared size with the right hash: the listing, or the
    /// outputs renamed into place (in order, as the ordinary path writes them).
    fn finish(self) -> Outcome<()> {
        match self.state {
            State::Failed(f) => Err(f),
            State::Start { prefix: data, .. } | State::Whole(data) => whole::run(self.args, self.path, &data),
            State::Streaming { ids, outputs } => {
                if self.args.list {
                    whole::print_ids(&ids.iter().map(String::as_str).collect::<Vec<_>>());
                    return Ok(());
                }
                for out in outputs {
                    let (shown, size) = (out.file.path().display().to_string(), out.range.end - out.range.start);
                    out.file.commit()?;
                    if self.args.verbose {
                        eprintln!("wrote {shown} ({size} bytes)");
                    }
                }
                Ok(())
            }
        }
    }
}

/// Writes the part of `chunk` (the decompressed bytes from `at`) that falls in each output's
/// range. Ranges may overlap one another and the header: each output takes its own part.
fn write_overlaps(outputs: &mut [Output], at: u64, chunk: &[u8]) -> Outcome<()> {
    let end = at + chunk.len() as u64;
    for out in outputs {
        let (start, stop) = (out.range.start.max(at), out.range.end.min(end));
        if start < stop {
            out.file.write(&chunk[(start - at) as usize..(stop - at) as usize])?;
        }
    }
    Ok(())
}
