//! Hashes of decompressed data: streaming MD5 (on a second thread beside decoding, natively),
//! and LLVM's truncated MD5, the first 8 bytes of the digest as a little-endian integer, which
//! compressed bundles store.

use super::*;

/// MD5 of decompressed data, computed while decompressing in chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamDigest {
    /// Number of decompressed bytes.
    pub size: u64,
    pub md5: [u8; 16],
}

impl StreamDigest {
    /// The hash LLVM stores for these bytes; see [`truncated_md5`].
    pub fn truncated(&self) -> u64 {
        truncated_digest(&self.md5)
    }
}

/// MD5 of what `data` decompresses to, which must be exactly `expected_size` bytes (at most
/// `limit`). Memory stays small whatever the size: a chunk, and for zstd the stream's window.
pub fn decompressed_md5(method: Method, data: &[u8], expected_size: u64, limit: u64) -> Result<StreamDigest> {
    let budget = checked_budget(expected_size, limit)?;
    let (size, md5) = hashing_beside(|feed| run(method, data, budget, Overflow::Fail, feed));
    let size = size?;
    check_complete(size, expected_size, data.len())?;
    Ok(StreamDigest { size, md5 })
}

/// Decompresses `data` like [`decompress`] and hashes the output as it comes out, so that the
/// bytes are walked once: returns them with LLVM's truncated MD5 ([`truncated_md5`]).
/// `progress` hears how many bytes have come out after each chunk (for a progress bar).
pub fn decompress_hashed(
    method: Method,
    data: &[u8],
    expected_size: u64,
    limit: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<u8>, u64)> {
    let budget = checked_budget(expected_size, limit)?;
    let mut out = Vec::with_capacity(first_reservation(expected_size, data.len()));
    let (produced, md5) = hashing_beside(|feed| {
        run(method, data, budget, Overflow::Fail, &mut |chunk| {
            feed(chunk);
            push_bounded(&mut out, chunk, budget as usize);
            progress(out.len() as u64);
        })
    });
    check_complete(produced?, expected_size, data.len())?;
    Ok((out, truncated_digest(&md5)))
}

/// Runs `produce`, which hands the bytes it makes to the function it is given, and returns
/// what it returns with the MD5 digest of those bytes.
///
/// Natively with `std`, a second thread hashes while `produce` goes on: the bytes are copied
/// into a few reused [`CHUNK`]-sized buffers on their way to it, so the hash (MD5 is sequential,
/// about 0.35 s for 256 MiB here) costs little beyond the slower of the two. The thread is
/// joined before this returns. Without `std`, in the browser, or where no thread can be
/// started, the bytes are hashed as they come.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub fn hashing_beside<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    use std::sync::mpsc::{channel, sync_channel};
    /// Buffers in flight: enough to ride out either side's hiccups, 2 MiB in all.
    const IN_FLIGHT: usize = 16;
    std::thread::scope(|scope| {
        let (full, received) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, free) = channel::<Vec<u8>>();
        for _ in 0..IN_FLIGHT {
            let _ = give_back.send(Vec::with_capacity(CHUNK));
        }
        let started = std::thread::Builder::new().name("md5".into()).spawn_scoped(scope, move || {
            let mut md5 = Md5::new();
            for piece in received {
                md5.update(&piece);
                // The producing side stops taking buffers back only when it is done.
                let _ = give_back.send(piece);
            }
            <[u8; 16]>::from(md5.finalize())
        });
        let Ok(hasher) = started else {
            return hashing_inline(produce);
        };
        let mut piece = Vec::new();
        let result = produce(&mut |mut bytes: &[u8]| {
            while !bytes.is_empty() {
                if piece.capacity() == 0 {
                    // A buffer comes back for every one sent, so this waits only while all
                    // are queued; should the hasher be gone, a fresh one keeps things going
                    // (join reports why below).
                    piece = free.recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                    piece.clear();
                }
                // Sent as soon as it is full, so it has room for at least one byte.
                let n = (CHUNK - piece.len()).min(bytes.len());
                piece.extend_from_slice(&bytes[..n]);
                bytes = &bytes[n..];
                if piece.len() >= CHUNK {
                    let _ = full.send(core::mem::take(&mut piece));
                }
            }
        });
        if !piece.is_empty() {
            let _ = full.send(piece);
        }
        drop(full);
        let md5 = hasher.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (result, md5)
    })
}

/// [`hashing_beside`] where there are no threads: the bytes are hashed as they come.
#[cfg(not(all(feature = "std", not(target_arch = "wasm32"))))]
pub fn hashing_beside<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    hashing_inline(produce)
}

fn hashing_inline<R>(produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> R) -> (R, [u8; 16]) {
    let mut md5 = Md5::new();
    let result = produce(&mut |bytes| md5.update(bytes));
    (result, md5.finalize().into())
}

/// MD5 computed piece by piece, for callers that hash data as it arrives (on another thread,
/// say); [`Md5Stream::truncated`] is the hash LLVM stores.
#[derive(Clone, Default)]
pub struct Md5Stream(Md5);

impl Md5Stream {
    pub fn new() -> Self {
        Md5Stream(Md5::new())
    }

    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// LLVM's truncated MD5 of everything given so far ([`truncated_md5`]).
    pub fn truncated(self) -> u64 {
        truncated_digest(&self.0.finalize().into())
    }
}

/// The MD5 digest of `data`.
pub fn md5(data: &[u8]) -> [u8; 16] {
    Md5::digest(data).into()
}

/// The hash clang-offload-bundler stores in a compressed bundle: LLVM's `MD5Result::low()`, the
/// first 8 bytes of the MD5 digest read as a little-endian integer. Written back little-endian,
/// the stored bytes are exactly the first 8 bytes of the digest.
pub fn truncated_md5(data: &[u8]) -> u64 {
    truncated_digest(&md5(data))
}

/// LLVM's truncated MD5 ([`truncated_md5`]) from the whole digest.
pub fn truncated_digest(digest: &[u8; 16]) -> u64 {
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
}
