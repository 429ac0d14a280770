//! What the remote reader learns of a zip (a wheel) before the explorer reads it, and what it
//! fetches then: the local headers of the members explored (fetched together in parallel,
//! where the listing would read them one round trip at a time, each with the small members
//! that lie between two of them), then, on threads of their own while the explorer works
//! ([`super::ahead`]), the bytes it will read of each member, in the order it reads them.

use super::Remote;
use crate::fail::Outcome;
use offload::format::package::{self, zip, Compression, Kind, Member};

/// Stored bytes of a deflated member the explorer reads to tell what it is (its
/// `STORED_HEAD`, in `src/explore/packages.rs`).
const DEFLATED_HEAD: u64 = 64 << 10;
/// Bytes of a stored member the explorer reads to tell what it is (its `HEAD`).
const STORED_HEAD: u64 = 512;

/// Prepares `remote` (whose bytes `input` reads) for the explorer when it is a zip; anything
/// else is read as asked. A zip whose directory does not read is left to the explorer, which
/// says why.
pub fn prepare<'a, R: object::ReadRef<'a>>(remote: &Remote, input: R) -> Outcome<()> {
    let head = input.read_bytes_at(0, remote.len().min(512)).unwrap_or(&[]);
    if package::detect(head) != Some(Kind::Zip) {
        return Ok(());
    }
    let Ok((directory, directory_start)) = zip::central_members(input) else { return Ok(()) };
    let next_headers = header_starts(&directory, directory_start);
    // Fetching ahead starts at once, from the directory alone, for the members whose data
    // certainly lies where it says (it runs exactly to the next header), while the local
    // headers are fetched: the listing needs them all before the explorer starts.
    let guessed: Vec<(u64, u64)> = directory
        .iter()
        .filter(|m| m.is_explored(true))
        .map(|m| if runs_to_next_header(m, &next_headers) { (m.data_offset, read_of(m)) } else { (0, 0) })
        .collect();
    remote.fetch_ahead(&guessed);
    remote.prefetch(headers_and_small_members(&directory, &next_headers))?;
    // The local headers of the members named as text are not read (see `zip::read_skipping`).
    let Ok(listing) = zip::read_skipping(input, true) else { return Ok(()) };
    let explored: Vec<&Member> = listing.members.iter().filter(|m| m.is_explored(true)).collect();
    remote.set_members(explored.iter().map(|m| (m.data_offset, m.stored_size, named_as_library(&m.name))).collect());
    let planned: Vec<(u64, u64)> = explored.iter().map(|m| (m.data_offset, read_of(m))).collect();
    remote.fetch_ahead(&planned);
    Ok(())
}

/// Where every local header starts, and the central directory, in order.
fn header_starts(directory: &[Member], directory_start: u64) -> Vec<u64> {
    let mut starts: Vec<u64> = directory.iter().map(|m| m.header.0).collect();
    starts.push(directory_start);
    starts.sort_unstable();
    starts
}

/// Whether a member's data, placed by the central directory, runs exactly to the next local
/// header (or the directory): then its local header has no extra field of its own and no data
/// descriptor follows, and its data is where the directory says.
fn runs_to_next_header(m: &Member, starts: &[u64]) -> bool {
    let next = starts.partition_point(|&s| s <= m.header.0);
    starts.get(next) == Some(&m.data_offset.saturating_add(m.stored_size))
}

/// What the explorer reads of a member's stored bytes: all of a deflated library's (it is
/// inflated whole), the first bytes of anything else (a stored library's headers and offload
/// sections are read where they lie, as asked).
fn read_of(m: &Member) -> u64 {
    match m.compression {
        Compression::Deflate if named_as_library(&m.name) => m.stored_size,
        Compression::Deflate => m.stored_size.min(DEFLATED_HEAD),
        _ => m.stored_size.min(STORED_HEAD),
    }
}

/// The local headers of the members explored, with the bytes the explorer reads of those
/// whose stored bytes are small and read whole and lie where the directory says: such a
/// member's header, data and the next header are one span, fetched in one request.
fn headers_and_small_members(directory: &[Member], starts: &[u64]) -> Vec<(u64, u64)> {
    let mut spans = Vec::new();
    for m in directory.iter().filter(|m| m.is_explored(true)) {
        spans.push(m.header);
        if runs_to_next_header(m, starts) && m.stored_size <= DEFLATED_HEAD && read_of(m) == m.stored_size {
            spans.push((m.data_offset, m.stored_size));
        }
    }
    spans
}

/// Whether a member's name is a library's, an object's or device code's: its stored bytes are
/// read ahead from its first read on, not only once the inflater reads in order.
fn named_as_library(name: &str) -> bool {
    const ENDINGS: &[&str] =
        &[".so", ".o", ".a", ".dylib", ".dll", ".pyd", ".co", ".hsaco", ".cubin", ".fatbin", ".hipfb", ".kpack", ".bc"];
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    ENDINGS.iter().any(|e| base.ends_with(e)) || base.contains(".so.")
}
