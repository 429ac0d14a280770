//! The bytes of byte spaces that an exploration with [`Options::keep_bytes`] off dropped, found
//! again on demand: the member of the input's own package that opened them is explored again,
//! alone and keeping its bytes, and each dropped space is matched with the space the second
//! exploration opened for the same bytes. A page that explored a 4 GiB wheel with its bytes
//! dropped shows any image's bytes this way, holding one member's at a time.
//!
//! The member is explored again as it was the first time, its bytes dropped (and, with the
//! caller's [`Hooks::spill`], a large member inflated outside memory), keeping the bytes of the
//! space asked for and of the others explored before or after it up to a room the caller gives
//! ([`Sparing`]; a page gives [`KEEP_AGAIN`]): a kernel of a 965 MiB library whose fatbins decompress to gigabytes is
//! shown holding its own cubin and a few neighbours, not the library and every cubin (which
//! took a page's worker past 3 GiB). The next space asked for in the same member is answered
//! from those kept, when it is one of them.
//!
//! Matching. The spaces a member opens are numbered one after the other in both explorations,
//! so the second one numbers its own from where the first began. A member explored alone may
//! still open more spaces than it did within the whole (the listing budget for NVIDIA fatbin
//! entries is the exploration's, not the member's), so spaces are matched by what they are —
//! label, size, and origin (the span they were decompressed from, its space matched first) —
//! not by their number.

use super::{Asked, Explorer, Hooks, Options};
use crate::explore::Companion;
use crate::format::nv_fatbin::tree as nv_tree;
use crate::format::package::{self, Compression, Kind, Listing};
use crate::format::package::{cpio, deb, rpm, tar, zip};
use crate::tree::{ByteSpace, Node, NodeKind, Span, Tree};
use crate::util::window::Window;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use object::ReadRef;

/// The spaces of one member found again: `(space number in the first tree, its bytes)`.
pub type Recovered = Vec<(u32, Vec<u8>)>;

/// The bytes of `space` of `tree` (explored from `input` with `opts`, `companions` and, if the
/// user asked for one, the compressed bundle `asked` decompressed), and of every other space the
/// same package member opened, found by exploring that member again. Fails, saying why, when
/// `space` was not opened inside a member of the input's own package, or was not found again.
pub fn member_spaces_again<'a, R: ReadRef<'a>>(
    input: R,
    tree: &Tree,
    space: u32,
    opts: &Options,
    companions: &[Companion<'_>],
    asked: Option<Span>,
) -> Result<Recovered, String> {
    member_spaces_again_hooked(input, tree, space, opts, companions, asked, Hooks::default(), u64::MAX)
}

/// What a page keeps of a member explored again besides the space asked for: the next one
/// asked for (another kernel of the same library) is then likely held already.
pub const KEEP_AGAIN: u64 = 256 << 20;

/// [`member_spaces_again`], keeping the bytes of the space asked for and of others only up to
/// `room` bytes, the member's stored bytes read through `hooks.read_owned` and, when what is
/// asked for lies inside it rather than being its inflated bytes, inflated through
/// `hooks.spill` as the first exploration did: a page showing one image at a time holds that
/// image's bytes and a few more ([`KEEP_AGAIN`]), whatever the member. A caller that walks
/// every image of a member (`offload disasm`) keeps them all with [`member_spaces_again`].
#[allow(clippy::too_many_arguments)]
pub fn member_spaces_again_hooked<'a, R: ReadRef<'a>>(
    input: R,
    tree: &Tree,
    space: u32,
    opts: &Options,
    companions: &[Companion<'_>],
    asked: Option<Span>,
    hooks: Hooks<'_>,
    room: u64,
) -> Result<Recovered, String> {
    let input = Window::whole(&input);
    let len = input.len().map_err(|()| String::from("the input's size could not be read"))?;
    let origin = top_origin(&tree.spaces, space)
        .ok_or_else(|| format!("byte space {space} was not decompressed from the input itself"))?;
    let head = input.read_bytes_at(0, len.min(4096)).unwrap_or(&[]);
    let kind = package::detect(head).ok_or_else(|| format!("byte space {space} is not in a package member"))?;
    let whole = Span::new(0, 0, len);
    let wanted = tree.spaces.get(space as usize).ok_or_else(|| format!("there is no byte space {space}"))?;
    let sparing = Some(Sparing { wanted: (wanted.label.clone(), wanted.size), room });
    let opts = Options { keep_bytes: false, ..opts.clone() };
    if let Kind::Stream(_) = kind {
        // One compressed stream (a `.tar.gz`): what it holds is found again by decompressing it
        // again, whole.
        let set: Vec<usize> =
            (1..tree.spaces.len()).filter(|&s| top_origin(&tree.spaces, s as u32).is_some()).collect();
        let mut quiet = |_: u64, _: u64| {};
        let mut ex = explorer(&opts, 1, companions, asked.map(|bundle| Asked { bundle, progress: &mut quiet }));
        ex.sparing = sparing;
        ex.package(input, kind, whole, 0, 0);
        return matched(&tree.spaces, &set, &mut ex.spaces, 1);
    }
    let listing = listing_of(input, kind)?;
    let member = (listing.members.iter())
        .find(|m| m.data_offset <= origin.offset && origin.end() <= m.data_offset.saturating_add(m.stored_size))
        .ok_or_else(|| format!("no member of the package holds the bytes at {:#x}", origin.offset))?;
    let (from, to) = (member.data_offset, member.data_offset.saturating_add(member.stored_size));
    let in_member = |s: usize| top_origin(&tree.spaces, s as u32).is_some_and(|o| from <= o.offset && o.end() <= to);
    let set: Vec<usize> = (1..tree.spaces.len()).filter(|&s| in_member(s)).collect();
    let base = *set.first().ok_or_else(|| format!("byte space {space} is in no member"))?;

    // The member's inflated bytes themselves are asked for: they must come into memory.
    let inflated_asked = wanted.origin.is_some_and(|o| o.space == 0);
    let mut quiet = |_: u64, _: u64| {};
    let mut ex = explorer(&opts, base, companions, asked.map(|bundle| Asked { bundle, progress: &mut quiet }));
    ex.sparing = sparing;
    ex.read_owned = hooks.read_owned;
    ex.spill = hooks.spill.filter(|_| !inflated_asked);
    let mut node = Node::new(NodeKind::PackageMember, "", whole);
    if member.compression == Compression::Stored || member.compression == Compression::Deflate {
        ex.member(input, member, &mut node, whole, 1, 1);
    }
    matched(&tree.spaces, &set, &mut ex.spaces, base)
}

/// An explorer of its own, keeping bytes, whose spaces are numbered from `base`.
pub(super) fn explorer<'o, 'p, 'c>(
    opts: &'o Options,
    base: usize,
    companions: &'c [Companion<'c>],
    asked: Option<Asked<'p>>,
) -> Explorer<'o, 'p, 'c> {
    Explorer {
        opts,
        spaces: super::placeholder_spaces(base),
        nv_budget: nv_tree::Budget {
            limit: opts.max_decompressed,
            full_up_to: opts.full_decompress_up_to,
            remaining: nv_tree::LISTING_BUDGET,
            all: opts.verify_all,
        },
        package_budget: opts.max_package_decompressed,
        asked,
        companions,
        package_kpacks: Vec::new(),
        parallel: false,
        observer: None,
        read_owned: None,
        spill: None,
        found: None,
        given: None,
        sparing: None,
    }
}

/// Which spaces an exploration with its bytes dropped keeps all the same ([`release`]): the
/// one asked for, whatever its size, and others in the order they are explored while `room`
/// lasts.
pub(super) struct Sparing {
    /// The label and size of the space asked for.
    wanted: (String, u64),
    room: u64,
}

impl Sparing {
    fn spares(&mut self, space: &ByteSpace) -> bool {
        if space.label == self.wanted.0 && space.size == self.wanted.1 {
            return true;
        }
        if space.size <= self.room {
            self.room -= space.size;
            return true;
        }
        false
    }
}

/// Drops the bytes of `spaces`, but those `sparing` keeps.
pub(super) fn release(spaces: &mut [ByteSpace], sparing: &mut Option<Sparing>) {
    for space in spaces.iter_mut().filter(|s| s.data.is_some()) {
        if !sparing.as_mut().is_some_and(|k| k.spares(space)) {
            space.data = None;
        }
    }
}

/// The span of the input (space 0) that `space` was decompressed from, through every space
/// between.
fn top_origin(spaces: &[ByteSpace], space: u32) -> Option<Span> {
    let mut at = spaces.get(space as usize)?.origin?;
    // Each origin lies in an earlier space, so this ends; bounded all the same.
    for _ in 0..spaces.len() {
        if at.space == 0 {
            return Some(at);
        }
        at = spaces.get(at.space as usize)?.origin?;
    }
    None
}

/// The listing of a package of `kind`.
fn listing_of<'a>(input: Window<'_, 'a>, kind: Kind) -> Result<Listing, String> {
    let listing = match kind {
        Kind::Zip => zip::read(input),
        Kind::Tar => tar::read(input),
        Kind::Cpio => cpio::read(input),
        Kind::Deb => deb::read(input),
        Kind::Rpm => rpm::read(input),
        Kind::Stream(_) => return Err("the input is one compressed stream, not a package of members".into()),
    };
    listing.map_err(|e| e.to_string())
}

/// The bytes of each space of `first` in `set` (in order), taken from the space of `again` (the
/// second exploration's, numbered from `base`) that matches it.
fn matched(first: &[ByteSpace], set: &[usize], again: &mut [ByteSpace], base: usize) -> Result<Recovered, String> {
    // What each first-tree space became in the second exploration.
    let mut to_again: Vec<(usize, usize)> = Vec::new();
    let mut out = Recovered::new();
    let mut next = base;
    for &s in set {
        let want = &first[s];
        let origin_again = |o: Span| -> Option<Span> {
            if o.space == 0 {
                return Some(o);
            }
            let (_, a) = to_again.iter().find(|(f, _)| *f == o.space as usize)?;
            Some(Span { space: *a as u32, ..o })
        };
        let Some(want_origin) = want.origin.and_then(origin_again) else { continue };
        let found = (next..again.len()).find(|&a| {
            again[a].label == want.label && again[a].size == want.size && again[a].origin == Some(want_origin)
        });
        let Some(a) = found else {
            return Err(format!("byte space {s} ({}) was not found again in its member", want.label));
        };
        to_again.push((s, a));
        next = a + 1;
        if let Some(data) = again[a].data.take() {
            out.push((s as u32, data));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;

    /// Every space the package fixtures keep with their bytes is found again, byte for byte,
    /// from the tree explored with the bytes dropped.
    #[test]
    fn every_dropped_space_of_the_package_fixtures_is_found_again() {
        let mut found = 0;
        for (name, data) in crate::explore::package_fixtures() {
            let kept = explore(&data[..], &name, &Options::default());
            let dropped_opts = Options { keep_bytes: false, ..Options::default() };
            let dropped = explore(&data[..], &name, &dropped_opts);
            for (s, space) in kept.spaces.iter().enumerate().skip(1) {
                let Some(bytes) = &space.data else { continue };
                if top_origin(&kept.spaces, s as u32).is_none() {
                    continue;
                }
                let again = member_spaces_again(&data[..], &dropped, s as u32, &dropped_opts, &[], None);
                let again = again.unwrap_or_else(|e| panic!("{name}: space {s}: {e}"));
                let (_, got) = again.iter().find(|(n, _)| *n as usize == s).expect("the space asked for");
                assert_eq!(got, bytes, "{name}: space {s} ({})", space.label);
                found += 1;
            }
        }
        assert!(found >= 5, "only {found} spaces found again");
    }

    /// With no room besides it, exploring a member again keeps the space asked for alone, byte
    /// for byte; with room, its neighbours too.
    #[test]
    fn only_the_space_asked_for_is_kept_when_there_is_no_room() {
        let mut checked = 0;
        for (name, data) in crate::explore::package_fixtures() {
            let opts = Options { keep_bytes: false, ..Options::default() };
            let kept = explore(&data[..], &name, &Options::default());
            let dropped = explore(&data[..], &name, &opts);
            for (s, space) in kept.spaces.iter().enumerate().skip(1) {
                let Some(bytes) = &space.data else { continue };
                if top_origin(&kept.spaces, s as u32).is_none() {
                    continue;
                }
                let again =
                    member_spaces_again_hooked(&data[..], &dropped, s as u32, &opts, &[], None, Hooks::default(), 0);
                let again = again.unwrap_or_else(|e| panic!("{name}: space {s}: {e}"));
                assert!(again.iter().any(|(n, got)| *n as usize == s && got == bytes), "{name}: space {s}");
                let others = again.iter().filter(|(n, _)| *n as usize != s);
                // Only spaces of the same label and size as the one asked for (identical images).
                assert!(others.clone().all(|(n, _)| dropped.spaces[*n as usize].label == space.label), "{name}: {s}");
                checked += 1;
            }
        }
        assert!(checked >= 5, "only {checked} spaces checked");
    }

    #[test]
    fn a_space_of_a_file_that_is_no_package_is_refused_with_a_reason() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hip_elf_2arch_compressed.hipfb");
        let data = std::fs::read(path).unwrap();
        let opts = Options { keep_bytes: false, verify_all: true, ..Options::default() };
        let tree = explore(&data[..], "f", &opts);
        assert!(tree.spaces.len() > 1);
        let err = member_spaces_again(&data[..], &tree, 1, &opts, &[], None).unwrap_err();
        assert!(err.contains("not in a package member"), "{err}");
        assert!(member_spaces_again(&data[..], &tree, 99, &opts, &[], None).is_err());
    }
}
