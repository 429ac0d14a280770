//! A package's members explored by workers that share no memory (the page's Web Workers, each
//! holding the file): the members are split into shares ([`plan`]), each worker explores its
//! share ([`explore_share`]) and sends back what it found, and one of them puts the shares
//! together ([`explore_merged`]) into exactly the tree one worker alone would have made.
//!
//! Rules, as for threads ([`super::parallel`]): shares are made only when the result cannot
//! depend on the order members are explored in: every image decoded (`verify_all`, so no
//! listing budget is spent member after member), no `.kpack` archive among the members (they
//! are companions of the others), and the members' declared sizes within what the package may
//! decompress. Each member opens its byte spaces numbered from where the package's own end
//! (placeholders stand for those); the merge puts them back in member order, so spaces are
//! numbered as one worker numbers them.
//!
//! Only the input's own package is shared, when the input is one (a wheel or zip, a tar):
//! members of a compressed stream (`.tar.gz`) are not in the input's bytes.

use super::{move_spans, Companion, Explorer, Hooks, Options, Progress};
use crate::format::package::{self, Kind, Listing, Member};
use crate::tree::{ByteSpace, Node, Span, Tree};
use crate::util::window::Window;
use alloc::vec::Vec;
use object::ReadRef;

/// What exploring one member gave: its node, the byte spaces it opened (numbered from the
/// share's `base`), and the bytes it decompressed against the package's budget.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MemberExplored {
    pub index: usize,
    pub node: Node,
    pub spaces: Vec<ByteSpace>,
    pub used: u64,
}

/// What a worker found in its share of the members.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Share {
    /// How many byte spaces precede the package's members (their spaces are numbered after).
    pub base: usize,
    /// In member order.
    pub members: Vec<MemberExplored>,
}

/// How a package's members are split among workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Member indices per worker, each in member order (so that each worker reads the file
    /// forwards); together they are every member worth exploring.
    pub shares: Vec<Vec<usize>>,
    /// Members to explore and their stored bytes, in all.
    pub members: usize,
    pub bytes: u64,
}

/// How the members of the input's own package are split among `workers`, by stored size,
/// largest first, each to the worker with the fewest bytes so far; `None` when the input is
/// not such a package or its members must be explored in order (see the module's rules).
pub fn plan<'a, R: ReadRef<'a>>(input: R, opts: &Options, workers: usize) -> Option<Plan> {
    let input = Window::whole(&input);
    let listing = own_listing(input)?;
    let declared = listing.members.iter().fold(0u64, |sum, m| sum.saturating_add(m.size));
    let kpacks = listing.members.iter().any(|m| m.name.ends_with(".kpack"));
    if !opts.verify_all || kpacks || declared > opts.max_package_decompressed || workers < 2 {
        return None;
    }
    let explorable = explorable(&listing.members);
    let mut by_size = explorable.clone();
    by_size.sort_by_key(|&i| core::cmp::Reverse(listing.members[i].stored_size));
    let mut shares: Vec<(u64, Vec<usize>)> = (0..workers).map(|_| (0, Vec::new())).collect();
    for i in by_size {
        let lightest = (0..workers).min_by_key(|&w| shares[w].0).unwrap_or(0);
        shares[lightest].0 = shares[lightest].0.saturating_add(listing.members[i].stored_size);
        shares[lightest].1.push(i);
    }
    let bytes = explorable.iter().fold(0u64, |sum, &i| sum.saturating_add(listing.members[i].stored_size));
    let shares = shares
        .into_iter()
        .map(|(_, mut share)| {
            share.sort_unstable();
            share
        })
        .collect();
    Some(Plan { shares, members: explorable.len(), bytes })
}

/// Explores the members `share` (indices into the package's members, as [`plan`] gave them) of
/// the input's own package, each alone; `hooks.observer` hears each one, counted over the share.
pub fn explore_share<'a, R: ReadRef<'a>>(
    input: R,
    opts: &Options,
    companions: &[Companion<'_>],
    share: &[usize],
    hooks: Hooks<'_>,
) -> Share {
    let input = Window::whole(&input);
    let Some(listing) = own_listing(input) else { return Share::default() };
    let len = input.len().unwrap_or(0);
    let whole = Span::new(0, 0, len);
    let skeleton = package::to_node(&listing, whole);
    let base = 1;
    let mut observer = hooks.observer;
    let mut progress = Progress {
        members_done: 0,
        members: share.len(),
        bytes_done: 0,
        bytes: share.iter().filter_map(|&i| listing.members.get(i)).fold(0, |s, m| s.saturating_add(m.stored_size)),
    };
    let mut members = Vec::with_capacity(share.len());
    for &index in share {
        let (Some(m), Some(node)) = (listing.members.get(index), skeleton.children.get(index)) else { continue };
        let mut sub = member_explorer(opts, base, companions, hooks.read_owned);
        let mut node = node.clone();
        sub.member(input, m, &mut node, whole, 1, 1);
        let used = opts.max_package_decompressed - sub.package_budget;
        sub.spaces.drain(..base);
        if let Some(observer) = observer.as_mut() {
            progress.members_done += 1;
            progress.bytes_done = progress.bytes_done.saturating_add(m.stored_size);
            observer(&progress, &node);
        }
        members.push(MemberExplored { index, node, spaces: sub.spaces, used });
    }
    Share { base, members }
}

/// Explores the input as [`super::explore_with_companions`] does, its own package's members
/// taken from `shares` (what [`explore_share`] gave for each share of one [`plan`]) rather than
/// explored again: the same tree, byte spaces and all. A member no share holds is explored here.
pub fn explore_merged<'a, R: ReadRef<'a>>(
    input: R,
    name: &str,
    opts: &Options,
    companions: &[Companion<'_>],
    shares: Vec<Share>,
    hooks: Hooks<'_>,
) -> Tree {
    let mut given: Vec<(usize, MemberExplored)> =
        shares.into_iter().flat_map(|s| s.members.into_iter().map(move |m| (s.base, m))).collect();
    given.sort_by_key(|(_, m)| m.index);
    super::explore_given(Window::whole(&input), name, opts, companions, hooks, given)
}

impl Explorer<'_, '_, '_> {
    /// Puts the members `given` (their share's base and what was found) into the package's
    /// `children`, in member order; members of `explorable` none was given for are explored
    /// here, in their turn.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn members_given<'a>(
        &mut self,
        given: Vec<(usize, MemberExplored)>,
        input: Window<'_, 'a>,
        members: &[Member],
        explorable: &[usize],
        children: &mut [Node],
        span: Span,
        depth: u32,
        level: u32,
    ) {
        let mut given = given.into_iter().peekable();
        let mut progress = self.progress_of(members, explorable, level);
        for &i in explorable {
            while given.next_if(|(_, m)| m.index < i).is_some() {}
            match given.next_if(|(_, m)| m.index == i) {
                Some((base, found)) => self.put_back(found, base, children),
                None => self.member(input, &members[i], &mut children[i], span, depth + 1, level + 1),
            }
            self.member_explored(progress.as_mut(), &members[i], &children[i]);
        }
    }

    /// Puts one member's exploration back: its spaces are appended to this explorer's, and
    /// every span in them (numbered from `base` where it was explored) moves to where they now
    /// are.
    pub(super) fn put_back(&mut self, mut found: MemberExplored, base: usize, children: &mut [Node]) {
        let Some(child) = children.get_mut(found.index) else { return };
        let shift = self.spaces.len() as i64 - base as i64;
        let base = base as u32;
        let place = |s: &mut Span| {
            if s.space >= base {
                s.space = (i64::from(s.space) + shift) as u32;
            }
        };
        move_spans(&mut found.node, &place);
        found.spaces.iter_mut().filter_map(|b| b.origin.as_mut()).for_each(place);
        self.spaces.append(&mut found.spaces);
        self.package_budget = self.package_budget.saturating_sub(found.used);
        *child = found.node;
    }
}

/// An explorer of one member alone, its spaces numbered from `base`.
fn member_explorer<'o, 'p, 'c>(
    opts: &'o Options,
    base: usize,
    companions: &'c [Companion<'c>],
    read_owned: Option<super::ReadOwned<'p>>,
) -> Explorer<'o, 'p, 'c> {
    let mut ex = super::again::explorer(opts, base, companions, None);
    ex.read_owned = read_owned;
    ex
}

/// The listing of the input's own package when it is one whose members lie in the input.
fn own_listing(input: Window<'_, '_>) -> Option<Listing> {
    let len = input.len().ok()?;
    let head = input.read_bytes_at(0, len.min(4096)).ok()?;
    match package::detect(head)? {
        Kind::Zip => package::zip::read(input).ok(),
        Kind::Tar => package::tar::read(input).ok(),
        _ => None,
    }
}

/// The members explored: files, readable, with bytes (as [`Explorer::package`] picks them).
fn explorable(members: &[Member]) -> Vec<usize> {
    (members.iter().enumerate()).filter(|(_, m)| m.is_explorable() && m.stored_size > 0).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{explore, package_fixtures};

    /// Every package fixture, split between 2 and 3 workers and merged, gives the tree one
    /// worker gives, byte spaces and all, with bytes kept and dropped.
    #[test]
    fn shares_merged_give_the_tree_of_one_worker() {
        let mut shared = 0;
        for (name, data) in package_fixtures() {
            for keep_bytes in [true, false] {
                let opts = Options { verify_all: true, keep_bytes, max_threads: 1, ..Options::default() };
                let one = explore(&data[..], &name, &opts);
                for workers in [2, 3] {
                    let Some(plan) = plan(&data[..], &opts, workers) else { continue };
                    assert_eq!(plan.shares.len(), workers);
                    let shares = (plan.shares.iter())
                        .map(|s| explore_share(&data[..], &opts, &[], s, Hooks::default()))
                        .collect();
                    let merged = explore_merged(&data[..], &name, &opts, &[], shares, Hooks::default());
                    assert_eq!(merged, one, "{name}, {workers} workers, keep_bytes {keep_bytes}");
                    shared += 1;
                }
            }
        }
        assert!(shared >= 8, "only {shared} package fixtures were shared");
    }

    /// Shares split members by stored size, largest first, to the lightest worker; each share
    /// is in member order, and together they are every explorable member once.
    #[test]
    fn shares_balance_stored_bytes() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        let opts = Options { verify_all: true, ..Options::default() };
        let plan = plan(&data[..], &opts, 2).expect("a wheel is shared");
        let listing = package::zip::read(&data[..]).unwrap();
        let mut all: Vec<usize> = plan.shares.concat();
        all.sort_unstable();
        assert_eq!(all, explorable(&listing.members));
        assert!(plan.shares.iter().all(|s| s.windows(2).all(|w| w[0] < w[1])));
        let biggest = *explorable(&listing.members).iter().max_by_key(|&&i| listing.members[i].stored_size).unwrap();
        assert!(plan.shares[0].contains(&biggest), "the largest member goes first, to the first worker");
        // Listing only (no verify_all): members are explored in order, by one worker.
        assert_eq!(super::plan(&data[..], &Options::default(), 2), None);
    }
}
