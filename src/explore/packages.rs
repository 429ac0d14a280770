//! Packages in the explorer ([`crate::format::package`]): one node per member; each member that
//! is an object, library, archive, bundle or device image is explored like a dropped file, in
//! place when it is stored, in a new byte space when it is compressed. Packages inside packages
//! (a conda zip's `pkg-*.tar.zst`, a `.deb`'s `data.tar.xz`) are opened up to
//! [`MAX_PACKAGE_DEPTH`] levels.
//!
//! Bounds: a member is inflated only when its first bytes say it is worth it, and only to its
//! declared size (at most `max_decompressed`); what all members and streams of one exploration
//! inflate is at most `max_package_decompressed`. A decompressed space is kept only when
//! offload data was found in it, so memory follows what is shown, not the package's size.

use super::{error_node, kpacked, too_deep, unreadable_member, Explorer, Progress, ReadOwned};
use crate::codec::{self, Method};
use crate::format::archive::ar;
use crate::format::bundle::{binary, compressed};
use crate::format::host;
use crate::format::kpack;
use crate::format::nv_fatbin;
use crate::format::offload_binary;
use crate::format::package::{
    self, cpio, deb, gzip, rpm, tar, zip, Compression, Kind, Member, StreamMethod, MAX_PACKAGE_DEPTH,
};
use crate::image;
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use crate::util::window::Window;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use object::ReadRef;

/// What every message that depends on what the package may still decompress names: members
/// explored apart with budgets of their own are explored again in order where one says it
/// ([`super::arriving::in_order`]).
pub(super) const PACKAGE_LIMIT: &str = "--max-package-decompressed";

// What a member's first read takes (what remote readers fetch of it: `fetch_plan`).
use super::fetch_plan::{HEAD, STORED_HEAD};

impl Explorer<'_, '_, '_> {
    /// A package (or compressed stream) whose bytes are `input`, lying at `span`; `level` is
    /// how many packages enclose it.
    pub(super) fn package<'a>(
        &mut self,
        input: Window<'_, 'a>,
        kind: Kind,
        span: Span,
        depth: u32,
        level: u32,
    ) -> Node {
        if depth > self.opts.max_depth {
            return too_deep(span, self.opts.max_depth);
        }
        // The input's own package, explored by share workers, comes with its listing.
        let (given_listing, given) = match self.given.take() {
            Some(g) if level == 0 => (Some(g.listing), Some(g.members)),
            other => {
                self.given = other;
                (None, None)
            }
        };
        let listing = match (given_listing, kind) {
            (_, Kind::Stream(method)) => return self.stream(input, method, span, depth, level),
            (Some(listing), _) => Ok(listing),
            (None, Kind::Zip) => zip::read_skipping(input, self.opts.skip_by_name),
            (None, Kind::Tar) => tar::read(input),
            (None, Kind::Cpio) => cpio::read(input),
            (None, Kind::Deb) => deb::read(input),
            (None, Kind::Rpm) => rpm::read(input),
        };
        let listing = match listing {
            Ok(l) => l,
            Err(e) => return error_node(&e, span, "package"),
        };
        let mut node = package::to_node(&listing, span);
        // The package's `.kpack` archives are companions of its binaries (a ROCm wheel or tarball
        // holding a kpack'd library and its archives): read first, forgotten after.
        let outer_kpacks = self.package_kpacks.len();
        for member in &listing.members {
            if let Some(bytes) = self.kpack_member(input, member) {
                self.package_kpacks.push((member.name.clone(), bytes));
            }
        }
        let explorable: Vec<usize> = (listing.members.iter().enumerate())
            .filter(|(_, m)| m.is_explored(self.opts.skip_by_name))
            .map(|(i, _)| i)
            .collect();
        if let Some(given) = given {
            self.members_given(given, input, &listing.members, &explorable, &mut node.children, span, depth, level);
        } else if !self.on_threads(input, &listing.members, &explorable, &mut node.children, span, depth, level) {
            let mut progress = self.progress_of(&listing.members, &explorable, level);
            for &i in &explorable {
                self.member(input, &listing.members[i], &mut node.children[i], span, depth + 1, level + 1);
                self.member_explored(progress.as_mut(), &listing.members[i], &node.children[i]);
            }
        }
        let archives = &self.package_kpacks[outer_kpacks..];
        if !archives.is_empty() {
            let joined = kpacked::joined_archives(&node);
            for (child, member) in node.children.iter_mut().zip(&listing.members) {
                if joined.contains(&member.name) && archives.iter().any(|(name, _)| *name == member.name) {
                    kpacked::list_only(child);
                }
            }
        }
        self.package_kpacks.truncate(outer_kpacks);
        node
    }

    /// Explores the members `explorable` on every core where there are threads
    /// ([`Self::members_in_parallel`]); `false` when they are left to this thread.
    #[allow(clippy::too_many_arguments)]
    fn on_threads<'a>(
        &mut self,
        input: Window<'_, 'a>,
        members: &[Member],
        explorable: &[usize],
        children: &mut [Node],
        span: Span,
        depth: u32,
        level: u32,
    ) -> bool {
        #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
        return self.members_in_parallel(input, members, explorable, children, span, depth, level);
        #[cfg(not(all(feature = "std", not(target_arch = "wasm32"))))]
        {
            let _ = (input, members, explorable, children, span, depth, level);
            false
        }
    }

    /// Where exploring the members `explorable` of a package `level` packages deep starts, when
    /// someone hears of it: only the input's own package (level 0) is reported.
    pub(super) fn progress_of(&self, members: &[Member], explorable: &[usize], level: u32) -> Option<Progress> {
        (level == 0 && self.observer.is_some()).then(|| Progress {
            members_done: 0,
            members: explorable.len(),
            bytes_done: 0,
            bytes: explorable.iter().fold(0u64, |sum, &i| sum.saturating_add(members[i].stored_size)),
        })
    }

    /// Tells the observer that member `m` (its node `node`) was explored, `progress` counting it.
    pub(super) fn member_explored(&mut self, progress: Option<&mut Progress>, m: &Member, node: &Node) {
        if let (Some(progress), Some(observer)) = (progress, self.observer.as_mut()) {
            progress.members_done += 1;
            progress.bytes_done = progress.bytes_done.saturating_add(m.stored_size);
            observer(progress, node);
        }
    }

    /// The bytes of a member that is a `.kpack` archive, stored or inflated within the limits.
    fn kpack_member<'a>(&mut self, input: Window<'_, 'a>, m: &Member) -> Option<Vec<u8>> {
        if !m.name.ends_with(".kpack") || m.stored_size == 0 {
            return None;
        }
        let stored = input.read_bytes_at(m.data_offset, m.stored_size).ok()?;
        let bytes = match m.compression {
            Compression::Stored => stored.to_vec(),
            Compression::Deflate if self.over_limits(m.size).is_none() => {
                let plain = codec::inflate_raw(stored, m.size, self.opts.max_decompressed).ok()?;
                self.package_budget = self.package_budget.saturating_sub(plain.len() as u64);
                plain
            }
            _ => return None,
        };
        kpack::is_kpack(&bytes).then_some(bytes)
    }

    /// One member of a package lying at `package`: explored in place when stored, inflated
    /// into a new byte space when deflated.
    pub(super) fn member<'a>(
        &mut self,
        input: Window<'_, 'a>,
        m: &Member,
        node: &mut Node,
        package: Span,
        depth: u32,
        level: u32,
    ) {
        let span = package.sub(m.data_offset, m.stored_size);
        match m.compression {
            Compression::Stored => {
                self.member_bytes(input.sub(m.data_offset, m.stored_size), node, span, depth, level);
            }
            Compression::Deflate => self.deflated_member(input, m, node, span, depth, level),
            Compression::Unsupported(_) => {}
        }
    }

    /// What a member's bytes (`input`, lying at `span`) hold: another package, a host file, an
    /// archive, an offload container or a device image. Anything else is listed only.
    /// Every reader here takes a window on the input (a window in a window is one window), so
    /// that packages in packages do not make ever longer reader types.
    fn member_bytes<'a>(&mut self, input: Window<'_, 'a>, node: &mut Node, span: Span, depth: u32, level: u32) {
        if depth > self.opts.max_depth {
            node.children.push(too_deep(span, self.opts.max_depth));
            return;
        }
        let head = input.read_bytes_at(0, span.size.min(HEAD)).unwrap_or(&[]);
        if let Some(kind) = package::detect(head) {
            if level >= MAX_PACKAGE_DEPTH {
                let message = format!(
                    "a package inside {level} levels of packages: packages nested deeper than {MAX_PACKAGE_DEPTH} levels are listed, not opened"
                );
                node.diag(Severity::Warning, message, Some(span.sub(0, 0)));
                return;
            }
            node.children.push(self.package(input, kind, span, depth, level));
            return;
        }
        if !worth_opening(head) {
            return;
        }
        if host::is_host_file(head) && !image::is_device_elf(head) {
            self.host_member(input, node, span, depth);
            return;
        }
        if ar::is_archive(head) {
            node.children.push(self.archive(input, span, depth));
            return;
        }
        match input.read_bytes_at(0, span.size) {
            Ok(data) if image::is_device_elf(head) => node.children.extend(image::describe(data, span)),
            Ok(data) => node.children.extend(self.content(data, span, depth)),
            Err(()) => unreadable_member(node, span),
        }
    }

    /// A deflated zip member: its first bytes are inflated to tell what it is, and only an
    /// object, library, archive, bundle or package is inflated in full, to its declared size.
    fn deflated_member<'a>(
        &mut self,
        input: Window<'_, 'a>,
        m: &Member,
        node: &mut Node,
        span: Span,
        depth: u32,
        level: u32,
    ) {
        if let (Some(read), 0) = (self.read_owned, span.space) {
            self.deflated_read(read, m, node, span, depth, level);
            return;
        }
        let Ok(stored) = input.read_bytes_at(m.data_offset, m.stored_size) else {
            unreadable_stored(node, span);
            return;
        };
        self.deflated_bytes(stored, m, node, span, depth, level);
    }

    /// A deflated member whose stored bytes are `stored`; see [`Self::deflated_member`].
    pub(super) fn deflated_bytes(
        &mut self,
        stored: &[u8],
        m: &Member,
        node: &mut Node,
        span: Span,
        depth: u32,
        level: u32,
    ) {
        let inflate = || codec::inflate_raw(stored, m.size, self.opts.max_decompressed);
        if let Some(plain) = self.inflated(stored, &inflate, m, node, span) {
            self.open_space(plain, span, format!("inflated {}", m.name), node, depth, level);
        }
    }

    /// A deflated member of the input (lying at `span`) whose stored bytes `read` reads a piece
    /// at a time as they are inflated: they are never held whole.
    pub(super) fn deflated_read(
        &mut self,
        read: ReadOwned<'_>,
        m: &Member,
        node: &mut Node,
        span: Span,
        depth: u32,
        level: u32,
    ) {
        let Some(head) = read(span.offset, span.size.min(STORED_HEAD)) else {
            unreadable_stored(node, span);
            return;
        };
        if !self.worth_inflating(&head, m, node, span) {
            return;
        }
        let piece = |offset: u64, size: u64| read(span.offset + offset, size);
        if let Some(spill) = self.spill.filter(|_| m.size >= super::SPILL_OVER && !self.opts.keep_bytes) {
            if self.spilled(spill, &piece, m, node, span, depth, level) {
                return;
            }
        }
        let inflate = || codec::inflate_raw_read(&piece, span.size, m.size, self.opts.max_decompressed);
        if let Some(plain) = self.inflated_whole(&inflate, m, node, span) {
            self.open_space(plain, span, format!("inflated {}", m.name), node, depth, level);
        }
    }

    /// A large member inflated through `spill` (an unlinked temporary file in the CLI) and
    /// explored from there; `false` when `spill` could not take it, and it is to be inflated
    /// into memory instead.
    #[allow(clippy::too_many_arguments)]
    fn spilled(
        &mut self,
        spill: super::Spill<'_>,
        piece: &dyn Fn(u64, u64) -> Option<Vec<u8>>,
        m: &Member,
        node: &mut Node,
        span: Span,
        depth: u32,
        level: u32,
    ) -> bool {
        let (stored_size, size, limit) = (span.size, m.size, self.opts.max_decompressed);
        let mut fill =
            |sink: &mut dyn FnMut(&[u8])| codec::inflate_raw_read_chunks(piece, stored_size, size, limit, sink);
        let mut member = Node::new(NodeKind::Decompressed, String::new(), span);
        let label = format!("inflated {}", m.name);
        let mut explore = |bytes: Window<'_, '_>| {
            self.open_window(bytes, span, label.clone(), &mut member, depth, level);
        };
        match spill(size, &mut fill, &mut explore) {
            None => false,
            Some(Ok(())) => {
                node.children.append(&mut member.children);
                true
            }
            Some(Err(e)) => {
                let message = format!("inflating to the declared {} bytes failed: {e}", m.size);
                node.diag(Severity::Error, message, Some(span.sub(e.offset, 0)));
                true
            }
        }
    }

    /// The member inflated by `inflate`, when its first stored bytes (`head`) say it is worth
    /// it and the limits allow; what went wrong is said on `node`.
    fn inflated(
        &mut self,
        head: &[u8],
        inflate: &dyn Fn() -> crate::Result<Vec<u8>>,
        m: &Member,
        node: &mut Node,
        span: Span,
    ) -> Option<Vec<u8>> {
        if !self.worth_inflating(head, m, node, span) {
            return None;
        }
        self.inflated_whole(inflate, m, node, span)
    }

    /// The member inflated by `inflate`, once judged worth it ([`Self::worth_inflating`]); a
    /// failure is said on `node`.
    fn inflated_whole(
        &mut self,
        inflate: &dyn Fn() -> crate::Result<Vec<u8>>,
        m: &Member,
        node: &mut Node,
        span: Span,
    ) -> Option<Vec<u8>> {
        match inflate() {
            Ok(plain) => Some(plain),
            Err(e) => {
                let message = format!("inflating to the declared {} bytes failed: {e}", m.size);
                node.diag(Severity::Error, message, Some(span.sub(e.offset, 0)));
                None
            }
        }
    }

    /// Whether a member whose stored bytes start with `head` is inflated in full: its first
    /// bytes say it is worth it and the limits allow it (what does not is said on `node`).
    fn worth_inflating(&mut self, head: &[u8], m: &Member, node: &mut Node, span: Span) -> bool {
        let head = match codec::inflate_raw_prefix(head, HEAD as usize) {
            Ok(head) => head,
            Err(e) => {
                node.diag(Severity::Error, format!("inflating failed: {e}"), Some(span.sub(e.offset, 0)));
                return false;
            }
        };
        if package::detect(&head).is_none() && !worth_opening(&head) {
            return false;
        }
        if let Some(message) = self.over_limits(m.size) {
            node.diag(Severity::Error, message, Some(span));
            return false;
        }
        true
    }

    /// Why `size` more decompressed bytes are refused, if they are: over the limit for one
    /// member, or over what this exploration may still decompress.
    fn over_limits(&self, size: u64) -> Option<String> {
        if size > self.opts.max_decompressed {
            return Some(format!(
                "declares {size} bytes ({}) uncompressed, over the limit of {} bytes (--max-decompressed): not inflated",
                human_size(size),
                self.opts.max_decompressed
            ));
        }
        if size > self.package_budget {
            return Some(format!(
                "declares {size} bytes uncompressed, more than the {} bytes this package may still decompress ({PACKAGE_LIMIT}): not inflated",
                self.package_budget
            ));
        }
        None
    }

    /// A gzip, zstd or xz stream: decompressed (within the limits) into a new byte space, and
    /// what comes out explored like a member.
    fn stream<'a>(&mut self, input: Window<'_, 'a>, method: StreamMethod, span: Span, depth: u32, level: u32) -> Node {
        let name = method.name();
        let mut node =
            Node::new(NodeKind::CompressedPayload, format!("{name} stream ({})", human_size(span.size)), span);
        node.field("method", name, None);
        node.field("size", span.size, None);
        let Ok(bytes) = input.read_bytes_at(0, span.size) else {
            node.diag(Severity::Error, format!("the {} bytes of the stream could not be read", span.size), Some(span));
            return node;
        };
        let limit = self.opts.max_decompressed.min(self.package_budget);
        match decompress_stream(method, bytes, limit) {
            Ok(plain) => {
                let label = format!("decompressed {name} stream at {:#x}", span.offset);
                self.open_space(plain, span, label, &mut node, depth, level);
            }
            Err(e) => {
                let message = format!(
                    "decompression failed: {e} (limits: --max-decompressed {}, {PACKAGE_LIMIT}: {} bytes left)",
                    self.opts.max_decompressed, self.package_budget
                );
                node.diag(Severity::Error, message, Some(span.sub(e.offset, 0)));
            }
        }
        node
    }

    /// Puts `plain`, decompressed from `origin`, in a new byte space, explores it under a
    /// [`NodeKind::Decompressed`] child of `node`, and keeps its bytes only when offload data
    /// was found in it (a library without any is shown by its member node alone).
    fn open_space(&mut self, plain: Vec<u8>, origin: Span, label: String, node: &mut Node, depth: u32, level: u32) {
        let bytes: &[u8] = &plain;
        if let Some(space) = self.open_window(Window::whole(&bytes), origin, label, node, depth, level) {
            self.keep(space, plain);
        }
    }

    /// Opens a byte space for `bytes`, decompressed from `origin`, and explores it under
    /// `node`; the space, when it holds offload data (and its bytes are worth keeping).
    fn open_window(
        &mut self,
        bytes: Window<'_, '_>,
        origin: Span,
        label: String,
        node: &mut Node,
        depth: u32,
        level: u32,
    ) -> Option<u32> {
        let size = bytes.len().unwrap_or(0);
        self.package_budget = self.package_budget.saturating_sub(size);
        let inner = Span::new(self.spaces.len() as u32, 0, size);
        self.spaces.push(ByteSpace { label, size, origin: Some(origin), data: None });
        let mut dec = Node::new(NodeKind::Decompressed, format!("decompressed ({})", human_size(size)), inner);
        self.member_bytes(bytes, &mut dec, inner, depth + 1, level);
        let holds = holds_offload(&dec);
        if !holds {
            self.spaces[inner.space as usize].label += super::NOT_KEPT;
        }
        node.children.push(dec);
        holds.then_some(inner.space)
    }
}

/// Says on a member's node that its stored bytes, at `span`, could not be read.
pub(super) fn unreadable_stored(node: &mut Node, span: Span) {
    node.diag(Severity::Error, format!("the {} stored bytes could not be read", span.size), Some(span));
}

/// Whether a member starting with `head` is explored: an object or library (ELF, COFF, PE,
/// Mach-O), an archive, an offload container or a device image. Text, Python and data files are
/// listed only.
fn worth_opening(head: &[u8]) -> bool {
    host::is_host_file(head)
        || ar::is_archive(head)
        || compressed::is_compressed(head)
        || binary::is_bundle(head)
        || offload_binary::is_offload_binary(head)
        || nv_fatbin::is_fatbin(head)
        || image::is_device_elf(head)
        || kpack::is_kpack(head)
}

/// Whether a node's subtree holds offload data (so that its byte space is worth keeping).
fn holds_offload(node: &Node) -> bool {
    let mut found = false;
    node.walk(&mut |n, _| {
        found |= matches!(
            n.kind,
            NodeKind::Section
                | NodeKind::OffloadBinary
                | NodeKind::Bundle
                | NodeKind::TextBundle
                | NodeKind::CompressedBundle
                | NodeKind::Fatbin
                | NodeKind::KpackArchive
                | NodeKind::Image
        )
    });
    found
}

/// Decompresses a whole stream into at most `limit` bytes. Sizes are not declared (or cannot be
/// trusted), so zstd and xz are decoded once to count and then again into a buffer of exactly
/// that size: a bomb fails before any of its output is held. gzip uses its trailer's size.
fn decompress_stream(method: StreamMethod, bytes: &[u8], limit: u64) -> crate::Result<Vec<u8>> {
    match method {
        StreamMethod::Gzip => gzip::decompress(bytes, limit),
        StreamMethod::Zstd => {
            let size = codec::decompress_chunks(Method::Zstd, bytes, limit, &mut |_| {})?;
            codec::decompress(Method::Zstd, bytes, size, size)
        }
        StreamMethod::Xz => {
            let size = codec::unxz_chunks(bytes, limit, &mut |_| {})?;
            let mut out = Vec::with_capacity(size as usize);
            codec::unxz_chunks(bytes, size, &mut |chunk| out.extend_from_slice(chunk))?;
            Ok(out)
        }
    }
}
