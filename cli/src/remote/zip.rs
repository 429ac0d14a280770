//! What the remote reader learns of a zip (a wheel) before the explorer reads it, and what it
//! fetches then, as the core plans it for every host (`offload::explore::fetch_plan`, which the
//! page's workers follow too): the local headers of the members explored (fetched together in
//! parallel, where the listing would read them one round trip at a time, each with the small
//! members that lie between two of them), then, on threads of their own while the explorer
//! works ([`super::ahead`]), the bytes it will read of each member, in the order it reads them.

use super::Remote;
use crate::fail::Outcome;
use offload::explore::fetch_plan;
use offload::format::package::{self, zip, Kind};

/// Prepares `remote` (whose bytes `input` reads) for the explorer when it is a zip; anything
/// else is read as asked, as is a file arriving whole. A zip whose directory does not read is left to the explorer, which
/// says why.
pub fn prepare<'a, R: object::ReadRef<'a>>(remote: &Remote, input: R) -> Outcome<()> {
    if !remote.serves_ranges() {
        // The file arrives whole, front to back: nothing to plan.
        return Ok(());
    }
    let head = input.read_bytes_at(0, remote.len().min(fetch_plan::HEAD)).unwrap_or(&[]);
    if package::detect(head) != Some(Kind::Zip) {
        return Ok(());
    }
    let Ok((directory, directory_start)) = zip::central_members(input) else { return Ok(()) };
    let first = fetch_plan::first_fetch(&directory, directory_start);
    // Fetching ahead starts at once, from the directory alone, for the members whose data
    // certainly lies where it says, while the local headers are fetched: the listing needs
    // them all before the explorer starts.
    remote.fetch_ahead(&first.guessed);
    remote.prefetch(first.headers)?;
    // The local headers of the members named as text are not read (see `zip::read_skipping`).
    let Ok(listing) = zip::read_skipping(input, true) else { return Ok(()) };
    let (reads, spans) = fetch_plan::planned(&listing.members);
    remote.set_members(spans);
    remote.fetch_ahead(&reads);
    Ok(())
}
