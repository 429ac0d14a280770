//! `offload bundle` and `offload unbundle`: clang-offload-bundler's options and meanings.
//! Without compression the output is byte-identical to clang-offload-bundler 22.

use crate::fail::{Failure, InFile, Outcome};
use crate::io::{read_all, write_atomic};
use crate::verify::{self, Written};
use clap::Args;
use offload::codec::Method;
use offload::format::bundle::binary::{self, Bundle};
use offload::format::bundle::compressed;
use offload::format::bundle::object::{self as bundled_object, EntryData};
use offload::format::bundle::text::{self, TextBundle};
use offload::ids::{self, EntryId};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Default)]
pub struct BundlerArgs {
    /// File type: i, ii, cui, hipi, d, ll, s (text) or bc, o, gch, ast (binary).
    #[arg(long = "type", value_name = "TYPE")]
    pub file_type: String,
    /// Entry IDs, `<offload kind>-<triple>[-<target id>]`, comma separated or repeated.
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    /// An input file (repeat for several).
    #[arg(long)]
    pub input: Vec<PathBuf>,
    /// Input files, comma separated (deprecated in clang-offload-bundler).
    #[arg(long, value_delimiter = ',')]
    pub inputs: Vec<PathBuf>,
    /// An output file (repeat for several).
    #[arg(long)]
    pub output: Vec<PathBuf>,
    /// Output files, comma separated (deprecated in clang-offload-bundler).
    #[arg(long, value_delimiter = ',')]
    pub outputs: Vec<PathBuf>,
    /// Alignment of each entry in binary bundles.
    #[arg(long, default_value_t = 1)]
    pub bundle_align: u64,
    /// Compress the bundle (also when OFFLOAD_BUNDLER_COMPRESS=1).
    #[arg(long)]
    pub compress: bool,
    /// Compression level (also OFFLOAD_BUNDLER_COMPRESSION_LEVEL).
    #[arg(long)]
    pub compression_level: Option<i32>,
    /// Compression method, zstd (default, as LLVM with zstd) or zlib. Not in clang-offload-bundler.
    #[arg(long, default_value = "zstd")]
    pub compression_method: String,
    /// Write an empty file for a target that has no bundle instead of failing.
    #[arg(long)]
    pub allow_missing_bundles: bool,
    /// List the entry IDs of the input.
    #[arg(long)]
    pub list: bool,
    /// Unbundle (for `offload bundle --unbundle`, as clang-offload-bundler spells it).
    #[arg(long)]
    pub unbundle: bool,
    /// Treat hip and hipv4 offload kinds as compatible with openmp when unbundling.
    #[arg(long)]
    pub hip_openmp_compatible: bool,
    /// Largest decompressed size accepted for one compressed bundle, in bytes (default 4 GiB).
    /// Not in clang-offload-bundler, which has no limit.
    #[arg(long)]
    pub max_decompressed: Option<u64>,
    /// With --type=a: check every member's entries against the composition rules first, and
    /// fail listing every rule broken, with its member.
    #[arg(long)]
    pub check_input_archive: bool,
    /// Print what is done on standard error.
    #[arg(long)]
    pub verbose: bool,
}

impl BundlerArgs {
    /// `--max-decompressed`, or the explorer's default.
    pub fn decompress_limit(&self) -> u64 {
        self.max_decompressed.unwrap_or(offload::explore::Options::default().max_decompressed)
    }

    pub fn inputs(&self) -> Vec<&Path> {
        self.input.iter().chain(&self.inputs).map(PathBuf::as_path).collect()
    }
    pub fn outputs(&self) -> Vec<&Path> {
        self.output.iter().chain(&self.outputs).map(PathBuf::as_path).collect()
    }
}

const BINARY_TYPES: &[&str] = &["bc", "o", "a", "gch", "ast"];

fn check_type(t: &str) -> Outcome<()> {
    if BINARY_TYPES.contains(&t) || text::comment_for_type(t).is_some() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "'{t}': invalid file type specified (expected one of i, ii, cui, hipi, d, ll, s, bc, o, a, gch, ast)"
        )))
    }
}

fn env_flag(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|_| std::env::var("OFFLOAD_BUNDLER_IGNORE_ENV_VAR").as_deref() != Ok("1"))
}

/// The entry IDs as the bundler writes them. Refused exactly when clang-offload-bundler 22
/// refuses them (same message); rules it does not check are reported as warnings.
fn standardized_targets(targets: &[String]) -> Outcome<Vec<String>> {
    let raw: Vec<&str> = targets.iter().map(String::as_str).collect();
    if let Some(message) = ids::bundler_error(&raw) {
        return Err(Failure::new(message));
    }
    let out = targets
        .iter()
        .map(|t| {
            EntryId::parse(t).map(|e| e.standardized()).map_err(|e| Failure::new(format!("invalid target '{t}': {e}")))
        })
        .collect::<Outcome<Vec<String>>>()?;
    let ids: Vec<&str> = out.iter().map(String::as_str).collect();
    for v in ids::check_composition(&ids).into_iter().filter(|v| !v.rejected_by_bundler) {
        eprintln!("offload: warning: {v}");
    }
    Ok(out)
}

pub fn run_bundle(a: &BundlerArgs) -> Outcome<()> {
    if a.unbundle || a.list {
        return run_unbundle(a);
    }
    check_type(&a.file_type)?;
    let inputs = a.inputs();
    let outputs = a.outputs();
    if outputs.len() != 1 {
        return Err(Failure::new(format!("only one output file supported in bundling mode, got {}", outputs.len())));
    }
    if inputs.len() != a.targets.len() {
        return Err(Failure::new(format!(
            "number of input files and targets should match in bundling mode: {} inputs, {} targets",
            inputs.len(),
            a.targets.len()
        )));
    }
    if a.file_type == "a" {
        return Err(Failure::new("type 'a' (archives) can only be unbundled"));
    }
    let ids = standardized_targets(&a.targets)?;
    if let Some(sizes) = streamable_sizes(a, &ids, &inputs)? {
        return bundle_streamed(a, &ids, &inputs, &sizes, outputs[0]);
    }
    let contents: Vec<Vec<u8>> = inputs.iter().map(|p| read_all(p)).collect::<Outcome<_>>()?;
    if a.file_type == "o" {
        if let Some(host) = object_host(&ids, &contents) {
            return bundle_object(a, &ids, &inputs, &contents, host, outputs[0]);
        }
    }
    let entries: Vec<(String, Cow<[u8]>)> =
        ids.iter().cloned().zip(contents.iter().map(|c| Cow::Borrowed(c.as_slice()))).collect();
    let comment = text::comment_for_type(&a.file_type);
    let bytes = match comment {
        Some(comment) => TextBundle::new(comment, entries).write(),
        None => Bundle::new(entries, a.bundle_align)
            .and_then(|b| b.write())
            .map_err(|e| Failure::new(format!("cannot lay out the bundle: {e}")))?,
    };
    match comment {
        Some(comment) => verify::reads_back(&bytes, Written::TextBundle(comment, &ids))?,
        None => verify::reads_back(&bytes, Written::Bundle(&ids))?,
    }
    let bytes = if compress_requested(a) {
        let packed = compress_bundle(a, &bytes)?;
        verify::reads_back(&packed, Written::Compressed(&bytes))?;
        packed
    } else {
        bytes
    };
    write_atomic(outputs[0], &bytes)
}

fn compress_requested(a: &BundlerArgs) -> bool {
    a.compress || env_flag("OFFLOAD_BUNDLER_COMPRESS").as_deref() == Some("1")
}

/// The inputs' sizes when the bundle can be written without holding it: a binary bundle,
/// uncompressed (compressing needs the whole bundle), not a bundled object (whose host object
/// is rewritten), every input a regular file. `None` otherwise.
fn streamable_sizes(a: &BundlerArgs, ids: &[String], inputs: &[&Path]) -> Outcome<Option<Vec<u64>>> {
    if text::comment_for_type(&a.file_type).is_some() || compress_requested(a) {
        return Ok(None);
    }
    let mut sizes = Vec::with_capacity(inputs.len());
    for (id, path) in ids.iter().zip(inputs) {
        let Some(size) = crate::io::input_size(path)? else { return Ok(None) };
        // Only a host input that is an object makes a bundled object; host inputs are small,
        // and only they are read to tell.
        let host = EntryId::parse(id).map(|e| e.is_host()).unwrap_or(false);
        if a.file_type == "o" && host && offload::format::host::is_host_file(&read_all(path)?) {
            return Ok(None);
        }
        sizes.push(size);
    }
    Ok(Some(sizes))
}

/// Writes a binary bundle as clang-offload-bundler 22 does (byte-identical to [`Bundle::write`]),
/// without holding it: the header, then each input's bytes copied into place by the kernel
/// (`copy_file_range` through `std::io::copy`), with zero bytes for the alignment between them,
/// into a temporary file renamed to `output` once complete.
fn bundle_streamed(a: &BundlerArgs, ids: &[String], inputs: &[&Path], sizes: &[u64], output: &Path) -> Outcome<()> {
    let entries: Vec<(&str, u64)> = ids.iter().map(String::as_str).zip(sizes.iter().copied()).collect();
    let layout = binary::layout(&entries, a.bundle_align)
        .map_err(|e| Failure::new(format!("cannot lay out the bundle: {e}")))?;
    verify::layout_reads_back(&layout, ids, sizes)?;
    let mut out = crate::io::AtomicFile::create(output)?;
    out.write(&layout.header)?;
    let mut pos = layout.header.len() as u64;
    for ((path, &offset), &size) in inputs.iter().zip(&layout.offsets).zip(sizes) {
        write_zeros(&mut out, offset - pos)?;
        copy_input(&mut out, path, size)?;
        pos = offset + size;
    }
    write_zeros(&mut out, layout.size - pos)?;
    out.commit()
}

/// Appends `n` zero bytes: the padding that aligns the next entry.
fn write_zeros(out: &mut crate::io::AtomicFile, mut n: u64) -> Outcome<()> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while n > 0 {
        let step = n.min(ZEROS.len() as u64);
        out.write(&ZEROS[..step as usize])?;
        n -= step;
    }
    Ok(())
}

/// Appends the `size` bytes of the input at `path`, refusing an input whose size changed since
/// the layout was made (the header would lie).
fn copy_input(out: &mut crate::io::AtomicFile, path: &Path, size: u64) -> Outcome<()> {
    use std::io::Read;
    let input = crate::io::open_input(path)?;
    let shown = out.path().to_path_buf();
    let file =
        out.file().ok_or_else(|| Failure::new(format!("{}: cannot write: already committed", shown.display())))?;
    let copied = std::io::copy(&mut input.take(size), file).map_err(|e| Failure::io(&shown, "write", e))?;
    if copied != size {
        return Err(Failure::new(format!(
            "{}: expected {size} bytes (its size when the bundle was laid out), found {copied}: the file changed while it was read; nothing written",
            path.display()
        )));
    }
    Ok(())
}

/// The position of the host input when it is an object file: clang-offload-bundler then makes a
/// bundled object (the host object plus one section per entry) instead of a binary bundle.
fn object_host(ids: &[String], contents: &[Vec<u8>]) -> Option<usize> {
    ids.iter().zip(contents).position(|(id, bytes)| {
        EntryId::parse(id).map(|e| e.is_host()).unwrap_or(false) && offload::format::host::is_host_file(bytes)
    })
}

/// Writes a bundled object, byte-identical to clang-offload-bundler 22's.
fn bundle_object(
    a: &BundlerArgs,
    ids: &[String],
    inputs: &[&Path],
    contents: &[Vec<u8>],
    host: usize,
    output: &Path,
) -> Outcome<()> {
    if a.compress || env_flag("OFFLOAD_BUNDLER_COMPRESS").as_deref() == Some("1") {
        eprintln!("offload: note: --compress does not apply to a bundled object: its entry sections are written uncompressed, as clang-offload-bundler 22 writes them");
    }
    let entries: Vec<(&str, EntryData)> = ids
        .iter()
        .zip(contents)
        .enumerate()
        .map(|(i, (id, bytes))| (id.as_str(), if i == host { EntryData::Host } else { EntryData::Device(bytes) }))
        .collect();
    let bytes = bundled_object::write(&contents[host], &entries).map_err(|e| {
        Failure::new(format!("{}: cannot make a bundled object from this host object: {e}", inputs[host].display()))
    })?;
    verify::reads_back(&bytes, Written::BundledObject(ids))?;
    write_atomic(output, &bytes)
}

fn compress_bundle(a: &BundlerArgs, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let method = Method::from_name(&a.compression_method).ok_or_else(|| {
        Failure::new(format!("unknown compression method '{}' (expected zstd or zlib)", a.compression_method))
    })?;
    let level =
        a.compression_level.or_else(|| env_flag("OFFLOAD_BUNDLER_COMPRESSION_LEVEL").and_then(|l| l.parse().ok()));
    // As clang-offload-bundler 22: version 3 unless COMPRESSED_BUNDLE_FORMAT_VERSION says 2.
    let version = match env_flag("COMPRESSED_BUNDLE_FORMAT_VERSION").map(|v| v.parse::<u16>()) {
        Some(Ok(v @ 2..=3)) => v,
        Some(_) => {
            eprintln!(
                "offload: warning: COMPRESSED_BUNDLE_FORMAT_VERSION must be 2 or 3; using {}",
                compressed::DEFAULT_VERSION
            );
            compressed::DEFAULT_VERSION
        }
        None => compressed::DEFAULT_VERSION,
    };
    compressed::compress(bytes, method, level, version).map_err(|e| Failure::new(format!("cannot compress: {e}")))
}

/// A bundle read for unbundling or listing, decompressed if it was compressed.
enum Parsed<'a> {
    Binary(Bundle<'a>),
    Text(TextBundle<'a>),
    /// A bundled object: entries are sections, in section order.
    Object(Vec<bundled_object::Entry<'a>>),
    /// Not a bundle at all: the bundler then treats the whole input as the host entry.
    NotBundled,
}

impl Parsed<'_> {
    fn ids(&self) -> Vec<&str> {
        match self {
            Parsed::Binary(b) => b.entries.iter().map(|e| e.id.as_str()).collect(),
            Parsed::Text(t) => t.entries.iter().map(|e| e.id.as_str()).collect(),
            Parsed::Object(entries) => entries.iter().map(|e| e.id.as_str()).collect(),
            Parsed::NotBundled => Vec::new(),
        }
    }
    fn data(&self, id: &str) -> Option<&[u8]> {
        match self {
            Parsed::Binary(b) => b.entry(id).map(|e| e.data.as_ref()),
            Parsed::Text(t) => t.entry(id).map(|e| e.data.as_ref()),
            Parsed::Object(entries) => entries.iter().find(|e| e.id == id).map(|e| e.data),
            Parsed::NotBundled => None,
        }
    }
}

fn parse_input<'a>(path: &Path, file_type: &str, data: &'a [u8]) -> Outcome<Parsed<'a>> {
    if let Some(comment) = text::comment_for_type(file_type) {
        if text::detect_comment(data).is_none() {
            return Ok(Parsed::NotBundled);
        }
        return TextBundle::parse(data, comment).map(|(b, _)| Parsed::Text(b)).in_file(path);
    }
    if binary::is_bundle(data) {
        return Bundle::parse(data).map(Parsed::Binary).in_file(path);
    }
    if offload::format::archive::ar::is_archive(data) {
        return Err(Failure::new(format!(
            "{}: is an archive; unbundle it with --type=a (one device-specific archive per target); nothing written",
            path.display()
        )));
    }
    if file_type == "o" && offload::format::host::is_host_file(data) {
        // An object without bundle sections is, for the bundler, the host entry itself.
        let entries = bundled_object::entries(data).in_file(path)?;
        return Ok(if entries.is_empty() { Parsed::NotBundled } else { Parsed::Object(entries) });
    }
    Ok(Parsed::NotBundled)
}

/// The bytes unbundled for entry `id`. In a bundled object the host entry's section holds only a
/// placeholder byte and the host code is the object itself: what is unbundled is the object
/// without its bundle sections, as clang-offload-bundler does.
fn entry_bytes(path: &Path, data: &[u8], parsed: &Parsed, id: &str) -> Outcome<Vec<u8>> {
    let bytes = parsed.data(id).unwrap_or(&[]);
    if matches!(parsed, Parsed::Object(_)) && bundled_object::is_host_placeholder(bytes) {
        return bundled_object::host_object(data).map_err(|e| {
            Failure::new(format!("{}: cannot take the host object out of this bundled object: {e}", path.display()))
        });
    }
    Ok(bytes.to_vec())
}

pub fn run_unbundle(a: &BundlerArgs) -> Outcome<()> {
    check_type(&a.file_type)?;
    let inputs = a.inputs();
    if inputs.len() != 1 {
        return Err(Failure::new(format!(
            "only one input file supported for unbundling or listing, got {}",
            inputs.len()
        )));
    }
    let path = inputs[0];
    match crate::codec::open_input(path)? {
        crate::codec::Input::Compressed(single) => crate::stream_unbundle::run(a, path, single),
        crate::codec::Input::Other(raw) => unbundle_whole(a, path, &raw),
    }
}

/// Whether `--type` names a binary layout (as opposed to a text one).
pub fn is_binary_type(file_type: &str) -> bool {
    text::comment_for_type(file_type).is_none()
}

/// Lists or unbundles `data`, a whole (uncompressed) input.
pub fn unbundle_whole(a: &BundlerArgs, path: &Path, data: &[u8]) -> Outcome<()> {
    let parsed = parse_input(path, &a.file_type, data)?;
    let ids = parsed.ids();
    if a.list {
        print_ids(&ids);
        return Ok(());
    }
    let plan = plan(a, path, &ids, matches!(parsed, Parsed::NotBundled))?;
    let mut results = Vec::with_capacity(plan.len());
    for (out, source) in plan {
        let bytes = match source {
            Source::Entry(id) => entry_bytes(path, data, &parsed, id)?,
            Source::WholeInput => data.to_vec(),
            Source::Empty => Vec::new(),
        };
        results.push((out, bytes));
    }
    for (out, bytes) in results {
        write_atomic(out, &bytes)?;
        if a.verbose {
            eprintln!("wrote {} ({} bytes)", out.display(), bytes.len());
        }
    }
    Ok(())
}

/// `--list`'s output: one entry ID a line.
pub fn print_ids(ids: &[&str]) {
    for id in ids {
        println!("{id}");
    }
}

/// What one output of an unbundling receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'i> {
    /// The bytes of the first entry with this ID.
    Entry(&'i str),
    /// The whole input: a host target asked of an input that holds no bundle.
    WholeInput,
    /// Nothing (`--allow-missing-bundles` and no such entry).
    Empty,
}

/// Which output receives what, for an input whose entries have the IDs `ids` (none when
/// `not_bundled`). Refused as clang-offload-bundler 22 refuses: output and target counts that
/// differ, a target that does not parse, targets missing without `--allow-missing-bundles`.
pub fn plan<'a, 'i>(
    a: &'a BundlerArgs,
    path: &Path,
    ids: &[&'i str],
    not_bundled: bool,
) -> Outcome<Vec<(&'a Path, Source<'i>)>> {
    let outputs = a.outputs();
    if outputs.len() != a.targets.len() {
        return Err(Failure::new(format!(
            "number of output files and targets should match in unbundling mode: {} outputs, {} targets",
            outputs.len(),
            a.targets.len()
        )));
    }
    let mut missing = Vec::new();
    let mut plan = Vec::with_capacity(outputs.len());
    for (target, out) in a.targets.iter().zip(outputs) {
        let requested = EntryId::parse(target).map_err(|e| Failure::new(format!("invalid target '{target}': {e}")))?;
        match ids::find_entry(ids, &requested, a.hip_openmp_compatible) {
            Some(id) => plan.push((out, Source::Entry(id))),
            // As clang-offload-bundler 22: an input without bundles is the host entry itself, but
            // only with --allow-missing-bundles (otherwise every target is missing).
            None if not_bundled && a.allow_missing_bundles && requested.is_host() => {
                plan.push((out, Source::WholeInput))
            }
            None if a.allow_missing_bundles => plan.push((out, Source::Empty)),
            None => missing.push(target.as_str()),
        }
    }
    if !missing.is_empty() {
        let has = if ids.is_empty() {
            String::from("the input holds no bundle; --allow-missing-bundles takes it as the host entry")
        } else {
            format!("the file has: {}", ids.join(", "))
        };
        return Err(Failure::new(format!(
            "{}: can't find bundles for {} ({has})",
            path.display(),
            missing.join(" and ")
        )));
    }
    Ok(plan)
}
