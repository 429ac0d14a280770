//! `offload bundle`: clang-offload-bundler's options ([`BundlerArgs`], shared with
//! [`crate::unbundle`]) and its bundling.
//! Without compression the output is byte-identical to clang-offload-bundler 22.

use crate::fail::{Failure, Outcome};
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

    /// The outputs of an unbundling, one per `--targets` entry; other counts are refused as
    /// clang-offload-bundler refuses them.
    pub fn unbundle_outputs(&self) -> Outcome<Vec<&Path>> {
        let outputs = self.outputs();
        if outputs.len() != self.targets.len() {
            return Err(Failure::new(format!(
                "number of output files and targets should match in unbundling mode: {} outputs, {} targets",
                outputs.len(),
                self.targets.len()
            )));
        }
        Ok(outputs)
    }

    /// The one input of an unbundling or a listing, refused as clang-offload-bundler refuses
    /// several.
    pub fn single_input(&self) -> Outcome<&Path> {
        match self.inputs()[..] {
            [one] => Ok(one),
            ref inputs => Err(Failure::new(format!(
                "only one input file supported for unbundling or listing, got {}",
                inputs.len()
            ))),
        }
    }
}

const BINARY_TYPES: &[&str] = &["bc", "o", "a", "gch", "ast"];

pub fn check_type(t: &str) -> Outcome<()> {
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

/// Bundles the inputs (`--unbundle` and `--list` go to [`crate::unbundle`], from `main`).
pub fn run(a: &BundlerArgs) -> Outcome<()> {
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
