//! A package's members explored by workers that share no memory (the page's Web Workers, each
//! holding the file): the members are split into shares ([`plan`]), each worker explores its
//! share ([`explore_share`]) and sends back what it found, and one of them puts the shares
//! together ([`explore_merged`]) into exactly the tree one worker alone would have made.
//!
//! Rules, as for threads ([`super::parallel`]): shares are made only when the result cannot
//! depend on the order members are explored in: every image decoded (`verify_all`, so no
//! listing budget is spent member after member), no `.kpack` archive among the members (they
//! are companions of the others), and the members' declared sizes within what the package may
//! decompress, and the members besides the largest enough to be worth a worker of their own
//! ([`SHARE_REST_OVER`]). Each member opens its byte spaces numbered from where the package's own end
//! (placeholders stand for those); the merge puts them back in member order, so spaces are
//! numbered as one worker numbers them.
//!
//! Only the input's own package is shared, when the input is one (a wheel or zip, a tar):
//! members of a compressed stream (`.tar.gz`) are not in the input's bytes.

pub use super::MemberExplored;
use super::{move_spans, Companion, Explorer, Given, Hooks, Options, Progress};
use crate::format::package::{self, Compression, EntryKind, Kind, Listing, Member};
use crate::tree::{Node, Span, Tree};
use crate::util::window::Window;
use alloc::string::String;
use alloc::vec::Vec;
use object::ReadRef;

/// What a worker found in its share of the members.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Share {
    /// How many byte spaces precede the package's members (their spaces are numbered after).
    pub base: usize,
    /// In member order.
    pub members: Vec<MemberExplored>,
}

/// One member a share worker explores: what exploring it needs, so that the worker does not
/// list the package again (a wheel's local headers are scattered over the whole file), and its
/// node as listed.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ShareMember {
    /// Its place among the package's members.
    pub index: usize,
    pub name: String,
    pub data_offset: u64,
    pub stored_size: u64,
    /// Its size once decompressed, as the package declares it.
    pub size: u64,
    pub compression: Compression,
    pub node: Node,
}

impl ShareMember {
    pub(super) fn of(index: usize, m: &Member, package: Span) -> ShareMember {
        ShareMember {
            index,
            name: m.name.clone(),
            data_offset: m.data_offset,
            stored_size: m.stored_size,
            size: m.size,
            compression: m.compression,
            node: package::member_node(m, package),
        }
    }

    /// The member, as exploring it reads it.
    fn member(&self) -> Member {
        let mut m = Member::new(self.name.clone(), EntryKind::File, (0, 0), self.data_offset, self.size);
        m.stored_size = self.stored_size;
        m.compression = self.compression;
        m
    }
}

/// How a package's members are split among workers.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The members of each worker, each share in the order it explores them
    /// ([`exploring_order`]); together they are every member worth exploring.
    pub shares: Vec<Vec<ShareMember>>,
    /// Members to explore and their stored bytes, in all.
    pub members: usize,
    pub bytes: u64,
    /// The package's listing, for [`explore_merged`].
    pub listing: Listing,
}

/// How the members of the input's own package are split among `workers`, by stored size,
/// largest first, each to the worker with the fewest bytes so far; `None` when the input is
/// not such a package or its members must be explored in order (see the module's rules).
pub fn plan<'a, R: ReadRef<'a>>(input: R, opts: &Options, workers: usize) -> Option<Plan> {
    let input = Window::whole(&input);
    let listing = own_listing(input, opts.skip_by_name)?;
    let declared = listing.members.iter().fold(0u64, |sum, m| sum.saturating_add(m.size));
    let kpacks = listing.members.iter().any(|m| m.name.ends_with(".kpack"));
    if !opts.verify_all || kpacks || declared > opts.max_package_decompressed || workers < 2 {
        return None;
    }
    let explorable = explorable(&listing.members, opts.skip_by_name);
    if !worth_sharing(&listing.members, &explorable) {
        return None;
    }
    let mut by_size = explorable.clone();
    by_size.sort_by_key(|&i| core::cmp::Reverse(listing.members[i].stored_size));
    let mut shares: Vec<(u64, Vec<usize>)> = (0..workers).map(|_| (0, Vec::new())).collect();
    for i in by_size {
        let lightest = (0..workers).min_by_key(|&w| shares[w].0).unwrap_or(0);
        shares[lightest].0 = shares[lightest].0.saturating_add(listing.members[i].stored_size);
        shares[lightest].1.push(i);
    }
    let bytes = explorable.iter().fold(0u64, |sum, &i| sum.saturating_add(listing.members[i].stored_size));
    let whole = Span::new(0, 0, input.len().ok()?);
    let shares = shares
        .into_iter()
        .map(|(_, mut share)| {
            share.sort_unstable_by_key(|&i| exploring_order(&listing.members, i));
            share.into_iter().map(|i| ShareMember::of(i, &listing.members[i], whole)).collect()
        })
        .collect();
    Some(Plan { shares, members: explorable.len(), bytes, listing })
}

/// The member [`plan`] would give a share of its own, found from a zip's central directory and
/// that member's local header alone, so that its worker starts before the listing has read
/// every local header (TensorFlow's wheel: 25,467 of them, 0.75 s on the page, while its one
/// 402 MiB library alone takes longer than all the rest). `Some` only when its stored bytes
/// outweigh all the others' together and the rest of the plan's rules hold for the central
/// directory's listing: then the plan's first share is this member alone, unless the local
/// headers say otherwise, which the caller checks by comparing it with that share.
pub fn dominant<'a, R: ReadRef<'a>>(input: R, opts: &Options, workers: usize) -> Option<ShareMember> {
    let input = Window::whole(&input);
    let len = input.len().ok()?;
    let head = input.read_bytes_at(0, len.min(4096)).ok()?;
    if package::detect(head)? != Kind::Zip {
        return None;
    }
    let (mut members, cd_start) = package::zip::central_members(input).ok()?;
    let declared = members.iter().fold(0u64, |sum, m| sum.saturating_add(m.size));
    let kpacks = members.iter().any(|m| m.name.ends_with(".kpack"));
    if !opts.verify_all || kpacks || declared > opts.max_package_decompressed || workers < 2 {
        return None;
    }
    let explorable = explorable(&members, opts.skip_by_name);
    if !worth_sharing(&members, &explorable) {
        return None;
    }
    let stored = |i: &usize| members[*i].stored_size;
    // The first of the largest, as `plan`'s stable sort puts it first.
    let largest = explorable.iter().copied().reduce(|a, b| if stored(&b) > stored(&a) { b } else { a })?;
    let rest = explorable.iter().filter(|&&i| i != largest).map(stored).fold(0u64, u64::saturating_add);
    // Strictly more: every other worker is then lighter than the first at every step of `plan`.
    if stored(&largest) <= rest {
        return None;
    }
    package::zip::place_by_local_header(input, &mut members[largest], cd_start);
    let whole = Span::new(0, 0, len);
    Some(ShareMember::of(largest, &members[largest], whole))
}

/// Stored bytes below which members are explored in member order, before the others: they
/// share the blocks the file is read in.
const SMALL_MEMBER: u64 = 1 << 20;

/// Where member `i` comes in its share: small members first, in member order (neighbours are
/// read in one block), then the others smallest first, so that a share's first targets come
/// from its smallest library, not after its largest (a wheel's 400 MiB library took 12 s).
fn exploring_order(members: &[Member], i: usize) -> (bool, u64, usize) {
    let stored = members[i].stored_size;
    if stored < SMALL_MEMBER {
        (false, 0, i)
    } else {
        (true, stored, i)
    }
}

/// Explores the members `share` (one share of a [`plan`]) of the input's own package, each
/// alone; `hooks.observer` hears each one, counted over the share, and `hooks.found` each bundle
/// in them as it is described.
pub fn explore_share<'a, R: ReadRef<'a>>(
    input: R,
    opts: &Options,
    companions: &[Companion<'_>],
    share: &[ShareMember],
    hooks: Hooks<'_>,
) -> Share {
    let input = Window::whole(&input);
    let whole = Span::new(0, 0, input.len().unwrap_or(0));
    let base = 1;
    let mut observer = hooks.observer;
    let mut found = hooks.found;
    let mut progress = Progress {
        members_done: 0,
        members: share.len(),
        bytes_done: 0,
        bytes: share.iter().fold(0, |s, m| s.saturating_add(m.stored_size)),
    };
    let mut members = Vec::with_capacity(share.len());
    for one in share {
        let mut sub = member_explorer(opts, base, companions, hooks.read_owned, hooks.spill);
        sub.found = found.take();
        let mut node = one.node.clone();
        sub.member(input, &one.member(), &mut node, whole, 1, 1);
        found = sub.found.take();
        let used = opts.max_package_decompressed - sub.package_budget;
        sub.spaces.drain(..base);
        if let Some(observer) = observer.as_mut() {
            progress.members_done += 1;
            progress.bytes_done = progress.bytes_done.saturating_add(one.stored_size);
            observer(&progress, &node);
        }
        members.push(MemberExplored { index: one.index, node, spaces: sub.spaces, used });
    }
    Share { base, members }
}

/// Explores the input as [`super::explore_with_companions`] does, its own package's members
/// taken from `shares` (what [`explore_share`] gave for each share of one [`plan`], whose
/// `listing` is the package's) rather than explored again: the same tree, byte spaces and all.
/// A member no share holds is explored here.
pub fn explore_merged<'a, R: ReadRef<'a>>(
    input: R,
    name: &str,
    opts: &Options,
    companions: &[Companion<'_>],
    listing: Listing,
    shares: Vec<Share>,
    hooks: Hooks<'_>,
) -> Tree {
    let mut members: Vec<(usize, MemberExplored)> =
        shares.into_iter().flat_map(|s| s.members.into_iter().map(move |m| (s.base, m))).collect();
    members.sort_by_key(|(_, m)| m.index);
    super::explore_all(Window::whole(&input), name, opts, None, companions, hooks, Some(Given { listing, members }))
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
    spill: Option<super::Spill<'p>>,
) -> Explorer<'o, 'p, 'c> {
    let mut ex = super::again::explorer(opts, base, companions, None);
    ex.read_owned = read_owned;
    ex.spill = spill;
    ex
}

/// The listing of the input's own package when it is one whose members lie in the input.
fn own_listing(input: Window<'_, '_>, skip_by_name: bool) -> Option<Listing> {
    let len = input.len().ok()?;
    let head = input.read_bytes_at(0, len.min(4096)).ok()?;
    match package::detect(head)? {
        Kind::Zip => package::zip::read_skipping(input, skip_by_name).ok(),
        Kind::Tar => package::tar::read(input).ok(),
        _ => None,
    }
}

/// Members other than the largest below this share of its stored bytes are not worth a worker:
/// exploring them beside it saves less than sending its tree from a share worker to the one
/// that merges costs (JAX's ROCm 7 plugin: 39 KiB beside a 131 MiB library of 138,240 kernel
/// nodes, whose tree took 2 s to send).
const SHARE_REST_OVER: u64 = 16;

/// Whether the members besides the largest hold enough stored bytes ([`SHARE_REST_OVER`]) to
/// be explored on another worker while it is.
fn worth_sharing(members: &[Member], explorable: &[usize]) -> bool {
    let stored = |i: &usize| members[*i].stored_size;
    let largest = explorable.iter().map(stored).max().unwrap_or(0);
    let all = explorable.iter().map(stored).fold(0u64, u64::saturating_add);
    all.saturating_sub(largest) >= largest / SHARE_REST_OVER
}

/// The members explored: files, readable, with bytes (as [`Explorer::package`] picks them).
fn explorable(members: &[Member], skip_by_name: bool) -> Vec<usize> {
    (members.iter().enumerate()).filter(|(_, m)| m.is_explored(skip_by_name)).map(|(i, _)| i).collect()
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
                    let merged = explore_merged(&data[..], &name, &opts, &[], plan.listing, shares, Hooks::default());
                    assert_eq!(merged, one, "{name}, {workers} workers, keep_bytes {keep_bytes}");
                    shared += 1;
                }
            }
        }
        assert!(shared >= 8, "only {shared} package fixtures were shared");
    }

    /// A package of one large member and a few small ones is explored by one worker: the small
    /// ones would save less than sending the large one's tree costs.
    #[test]
    fn a_package_dominated_by_one_member_is_not_shared() {
        let members = |stored: &[u64]| -> Vec<Member> {
            let member = |(i, &s): (usize, &u64)| {
                let mut m = Member::new(alloc::format!("m{i}"), EntryKind::File, (0, 0), 0, s * 3);
                m.stored_size = s;
                m
            };
            stored.iter().enumerate().map(member).collect()
        };
        let all = |m: &[Member]| (0..m.len()).collect::<Vec<_>>();
        let dominated = members(&[137_306_294, 32_060, 3_525, 2_407]);
        assert!(!worth_sharing(&dominated, &all(&dominated)), "JAX's ROCm 7 plugin");
        let framework = members(&[402_124_750, 82_754_380, 5_091_450, 3_323_436]);
        assert!(worth_sharing(&framework, &all(&framework)), "TensorFlow's wheel");
        let even = members(&[1600, 100]);
        assert!(worth_sharing(&even, &all(&even)), "a sixteenth beside the largest");
    }

    /// A member whose stored bytes outweigh the rest is found from the central directory and
    /// its own local header, and it is exactly the first share the whole listing's plan makes;
    /// where the others weigh as much, none is.
    #[test]
    fn a_dominant_member_is_the_first_share_before_the_listing() {
        use crate::format::package::zip::tests::stored_zip;
        let lib =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/libhip_3tu_compressed.so")).unwrap();
        let notes = alloc::vec![b'#'; 3000];
        let zip = stored_zip(&[("README", &notes), ("lib/libhip.so", &lib), ("a.py", b"print(1)")]);
        let opts = Options { verify_all: true, ..Options::default() };
        for workers in [2, 3] {
            let early = dominant(&zip[..], &opts, workers).expect("the library outweighs the rest");
            assert_eq!(early.name, "lib/libhip.so");
            assert_eq!(plan(&zip[..], &opts, workers).unwrap().shares[0], alloc::vec![early]);
        }
        let as_heavy = alloc::vec![b'#'; lib.len()];
        let even = stored_zip(&[("README", &as_heavy), ("lib/libhip.so", &lib)]);
        assert!(plan(&even[..], &opts, 2).is_some());
        assert_eq!(dominant(&even[..], &opts, 2), None);
        assert_eq!(dominant(&zip[..], &Options::default(), 2), None, "listing only: no shares");
        for (name, data) in package_fixtures() {
            for workers in [2, 3] {
                if let Some(early) = dominant(&data[..], &opts, workers) {
                    assert_eq!(plan(&data[..], &opts, workers).unwrap().shares[0], alloc::vec![early], "{name}");
                }
            }
        }
    }

    /// Shares split members by stored size, largest first, to the lightest worker; each share
    /// has its small members first, in member order, then the others smallest first, and
    /// together they are every explorable member once.
    #[test]
    fn shares_balance_stored_bytes() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let data = std::fs::read(path).unwrap();
        let opts = Options { verify_all: true, ..Options::default() };
        let plan = plan(&data[..], &opts, 2).expect("a wheel is shared");
        let listing = package::zip::read(&data[..]).unwrap();
        let mut all: Vec<usize> = plan.shares.iter().flatten().map(|m| m.index).collect();
        all.sort_unstable();
        assert_eq!(all, explorable(&listing.members, false));
        let order = |m: &ShareMember| exploring_order(&listing.members, m.index);
        assert!(plan.shares.iter().all(|s| s.windows(2).all(|w| order(&w[0]) < order(&w[1]))));
        let biggest =
            *explorable(&listing.members, false).iter().max_by_key(|&&i| listing.members[i].stored_size).unwrap();
        assert!(
            plan.shares[0].iter().any(|m| m.index == biggest),
            "the largest member goes first, to the first worker"
        );
        // Listing only (no verify_all): members are explored in order, by one worker.
        assert_eq!(super::plan(&data[..], &Options::default(), 2), None);
    }
}
