//! Exploring a file: read through a cache of slices of its `Blob` (only what the explorer
//! needs is read, however large the file), explored by the core, flattened into the page's
//! document; the tree and the file are kept for what the page asks next.

use crate::wire::doc::{self, DecodedKernels, Doc, FieldInfo, NodeId};
use crate::wire::messages::{CompanionFile, Loading, Report, Source};
use crate::wire::settings::Settings;
use crate::worker::edit::{read_whole_quietly, MAX_EDIT_SIZE};
use crate::worker::kept::{owned_reads, take_companions, Explored, SourceReader};
use crate::worker::outbox::report;
use crate::worker::scratch::{spill_hook, Scratch};
use object::read::ReadCache;
use offload::edit::NodePath;
use offload::explore::{explore_decompressing, explore_hooked, Companion, Hooks, Progress};
use offload::explore::{Options, Spill};
use offload::report::{kernels, runs_on, targets, targets::Target};
use offload::tree::{Node, NodeKind, Span, Tree};
use std::cell::RefCell;

/// Explores `file` here, alone, within the limits of `settings`, with the `companions` it refers
/// to (name and bytes), and returns the page's document, keeping in `kept` what later requests
/// need (see [`crate::worker::shares::explore_file`]); a package's large members are inflated
/// into `scratch`, if there is one, rather than memory.
pub(crate) fn explore_file_alone(
    name: &str,
    file: Source,
    companions: Vec<(String, Vec<u8>)>,
    settings: &Settings,
    kept: &RefCell<Option<Explored>>,
    scratch: Option<&Scratch>,
) -> Doc {
    let started = js_sys::Date::now();
    let found = RefCell::new(FoundSoFar { remote: matches!(file, Source::Remote(_)), ..FoundSoFar::default() });
    let options = explorer_options(settings, &file);
    let how = Exploring::Observed(
        &mut |p, m| found.borrow_mut().member(p, m),
        &mut |b| found.borrow_mut().bundle(b),
        scratch,
    );
    let explored = explore_to_keep(name, file, companions, settings, options, how);
    let size = explored.file.size();
    report(Report::Progress(Loading::at("preparing the views", size)));
    let doc = document(&explored.tree, &explored.options, &explored.file, size, started);
    *kept.borrow_mut() = Some(explored);
    doc
}

/// Explores `file` like [`explore_file_alone`] and keeps it, without a document for the page: the
/// new version an edit made (the editor worker sent the page its document).
pub(crate) fn keep_quietly(
    name: &str,
    file: Source,
    companions: Vec<(String, Vec<u8>)>,
    settings: &Settings,
    kept: &RefCell<Option<Explored>>,
) {
    let options = explorer_options(settings, &file);
    *kept.borrow_mut() = Some(explore_to_keep(name, file, companions, settings, options, Exploring::Plain));
}

/// The core's options for exploring `file` in this worker: the settings', and for a package
/// (a wheel, a tarball, a `.deb`), its decompressed members' bytes dropped once explored, so
/// that memory stays bounded by the largest member rather than by the package; what is shown
/// of them is found again on demand ([`Explored::read`]). Since memory is so bounded, every
/// image of a package is decoded (`verify_all`): the Kernels view counts every kernel without
/// being asked; the limits on decompressed sizes still hold. Their hashes are checked only when
/// the settings say to verify every compressed bundle (`check_hashes`): a ROCm framework's
/// library decompresses to gigabytes, whose MD5 took longer in a worker than decoding them.
/// A remote package's members named as text (`.py`, headers, records) are not read at all
/// (`skip_by_name`).
pub(crate) fn explorer_options(settings: &Settings, file: &Source) -> Options {
    let head = SourceReader::new(file.clone()).read_at(0, 4096).unwrap_or_default();
    let package = offload::format::package::detect(&head).is_some();
    let options = settings.options();
    Options {
        keep_bytes: !package,
        verify_all: options.verify_all || package,
        check_hashes: options.verify_all || !package,
        // Over a network every byte read is fetched: members named as text are listed without
        // being read, as the CLI lists them.
        skip_by_name: options.skip_by_name || matches!(file, Source::Remote(_)),
        ..options
    }
}

/// How [`explore_to_keep`] explores.
pub(crate) enum Exploring<'o> {
    /// Quietly.
    Plain,
    /// With the compressed bundle at this span decompressed, as the user asked.
    Decompressing(Span),
    /// Telling the first of each member of a package as it is explored, and the second of each
    /// bundle as soon as its images are described; large members inflated into the scratch
    /// file, if there is one.
    Observed(&'o mut dyn FnMut(&Progress, &Node), &'o mut dyn FnMut(&Node), Option<&'o Scratch>),
}

impl Exploring<'_> {
    /// What [`Explored::decompressed`] keeps.
    fn decompressed(&self) -> Option<Span> {
        match self {
            Exploring::Decompressing(span) => Some(*span),
            _ => None,
        }
    }
}

/// What the members of a package explored so far hold, reported to the page as they are
/// explored: no more often than [`FoundSoFar::EVERY_MS`], but at once when the first targets
/// are found, so that "which GPUs?" has a first answer long before a large wheel is read. The
/// bundles of a member are heard as they are described, before the member is done: a ROCm
/// framework's one large library answers after its first bundle, not after its last.
#[derive(Default)]
struct FoundSoFar {
    images: Vec<(Target, Option<String>)>,
    /// Where the images heard from the bundles of the member being explored are, so that the
    /// member's own report does not count them twice.
    heard: HeardImages,
    progress: Option<Progress>,
    last_report: f64,
    /// The file is remote: reports say how many bytes were fetched.
    remote: bool,
}

impl FoundSoFar {
    const EVERY_MS: f64 = 250.0;

    fn bundle(&mut self, bundle: &Node) {
        let first = self.images.is_empty();
        self.images.extend(self.heard.bundle(bundle));
        self.report_if(first, false);
    }

    fn member(&mut self, progress: &Progress, member: &Node) {
        let first = self.images.is_empty();
        self.images.extend(self.heard.member(member));
        self.progress = Some(*progress);
        self.report_if(first, progress.members_done == progress.members);
    }

    /// Reports what was found when the first targets were just found, at the end, or when the
    /// last report is old enough.
    fn report_if(&mut self, first: bool, last: bool) {
        let now = js_sys::Date::now();
        let first_found = first && !self.images.is_empty();
        if first_found || last || now - self.last_report >= Self::EVERY_MS {
            self.last_report = now;
            report(Report::Progress(Loading {
                stage: "reading and decompressing".into(),
                bytes_read: self.progress.map_or(0, |p| p.bytes_done),
                members: self.progress,
                found: Some(runs_on::summarize_found(&self.images)),
                fetched: self.remote.then(crate::worker::remote::fetched),
            }));
        }
    }
}

/// The images heard from the bundles of the member being explored ([`Hooks::found`]), by span:
/// once the member is done, its report leaves them out.
#[derive(Default)]
pub(crate) struct HeardImages(Vec<Span>);

impl HeardImages {
    /// The images of `bundle`, remembered.
    pub(crate) fn bundle(&mut self, bundle: &Node) -> Vec<(Target, Option<String>)> {
        let found = runs_on::found_under(bundle, "");
        self.0.extend(found.iter().map(|(t, _)| t.span));
        found
    }

    /// The images of `member` not heard from its bundles; forgets those heard.
    pub(crate) fn member(&mut self, member: &Node) -> Vec<(Target, Option<String>)> {
        let key = |s: &Span| (s.space, s.offset, s.size);
        let mut heard = std::mem::take(&mut self.0);
        heard.sort_unstable_by_key(key);
        let mut found = runs_on::found_under(member, "");
        found.retain(|(t, _)| heard.binary_search_by_key(&key(&t.span), key).is_err());
        found
    }
}

/// Explores `file` read by slices, with its companions, within `settings` (as `options`), with the compressed
/// bundle `how` names (if any) decompressed as the user asked: what is kept of it.
pub(crate) fn explore_to_keep(
    name: &str,
    file: Source,
    companions: Vec<(String, Vec<u8>)>,
    settings: &Settings,
    options: Options,
    how: Exploring<'_>,
) -> Explored {
    let cache = ReadCache::new(SourceReader::new(file.clone()));
    let joined = Companion::all(&companions);
    let decompressed = how.decompressed();
    let read = owned_reads(&file);
    let tree = match how {
        Exploring::Decompressing(span) => explore_decompressing(&cache, name, &options, &joined, span, &mut |_, _| {}),
        Exploring::Plain => {
            explore_hooked(&cache, name, &options, &joined, Hooks { read_owned: Some(&read), ..Hooks::default() })
        }
        Exploring::Observed(observer, found, scratch) => {
            let spill = Some(spill_hook(scratch));
            let spill = spill.as_ref().map(|s| s as Spill<'_>);
            let hooks = Hooks { observer: Some(observer), read_owned: Some(&read), spill, found: Some(found) };
            explore_hooked(&cache, name, &options, &joined, hooks)
        }
    };
    drop(joined);
    let mut explored = Explored::new(tree, file, name.to_string(), *settings, options);
    explored.companions = companions;
    explored.decompressed = decompressed;
    explored
}

/// The bytes of the companion files (`.kpack` archives) a tab's file was opened with: read
/// whole, since the explorer takes code objects out of them, within the size an edit may have.
pub(crate) fn read_companions(companions: &[CompanionFile]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let quiet = |_: u64, _: u64| {};
    companions
        .iter()
        .map(|c| {
            let size = c.file.size() as u64;
            if size > MAX_EDIT_SIZE {
                return Err(format!(
                    "{}: the archive is {size} bytes; archives opened with a file are read whole, at most {MAX_EDIT_SIZE} bytes (1 GiB): use the offload command-line tool (--kpack) for this one",
                    c.name
                ));
            }
            read_whole_quietly(&Source::Blob(c.file.clone()), &quiet)
                .map(|bytes| (c.name.clone(), bytes))
                .map_err(|e| format!("{}: {e}", c.name))
        })
        .collect()
}

/// Decompresses the compressed bundle at `node` (or around it: an entry listed from the
/// bundle's header) that was only listed, by exploring the current file again with that bundle
/// opened; reports its progress, and answers with the new document and the bundle's path.
pub(crate) fn decompress(kept: &RefCell<Option<Explored>>, node: &NodePath) -> Report {
    let started = js_sys::Date::now();
    let found = {
        let kept = kept.borrow();
        let Some(k) = kept.as_ref() else {
            return Report::Failed { message: "the file has not been explored yet".into() };
        };
        bundle_around(&k.tree, node).map(|(path, span)| (path, span, k.file.clone(), k.name.clone(), k.settings))
    };
    let Some((path, span, file, name, settings)) = found else {
        let message = "expected a compressed bundle at or above the selected node; found none".to_string();
        return Report::EditFailed { message, payload: None };
    };
    let cache = ReadCache::new(SourceReader::new(file.clone()));
    let mut last_report = 0.0;
    let mut progress = |done: u64, total: u64| {
        // A message per chunk would flood the page: about ten a second is smooth enough.
        let now = js_sys::Date::now();
        if now - last_report >= 100.0 || done == total {
            last_report = now;
            report(Report::Decompressing { done, total });
        }
    };
    let companions = take_companions(kept);
    let options = explorer_options(&settings, &file);
    let tree = explore_decompressing(&cache, &name, &options, &Companion::all(&companions), span, &mut progress);
    let doc = document(&tree, &options, &file, file.size(), started);
    let mut explored = Explored::new(tree, file, name, settings, options);
    explored.companions = companions;
    explored.decompressed = Some(span);
    *kept.borrow_mut() = Some(explored);
    Report::Decompressed { doc: Box::new(doc), node: path }
}

/// The kernels of every image of the kept file: the file explored again with every image
/// decompressed (`verify_all`) and each one's bytes dropped once described (`keep_bytes` off),
/// so that memory stays bounded by the largest member, not by the decompressed images (which a
/// large wheel holds gigabytes of); what is kept is not changed. Reports how far it has got.
pub(crate) fn decode_kernels(kept: &RefCell<Option<Explored>>) -> Result<DecodedKernels, String> {
    let (file, name, settings, companions) = {
        let kept = kept.borrow();
        let k = kept.as_ref().ok_or("the file has not been explored yet")?;
        (k.file.clone(), k.name.clone(), k.settings, k.companions.clone())
    };
    let cache = ReadCache::new(SourceReader::new(file.clone()));
    let options =
        Options { verify_all: true, keep_bytes: false, check_hashes: settings.verify_all, ..settings.options() };
    // Not the options it was kept with: nothing of this exploration is kept.
    let mut last_report = 0.0;
    let mut observer = |p: &Progress, _: &Node| {
        let now = js_sys::Date::now();
        if now - last_report >= FoundSoFar::EVERY_MS || p.members_done == p.members {
            last_report = now;
            report(Report::DecodingKernels(*p));
        }
    };
    let read = owned_reads(&file);
    let hooks = Hooks { observer: Some(&mut observer), read_owned: Some(&read), ..Hooks::default() };
    let tree = explore_hooked(&cache, &name, &options, &Companion::all(&companions), hooks);
    Ok(DecodedKernels {
        table: kernels::collect(&tree),
        undecoded_images: kernels::undecoded_images(&tree),
        images: targets::collect(&tree).len(),
    })
}

/// The path and span of the compressed bundle at `node` or nearest above it.
fn bundle_around(tree: &Tree, node: &[usize]) -> Option<(NodePath, Span)> {
    (0..=node.len()).rev().map(|n| &node[..n]).find_map(|path| {
        let found = tree.node_at(path)?;
        (found.kind == NodeKind::CompressedBundle).then(|| (path.to_vec(), found.span))
    })
}

/// Turns a new tree, explored with `options`, into the page's document, timed from `started`.
pub(crate) fn document(tree: &Tree, options: &Options, file: &Source, size: u64, started: f64) -> Doc {
    let blocks = FieldBlocks { fetch: false, ..FieldBlocks::new(file, size) };
    let mut doc = Doc::from_tree_lean(tree, &|span| raw_bytes(tree, &blocks, span));
    if matches!(file, Source::Remote(_)) {
        mark_raw_not_fetched(&mut doc);
    }
    if !options.keep_bytes {
        doc = doc.with_bytes_found_again(tree);
    }
    doc.explore_us = ((js_sys::Date::now() - started) * 1000.0) as u64;
    doc
}

/// Marks the nodes of a remote file's document that have a field whose raw bytes the workers
/// had not fetched as sent without all their fields: the page asks for them when such a node
/// is selected ([`node_fields`], one request then). Fetched while the document is made, they
/// were one blocking request per member not explored (its local header: the explorer reads
/// none of a member named as text), 289 round trips for a cupy wheel, 14 s on the loopback.
fn mark_raw_not_fetched(doc: &mut Doc) {
    let unfetched =
        |f: &FieldInfo| f.raw.is_none() && f.field.span.is_some_and(|s| s.space == 0 && s.size <= doc::RAW_FIELD_LIMIT);
    for node in &mut doc.nodes {
        if node.fields.iter().any(unfetched) {
            node.fields_elided = true;
        }
    }
}

/// Raw bytes of a small field: of the file by blocks, else held in the tree.
fn raw_bytes(tree: &Tree, blocks: &FieldBlocks, span: Span) -> Option<Vec<u8>> {
    if span.space == 0 {
        blocks.read(span)
    } else {
        tree.bytes(&[], span).map(<[u8]>::to_vec)
    }
}

/// Every field of node `node` of the document sent for the kept file, with their raw bytes as
/// the document has them: for a node sent without them ([`NodeInfo::fields_elided`]).
///
/// [`NodeInfo::fields_elided`]: crate::wire::doc::NodeInfo::fields_elided
pub(crate) fn node_fields(kept: &RefCell<Option<Explored>>, node: NodeId) -> Result<Vec<FieldInfo>, String> {
    let kept = kept.borrow();
    let kept = kept.as_ref().ok_or("the file has not been explored")?;
    let blocks = FieldBlocks::new(&kept.file, kept.file.size());
    doc::node_fields(&kept.tree, node, &|span| raw_bytes(&kept.tree, &blocks, span))
        .ok_or_else(|| format!("the explored file has no node {node}"))
}

/// The file's bytes for small fields, read a block at a time: the fields of one node lie
/// together, those of a package's members one member after the other, and each read of the
/// file is a synchronous `Blob` read that costs far more than the copy (a wheel's 13,000
/// members have some 100,000 such fields). A few blocks are held, the oldest let go first: a
/// zip member's fields lie both in its local header and in the central directory, and one
/// block alone was read again for every member (a 1,000-member wheel read 2 GiB). Read past
/// the exploration's cache, which would keep every block.
struct FieldBlocks {
    reader: SourceReader,
    size: u64,
    /// Whether a remote file's bytes not held by its worker's cache are fetched (else the field
    /// goes without them).
    fetch: bool,
    /// The blocks held, most recently read last: offset and bytes.
    held: RefCell<Vec<(u64, Vec<u8>)>>,
}

impl FieldBlocks {
    const BLOCK: u64 = 1 << 20;
    const HELD: usize = 4;

    fn new(file: &Source, size: u64) -> FieldBlocks {
        FieldBlocks { reader: SourceReader::new(file.clone()), size, fetch: true, held: RefCell::new(Vec::new()) }
    }

    fn read(&self, span: Span) -> Option<Vec<u8>> {
        // A remote file's cache serves small reads itself; a block around them would fetch
        // bytes the explorer never reads.
        if let Some(remote) = self.reader.remote() {
            return match self.fetch {
                true => self.reader.read_at(span.offset, span.size).ok(),
                false => crate::worker::remote::held(remote, span.offset, span.size),
            };
        }
        let start = span.offset - span.offset % Self::BLOCK;
        let end = span.offset.checked_add(span.size)?;
        if end > start.saturating_add(Self::BLOCK) {
            // Across a block boundary: read as it is.
            return self.reader.read_at(span.offset, span.size).ok();
        }
        let mut held = self.held.borrow_mut();
        if !held.iter().any(|(at, _)| *at == start) {
            let len = Self::BLOCK.min(self.size.saturating_sub(start));
            let bytes = self.reader.read_at(start, len).ok()?;
            if held.len() == Self::HELD {
                held.remove(0);
            }
            held.push((start, bytes));
        }
        let (_, block) = held.iter().find(|(at, _)| *at == start)?;
        block.get((span.offset - start) as usize..(end - start) as usize).map(<[u8]>::to_vec)
    }
}
