//! What the remote reader learns of a zip (a wheel) before the explorer reads it: its
//! members' local headers, fetched together in parallel (the listing reads them one at a time,
//! one round trip each), and where each member's stored bytes lie, so that reads of a member
//! run ahead to its end and no further.

use super::Remote;
use crate::fail::Outcome;
use offload::format::package::{self, zip, Kind, Member};

/// Prepares `remote` (whose bytes `input` reads) for the explorer when it is a zip; anything
/// else is read as asked. A zip whose directory does not read is left to the explorer, which
/// says why.
pub fn prepare<'a, R: object::ReadRef<'a>>(remote: &Remote, input: R) -> Outcome<()> {
    let head = input.read_bytes_at(0, remote.len().min(512)).unwrap_or(&[]);
    if package::detect(head) != Some(Kind::Zip) {
        return Ok(());
    }
    // The local headers of the members named as text are not read (see `zip::read_skipping`).
    let Ok(spans) = zip::local_header_spans(input, true) else { return Ok(()) };
    remote.prefetch(spans)?;
    let Ok(listing) = zip::read_skipping(input, true) else { return Ok(()) };
    let explored: Vec<&Member> = listing.members.iter().filter(|m| m.is_explored(true)).collect();
    remote.set_members(explored.iter().map(|m| (m.data_offset, m.stored_size, named_as_library(&m.name))).collect());
    // The small libraries (a wheel's hundreds of extension modules) are fetched together, in
    // parallel, rather than one round trip each as the explorer reaches them; large ones are
    // read ahead as they are inflated.
    let mut budget = PREFETCH_BUDGET;
    let mut small = Vec::new();
    for m in explored.iter().filter(|m| named_as_library(&m.name) && m.stored_size <= SMALL_MEMBER) {
        if m.stored_size > budget {
            break;
        }
        budget -= m.stored_size;
        small.push((m.data_offset, m.stored_size));
    }
    remote.prefetch(small)
}

/// A library of at most this many stored bytes is fetched with the others before exploring.
const SMALL_MEMBER: u64 = super::BLOCK;
/// At most this many stored bytes of small libraries are fetched before exploring (the cache
/// keeps them until they are read).
const PREFETCH_BUDGET: u64 = super::CACHE_BUDGET / 2;

/// Whether a member's name is a library's, an object's or device code's: its stored bytes are
/// read ahead from its first read on, not only once the inflater reads in order.
fn named_as_library(name: &str) -> bool {
    const ENDINGS: &[&str] =
        &[".so", ".o", ".a", ".dylib", ".dll", ".pyd", ".co", ".hsaco", ".cubin", ".fatbin", ".hipfb", ".kpack", ".bc"];
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    ENDINGS.iter().any(|e| base.ends_with(e)) || base.contains(".so.")
}
