//! A zip explored as it arrives front to back (a download from a host that serves no ranges),
//! before its central directory, which comes last, is there: each member is explored from
//! what its local header says as soon as its stored bytes are in ([`explore_early`]), and once
//! the central directory has arrived, the listing it gives keeps the early results it
//! confirms ([`confirmed`]) and names the members still to explore (a member whose local header
//! left its sizes to a data descriptor, one placed or sized otherwise than its header said).
//! Each member is explored with the whole package budget of its own; [`in_order`] keeps the
//! results one explorer going through the members in order would give the same (the others
//! are explored again, in their turn). Merged with [`super::shares::explore_merged`], the tree
//! is exactly the one the whole file gives.
//!
//! Rules, as for share workers ([`super::shares`]): members are explored apart only when the
//! tree cannot depend on the order they are explored in: every image decoded
//! (`verify_all`), no `.kpack` archive among the members, and the members' declared sizes
//! within what the package may decompress ([`rules_hold`], checked again on the listing).
//!
//! An early member is explored in an explorer of its own, its byte spaces numbered after the
//! file's (base 1, as a share worker's); only the children and diagnostics exploring adds to
//! its node are kept, put on the node the listing makes (which has the central directory's
//! fields).

use super::shares::{self, ShareMember};
use super::{Hooks, MemberExplored, Options};
use crate::format::package::{self, zip::LocalEntry, Listing, Member};
use crate::tree::Span;
use alloc::vec::Vec;
use object::ReadRef;

/// A member explored from its local header alone.
#[derive(Clone, Debug)]
pub struct Early {
    /// What its local header said.
    pub entry: LocalEntry,
    /// What exploring it found, its node as the local header lists it.
    explored: MemberExplored,
    /// How many fields, children and diagnostics its node had before it was explored.
    listed: (usize, usize, usize),
}

/// Whether members may be explored before the listing is known, on these options: only when
/// every image is decoded (a listing's budget is spent member after member, in member order).
pub fn early_allowed(opts: &Options) -> bool {
    opts.verify_all
}

/// The member `entry` announces, when it is one to explore early: its sizes in its header,
/// readable, explored by the explorer's rule ([`Member::is_explored`]), and not a `.kpack`
/// archive (those are companions of the other members, read before any).
pub fn worth_early(entry: &LocalEntry, opts: &Options) -> Option<Member> {
    let m = entry.member()?;
    (early_allowed(opts)
        && m.is_explored(opts.skip_by_name)
        && !m.name.ends_with(".kpack")
        && m.size <= opts.max_package_decompressed)
        .then_some(m)
}

/// Explores the member `entry` announces, the zip's bytes being `input` (at least up to the
/// member's data end); `None` when it is not one to explore early ([`worth_early`]).
pub fn explore_early<'a, R: ReadRef<'a>>(
    input: R,
    opts: &Options,
    entry: LocalEntry,
    hooks: Hooks<'_>,
) -> Option<Early> {
    let m = worth_early(&entry, opts)?;
    let whole = Span::new(0, 0, input.len().ok()?);
    let one = ShareMember::of(0, &m, whole);
    let listed = (one.node.fields.len(), one.node.children.len(), one.node.diagnostics.len());
    let share = shares::explore_share(input, opts, &[], &[one], hooks);
    let explored = share.members.into_iter().next()?;
    Some(Early { entry, explored, listed })
}

/// Whether the members of the zip `listing` lists may be explored apart on `opts` (see the
/// module's rules).
pub fn rules_hold(listing: &Listing, opts: &Options) -> bool {
    let declared = listing.members.iter().fold(0u64, |sum, m| sum.saturating_add(m.size));
    early_allowed(opts)
        && !listing.members.iter().any(|m| m.name.ends_with(".kpack"))
        && declared <= opts.max_package_decompressed
}

/// What the central directory confirms of the members explored early.
pub struct Confirmed {
    /// Members explored early whose local header the listing agrees with, in member order,
    /// as [`shares::explore_merged`] takes them (base 1).
    pub explored: Vec<MemberExplored>,
    /// The members the explorer explores that are still to explore (with
    /// [`shares::explore_share`]), in member order.
    pub rest: Vec<ShareMember>,
}

/// The early results the listing of the whole zip (lying at `whole`) confirms: a member's
/// header at the same offset, with the same name, data offset, sizes and compression, and
/// explored by the explorer's rule. `None` when the rules do not hold ([`rules_hold`]): the
/// file is then explored as a whole.
pub fn confirmed(listing: &Listing, whole: Span, opts: &Options, early: Vec<Early>) -> Option<Confirmed> {
    if !rules_hold(listing, opts) {
        return None;
    }
    let mut by_header: Vec<(u64, Option<Early>)> = early.into_iter().map(|e| (e.entry.header.0, Some(e))).collect();
    by_header.sort_by_key(|(at, _)| *at);
    let mut explored = Vec::new();
    let mut rest = Vec::new();
    for (i, m) in listing.members.iter().enumerate() {
        if !m.is_explored(opts.skip_by_name) {
            continue;
        }
        let found = match by_header.binary_search_by_key(&m.header.0, |(at, _)| *at) {
            Ok(k) => by_header[k].1.take_if(|e| agrees(m, &e.entry)),
            Err(_) => None,
        };
        match found {
            Some(early) => explored.push(on_listed_node(i, m, whole, early.explored, early.listed)),
            None => rest.push(ShareMember::of(i, m, whole)),
        }
    }
    Some(Confirmed { explored, rest })
}

/// Of `explored`, members explored apart, each with the whole package budget of its own (early,
/// or on threads after), those one explorer going through the members in order would explore
/// the same, in member order; the others are left to it ([`shares::explore_merged`] explores a
/// member none was given for in its turn). A member is kept when what the members before it
/// used is known and leaves it room for what it used, and, unless they used nothing, when no
/// message in it depends on the budget left (a failed or refused decompression names it).
/// `explored` is to hold every member the explorer explores.
pub fn in_order(opts: &Options, mut explored: Vec<MemberExplored>) -> Vec<MemberExplored> {
    explored.sort_by_key(|m| m.index);
    let mut spent = Some(0u64);
    explored
        .into_iter()
        .filter(|m| {
            let fits =
                spent.and_then(|s| s.checked_add(m.used)).filter(|&total| total <= opts.max_package_decompressed);
            let keep = fits.is_some() && (spent == Some(0) || !names_the_budget(&m.node));
            spent = if keep { fits } else { None };
            keep
        })
        .collect()
}

/// Whether a message in `node` or below depends on the package budget left.
fn names_the_budget(node: &crate::tree::Node) -> bool {
    node.diagnostics.iter().any(|d| d.message.contains(super::packages::PACKAGE_LIMIT))
        || node.children.iter().any(names_the_budget)
}

/// Whether the central directory's member `m` is the one the local header `entry` announced.
fn agrees(m: &Member, entry: &LocalEntry) -> bool {
    let Some(local) = entry.member() else { return false };
    m.name == local.name
        && m.data_offset == local.data_offset
        && m.stored_size == local.stored_size
        && m.size == local.size
        && m.compression == local.compression
}

/// An early result moved onto the node the listing makes for member `i`: what exploring added
/// to the early node (fields, children and diagnostics after the `listed` first ones) follows
/// what the listing puts there.
fn on_listed_node(
    i: usize,
    m: &Member,
    whole: Span,
    early: MemberExplored,
    listed: (usize, usize, usize),
) -> MemberExplored {
    let mut node = package::member_node(m, whole);
    let mut found = early.node;
    node.fields.extend(found.fields.drain(listed.0.min(found.fields.len())..));
    node.children.extend(found.children.drain(listed.1.min(found.children.len())..));
    node.diagnostics.extend(found.diagnostics.drain(listed.2.min(found.diagnostics.len())..));
    MemberExplored { index: i, node, spaces: early.spaces, used: early.used }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::shares::Share;
    use crate::explore::{explore, package_fixtures};
    use crate::format::package::zip::{self, LocalRead};

    /// Where two trees first differ, said briefly (a whole tree is too long to read in a
    /// failure).
    fn difference(a: &crate::tree::Tree, b: &crate::tree::Tree) -> Option<alloc::string::String> {
        use crate::tree::Node;
        fn nodes(a: &Node, b: &Node, path: &str) -> Option<alloc::string::String> {
            let here = alloc::format!("{path}/{}", a.label);
            if (a.kind, &a.label, a.span, &a.fields, &a.diagnostics)
                != (b.kind, &b.label, b.span, &b.fields, &b.diagnostics)
            {
                return Some(alloc::format!(
                    "{here}: {:?} {:?} vs {:?} {:?}",
                    a.fields,
                    a.diagnostics,
                    b.fields,
                    b.diagnostics
                ));
            }
            if a.children.len() != b.children.len() {
                return Some(alloc::format!("{here}: {} children vs {}", a.children.len(), b.children.len()));
            }
            a.children.iter().zip(&b.children).find_map(|(x, y)| nodes(x, y, &here))
        }
        let spaces = |t: &crate::tree::Tree| {
            t.spaces.iter().map(|s| (s.label.clone(), s.size, s.origin, s.data.is_some())).collect::<Vec<_>>()
        };
        if spaces(a) != spaces(b) {
            return Some(alloc::format!("spaces {:?} vs {:?}", spaces(a), spaces(b)));
        }
        nodes(&a.root, &b.root, "")
    }

    /// The local headers of `data` walked front to back, as a reader of a download walks
    /// them: each entry whose sizes its header gives, up to the first that leaves them to a
    /// data descriptor.
    fn walked(data: &[u8]) -> Vec<LocalEntry> {
        let mut at = 0u64;
        let mut out = Vec::new();
        while let Ok(LocalRead::Entry(entry)) = zip::local_entry(&data[at as usize..], at) {
            let Some((end, (stored, _))) = entry.data_end().zip(entry.sizes) else { break };
            let descriptor = match entry.has_descriptor() {
                true => zip::read_descriptor(&data[end as usize..], stored).map_or(0, |(_, length)| length),
                false => 0,
            };
            out.push(entry);
            at = end + descriptor;
        }
        out
    }

    /// Every zip fixture, its members explored early each from the bytes up to its data end
    /// alone, then confirmed by the listing and merged, gives the tree the whole file gives,
    /// with bytes kept and dropped; nothing is left to explore after.
    #[test]
    fn members_explored_as_they_arrive_give_the_tree_of_the_whole_file() {
        let mut seen = 0;
        for (name, data) in package_fixtures() {
            if !data.starts_with(zip::LOCAL_MAGIC) {
                continue;
            }
            for keep_bytes in [true, false] {
                let opts = Options { verify_all: true, keep_bytes, max_threads: 1, ..Options::default() };
                let early: Vec<Early> = walked(&data)
                    .into_iter()
                    .filter_map(|entry| {
                        let end = entry.data_end()? as usize;
                        explore_early(&data[..end], &opts, entry, Hooks::default())
                    })
                    .collect();
                assert!(!early.is_empty(), "{name}: no member explored early");
                let listing = zip::read(&data[..]).unwrap();
                let whole = Span::new(0, 0, data.len() as u64);
                let confirmed = confirmed(&listing, whole, &opts, early).expect("the rules hold");
                assert!(confirmed.rest.is_empty(), "{name}: {} members left", confirmed.rest.len());
                let shares = alloc::vec![Share { base: 1, members: in_order(&opts, confirmed.explored) }];
                let merged = shares::explore_merged(&data[..], &name, &opts, &[], listing, shares, Hooks::default());
                let whole_file = explore(&data[..], &name, &opts);
                assert_eq!(difference(&merged, &whole_file), None, "{name}, keep_bytes {keep_bytes}");
                assert_eq!(merged, whole_file, "{name}, keep_bytes {keep_bytes}");
                seen += 1;
            }
        }
        assert!(seen >= 4, "only {seen} zip fixtures");
    }

    /// An early result the central directory does not confirm (its header said other sizes)
    /// is left out, and its member is explored from the listing: the tree is the same.
    #[test]
    fn a_member_the_directory_places_otherwise_is_explored_again() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        let opts = Options { verify_all: true, keep_bytes: false, max_threads: 1, ..Options::default() };
        let mut early: Vec<Early> = walked(&data)
            .into_iter()
            .filter_map(|entry| explore_early(&data[..entry.data_end()? as usize], &opts, entry, Hooks::default()))
            .collect();
        let changed = &mut early[0].entry;
        changed.sizes = changed.sizes.map(|(stored, size)| (stored, size + 1));
        let listing = zip::read(&data[..]).unwrap();
        let whole = Span::new(0, 0, data.len() as u64);
        let confirmed = confirmed(&listing, whole, &opts, early).unwrap();
        assert_eq!(confirmed.rest.len(), 1);
        let mut members = confirmed.explored;
        for one in &confirmed.rest {
            let share = shares::explore_share(&data[..], &opts, &[], core::slice::from_ref(one), Hooks::default());
            members.extend(share.members);
        }
        let shares = alloc::vec![Share { base: 1, members: in_order(&opts, members) }];
        let merged = shares::explore_merged(&data[..], "w.whl", &opts, &[], listing, shares, Hooks::default());
        assert_eq!(merged, explore(&data[..], "w.whl", &opts));
    }

    /// Members explored with budgets of their own are kept where one explorer going in order
    /// would explore them the same: not once a member before used something and this one's
    /// messages name the budget left, nor once what they used together passes the limit, nor
    /// after a member left to explore again (what it uses is not known).
    #[test]
    fn members_whose_budget_would_differ_are_left_to_explore_in_order() {
        use crate::tree::{Node, NodeKind, Severity};
        let member = |index: usize, used: u64, budget_named: bool| {
            let mut node = Node::new(NodeKind::PackageMember, "m", Span::default());
            if budget_named {
                let message = alloc::format!(
                    "decompression failed (limits: {}: 5 bytes left)",
                    super::super::packages::PACKAGE_LIMIT
                );
                let mut stream = Node::new(NodeKind::CompressedPayload, "s", Span::default());
                stream.diag(Severity::Error, message, None);
                node.children.push(stream);
            }
            MemberExplored { index, node, spaces: Vec::new(), used }
        };
        let opts = Options { max_package_decompressed: 100, ..Options::default() };
        let kept = |all: Vec<MemberExplored>| in_order(&opts, all).iter().map(|m| m.index).collect::<Vec<_>>();
        assert_eq!(kept(alloc::vec![member(1, 0, true), member(0, 0, false)]), [0, 1], "nothing used before");
        assert_eq!(kept(alloc::vec![member(0, 10, false), member(1, 0, true), member(2, 5, false)]), [0]);
        assert_eq!(kept(alloc::vec![member(0, 10, false), member(1, 5, false), member(2, 0, true)]), [0, 1]);
        assert_eq!(kept(alloc::vec![member(0, 60, false), member(1, 60, false), member(2, 0, false)]), [0]);
    }

    /// Listing only (no `verify_all`): nothing is explored early, and no listing is confirmed.
    #[test]
    fn a_listing_waits_for_the_directory() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        let opts = Options::default();
        let entries = walked(&data);
        assert!(entries.iter().all(|e| worth_early(e, &opts).is_none()));
        let listing = zip::read(&data[..]).unwrap();
        assert!(confirmed(&listing, Span::new(0, 0, data.len() as u64), &opts, Vec::new()).is_none());
    }
}
