//! The documents the reading commands print with `--json`, for a file on disk or bytes in
//! memory: what the Python module returns (`offload.list`, `offload.kernels`, ...). Each
//! function reads the way its command does (the same explorer options, the same kpack
//! companions next to a file on disk), so a document is the command's, key for key.

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, read_all, shown};
use crate::kpack::KpackArgs;
use offload::explore::{self, Options};
use offload::report::{diff as diff_report, sizes as sizes_report, targets};
use offload::tree::Tree;
use offload::util::window::Window;
use serde_json::Value;
use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What to read: a file (or an `http(s)://` URL), bytes already in memory, or a reader that
/// seeks (a Python file object), named as the caller says.
pub enum Source {
    Path(PathBuf),
    Bytes { name: String, bytes: Vec<u8> },
    Reader { name: String, reader: SharedReader },
}

/// Something read by seeking and reading (a Python file object, an fsspec file on object
/// storage): only what the explorer asks for is read, never the whole unless a command needs
/// it (`diff`, `sizes --drop`).
pub trait SeekRead: Read + Seek + Send {}
impl<T: Read + Seek + Send> SeekRead for T {}

/// A [`SeekRead`] behind a lock, so that a [`Source`] can be read from by reference.
#[derive(Clone)]
pub struct SharedReader(Arc<Mutex<Box<dyn SeekRead>>>);

impl SharedReader {
    pub fn new(reader: Box<dyn SeekRead>) -> SharedReader {
        SharedReader(Arc::new(Mutex::new(reader)))
    }

    /// The `size` bytes at `offset`, or `None` when they cannot all be read.
    fn read_at(&self, offset: u64, size: u64) -> Option<Vec<u8>> {
        let mut bytes = vec![0; usize::try_from(size).ok()?];
        self.with(|r| {
            r.seek(SeekFrom::Start(offset))?;
            r.read_exact(&mut bytes)
        })
        .ok()?;
        Some(bytes)
    }

    fn with<T>(&self, work: impl FnOnce(&mut dyn SeekRead) -> std::io::Result<T>) -> std::io::Result<T> {
        let mut reader = self.0.lock().map_err(|_| std::io::Error::other("a thread reading the file failed"))?;
        work(&mut **reader)
    }
}

impl Read for SharedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.with(|r| r.read(buf))
    }
}

impl Seek for SharedReader {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.with(|r| r.seek(pos))
    }
}

/// A command's document, and the failure the command would end with after printing it (a
/// file that did not read completely: the document holds everything that could be read).
pub struct Answer {
    pub document: Value,
    pub failure: Option<Failure>,
}

impl Source {
    /// The file as the commands show it (`file` in their documents).
    pub fn shown(&self) -> String {
        match self {
            Source::Path(p) => shown(p),
            Source::Bytes { name, .. } | Source::Reader { name, .. } => name.clone(),
        }
    }

    /// The name of the tree's root: the file's name without its directory (bytes read from
    /// a Python file object are named by its path, and named in the tree as that file is).
    fn name(&self) -> String {
        let path = match self {
            Source::Path(p) => p.as_path(),
            Source::Bytes { name, .. } | Source::Reader { name, .. } => std::path::Path::new(name),
        };
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| self.shown())
    }

    /// Explores the source: a file is read lazily, with the kpack archives found next to it
    /// (as the commands do); bytes have no neighbours, so no companions.
    pub fn explore(&self, options: &Options) -> Outcome<Tree> {
        self.explore_then(options, |_, _, _| ()).map(|(tree, ())| tree)
    }

    /// Explores the source like [`Source::explore`], then reads more of the same input with
    /// `then` (its bytes, its name, the tree): read once, fetched once when it is a URL.
    pub fn explore_then<T>(
        &self,
        options: &Options,
        then: impl for<'s, 'a> FnOnce(Window<'s, 'a>, &str, &Tree) -> T,
    ) -> Outcome<(Tree, T)> {
        let name = self.name();
        match self {
            Source::Path(p) => {
                let file = open_lazy(p)?;
                let tree = crate::kpack::explore(p, &file, &name, options, &KpackArgs::default())?;
                let after = then(Window::whole(&&file), &name, &tree);
                Ok((tree, after))
            }
            Source::Bytes { bytes, .. } => {
                let tree = explore::explore(&bytes[..], &name, options);
                let after = then(Window::whole(&&bytes[..]), &name, &tree);
                Ok((tree, after))
            }
            Source::Reader { reader, .. } => {
                // Every byte read may be fetched from far away (an fsspec file on object
                // storage): members named as text are not read, and a package's deflated
                // members are read a piece at a time rather than kept by the cache.
                let cache = object::ReadCache::new(reader.clone());
                let read = |offset: u64, size: u64| reader.read_at(offset, size);
                let hooks = explore::Hooks {
                    read_owned: Some(&read),
                    spill: Some(&crate::io::spill_to_temporary_file),
                    ..explore::Hooks::default()
                };
                let options = Options { skip_by_name: true, ..options.clone() };
                let tree = explore::explore_hooked(&cache, &name, &options, &[], hooks);
                let after = then(Window::whole(&&cache), &name, &tree);
                Ok((tree, after))
            }
        }
    }

    /// The whole input.
    fn bytes(&self) -> Outcome<Cow<'_, [u8]>> {
        match self {
            Source::Path(p) => read_all(p).map(Cow::Owned),
            Source::Bytes { bytes, .. } => Ok(Cow::Borrowed(bytes)),
            Source::Reader { reader, name } => {
                let mut bytes = Vec::new();
                let mut reader = reader.clone();
                reader
                    .seek(SeekFrom::Start(0))
                    .and_then(|_| reader.read_to_end(&mut bytes))
                    .map_err(|e| Failure::new(format!("{name}: cannot read: {e}")))?;
                Ok(Cow::Owned(bytes))
            }
        }
    }

    fn answer(&self, document: Value, tree: &Tree) -> Answer {
        Answer { document, failure: Failure::in_tree(&self.shown(), tree) }
    }
}

/// Options of `check`, which needs every image and checks bundle hashes: every compressed
/// container decompressed, nothing kept once read.
fn every_image() -> Options {
    Options { verify_all: true, keep_bytes: false, ..Options::default() }
}

/// `offload list --json`, with the `variant` a variant wheel declares.
pub fn list(source: &Source) -> Outcome<Answer> {
    let options = Options { keep_bytes: false, ..Options::default() };
    let (tree, declared) = source.explore_then(&options, |input, name, tree| {
        crate::list::variant::declared(input, name, &targets::collect(tree))
    })?;
    let mut document = crate::list::document(&source.shown(), &tree, &targets::collect(&tree))?;
    match declared {
        Some(Ok(d)) => document["variant"] = d.json(),
        Some(Err(why)) => eprintln!("offload: note: {}: {why}", source.shown()),
        None => {}
    }
    Ok(source.answer(document, &tree))
}

/// The `targets` of `offload list --json`: one object per device image.
pub fn targets(source: &Source) -> Outcome<Answer> {
    let tree = source.explore(&Options { keep_bytes: false, ..Options::default() })?;
    let found = targets::collect(&tree);
    let document = serde_json::to_value(found.iter().map(crate::json::JsonTarget).collect::<Vec<_>>())
        .map_err(|e| Failure::new(e.to_string()))?;
    Ok(source.answer(document, &tree))
}

/// `offload kernels --json [--target T ...]`.
pub fn kernels(source: &Source, only: &[String]) -> Outcome<Answer> {
    let tree = source.explore(&Options::default().for_reports())?;
    let table = crate::kernels::table(&source.shown(), &tree, only)?;
    Ok(source.answer(crate::kernels::document(&source.shown(), &table), &tree))
}

/// `offload fit --json --gpu G ...`.
pub fn fit(source: &Source, gpus: &[String]) -> Outcome<Answer> {
    if gpus.is_empty() {
        return Err(Failure::new("--gpu: expected at least one GPU (gfx1201, gfx90a:xnack+, sm_89), found none"));
    }
    let tree = source.explore(&Options::default().for_reports())?;
    let fits = crate::fit::fits(&tree, gpus)?;
    Ok(source.answer(crate::fit::document(&source.shown(), &fits), &tree))
}

/// `offload check --json PATH --require ... [limits] [--baseline FILE]`: the checks of one
/// source; `policy` is a policy file's TOML text (empty for none), flags override it. The
/// answer's failure is set when the file does not read completely or the policy is wrong.
pub fn check(
    source: &Source,
    policy: &str,
    require: &[String],
    limits: CheckLimits,
    baseline: Option<&str>,
) -> Outcome<Answer> {
    use offload::report::check::{self as gate, baseline::Baseline, policy::Policy, Judge};
    let mut parsed: Policy = toml::from_str(policy).map_err(|e| Failure::new(format!("policy: {e}")))?;
    if !require.is_empty() {
        parsed.require = require.to_vec();
    }
    let problems = parsed.problems();
    if !problems.is_empty() {
        return Err(Failure::new(format!("policy: {}", problems.join("; "))));
    }
    let old: Option<Baseline> = baseline
        .map(|text| serde_json::from_str(text).map_err(|e| Failure::new(format!("baseline: {e}"))))
        .transpose()?;
    let tree = source.explore(&every_image())?;
    let judge =
        Judge { policy: &parsed, flags: &limits, baseline: old.as_ref().and_then(|b| b.for_file(&source.name())) };
    let (checked, recorded) = gate::check(&tree, &source.shown(), &source.name(), &judge)
        .map_err(|e| Failure::new(format!("require: {e}")))?;
    let mut document = crate::check::document(std::slice::from_ref(&checked));
    document["baseline"] = serde_json::to_value(Baseline { version: gate::baseline::VERSION, files: vec![recorded] })
        .map_err(|e| Failure::new(e.to_string()))?;
    Ok(source.answer(document, &tree))
}

/// The limits `check` takes as flags.
pub type CheckLimits = offload::report::check::policy::Limits;

/// `offload sizes --json [--drop T ...]` (never written anywhere: no `-o`).
pub fn sizes(source: &Source, drop: &[String]) -> Outcome<Answer> {
    let tree = source.explore(&Options { keep_bytes: false, ..Options::default() })?;
    let measured = sizes_report::sizes(&tree);
    let mut document = if drop.is_empty() {
        crate::sizes::document(&source.shown(), &measured, None)
    } else {
        let (bytes, name) = (source.bytes()?, source.name());
        let dropped = crate::sizes::drop_from(&source.shown(), &bytes, &name, drop, &Options::default())?;
        let after = crate::sizes::device_stored(&dropped.bytes, &name, &Options::default());
        crate::sizes::document(&source.shown(), &measured, Some((&dropped, after, drop, None)))
    };
    document["identical"] = crate::sizes::Advice::of(&tree).json();
    Ok(source.answer(document, &tree))
}

/// `offload diff --json OLD NEW`; the failure names the first file that did not read completely.
pub fn diff(old: &Source, new: &Source) -> Outcome<Answer> {
    // Images are compared byte for byte: every compressed container is decompressed, as `diff` does.
    let options = Options { verify_all: true, ..Options::default() };
    let (old_bytes, new_bytes) = (old.bytes()?, new.bytes()?);
    let old_tree = explore::explore(&old_bytes[..], &old.name(), &options);
    let new_tree = explore::explore(&new_bytes[..], &new.name(), &options);
    let d = diff_report::diff(&old_bytes, &old_tree, &new_bytes, &new_tree);
    let document = crate::diff::document(&old.shown(), &new.shown(), &d);
    let failure = Failure::in_tree(&old.shown(), &old_tree).or_else(|| Failure::in_tree(&new.shown(), &new_tree));
    Ok(Answer { document, failure })
}
