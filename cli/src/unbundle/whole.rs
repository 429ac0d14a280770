//! Unbundling or listing an input held whole in memory (an uncompressed bundle, a text
//! bundle, a bundled object, or anything else, which the bundler takes as the host entry),
//! and the rules shared with the streamed path: which output receives what ([`plan`]).

use crate::bundler::BundlerArgs;
use crate::fail::{Failure, InFile, Outcome};
use crate::io::write_atomic;
use offload::format::bundle::binary::{self, Bundle};
use offload::format::bundle::object as bundled_object;
use offload::format::bundle::text::{self, TextBundle};
use offload::ids::{self, EntryId};
use std::path::Path;

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

/// Whether `--type` names a binary layout (as opposed to a text one).
pub fn is_binary_type(file_type: &str) -> bool {
    text::comment_for_type(file_type).is_none()
}

/// Lists or unbundles `data`, a whole (uncompressed) input.
pub fn run(a: &BundlerArgs, path: &Path, data: &[u8]) -> Outcome<()> {
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
    let outputs = a.unbundle_outputs()?;
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
