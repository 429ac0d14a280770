//! The companions of a kpack'd binary (ROCm's rocm-kpack moved its device code into `.kpack`
//! archives): the archives its `.rocm_kpack_ref` names, looked for next to the binary as the
//! runtime looks for them, and those named with `--kpack`. What is missing is said on stderr
//! and in the tree's diagnostics.

use crate::fail::Outcome;
use crate::io::{read_all, shown};
use clap::Args;
use offload::explore::{self, Companion, Options};
use offload::format::kpack::reference::{self, Reference};
use offload::tree::Tree;
use std::path::{Path, PathBuf};

#[derive(Args, Clone, Debug, Default)]
pub struct KpackArgs {
    /// A `.kpack` archive holding device code of the file (a kpack'd ROCm build); repeat for
    /// several. The archives the file's kpack reference names are also looked for next to it.
    #[arg(long = "kpack", value_name = "FILE")]
    pub kpack: Vec<PathBuf>,
}

/// Explores the file at `binary` (its bytes `input`, shown as `name`) with the kpack archives
/// [`load`] finds for it.
pub fn explore<'a, R: object::ReadRef<'a>>(
    binary: &Path,
    input: R,
    name: &str,
    options: &Options,
    args: &KpackArgs,
) -> Outcome<Tree> {
    // Over a network every byte read is fetched: members named as text are not read at all,
    // and a zip's local headers are fetched together first.
    let remote = crate::io::url_of(binary).and_then(crate::remote::Remote::opened);
    let remote_options = remote.as_ref().map(|_| Options { skip_by_name: true, ..options.clone() });
    let options = remote_options.as_ref().unwrap_or(options);
    // A zip arriving whole (its host serves no ranges) has its members explored as they
    // arrive, from now on, while the rest comes.
    let early = remote.as_ref().filter(|_| args.kpack.is_empty()).and_then(|r| crate::remote::early::start(r, options));
    let companions = load(binary, input, args)?;
    if let Some(remote) = &remote {
        crate::remote::prepare(remote, input)?;
    }
    // A package's deflated members are read into bytes of their own, dropped once inflated:
    // through the input's cache, every member's compressed bytes would stay until the end.
    let reader = crate::io::OwnedReader::open(binary);
    let read = |offset: u64, size: u64| reader.as_ref().and_then(|r| r.read(offset, size));
    let hooks = || explore::Hooks {
        read_owned: Some(&read),
        spill: Some(&crate::io::spill_to_temporary_file),
        ..explore::Hooks::default()
    };
    let companions = Companion::all(&companions);
    let tree = match early.and_then(|early| early.finish(input, name, options, &companions, hooks())) {
        Some(tree) => tree,
        None => explore::explore_hooked(input, name, options, &companions, hooks()),
    };
    if let Some(remote) = crate::io::url_of(binary).and_then(crate::remote::Remote::opened) {
        remote.stop_ahead();
        if let Some(why) = remote.failure() {
            eprintln!("offload: error: {why}");
        }
    }
    Ok(tree)
}

/// Reads the archives named with `--kpack`, and those the reference of the host file at
/// `binary` (whose bytes are `input`) finds next to it: (name shown, bytes).
fn load<'a, R: object::ReadRef<'a>>(binary: &Path, input: R, args: &KpackArgs) -> Outcome<Vec<(String, Vec<u8>)>> {
    let mut paths: Vec<PathBuf> = args.kpack.clone();
    if let Some(found) = reference::in_host_file(input) {
        match found {
            // Archives named on the command line stand in for the search: no note about
            // archives not found next to the binary then.
            // A URL has no directory to look in: only archives named with --kpack are read.
            Ok(_) if crate::io::url_of(binary).is_some() => {}
            Ok(r) => paths.extend(next_to(binary, &r, args.kpack.is_empty())),
            Err(e) => eprintln!("offload: note: {}: kpack reference not readable: {e}", shown(binary)),
        }
    }
    let mut companions = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for path in paths {
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        companions.push((shown(&path), read_all(&path)?));
    }
    Ok(companions)
}

/// `path` with `a/..` folded, as the loader normalises it, so that names read well.
fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The archives each search path of `r` names that exist next to `binary`; a search path that
/// finds none is reported, with where it was looked for.
fn next_to(binary: &Path, r: &Reference<'_>, report: bool) -> Vec<PathBuf> {
    let dir = binary.parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    for p in &r.search_paths {
        let resolved = tidy(&dir.join(p.value));
        let before = found.len();
        if p.value.contains(reference::ARCH_PLACEHOLDER) {
            let parent = resolved.parent().unwrap_or(Path::new(""));
            let listed = std::fs::read_dir(if parent.as_os_str().is_empty() { Path::new(".") } else { parent });
            let mut matched: Vec<PathBuf> = listed
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter(|e| reference::match_file_name(p.value, &e.file_name().to_string_lossy()).is_some())
                .map(|e| e.path())
                .collect();
            matched.sort();
            found.extend(matched);
        } else if resolved.is_file() {
            found.push(resolved.clone());
        }
        if found.len() == before && report {
            eprintln!(
                "offload: note: {} is a kpack'd build: no kpack archive {} was found (looked for {}); its device code is not shown (name archives with --kpack FILE)",
                shown(binary),
                p.value,
                shown(&resolved)
            );
        }
    }
    found
}
