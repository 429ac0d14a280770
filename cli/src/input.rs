//! The streaming input layer: an input file opened by what it starts with. A compressed bundle
//! alone in a regular file stays on disk and its payload is decoded as it is read
//! ([`Single`], [`stream_hashing`]: MD5 on a second thread), so that `decompress` and
//! `unbundle` never hold the bundle it decompresses to; anything else is read whole.

use crate::fail::{Failure, Outcome};
use offload::format::bundle::compressed;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// An input file, opened by what it starts with.
pub enum Input {
    /// A compressed bundle (`CCOB`), the only thing in its file.
    Compressed(Single),
    /// Anything else, read whole.
    Other(Vec<u8>),
}

/// Opens `path`: a compressed bundle is made ready to be decoded, anything else is read whole.
/// A regular file holding exactly one compressed bundle (its total size is the file's, or
/// version 1, which runs to the end) is left on disk, its payload read as it is decoded; any
/// other compressed input (a damaged header, bytes after the bundle, a linked `.hip_fatbin`,
/// a pipe) is read whole and checked as before, so its error is the same.
pub fn open_input(path: &Path) -> Outcome<Input> {
    // A URL is read whole (by ranges, [`crate::remote`]), as a pipe is.
    if crate::io::url_of(path).is_some() {
        return from_bytes(path, crate::io::read_all(path)?);
    }
    let mut file = crate::io::open_input(path)?;
    let meta = file.metadata().map_err(|e| Failure::io(path, "read", e))?;
    let mut data = Vec::new();
    if meta.is_file() {
        let mut head = (&mut file).take(compressed::MAX_HEADER_SIZE);
        head.read_to_end(&mut data).map_err(|e| Failure::io(path, "read", e))?;
        if let Some((header, offset, len)) = on_disk(&data, meta.len()) {
            return Ok(Input::Compressed(Single { header, payload: Payload::File { file, offset, len } }));
        }
    }
    // Anything else is read whole, from where reading got to.
    file.read_to_end(&mut data).map_err(|e| Failure::io(path, "read", e))?;
    from_bytes(path, data)
}

/// An input read whole: a compressed bundle, or other bytes.
fn from_bytes(path: &Path, data: Vec<u8>) -> Outcome<Input> {
    if compressed::is_compressed(&data) {
        Single::from_bytes(path, data).map(Input::Compressed)
    } else {
        Ok(Input::Other(data))
    }
}

/// The header and the payload's place of the compressed bundle filling a regular file of `len`
/// bytes that starts with `head`, or `None` when it is not one, its header does not read, or its
/// total size is not the file's.
fn on_disk(head: &[u8], len: u64) -> Option<(compressed::Header, u64, u64)> {
    if !compressed::is_compressed(head) {
        return None;
    }
    let header = compressed::Header::parse(head).ok()?;
    let offset = header.size();
    let end = header.total_size.unwrap_or(len);
    (end == len && offset <= end).then_some((header, offset, end - offset))
}

/// The one compressed bundle of an input: its header, and its payload in memory or on disk.
pub struct Single {
    pub header: compressed::Header,
    payload: Payload,
}

enum Payload {
    /// The whole input; the payload is `data[start..end]`.
    Memory { data: Vec<u8>, start: usize, end: usize },
    /// The payload is `len` bytes at `offset` of `file`, read as it is decoded.
    File { file: std::fs::File, offset: u64, len: u64 },
}

impl Single {
    /// The one compressed bundle `data` (the whole input) holds; see [`single_bundle`].
    pub fn from_bytes(path: &Path, data: Vec<u8>) -> Outcome<Single> {
        let cb = single_bundle(path, &data)?;
        let (header, start) = (cb.header.clone(), cb.payload_offset() as usize);
        let end = start + cb.payload.len();
        Ok(Single { header, payload: Payload::Memory { data, start, end } })
    }

    /// Where the payload starts in the compressed bundle.
    fn payload_offset(&self) -> u64 {
        self.header.size()
    }

    fn payload_len(&self) -> u64 {
        match &self.payload {
            Payload::Memory { start, end, .. } => (end - start) as u64,
            Payload::File { len, .. } => *len,
        }
    }

    /// Decodes the payload into `sink`, at most `budget` bytes; returns how many came out. The
    /// error offsets are in the payload; from disk they are the in-memory decoder's (see
    /// [`Single::exact_error`]).
    fn decode(&mut self, budget: u64, sink: &mut dyn FnMut(&[u8])) -> offload::Result<u64> {
        let method = self.header.method;
        match &mut self.payload {
            Payload::Memory { data, start, end } => {
                offload::codec::decompress_chunks(method, &data[*start..*end], budget, sink)
            }
            Payload::File { file, offset, len } => {
                let (offset, len) = (*offset, *len);
                let read = file.seek(SeekFrom::Start(offset)).map_err(|e| read_error(0, e)).and_then(|_| {
                    let mut payload = (&*file).take(len);
                    offload::codec::decompress_read(method, &mut payload, budget, sink)
                });
                read.or_else(|streamed| self.exact_error(budget, streamed))
            }
        }
    }

    /// A payload read from disk failed to decode: decoders read ahead, so the error of decoding
    /// it from memory (read again, now that memory does not matter) says exactly where and why,
    /// in the words of every other path. `streamed` stands only when that decodes (a read error).
    fn exact_error(&mut self, budget: u64, streamed: offload::Error) -> offload::Result<u64> {
        let Payload::File { file, offset, len } = &mut self.payload else { return Err(streamed) };
        let mut payload = Vec::new();
        let read = file.seek(SeekFrom::Start(*offset)).and_then(|_| (&*file).take(*len).read_to_end(&mut payload));
        if read.is_err() || payload.len() as u64 != *len {
            return Err(streamed);
        }
        match offload::codec::decompress_chunks(self.header.method, &payload, budget, &mut |_| {}) {
            Err(exact) => Err(exact),
            Ok(_) => Err(streamed),
        }
    }
}

/// A read error at `at` bytes into the payload.
fn read_error(at: u64, e: std::io::Error) -> offload::Error {
    offload::Error::new(at, "compressed bundle payload", "readable bytes", format!("a read error: {e}"))
}

/// The one compressed bundle `data` holds. Several compressed bundles back to back (a linked
/// `.hip_fatbin`) or stray bytes after one are refused, never silently reduced to the first.
fn single_bundle<'a>(path: &Path, data: &'a [u8]) -> Outcome<compressed::CompressedBundle<'a>> {
    let mut bundles = Vec::new();
    for found in compressed::walk(data) {
        match found.piece {
            compressed::Piece::Bundle(cb) => bundles.push(cb),
            compressed::Piece::Unreadable(e) => return Err(Failure::format(path, e)),
            compressed::Piece::Unknown { first_nonzero } if bundles.is_empty() => {
                return Err(Failure::new(format!(
                    "{}: at byte {first_nonzero} (compressed bundle): expected magic CCOB, found other bytes",
                    path.display()
                )));
            }
            compressed::Piece::Unknown { first_nonzero } => {
                return Err(Failure::new(format!(
                    "{}: at byte {first_nonzero} (after compressed bundle {}): expected zero padding or magic CCOB, found {:02x?}",
                    path.display(),
                    bundles.len(),
                    &data[first_nonzero as usize..data.len().min(first_nonzero as usize + 8)]
                )));
            }
            compressed::Piece::Padding => {}
        }
    }
    let count = bundles.len();
    match (bundles.pop(), count) {
        (Some(one), 1) => Ok(one),
        (None, _) => Err(Failure::new(format!("{}: at byte 0 (compressed bundle): expected magic CCOB, found an empty file", path.display()))),
        (Some(_), many) => Err(Failure::new(format!(
            "{}: holds {many} compressed bundles back to back (a linked .hip_fatbin); `offload extract` writes the entries of all of them",
            path.display()
        ))),
    }
}

/// Refuses a bundle whose decompressed bytes do not have the hash its header stores.
pub fn check_hash(path: &Path, header: &compressed::Header, computed: u64) -> Outcome<()> {
    if computed == header.hash {
        return Ok(());
    }
    Err(Failure::new(format!("{}: {}; nothing written", path.display(), compressed::hash_mismatch(header, computed))))
}

/// Decodes the payload of `single` chunk by chunk (at most [`offload::codec::CHUNK`] bytes
/// each; from disk, read [`offload::codec::READ_CHUNK`] bytes at a time), handing each chunk to
/// `sink` on this thread while a second thread computes the truncated MD5 of the same bytes
/// ([`offload::codec::hashing_beside`]), so the hash costs about nothing beyond the slower of the
/// two; returns that hash. Nothing is held but a few chunks in flight and the decoder's window.
///
/// Errors are the core's `CompressedBundle::decompress` errors, with the same words and the
/// same offsets from the start of the compressed bundle: a limit refused before decoding, a
/// corrupt or truncated stream, a stream longer or shorter than its declared size. `sink` has
/// then seen some bytes of a bundle that is not valid: callers write only to temporary files.
pub fn stream_hashing(single: &mut Single, limit: u64, sink: &mut dyn FnMut(&[u8])) -> offload::Result<u64> {
    let declared = single.header.uncompressed_size;
    if declared > limit || usize::try_from(declared).is_err() {
        // The core's error for it, with its offset: it refuses such a size from the header
        // alone, before looking at the payload.
        let cb = compressed::CompressedBundle { header: single.header.clone(), payload: &[] };
        return cb.decompress(limit).map(|_| unreachable!("refused by the limit"));
    }
    let (produced, md5) = offload::codec::hashing_beside(|feed| {
        single.decode(declared, &mut |chunk| {
            feed(chunk);
            sink(chunk);
        })
    });
    let computed = offload::codec::truncated_digest(&md5);
    let produced = produced.map_err(|e| e.shifted(single.payload_offset()))?;
    if produced != declared {
        return Err(offload::Error::new(
            single.payload_offset() + single.payload_len(),
            "decompression",
            format!("{declared} decompressed bytes (the declared uncompressed size)"),
            format!("a stream that ends after {produced} bytes"),
        ));
    }
    Ok(computed)
}
