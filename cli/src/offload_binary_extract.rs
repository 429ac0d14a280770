//! `offload package IN [--image=key=value,...]... [--archive] [-o LIB.a]`: extraction with
//! llvm-offload-binary's own command line, as LLVM 22 does it (`unbundleImages`):
//!
//! - every offload entry in IN (an offload binary, or an object, library or archive holding
//!   them) is matched against each `--image` in turn: every key but `file` must match — `kind`
//!   by LLVM's offload-kind name (`openmp`, `cuda`, `hip`, `sycl`), any other key by the entry's
//!   string of that name (a missing string reads as empty);
//! - with `file=OUT`, the matching image is written to OUT; when several match, LLVM writes the
//!   last one and warns, and so do we, naming the image chosen;
//! - without `file=`, each match is written to the current directory as
//!   `<stem of IN>-<triple>-<arch>.<n>.<ext>` (`n` counts the matches of this `--image`, `ext`
//!   is LLVM's name for the image kind);
//! - with `--archive`, the matches of each `--image` go to the static archive its `file=` names,
//!   in entry order.
//!
//! Where LLVM 22 does nothing we do what its manual says: `IN` with no `--image` extracts every
//! image (LLVM 22 writes nothing and succeeds), and `IN --archive -o LIB.a` writes every image
//! (or the matches of the `--image` filters) to LIB.a (LLVM 22 refuses `-o` with an input).
//! Archive members are named as `offload extract --archive` names them (LLVM names them all
//! after IN).

use crate::fail::{Failure, Outcome};
use crate::io::{read_all, write_atomic};
use offload::explore::{self, Options};
use offload::format::offload_binary::{ImageKind, OffloadKind};
use offload::report::file_names::{image_stem, UniqueNames};
use offload::tree::{NodeKind, Span, Tree, Value};
use std::path::Path;

/// One offload entry of the input, with what matching and naming need.
struct Entry {
    strings: Vec<(String, String)>,
    offload_kind: u16,
    image_kind: ImageKind,
    image: Span,
}

impl Entry {
    fn string(&self, key: &str) -> &str {
        self.strings.iter().rev().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
    }

    fn matches(&self, args: &[(String, String)]) -> bool {
        args.iter().all(|(key, value)| match key.as_str() {
            "file" => true,
            "kind" => self.offload_kind == OffloadKind::from_llvm_name(value).0,
            _ => self.string(key) == value,
        })
    }

    fn describe(&self) -> String {
        format!(
            "triple={} arch={} kind={}",
            self.string("triple"),
            self.string("arch"),
            OffloadKind(self.offload_kind).name()
        )
    }
}

/// What `--image` and the flags ask for.
pub struct Request<'a> {
    pub input: &'a Path,
    pub images: &'a [String],
    pub archive: bool,
    pub output: Option<&'a Path>,
}

pub fn run(r: &Request<'_>) -> Outcome<()> {
    if r.output.is_some() && !r.archive {
        return Err(Failure::new(
            "packaging to an output file and extracting from an input file are mutually exclusive (with --archive, -o names the archive to write)",
        ));
    }
    let data = read_all(r.input)?;
    let name = r.input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "input".into());
    let tree = explore::explore(&data[..], &name, &Options { verify_all: true, ..Options::default() });
    let entries = offload_entries(&tree);
    if entries.is_empty() {
        return Err(Failure::new(format!(
            "{}: no offload binary found (expected an offload binary, or an object, library or archive holding them)",
            r.input.display()
        )));
    }
    let bytes = |e: &Entry| {
        tree.bytes(&data, e.image).ok_or_else(|| {
            Failure::new(format!("{}: the image bytes of {} are not available", r.input.display(), e.describe()))
        })
    };
    if let Some(out) = r.output {
        let specs: Vec<Vec<(String, String)>> = r.images.iter().map(|s| image_arguments(s)).collect();
        let chosen: Vec<&Entry> =
            entries.iter().filter(|e| specs.is_empty() || specs.iter().any(|args| e.matches(args))).collect();
        return write_archive(out, &name, &chosen, &bytes);
    }
    if r.images.is_empty() {
        return write_named(r.input, &entries.iter().collect::<Vec<_>>(), &bytes);
    }
    for spec in r.images {
        let args = image_arguments(spec);
        let matched: Vec<&Entry> = entries.iter().filter(|e| e.matches(&args)).collect();
        if matched.is_empty() {
            eprintln!("offload: warning: no image in {} matches --image={spec}", r.input.display());
            continue;
        }
        let file = args.iter().rev().find(|(k, _)| k == "file").map(|(_, v)| Path::new(v));
        match (r.archive, file) {
            (true, None) => {
                return Err(Failure::new(format!(
                    "--image={spec}: with --archive, an image needs a 'file' key naming the archive"
                )))
            }
            (true, Some(out)) => write_archive(out, &name, &matched, &bytes)?,
            (false, Some(out)) => {
                let last = matched[matched.len() - 1];
                if matched.len() > 1 {
                    eprintln!(
                        "offload: warning: {} images match --image={spec}; writing the last, {}, as llvm-offload-binary does",
                        matched.len(),
                        last.describe()
                    );
                }
                write_atomic(out, bytes(last)?)?;
                println!("{}  {}", out.display(), last.describe());
            }
            (false, None) => write_named(r.input, &matched, &bytes)?,
        }
    }
    Ok(())
}

/// LLVM's `getImageArguments`: comma-separated parts, each cut at its first `=`; a later key
/// replaces an earlier one.
fn image_arguments(spec: &str) -> Vec<(String, String)> {
    let mut args: Vec<(String, String)> = Vec::new();
    for part in spec.split(',') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        args.retain(|(k, _)| k != key);
        args.push((key.to_string(), value.to_string()));
    }
    args
}

/// Every offload entry in the tree, in file order.
fn offload_entries(tree: &Tree) -> Vec<Entry> {
    let mut out = Vec::new();
    tree.root.walk(&mut |node, _| {
        if node.kind != NodeKind::OffloadEntry {
            return;
        }
        let uint = |name: &str| match node.get(name) {
            Some(Value::Uint(n)) => *n,
            _ => 0,
        };
        let strings = match node.get("strings") {
            Some(Value::Map(m)) => m.clone(),
            _ => Vec::new(),
        };
        let Some(image) = node.children.iter().find(|c| c.kind == NodeKind::Image) else { return };
        out.push(Entry {
            strings,
            offload_kind: uint("offload_kind_value") as u16,
            image_kind: ImageKind(uint("image_kind_value") as u16),
            image: image.span,
        });
    });
    out
}

/// The images under LLVM's names in the current directory: `<stem>-<triple>-<arch>.<n>.<ext>`.
fn write_named<'e>(input: &Path, chosen: &[&'e Entry], bytes: &dyn Fn(&'e Entry) -> Outcome<&'e [u8]>) -> Outcome<()> {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    // The triple and arch come from the file: a separator in them must not lead the write out of
    // the current directory (LLVM writes such names as they are).
    let part = |s: &str| s.replace(['/', '\\', '\0'], "_");
    for (n, e) in chosen.iter().enumerate() {
        let (triple, arch) = (part(e.string("triple")), part(e.string("arch")));
        let name = format!("{stem}-{triple}-{arch}.{n}.{}", e.image_kind.extension());
        write_atomic(Path::new(&name), bytes(e)?)?;
        println!("{name}  {}", e.describe());
    }
    Ok(())
}

/// The images as the members of one GNU archive, in entry order, named as `extract --archive`
/// names them (`offload::report::file_names`).
fn write_archive<'e>(
    out: &Path,
    file: &str,
    chosen: &[&'e Entry],
    bytes: &dyn Fn(&'e Entry) -> Outcome<&'e [u8]>,
) -> Outcome<()> {
    let mut names = UniqueNames::new();
    let descriptions: Vec<String> = chosen.iter().map(|e| e.describe()).collect();
    let mut members = Vec::with_capacity(chosen.len());
    for (e, what) in chosen.iter().zip(&descriptions) {
        let target = format!("{}-{}", e.string("triple"), e.string("arch"));
        let ext = match e.image_kind.extension() {
            "" => "bin",
            ext => ext,
        };
        members.push((names.take(&image_stem(file, &target, None), ext), what.as_str(), bytes(e)?));
    }
    crate::extract::write_archive(out, &members)
}
