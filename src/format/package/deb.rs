//! Debian packages (`.deb`): an `ar` archive ([`crate::format::archive::ar`]) of three
//! members, in this order:
//!
//! | member                         | holds                                                    |
//! |--------------------------------|----------------------------------------------------------|
//! | `debian-binary`                | the format version, `2.0\n`                              |
//! | `control.tar` (`.gz`, `.xz`, `.zst`) | the control files (package name, scripts)          |
//! | `data.tar` (`.gz`, `.xz`, `.zst`, `.bz2`) | the files the package installs              |
//!
//! Members are stored as they are; the explorer opens the compressed tars.

use super::{EntryKind, Listing, Member, Problem};
use crate::error::Result;
use crate::format::archive::ar;
use crate::tree::Severity;
use crate::util::window::Window;
use alloc::format;
use object::ReadRef;

/// Whether `head` is an `ar` archive whose first member is `debian-binary`.
pub fn is_deb(head: &[u8]) -> bool {
    head.starts_with(ar::MAGIC) && head.get(8..21) == Some(b"debian-binary")
}

/// Lists a `.deb`'s members.
pub fn read<'a, R: ReadRef<'a>>(input: R) -> Result<Listing> {
    read_window(Window::whole(&input))
}

/// [`read`] through a [`Window`], compiled once whatever the caller's reader.
fn read_window<'a>(input: Window<'_, 'a>) -> Result<Listing> {
    let archive = ar::read(input)?;
    let mut listing = Listing::new("deb");
    for m in &archive.members {
        let name = m.name.trim_end_matches('/').into();
        let mut member = Member::new(name, EntryKind::File, (m.header.offset, ar::HEADER_SIZE), m.data_offset, m.size);
        if let Some(mode) = m.header.mode {
            member.field("mode", format!("{mode:o}"), Some((m.header.offset + 40, 8)));
        }
        listing.members.push(member);
    }
    if let Some(e) = &archive.error {
        listing.problems.push(Problem::error(e));
    }
    check_order(&mut listing);
    if let Some(version) = listing.members.first().and_then(|m| input.read_bytes_at(m.data_offset, m.size.min(16)).ok())
    {
        let version = alloc::string::String::from_utf8_lossy(version);
        let version = version.trim();
        listing.field("format_version", alloc::string::String::from(version), None);
    }
    super::check_names(&mut listing);
    Ok(listing)
}

/// dpkg requires `debian-binary`, then `control.tar*`, then `data.tar*`.
fn check_order(listing: &mut Listing) {
    let names: alloc::vec::Vec<&str> = listing.members.iter().map(|m| m.name.as_str()).collect();
    let expected = ["debian-binary", "control.tar", "data.tar"];
    let fits = names.len() >= 3 && names.iter().zip(expected).all(|(n, e)| n.starts_with(e));
    if !fits {
        let message = format!(
            "expected the members debian-binary, control.tar*, data.tar* in this order (as dpkg requires); found {}",
            names.join(", ")
        );
        listing.problems.push(Problem::new(Severity::Warning, (8, 0), message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::archive::ar::{write_gnu, NewMember};

    #[test]
    fn a_deb_lists_its_three_members() {
        let members = [
            NewMember { name: "debian-binary".into(), data: b"2.0\n" },
            NewMember { name: "control.tar.gz".into(), data: b"c" },
            NewMember { name: "data.tar.gz".into(), data: b"d" },
        ];
        let deb = write_gnu(&members).unwrap();
        assert!(is_deb(&deb), "{:?}", &deb[..24]);
        let l = read(&deb[..]).unwrap();
        assert_eq!(
            l.members.iter().map(|m| m.name.as_str()).collect::<alloc::vec::Vec<_>>(),
            ["debian-binary", "control.tar.gz", "data.tar.gz"]
        );
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.fields[0].value, crate::tree::Value::Text("2.0".into()));
    }
}
