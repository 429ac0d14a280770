//! The whole-file explorer: recognises what a buffer is, hands each part to its format module,
//! and assembles the annotated [`Tree`]. Containers nest (an ELF section holds compressed
//! bundles, which hold a bundle, whose entries hold code objects); decompressed bytes become new
//! byte spaces.
//!
//! The input is read through `object::ReadRef`, so a caller can pass a lazily read file: only
//! headers, offload sections and, when listing cheaply, the start of compressed streams are read.

use crate::error::Error;
use crate::format::archive::ar;
use crate::format::bundle::binary;
use crate::format::bundle::compressed;
use crate::format::bundle::object as bundled_object;
use crate::format::bundle::text;
use crate::format::host::{self, SectionRole};
use crate::format::kpack;
use crate::format::nv_fatbin::{self, tree as nv_tree, wrapper as nv_wrapper};
use crate::format::offload_binary::{self, ImageKind};
use crate::format::package;
use crate::format::sycl;
use crate::ids;
use crate::image;
use crate::tree::{ByteSpace, Node, NodeKind, Severity, Span, Tree, Value, HEADER_ONLY, NOT_DECOMPRESSED};
use crate::util::bytes::human_size;
use crate::util::window::Window;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use object::ReadRef;

mod again;
pub mod arriving;
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
mod fatbins;
pub mod fetch_plan;
mod kpacked;
mod packages;
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
mod parallel;
pub mod shares;
pub mod sparse;

pub use again::{member_spaces_again, member_spaces_again_hooked, Recovered, KEEP_AGAIN};

/// How much work exploring may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Largest decompressed size accepted for one compressed bundle.
    pub max_decompressed: u64,
    /// Deepest nesting of containers explored.
    pub max_depth: u32,
    /// Compressed bundles whose decompressed size is at most this are decompressed in full,
    /// their hash verified and their entries explored; larger ones only have their bundle
    /// header decoded (cheap listing), unless `verify_all` is set.
    pub full_decompress_up_to: u64,
    /// Decompress and verify every compressed bundle, however large (within `max_decompressed`).
    pub verify_all: bool,
    /// Most children shown under one node (entries of a bundle, members of an archive, binaries
    /// in a section); the rest are dropped with an error that says how many.
    pub max_entries: usize,
    /// Most bytes decompressed in all from the members and streams of packages (wheels,
    /// tarballs, `.deb`, `.rpm`) in one exploration; each member or stream is also held to
    /// `max_decompressed`.
    pub max_package_decompressed: u64,
    /// Keep the bytes of decompressed byte spaces in the tree (to show, extract or edit them).
    /// Off, each space's bytes are dropped as soon as what is inside has been explored, so that
    /// memory is bounded by the largest space being read, not by the file: what reports need
    /// (targets, kernels, fit, sizes) is in the tree's fields and spans.
    pub keep_bytes: bool,
    /// Most threads that explore a package's members at once (natively; see
    /// [`parallel`]): 0 for one per core, 1 for this thread alone. The tree is the same either
    /// way.
    pub max_threads: usize,
    /// Check the hash of each compressed bundle decompressed in full: the MD5 of its
    /// decompressed bytes against the one its header stores. Off, such bundles are still
    /// decompressed and explored, their `hash_ok` left null, as clang-offload-bundler leaves it
    /// unless asked to be verbose; a bundle the user asked for ([`explore_decompressing`]) is
    /// checked all the same. The page turns it off for packages unless told to verify: hashing
    /// the 2.3 GiB a ROCm framework's library decompresses to cost more than decoding it there,
    /// where no second thread can hash beside.
    pub check_hashes: bool,
    /// List the members of packages whose names say they cannot hold device code (Python
    /// sources, headers, text: [`crate::format::package::named_without_device_code`]) without
    /// reading any of their bytes, instead of telling them by their first bytes. For inputs read
    /// over a network, where every byte read is fetched; the tree is the same unless such a
    /// member holds device code under a text file's name.
    pub skip_by_name: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_decompressed: 4 << 30,
            max_depth: 8,
            full_decompress_up_to: 32 << 20,
            verify_all: false,
            max_entries: 100_000,
            max_package_decompressed: 32 << 30,
            keep_bytes: true,
            max_threads: 0,
            check_hashes: true,
            skip_by_name: false,
        }
    }
}

impl Options {
    /// These options for a report read from the tree alone (`kernels`, `fit`, `doctor`): every
    /// image decoded, no decompressed bytes kept once explored, and bundle hashes not checked,
    /// as clang-offload-bundler checks them only when verbose (`list --verify` and `check` still
    /// check them): a ROCm framework's library decompresses to gigabytes, whose MD5 cost more
    /// than decoding them.
    pub fn for_reports(self) -> Options {
        Options { verify_all: true, keep_bytes: false, check_hashes: false, ..self }
    }
}

/// A file explored together with the input, not part of it: a `.kpack` archive holding the
/// device code of a kpack'd host binary ([`crate::format::kpack`]). `name` is its file name or
/// path, matched against the search paths the binary's reference gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Companion<'c> {
    pub name: &'c str,
    pub data: &'c [u8],
}

impl<'c> Companion<'c> {
    /// The companions of files held as (name, bytes), as the CLI and the page hold them.
    pub fn all(files: &'c [(String, Vec<u8>)]) -> Vec<Companion<'c>> {
        files.iter().map(|(name, data)| Companion { name, data }).collect()
    }
}

/// Explores an input. Never fails: what cannot be read becomes an error diagnostic at the
/// offset where reading stopped, and everything else stays explorable.
pub fn explore<'a, R: ReadRef<'a>>(input: R, name: &str, opts: &Options) -> Tree {
    explore_asked(Window::whole(&input), name, opts, None, &[])
}

/// Explores an input like [`explore`], with the companion files dropped or found with it: a
/// kpack'd host binary's `HIPK` wrappers get the code objects their keys name in the
/// companion archives, each in a byte space of its own, so that targets and kernels read as for
/// the build before its device code was moved out. Companions that are not kpack archives, or
/// hold nothing for the input, are left out.
pub fn explore_with_companions<'a, R: ReadRef<'a>>(
    input: R,
    name: &str,
    opts: &Options,
    companions: &[Companion<'_>],
) -> Tree {
    explore_asked(Window::whole(&input), name, opts, None, companions)
}

/// Where exploring a package's members has got: what a progress bar shows ("member 120 of
/// 4,099, 210 of 545 MiB"). Counted over the members of the input's own package that are
/// explored (objects, libraries, archives, bundles, packages), not over everything it lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Progress {
    pub members_done: usize,
    pub members: usize,
    /// Stored (compressed) bytes of the members done and of all of them.
    pub bytes_done: u64,
    pub bytes: u64,
}

/// Who hears of each member of a package as it is explored ([`explore_observed`]).
pub type Observer<'p> = &'p mut dyn FnMut(&Progress, &Node);

/// Who hears of each bundle as soon as its images are described ([`Hooks::found`]).
pub type Found<'p> = &'p mut dyn FnMut(&Node);

/// Reads `size` bytes at `offset` of the input into memory of their own, or `None` when they
/// cannot be read ([`Hooks::read_owned`]). Shared with the threads that explore members where
/// there are threads.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub type ReadOwned<'h> = &'h (dyn Fn(u64, u64) -> Option<Vec<u8>> + Sync);
/// Reads `size` bytes at `offset` of the input into memory of their own, or `None` when they
/// cannot be read ([`Hooks::read_owned`]).
#[cfg(not(all(feature = "std", not(target_arch = "wasm32"))))]
pub type ReadOwned<'h> = &'h dyn Fn(u64, u64) -> Option<Vec<u8>>;

/// Writes what comes out of `fill` (which hands every chunk to the sink it is given, and says
/// how inflating ended) somewhere other than memory, then calls `explore` with a window on what
/// was written ([`Hooks::spill`]); `None` when nothing could be written there, and the member
/// is then inflated into memory. `Some(Err)`: `fill` failed, or its bytes could not be written
/// or read back. The hook is given the member's declared inflated size first; `fill` may be
/// called more than once (each call inflates the member again), `explore` once.
pub type SpillFill<'f> = dyn FnMut(&mut dyn FnMut(&[u8])) -> crate::Result<u64> + 'f;
/// What explores a spilled member's bytes ([`Hooks::spill`]).
pub type SpillExplore<'f> = dyn FnMut(Window<'_, '_>) + 'f;
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub type Spill<'h> = &'h (dyn Fn(u64, &mut SpillFill<'_>, &mut SpillExplore<'_>) -> Option<crate::Result<()>> + Sync);
#[cfg(not(all(feature = "std", not(target_arch = "wasm32"))))]
pub type Spill<'h> = &'h dyn Fn(u64, &mut SpillFill<'_>, &mut SpillExplore<'_>) -> Option<crate::Result<()>>;

/// What ends the label of a space whose bytes are never kept, explored or found again.
pub const NOT_KEPT: &str = " (bytes not kept: no offload data in them)";
/// What starts the label of a space of which only a bundle's header was decompressed.
pub const HEADER_ONLY_SPACE: &str = "decompressed bundle header (";

/// The smallest inflated member written through [`Hooks::spill`] rather than held in memory.
pub const SPILL_OVER: u64 = 64 << 20;

/// What a caller may give an exploration besides the input ([`explore_hooked`]).
#[derive(Default)]
pub struct Hooks<'h> {
    /// Hears of each member of the input's own package as it is explored, with where that
    /// leaves the whole and the member's node: a page shows progress and what was found so far
    /// (its targets) while the rest is read. Inputs that are not packages are explored without
    /// a call.
    pub observer: Option<Observer<'h>>,
    /// Reads the stored bytes of the deflated members of a package lying in the input itself,
    /// instead of the input's `ReadRef`: a reader that keeps what it reads (`object::ReadCache`)
    /// would otherwise hold every member's compressed bytes, as much as the package, until the
    /// exploration ends. They are read a piece of at most [`crate::codec::READ_CHUNK`] bytes at
    /// a time as they are inflated, so a member's stored bytes are never held whole.
    pub read_owned: Option<ReadOwned<'h>>,
    /// Where a deflated member of the input's package of [`SPILL_OVER`] bytes or more is
    /// inflated to when bytes are not kept ([`Options::keep_bytes`]): the CLI writes it to an
    /// unlinked temporary file and reads back only what is explored (headers, offload
    /// sections), so memory follows the device code, not the largest library.
    pub spill: Option<Spill<'h>>,
    /// Hears of each offload bundle (plain, or inside a compressed bundle) as soon as its
    /// images are described, before the member or file that holds it is done: a ROCm
    /// framework's library holds dozens of bundles and takes seconds to describe, and its first
    /// bundle already says which GPUs it targets. Not called from threads exploring members in
    /// parallel.
    pub found: Option<Found<'h>>,
}

/// Explores an input like [`explore_with_companions`], with `hooks`.
pub fn explore_hooked<'a, R: ReadRef<'a>>(
    input: R,
    name: &str,
    opts: &Options,
    companions: &[Companion<'_>],
    hooks: Hooks<'_>,
) -> Tree {
    explore_with(Window::whole(&input), name, opts, None, companions, hooks)
}

/// Explores an input like [`explore`], and decompresses in full (its hash checked, its entries
/// explored) the compressed bundle at `bundle`, a span of the tree [`explore`] gave with the
/// same `opts`, whatever its size within `max_decompressed`: a bundle listed from its header
/// that the user asked to open. `progress` hears `(bytes decompressed, bytes in all)` as
/// it is decoded. `companions` are the files explored with the input, as for
/// [`explore_with_companions`].
pub fn explore_decompressing<'a, R: ReadRef<'a>>(
    input: R,
    name: &str,
    opts: &Options,
    companions: &[Companion<'_>],
    bundle: Span,
    progress: &mut dyn FnMut(u64, u64),
) -> Tree {
    explore_asked(Window::whole(&input), name, opts, Some(Asked { bundle, progress }), companions)
}

fn explore_asked<'a>(
    input: Window<'_, 'a>,
    name: &str,
    opts: &Options,
    asked: Option<Asked<'_>>,
    companions: &[Companion<'_>],
) -> Tree {
    explore_with(input, name, opts, asked, companions, Hooks::default())
}

fn explore_with<'a, 'p>(
    input: Window<'_, 'a>,
    name: &str,
    opts: &Options,
    asked: Option<Asked<'p>>,
    companions: &[Companion<'_>],
    hooks: Hooks<'p>,
) -> Tree {
    explore_all(input, name, opts, asked, companions, hooks, None)
}

/// Explores an input; `given` holds its own package's listing and members when others explored
/// them ([`shares`]).
fn explore_all<'a, 'p>(
    input: Window<'_, 'a>,
    name: &str,
    opts: &Options,
    asked: Option<Asked<'p>>,
    companions: &[Companion<'_>],
    hooks: Hooks<'p>,
    given: Option<Given>,
) -> Tree {
    let len = input.len().unwrap_or(0);
    let nv_budget = nv_tree::Budget {
        limit: opts.max_decompressed,
        full_up_to: opts.full_decompress_up_to,
        remaining: nv_tree::LISTING_BUDGET,
        all: opts.verify_all,
    };
    let mut ex = Explorer {
        opts,
        spaces: Vec::new(),
        nv_budget,
        package_budget: opts.max_package_decompressed,
        asked,
        companions,
        package_kpacks: Vec::new(),
        parallel: true,
        observer: hooks.observer,
        read_owned: hooks.read_owned,
        spill: hooks.spill,
        found: hooks.found,
        given,
        sparing: None,
    };
    ex.spaces.push(ByteSpace { label: name.to_string(), size: len, origin: None, data: None });
    let whole = Span::new(0, 0, len);
    let mut root = Node::new(NodeKind::File, format!("{name} ({})", human_size(len)), whole);
    // 4096 bytes: a PE file is recognised by its NT headers, which follow the DOS stub.
    let head = input.read_bytes_at(0, len.min(4096)).unwrap_or(&[]);
    if image::is_device_elf(head) {
        // A device image on its own (an AMDGPU code object, a cubin): described, not searched
        // for offload sections.
        match input.read_bytes_at(0, len) {
            Ok(data) => root.children.extend(image::describe(data, whole)),
            Err(()) => {
                root.diag(Severity::Error, format!("could not read the {len} bytes of the input"), None);
            }
        }
    } else if host::is_host_file(head) {
        ex.host_file(input, &mut root, 0);
    } else if let Some(kind) = package::detect(head) {
        // Before `ar`: a `.deb` is an ar archive too.
        root.children.push(ex.package(input, kind, whole, 0, 0));
    } else if ar::is_archive(head) {
        root.children.push(ex.archive(input, whole, 0));
    } else if compressed::is_compressed(head) {
        ex.compressed_file(input, &mut root);
    } else if kpack::is_kpack(head) {
        match input.read_bytes_at(0, len) {
            Ok(data) => root.children.push(ex.kpack_archive(data, whole, 0)),
            Err(()) => {
                root.diag(Severity::Error, format!("could not read the {len} bytes of the input"), None);
            }
        }
    } else {
        match input.read_bytes_at(0, len) {
            Ok(data) => {
                root.children = ex.region(data, whole, 0);
                // A device image on its own: bitcode, SPIR-V, PTX.
                if root.children.is_empty() && image::identify(data).is_some_and(|(f, _)| f != "empty") {
                    root.children.extend(image::describe(data, whole));
                }
            }
            Err(()) => {
                root.diag(Severity::Error, format!("could not read the {len} bytes of the input"), None);
            }
        }
    }
    if root.children.is_empty() && root.diagnostics.is_empty() {
        root.diag(Severity::Note, "no offload data found", None);
    }
    limit_entries(&mut root, opts.max_entries);
    Tree { spaces: ex.spaces, root }
}

/// What exploring one member of a package alone gave (on a thread, [`parallel`], or on a
/// worker, [`shares`]): its node, the byte spaces it opened (numbered from a base: spaces
/// standing for those of the explorer it is put back into), and the bytes it decompressed
/// against the package's budget.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MemberExplored {
    pub index: usize,
    pub node: Node,
    pub spaces: Vec<ByteSpace>,
    pub used: u64,
}

/// The input's own package as others explored it ([`shares::explore_merged`]): its listing,
/// and its members, each with the base its spaces are numbered from, in member order.
struct Given {
    listing: package::Listing,
    members: Vec<(usize, MemberExplored)>,
}

/// `count` byte spaces standing for those of another explorer, so that an explorer of a member
/// of its own ([`parallel`]'s workers, [`again`]) numbers its spaces after them.
fn placeholder_spaces(count: usize) -> Vec<ByteSpace> {
    (0..count).map(|_| ByteSpace { label: String::new(), size: 0, origin: None, data: None }).collect()
}

/// The package fixtures (made by zip, tar, dpkg-deb, conda: tests/fixtures/packages/): name and
/// bytes.
#[cfg(test)]
fn package_fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".sh") || name.ends_with(".txt") || name == "SHA256SUMS") {
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
    out
}

/// Cuts every node's children to `max`, saying so on the node: each format already bounds its
/// counts by what the input can hold, and this keeps a hostile file from flooding the views.
fn limit_entries(node: &mut Node, max: usize) {
    if node.children.len() > max {
        let dropped = node.children.len() - max;
        node.children.truncate(max);
        node.diag(
            Severity::Error,
            format!("{dropped} more entries are not shown: the limit is {max} entries under one node (--max-entries)"),
            None,
        );
    }
    for child in &mut node.children {
        limit_entries(child, max);
    }
}

/// The compressed bundle the user asked to decompress, and who hears how far that has got.
struct Asked<'p> {
    bundle: Span,
    progress: &'p mut dyn FnMut(u64, u64),
}

struct Explorer<'o, 'p, 'c> {
    opts: &'o Options,
    spaces: Vec<ByteSpace>,
    /// What decompressing NVIDIA fatbin entries may still do in this exploration.
    nv_budget: nv_tree::Budget,
    /// What decompressing package members and streams may still do in this exploration.
    package_budget: u64,
    asked: Option<Asked<'p>>,
    /// The files given with the input (kpack archives).
    companions: &'c [Companion<'c>],
    /// The `.kpack` members of the packages being explored, as companions of their other
    /// members: (member name, bytes).
    package_kpacks: Vec<(String, Vec<u8>)>,
    /// Whether a package's members may be explored on several threads ([`parallel`]): not in
    /// an explorer that is itself one member's worker.
    #[cfg_attr(not(all(feature = "std", not(target_arch = "wasm32"))), allow(dead_code))]
    parallel: bool,
    /// Who hears of each member of the input's own package as it is explored
    /// ([`explore_observed`]).
    observer: Option<Observer<'p>>,
    /// How the stored bytes of deflated members of the input are read ([`Hooks::read_owned`]).
    read_owned: Option<ReadOwned<'p>>,
    /// Where large inflated members go instead of memory ([`Hooks::spill`]).
    spill: Option<Spill<'p>>,
    /// Who hears of each bundle as it is described ([`Hooks::found`]).
    found: Option<Found<'p>>,
    /// The input's own package's listing and its members as other workers explored them
    /// ([`shares`]).
    given: Option<Given>,
    /// With [`Options::keep_bytes`] off, the spaces whose bytes are kept all the same: those
    /// asked for when a member is explored again ([`again`]).
    sparing: Option<again::Sparing>,
}

fn error_node(e: &Error, span: Span, what: &str) -> Node {
    let at = span.sub(e.offset.min(span.size), 0);
    let mut node = Node::new(NodeKind::Unknown, format!("unreadable {what}"), span);
    node.diag(Severity::Error, e.to_string(), Some(at));
    node
}

impl Explorer<'_, '_, '_> {
    /// A host file whose headers cannot be read (often a truncated download) may still hold
    /// whole offload containers: look for them by their magic, as in a raw file.
    fn unreadable_host<'a>(&mut self, input: Window<'_, 'a>, root: &mut Node, depth: u32) {
        let Ok(data) = input.read_bytes_at(0, root.span.size) else { return };
        root.children = self.region(data, root.span, depth);
        if !root.children.is_empty() {
            root.diag(Severity::Note, "offload data found by its magic bytes in the unreadable host file", None);
        }
    }

    fn host_file<'a>(&mut self, input: Window<'_, 'a>, root: &mut Node, depth: u32) {
        let file = match host::read_host(input) {
            Ok(f) => f,
            Err(e) => {
                root.diag(Severity::Error, e.to_string(), Some(root.span.sub(e.offset.min(root.span.size), 1)));
                self.unreadable_host(input, root, depth);
                return;
            }
        };
        root.field("container", file.description.as_str(), None);
        let pointer = if file.description.contains("32-bit") { 4 } else { 8 };
        let mut kpack_host = self.kpack_host(&file.sections, pointer);
        for s in &file.sections {
            let span = Span::new(0, s.file_offset, s.data.len() as u64);
            let mut node =
                Node::new(NodeKind::Section, format!("section {} ({})", s.name, human_size(span.size)), span);
            node.field("name", s.name.as_str(), None);
            node.field("index", s.index as u64, None);
            node.field("address", s.address, None);
            match &s.role {
                SectionRole::BundleEntry(_) => continue, // grouped by bundled_object below
                SectionRole::NvFatbin => {
                    node.field("format", "NVIDIA fatbin", None);
                    node.children = self.nv_fatbins(s.data, span, depth + 1);
                }
                // Listed for kpack'd binaries only, where they say which code objects to load.
                SectionRole::HipFatbinWrapper => match kpack_host.as_mut() {
                    Some(host) => {
                        node.field("format", "HIP fatbin wrappers", None);
                        node.children = self.hip_wrappers(s.data, span, pointer, host, depth + 1);
                    }
                    None => continue,
                },
                SectionRole::KpackReference => {
                    node.field("format", "kpack reference", None);
                    if let Some(host) = &kpack_host {
                        let names: Vec<&str> = self.companions().map(|(name, _)| name).collect();
                        node.children = kpacked::reference_nodes(host, span, &names);
                    }
                }
                SectionRole::NvFatbinWrapper => {
                    node.field("format", "NVIDIA fatbin wrappers", None);
                    let fatbins: Vec<(String, u64, u64)> = file
                        .sections
                        .iter()
                        .filter(|f| f.role == SectionRole::NvFatbin && f.address != 0)
                        .map(|f| (f.name.clone(), f.address, f.data.len() as u64))
                        .collect();
                    let resolve = |address: u64| {
                        fatbins
                            .iter()
                            .find(|(_, start, size)| address >= *start && address - start < *size)
                            .map(|(name, start, _)| format!("the fatbin at byte {} of section {name}", address - start))
                    };
                    node.children = nv_wrapper::nodes(s.data, span, pointer, &resolve);
                }
                _ => node.children = self.region(s.data, span, depth + 1),
            }
            root.children.push(node);
        }
        root.children.extend(self.bundled_object(&file.sections, depth));
    }

    /// The bundle entry sections of a bundled object as one bundle, device entries explored.
    fn bundled_object(&mut self, sections: &[host::OffloadSection<'_>], depth: u32) -> Option<Node> {
        let mut node = bundled_object::tree_node(sections)?;
        let data = sections.iter().filter(|s| matches!(s.role, SectionRole::BundleEntry(_))).map(|s| s.data);
        for (entry, bytes) in node.children.iter_mut().zip(data) {
            if !bundled_object::is_host_placeholder(bytes) {
                entry.children = self.content(bytes, entry.span, depth + 1);
            }
        }
        Some(node)
    }

    /// A file that is one or more compressed bundles, read lazily so that listing a large one
    /// reads only its header and the start of its stream.
    fn compressed_file<'a>(&mut self, input: Window<'_, 'a>, root: &mut Node) {
        let len = input.len().unwrap_or(0);
        let mut pos = 0u64;
        while pos < len {
            let head = input.read_bytes_at(pos, (len - pos).min(compressed::MAX_HEADER_SIZE)).unwrap_or(&[]);
            let header = match compressed::Header::parse(head) {
                Ok(h) => h,
                Err(e) => {
                    root.children.push(error_node(&e.shifted(pos), Span::new(0, pos, len - pos), "compressed bundle"));
                    return;
                }
            };
            let size = header.total_size.unwrap_or(len - pos);
            if size > len - pos || size < header.size() {
                let mut node = compressed::header_node(&header, Span::new(0, pos, len - pos), None);
                node.diag(
                    Severity::Error,
                    format!("the header declares {size} bytes but {} remain in the file", len - pos),
                    Some(Span::new(0, pos + 8, 8)),
                );
                root.children.push(node);
                return;
            }
            let span = Span::new(0, pos, size);
            let node = if self.decompress_in_full(&header, span) {
                match input.read_bytes_at(pos, size) {
                    Ok(bytes) => self.compressed_bytes(bytes, span, 0),
                    Err(()) => error_node(
                        &Error::new(pos, "compressed bundle", format!("{size} readable bytes"), "a read error"),
                        span,
                        "compressed bundle",
                    ),
                }
            } else {
                self.compressed_header_only(input, &header, span)
            };
            root.children.push(node);
            let Some(next) = compressed::next_bundle_offset(pos, size).filter(|&n| n < len) else { break };
            let gap = Span::new(0, pos + size, next - pos - size);
            if input.read_bytes_at(gap.offset, gap.size).map_or(true, |g| g.iter().any(|&b| b != 0)) {
                root.diag(
                    Severity::Warning,
                    "non-zero bytes after a compressed bundle, where only zero padding is expected",
                    Some(gap),
                );
                break;
            }
            pos = next;
        }
    }

    /// The companion files: those given with the input, then the `.kpack` members of the
    /// packages being explored.
    fn companions(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let given = self.companions.iter().map(|c| (c.name, c.data));
        given.chain(self.package_kpacks.iter().map(|(name, data)| (name.as_str(), data.as_slice())))
    }

    fn decompress_in_full(&self, header: &compressed::Header, span: Span) -> bool {
        self.opts.verify_all
            || header.uncompressed_size <= self.opts.full_decompress_up_to
            || self.asked.as_ref().is_some_and(|a| a.bundle == span)
    }

    /// The uncompressed bundle and its truncated MD5, hashed as it is decoded (`None` when
    /// hashes are not checked, [`Options::check_hashes`]); the bundle the user asked for is
    /// always hashed and reports its progress.
    fn decompress_bundle(
        &mut self,
        cb: &compressed::CompressedBundle,
        span: Span,
    ) -> crate::error::Result<(Vec<u8>, Option<u64>)> {
        let total = cb.header.uncompressed_size;
        let limit = self.opts.max_decompressed;
        let hashed = |(plain, hash)| (plain, Some(hash));
        match self.asked.as_mut().filter(|a| a.bundle == span) {
            Some(asked) => cb.decompress_hashed(limit, &mut |done| (asked.progress)(done, total)).map(hashed),
            None if self.opts.check_hashes => cb.decompress_hashed(limit, &mut |_| {}).map(hashed),
            None => cb.decompress(limit).map(|plain| (plain, None)),
        }
    }

    /// Describes whatever `data` (the bytes at `span`) holds: offload binaries, a bundle, a
    /// text bundle, compressed bundles, or a scan for any of these.
    fn region(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        if depth > self.opts.max_depth {
            return alloc::vec![too_deep(span, self.opts.max_depth)];
        }
        if offload_binary::is_offload_binary(data) {
            return self.offload_binaries(data, span, depth);
        }
        if binary::is_bundle(data) {
            return self.bundles(data, span, depth);
        }
        if compressed::is_compressed(data) {
            return self.compressed_sequence(data, span, depth);
        }
        if ar::is_archive(data) {
            return alloc::vec![self.archive(Window::whole(&data), span, depth)];
        }
        if nv_fatbin::is_fatbin(data) {
            return self.nv_fatbins(data, span, depth);
        }
        if let Some(comment) = text::detect_comment(data) {
            return alloc::vec![self.text_bundle(data, &comment, span, depth)];
        }
        self.scan(data, span, depth)
    }

    /// NVIDIA fatbin containers back to back; their entries' images are decompressed into new
    /// byte spaces within the exploration's budget.
    fn nv_fatbins(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        if depth > self.opts.max_depth {
            return alloc::vec![too_deep(span, self.opts.max_depth)];
        }
        let found = nv_fatbin::walk(data);
        #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
        if let Some(nodes) = self.nv_fatbins_in_parallel(&found, data, span) {
            return nodes;
        }
        // Each container's images are described, and with `keep_bytes` off their bytes dropped,
        // before the next container is decompressed: a library's fatbins are never all held.
        let keep = self.opts.keep_bytes;
        let mut kept = self.spaces.len();
        let sparing = &mut self.sparing;
        nv_tree::nodes_each(found, span, &mut self.spaces, &mut self.nv_budget, &mut |node, spaces| {
            describe_nv_images(spaces, node, data, span);
            if !keep {
                let from = kept.min(spaces.len());
                again::release(&mut spaces[from..], sparing);
                kept = spaces.len();
            }
        })
    }

    /// With [`Options::keep_bytes`] off, drops the bytes of the spaces from `first` on, once
    /// what is inside them has been explored.
    fn release_since(&mut self, first: usize) {
        if !self.opts.keep_bytes {
            let from = first.min(self.spaces.len());
            again::release(&mut self.spaces[from..], &mut self.sparing);
        }
    }

    /// Keeps `bytes` as the data of the space `space` once what is inside has been explored;
    /// with [`Options::keep_bytes`] off they are dropped here instead (unless spared).
    fn keep(&mut self, space: u32, bytes: Vec<u8>) {
        let Some(kept) = self.spaces.get_mut(space as usize) else { return };
        kept.data = Some(bytes);
        if !self.opts.keep_bytes {
            again::release(core::slice::from_mut(kept), &mut self.sparing);
        }
    }

    fn offload_binaries(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        let walk = offload_binary::walk(data);
        let first = self.spaces.len();
        let mut nodes = offload_binary::walk_nodes(&walk, span, &mut self.spaces);
        for node in &mut nodes {
            self.fill_images(node, data, span, depth);
        }
        self.release_since(first);
        nodes
    }

    /// Binary bundles back to back: a linked `.hip_fatbin` holds one per translation unit,
    /// each 4096-aligned after the zero padding that ends the one before. Each is read up to
    /// where the next starts; a single bundle is read whole.
    fn bundles(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        let mut nodes = Vec::new();
        let mut at = 0usize;
        while let Some(rest) = data.get(at..) {
            let next = binary::read_header(rest).ok().and_then(|h| next_bundle(rest, &h));
            let len = next.unwrap_or(rest.len());
            nodes.push(self.bundle(&rest[..len], span.sub(at as u64, len as u64), depth));
            match next {
                Some(n) if nodes.len() < self.opts.max_entries => at += n,
                _ => break,
            }
        }
        nodes
    }

    fn bundle(&mut self, data: &[u8], span: Span, depth: u32) -> Node {
        let header = match binary::read_header(data) {
            Ok(h) => h,
            Err(e) => return error_node(&e, span, "bundle"),
        };
        let mut node = binary::header_node(&header, span);
        binary::diagnose_unused(&mut node, data, &header, span);
        let ids: Vec<&str> = header.entries.iter().map(|e| e.id.as_str()).collect();
        for v in ids::composition_on_read(&ids) {
            node.diag(Severity::Warning, v.to_string(), None);
        }
        annotate_entries(&mut node);
        self.fill_images(&mut node, data, span, depth);
        if let Some(found) = self.found.as_mut() {
            found(&node);
        }
        node
    }

    fn text_bundle(&mut self, data: &[u8], comment: &str, span: Span, depth: u32) -> Node {
        match text::TextBundle::parse(data, comment) {
            Ok((b, layouts)) => {
                let mut node = text::to_node(&b, &layouts, span);
                annotate_entries(&mut node);
                self.fill_images(&mut node, data, span, depth);
                node
            }
            Err(e) => error_node(&e, span, "text bundle"),
        }
    }

    fn compressed_sequence(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        compressed::walk(data)
            .map(|found| match &found.piece {
                compressed::Piece::Bundle(_) => {
                    self.compressed_bytes(found.bytes, span.sub(found.offset, found.size), depth)
                }
                _ => compressed::found_to_node(&found, span),
            })
            .collect()
    }

    /// One compressed bundle whose bytes are all at hand: decompressed in full (its hash checked
    /// and its bundle explored in a new byte space), or only its bundle header when large.
    fn compressed_bytes(&mut self, bytes: &[u8], span: Span, depth: u32) -> Node {
        let cb = match compressed::CompressedBundle::parse(bytes) {
            Ok(cb) => cb,
            Err(e) => return compressed::unreadable_node(bytes, span, &e),
        };
        if !self.decompress_in_full(&cb.header, span) {
            let mut node = compressed::to_node(&cb, span, None);
            self.attach_header_only(&mut node, &cb, span);
            return node;
        }
        let payload = payload_span(&cb.header, span);
        let (plain, hash) = match self.decompress_bundle(&cb, span) {
            Ok(done) => done,
            Err(e) => {
                let mut node = compressed::to_node(&cb, span, None);
                node.diag(Severity::Error, format!("decompression failed: {e}"), Some(payload));
                return node;
            }
        };
        let mut node = compressed::to_node(&cb, span, hash.map(|h| h == cb.header.hash));
        // The space is taken before its contents are explored: containers inside it take the
        // spaces after.
        let inner = Span::new(self.spaces.len() as u32, 0, plain.len() as u64);
        self.spaces.push(ByteSpace {
            label: format!("decompressed {}", node.label),
            size: inner.size,
            origin: Some(payload),
            data: None,
        });
        let mut dec =
            Node::new(NodeKind::Decompressed, format!("decompressed bundle ({})", human_size(inner.size)), inner);
        dec.children = self.region(&plain, inner, depth + 1);
        self.keep(inner.space, plain);
        node.children.push(dec);
        node
    }

    /// A large compressed bundle in a lazily read file: only the start of its payload is read.
    fn compressed_header_only<'a>(&mut self, input: Window<'_, 'a>, header: &compressed::Header, span: Span) -> Node {
        let mut node = compressed::header_node(header, span, None);
        if header.uncompressed_size > self.opts.max_decompressed {
            // Listing reads only the header, but the bundle could not be unpacked: say so now.
            let message = format!(
                "the declared uncompressed size, {} bytes, is over the limit of {} bytes (--max-decompressed)",
                header.uncompressed_size, self.opts.max_decompressed
            );
            let (at, width) = uncompressed_size_field(header.version);
            node.diag(Severity::Error, message, Some(span.sub(at, width)));
        }
        let payload = payload_span(header, span);
        let mut read = payload.size.min(64 << 10);
        loop {
            let Ok(bytes) = input.read_bytes_at(payload.offset, read) else {
                node.diag(Severity::Error, "the compressed payload could not be read", Some(payload));
                return node;
            };
            let cb = compressed::CompressedBundle { header: header.clone(), payload: bytes };
            match self.bundle_header_from_prefix(&cb, span) {
                Ok(dec) => {
                    node.children.push(dec);
                    break;
                }
                // The stream start we read did not hold the whole bundle header: read more.
                Err(_) if read < payload.size => read = payload.size.min(read.saturating_mul(8)),
                Err(e) => {
                    node.diag(Severity::Error, e, Some(payload));
                    break;
                }
            }
        }
        header_only_note(&mut node, header);
        node
    }

    fn attach_header_only(&mut self, node: &mut Node, cb: &compressed::CompressedBundle, span: Span) {
        match self.bundle_header_from_prefix(cb, span) {
            Ok(dec) => node.children.push(dec),
            Err(e) => {
                node.diag(Severity::Error, e, Some(payload_span(&cb.header, span)));
            }
        }
        header_only_note(node, &cb.header);
    }

    /// Decodes only as much of the stream as the bundle header needs (growing the prefix until
    /// the header fits), and returns the decompressed-space node holding that header.
    fn bundle_header_from_prefix(
        &mut self,
        cb: &compressed::CompressedBundle,
        span: Span,
    ) -> core::result::Result<Node, String> {
        let total = cb.header.uncompressed_size;
        let mut want = 4096usize;
        loop {
            let prefix = cb.header_prefix(want).map_err(|e| format!("decompression failed: {e}"))?;
            let whole = prefix.len() as u64 >= total;
            match binary::read_header(&prefix) {
                Ok(h) => {
                    let inner = Span::new(self.spaces.len() as u32, 0, total);
                    let mut dec = Node::new(
                        NodeKind::Decompressed,
                        format!("decompressed bundle ({}, {HEADER_ONLY})", human_size(total)),
                        inner,
                    );
                    let mut b = binary::header_node(&h, inner);
                    annotate_entries(&mut b);
                    dec.children.push(b);
                    self.spaces.push(ByteSpace {
                        label: format!(
                            "{HEADER_ONLY_SPACE}{} of {})",
                            human_size(prefix.len() as u64),
                            human_size(total)
                        ),
                        size: total,
                        origin: Some(payload_span(&cb.header, span)),
                        data: Some(prefix),
                    });
                    return Ok(dec);
                }
                Err(_) if !whole && prefix.len() == want && want < (64 << 20) => want = want.saturating_mul(8),
                Err(e) => {
                    return Err(format!("the decompressed data does not start with a readable binary bundle: {e}"))
                }
            }
        }
    }

    /// Explores the bytes of every image and bundle entry below `node`. `data` holds the bytes
    /// of `span`.
    fn fill_images(&mut self, node: &mut Node, data: &[u8], span: Span, depth: u32) {
        let image_kind = match (node.kind, node.get("image_kind_value")) {
            (NodeKind::OffloadEntry, Some(Value::Uint(k))) => u16::try_from(*k).ok().map(ImageKind),
            _ => None,
        };
        let mut mismatch = None;
        let arch = node.text("arch").map(String::from);
        for child in &mut node.children {
            match child.kind {
                NodeKind::Image | NodeKind::BundleEntry => {
                    let start = child.span.offset.saturating_sub(span.offset);
                    if child.span.space != span.space || start.saturating_add(child.span.size) > data.len() as u64 {
                        continue;
                    }
                    let bytes = &data[start as usize..(start + child.span.size) as usize];
                    let mut found = self.content(bytes, child.span, depth + 1);
                    // The target the carrying entry names: a bundle entry's target ID, or an
                    // offload entry's `arch`.
                    let carrier = match child.kind {
                        NodeKind::BundleEntry => child.text("target_id").map(String::from),
                        _ => arch.clone(),
                    };
                    if let (Some(carrier), Some(first)) = (carrier.as_deref(), found.first_mut()) {
                        image::amdgpu::check_carrier(first, carrier);
                    }
                    if let (Some(kind), Some(format)) = (image_kind, found.first().and_then(|n| n.text("format"))) {
                        mismatch = kind_mismatch(kind, format);
                    }
                    child.children.extend(found);
                }
                _ => self.fill_images(child, data, span, depth),
            }
        }
        if let Some(message) = mismatch {
            let kind_span = node.fields.iter().find(|f| f.name == "image_kind").and_then(|f| f.span);
            node.diag(Severity::Warning, message, kind_span);
        }
    }

    /// What one device image or entry holds: a nested container, or a description of the image.
    fn content(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        if offload_binary::is_offload_binary(data)
            || binary::is_bundle(data)
            || compressed::is_compressed(data)
            || ar::is_archive(data)
            || nv_fatbin::is_fatbin(data)
        {
            return self.region(data, span, depth);
        }
        if is_image_sequence(data) {
            return self.sycl_sequence(data, span, depth);
        }
        if kpack::is_kpack(data) {
            return alloc::vec![self.kpack_archive(data, span, depth)];
        }
        image::describe(data, span).into_iter().collect()
    }

    /// The device images of a SYCL bundled-object entry ([`sycl`]): zstd frames decompressed
    /// into byte spaces of their own (within the same limits as compressed bundles) and
    /// explored like any image, uncompressed SPIR-V modules, and the padding between them.
    fn sycl_sequence(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        let mut nodes: Vec<Node> = Vec::new();
        for piece in sycl::pieces(data) {
            let bytes = &data[piece.offset..piece.offset + piece.size];
            let at = span.sub(piece.offset as u64, piece.size as u64);
            let node = match piece.kind {
                sycl::PieceKind::Zstd { content_size } => self.zstd_frame(bytes, content_size, at, depth),
                sycl::PieceKind::Spirv => match self.content(bytes, at, depth).pop() {
                    Some(image) => image,
                    None => Node::new(NodeKind::Unknown, format!("unknown bytes ({})", human_size(at.size)), at),
                },
                sycl::PieceKind::Padding => {
                    Node::new(NodeKind::Padding, format!("zero padding ({})", human_size(at.size)), at)
                }
                sycl::PieceKind::Unknown => {
                    let mut node =
                        Node::new(NodeKind::Unknown, format!("unreadable bytes ({})", human_size(at.size)), at);
                    let message = "expected a zstd frame, a SPIR-V module or zero padding; found bytes that are none, or a frame whose blocks run past the entry";
                    node.diag(Severity::Warning, message, Some(at));
                    node
                }
            };
            nodes.push(node);
        }
        nodes
    }

    /// One raw zstd frame holding a device image: decompressed and explored in a new byte
    /// space when its size is within the limits, else described from its header.
    fn zstd_frame(&mut self, bytes: &[u8], content_size: Option<u64>, span: Span, depth: u32) -> Node {
        let declared = content_size.map(|n| format!(" \u{2192} {}", human_size(n))).unwrap_or_default();
        let mut node =
            Node::new(NodeKind::CompressedPayload, format!("zstd frame ({}{declared})", human_size(span.size)), span);
        node.field("method", "zstd", None);
        node.field("size", span.size, None);
        if let Some(n) = content_size {
            node.field("uncompressed_size", n, Some(span.sub(4, 1)));
        }
        let within = |n: u64| self.opts.verify_all || n <= self.opts.full_decompress_up_to;
        if content_size.is_some_and(|n| !within(n)) {
            node.diag(
                Severity::Note,
                format!("{NOT_DECOMPRESSED}: larger than the size decompressed when listing"),
                None,
            );
            return node;
        }
        // A frame that declares no size gets the listing budget too: a small frame must not
        // expand to gigabytes just because it did not say how much it holds.
        let budget = if self.opts.verify_all {
            self.opts.max_decompressed
        } else {
            self.opts.max_decompressed.min(self.opts.full_decompress_up_to)
        };
        let plain = match decompress_frame(bytes, content_size, budget) {
            Ok(plain) => plain,
            Err(e) => {
                node.diag(Severity::Error, format!("decompression failed: {e}"), Some(span));
                return node;
            }
        };
        let inner = Span::new(self.spaces.len() as u32, 0, plain.len() as u64);
        let mut dec = Node::new(NodeKind::Decompressed, format!("decompressed ({})", human_size(inner.size)), inner);
        self.spaces.push(ByteSpace {
            label: format!("decompressed zstd frame at {:#x}", span.offset),
            size: inner.size,
            origin: Some(span),
            data: None,
        });
        dec.children = self.content(&plain, inner, depth + 1);
        self.keep(inner.space, plain);
        node.children.push(dec);
        node
    }

    /// Looks for known magics in a buffer that is none of the known containers. A magic found
    /// this way may be chance bytes (a section name, compressed data), so a hit that does not
    /// read as its container is dropped rather than reported as an error.
    fn scan(&mut self, data: &[u8], span: Span, depth: u32) -> Vec<Node> {
        let mut nodes = Vec::new();
        let mut pos = 0usize;
        while let Some(at) = find_magic(data, pos) {
            let rest = &data[at..];
            let sub = span.sub(at as u64, rest.len() as u64);
            let spaces_before = self.spaces.len();
            if depth + 1 > self.opts.max_depth {
                // A container found here would be past the depth limit: say so once, rather
                // than dropping it as an unreadable hit.
                nodes.push(too_deep(sub, self.opts.max_depth));
                break;
            }
            let found = self.region(rest, sub, depth + 1);
            let readable = !found.is_empty()
                && found.iter().all(|n| {
                    !n.diagnostics.iter().any(|d| d.severity == Severity::Error) && n.kind != NodeKind::Unknown
                });
            if !readable {
                self.spaces.truncate(spaces_before);
                pos = at + 1;
                continue;
            }
            let end = found.iter().map(|n| n.span.end()).max().unwrap_or(sub.offset + 1);
            for mut n in found {
                n.diag(Severity::Note, format!("found by scanning for magic numbers at byte {}", n.span.offset), None);
                nodes.push(n);
            }
            pos = (end.saturating_sub(span.offset) as usize).max(at + 1);
        }
        nodes
    }
}

/// Archives: every member's data is explored like a file of its own, one level deeper.
impl Explorer<'_, '_, '_> {
    /// An `ar` archive whose bytes are `input`, lying at `span`: its special members, then each
    /// member with its header fields and what its data holds.
    fn archive<'a>(&mut self, input: Window<'_, 'a>, span: Span, depth: u32) -> Node {
        let ar = match ar::read(input) {
            Ok(ar) => ar,
            Err(e) => return error_node(&e, span, "archive"),
        };
        let mut node = ar::to_node(&ar, span);
        if ar.thin {
            // The members' bytes are in other files, which are never read.
            return node;
        }
        let member_nodes = node.children.iter_mut().filter(|c| c.kind == NodeKind::ArchiveMember);
        for (child, member) in member_nodes.zip(&ar.members) {
            let data = span.sub(member.data_offset, member.size);
            self.archive_member(input.sub(member.data_offset, member.size), child, data, depth + 1);
        }
        node
    }

    /// What one member's data (`member`, lying at `span`) holds: an object file's offload
    /// sections, a bundle, compressed bundles, offload binaries, another archive, or an image.
    fn archive_member<'a>(&mut self, member: Window<'_, 'a>, node: &mut Node, span: Span, depth: u32) {
        if depth > self.opts.max_depth {
            node.children.push(too_deep(span, self.opts.max_depth));
            return;
        }
        let head = member.read_bytes_at(0, span.size.min(64)).unwrap_or(&[]);
        if host::is_host_file(head) {
            self.host_member(member, node, span, depth);
            return;
        }
        match member.read_bytes_at(0, span.size) {
            Ok(data) => node.children.extend(self.content(data, span, depth)),
            Err(()) => unreadable_member(node, span),
        }
    }

    /// An object file inside an archive. The host reader describes it as a file of its own: a
    /// root spanning the member's bytes from 0, in byte space 0. What it finds is then moved to
    /// where the member lies (`span`) and added to the member's node; spaces it opens
    /// (decompressed bundles) keep their own coordinates, their origins are moved too.
    fn host_member<'a>(&mut self, member: Window<'_, 'a>, node: &mut Node, span: Span, depth: u32) {
        let spaces = self.spaces.len();
        let mut alone = Node::new(NodeKind::File, node.label.clone(), Span::new(0, 0, span.size));
        self.host_file(member, &mut alone, depth);
        let place = |s: &mut Span| {
            if s.space == 0 {
                *s = span.sub(s.offset, s.size);
            }
        };
        move_spans(&mut alone, &place);
        self.spaces[spaces..].iter_mut().filter_map(|b| b.origin.as_mut()).for_each(place);
        node.fields.extend(alone.fields);
        node.diagnostics.extend(alone.diagnostics);
        node.children.extend(alone.children);
    }
}

/// Decodes the cubins and PTX of fatbin entries (kernels, resources) like any device image.
/// An image lies in `data` (at `span`) when stored plainly, or in the byte space its entry
/// was decompressed into; one whose bytes were not kept stays undescribed.
fn describe_nv_images(spaces: &[ByteSpace], node: &mut Node, data: &[u8], span: Span) {
    if node.kind != NodeKind::Image {
        for child in &mut node.children {
            describe_nv_images(spaces, child, data, span);
        }
        return;
    }
    let at = node.span;
    let (bytes, start) = if at.space == span.space {
        (data, at.offset.checked_sub(span.offset))
    } else {
        match spaces.get(at.space as usize).and_then(|s| s.data.as_deref()) {
            Some(bytes) => (bytes, Some(at.offset)),
            None => return,
        }
    };
    let image = start
        .and_then(|start| usize::try_from(start).ok())
        .and_then(|start| bytes.get(start..start.checked_add(usize::try_from(at.size).ok()?)?));
    let Some(described) = image.and_then(|image| image::describe(image, at)) else { return };
    // The fatbin's own label and findings stay; the decoder adds fields and kernels.
    let label = core::mem::take(&mut node.label);
    let diagnostics = core::mem::take(&mut node.diagnostics);
    *node = described;
    node.label = label;
    node.diagnostics.splice(0..0, diagnostics);
}

/// Applies `place` to every span of `node` and its descendants.
/// Whether an entry's bytes are a sequence of device images ([`sycl`]) rather than one: a
/// zstd frame first, or more than one SPIR-V module.
fn is_image_sequence(data: &[u8]) -> bool {
    if data.starts_with(&sycl::ZSTD_MAGIC) {
        return true;
    }
    data.starts_with(&sycl::SPIRV_MAGIC)
        && sycl::pieces(data).iter().filter(|p| p.kind != sycl::PieceKind::Padding).count() > 1
}

/// Decompresses one zstd frame to exactly its size, at most `limit` bytes. A frame that
/// declares no size is decoded twice, first only to count, so that a bomb fails before any
/// output is held and the output is never held twice while growing.
fn decompress_frame(bytes: &[u8], content_size: Option<u64>, limit: u64) -> crate::Result<Vec<u8>> {
    use crate::codec::{self, Method};
    let size = match content_size {
        Some(n) => n,
        None => codec::decompress_chunks(Method::Zstd, bytes, limit, &mut |_| {})?,
    };
    codec::decompress(Method::Zstd, bytes, size, limit)
}

fn move_spans(node: &mut Node, place: &dyn Fn(&mut Span)) {
    place(&mut node.span);
    node.fields.iter_mut().filter_map(|f| f.span.as_mut()).for_each(place);
    node.diagnostics.iter_mut().filter_map(|d| d.span.as_mut()).for_each(place);
    for child in &mut node.children {
        move_spans(child, place);
    }
}

fn too_deep(span: Span, max_depth: u32) -> Node {
    let mut n = Node::new(NodeKind::Unknown, "nested too deeply", span);
    n.diag(Severity::Error, format!("containers nested deeper than {max_depth} levels are not explored"), Some(span));
    n
}

/// Where a compressed bundle header keeps its uncompressed size, and its width.
fn uncompressed_size_field(version: u16) -> (u64, u64) {
    match version {
        1 => (8, 4),
        2 => (12, 4),
        _ => (16, 8),
    }
}

fn payload_span(header: &compressed::Header, span: Span) -> Span {
    span.sub(header.size(), span.size.saturating_sub(header.size()))
}

fn header_only_note(node: &mut Node, header: &compressed::Header) {
    node.diag(
        Severity::Note,
        format!(
            "hash not checked: only the bundle header of this {} bundle was decoded (list with --verify to check it)",
            human_size(header.uncompressed_size)
        ),
        None,
    );
}

/// Adds what each bundle entry's ID says (kind, triple, target ID) and its diagnostics.
fn annotate_entries(bundle: &mut Node) {
    for entry in &mut bundle.children {
        if let Some(Value::Text(id)) = entry.get("id").cloned() {
            ids::annotate_entry_id(entry, &id);
        }
    }
}

/// Why an offload entry's image kind does not fit the image its bytes are (`format`, as
/// [`image::identify`] names it), or `None` when it fits or cannot be told. LLVM's tools go by
/// the kind (the linker wrapper links an "object" and hands "bitcode" to LTO), so a kind set
/// wrong, by hand or in the page, breaks the link.
fn kind_mismatch(kind: ImageKind, format: &str) -> Option<String> {
    let fits: &[ImageKind] = match format {
        "LLVM bitcode" => &[ImageKind::BITCODE],
        "SPIR-V module" => &[ImageKind::SPIRV],
        "NVIDIA fatbin" => &[ImageKind::FATBINARY],
        "PTX" => &[ImageKind::PTX],
        "AMDGPU code object" | "CUDA cubin" | "ELF object" => &[ImageKind::OBJECT, ImageKind::CUBIN],
        _ => return None,
    };
    // Kind 0 says nothing, and kinds LLVM does not define are reported on their own.
    if kind == ImageKind::NONE || !kind.is_known() || fits.contains(&kind) {
        return None;
    }
    Some(format!(
        "image kind {} ({}) does not fit the image, which is {format}: LLVM's tools go by the kind",
        kind.name(),
        kind.0
    ))
}

/// Where the binary bundle after the one at the start of `data` (whose header is `header`)
/// starts: the first non-zero byte after its last entry, when a bundle's magic is there.
fn next_bundle(data: &[u8], header: &binary::Header) -> Option<usize> {
    let end = header.entries.iter().map(|e| e.offset.saturating_add(e.size)).max()?.max(header.size);
    let end = usize::try_from(end).ok()?;
    let next = end + data.get(end..)?.iter().position(|&b| b != 0)?;
    data[next..].starts_with(binary::MAGIC).then_some(next)
}

/// The first offset at or after `from` where a known container magic starts.
fn find_magic(data: &[u8], from: usize) -> Option<usize> {
    let magics: [&[u8]; 4] = [&offload_binary::MAGIC, binary::MAGIC, &compressed::MAGIC[..], &nv_fatbin::MAGIC];
    (from..data.len()).find(|&i| magics.iter().any(|m| data[i..].starts_with(m)))
}

/// A member whose bytes could not be read (its header promises more than the file holds).
fn unreadable_member(node: &mut Node, span: Span) {
    node.diag(Severity::Error, format!("the {} bytes of this member could not be read", span.size), Some(span));
}
