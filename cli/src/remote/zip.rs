//! What the remote reader learns of a zip (a wheel) before the explorer reads it: its
//! members' local headers, fetched together in parallel (the listing reads them one at a time,
//! one round trip each), and where each member's stored bytes lie, so that reads of a member
//! run ahead to its end and no further.

use super::Remote;
use crate::fail::Outcome;
use offload::format::package::{self, zip, Kind};

/// Prepares `remote` (whose bytes `input` reads) for the explorer when it is a zip; anything
/// else is read as asked. A zip whose directory does not read is left to the explorer, which
/// says why.
pub fn prepare<'a, R: object::ReadRef<'a>>(remote: &Remote, input: R) -> Outcome<()> {
    let head = input.read_bytes_at(0, remote.len().min(512)).unwrap_or(&[]);
    if package::detect(head) != Some(Kind::Zip) {
        return Ok(());
    }
    let Ok(spans) = zip::local_header_spans(input) else { return Ok(()) };
    remote.prefetch(spans)?;
    if let Ok(listing) = zip::read(input) {
        remote.set_members(listing.members.iter().map(|m| (m.data_offset, m.stored_size)).collect());
    }
    Ok(())
}
