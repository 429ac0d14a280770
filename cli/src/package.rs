//! `offload package` (LLVM offload binaries from images, like `llvm-offload-binary -o`) and
//! `offload extract` (device images out of any file, with names that say what they are).

use crate::fail::{Failure, Outcome};
use crate::io::{read_all, write_atomic};
use clap::Args;
use offload::explore::{self, Options};
use offload::file_names::{image_extension, image_stem, UniqueNames};
use offload::format::archive::ar::{self, NewMember};
use offload::format::offload_binary;
use offload::targets::{self, Target};
use std::path::{Path, PathBuf};

/// llvm-offload-binary's command line: `-o OUT --image=...` packages; `IN [--image=...]`
/// extracts (see `unpackage.rs`).
#[derive(Args)]
pub struct PackageArgs {
    /// A file to extract images from, as `llvm-offload-binary IN` (instead of packaging).
    pub input: Option<PathBuf>,
    /// Where to write the offload binaries (packaging), or with an input and `--archive`, the
    /// archive of the extracted images.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Packaging: `file=F,triple=T,arch=A[,kind=K][,key=value...]`, one per image. Extracting:
    /// `[file=OUT,]key=value,...`, the images whose strings match, written to OUT.
    #[arg(long)]
    pub image: Vec<String>,
    /// Extracting: write the matching images of each `--image` to the static archive its
    /// `file=` names (or every image to `-o`).
    #[arg(long)]
    pub archive: bool,
}

#[derive(Args)]
pub struct ExtractArgs {
    /// The file to extract from.
    pub file: PathBuf,
    /// Only images matching all these `key=value` pairs (keys: id, triple, arch, processor,
    /// kind, features); repeat for alternatives.
    #[arg(long)]
    pub image: Vec<String>,
    /// Directory to write into (created if missing).
    #[arg(short, long, default_value = ".")]
    pub output: PathBuf,
    /// Write the images as the members of one static archive (GNU `ar`) instead of loose
    /// files, like `llvm-offload-binary --archive`; members are named as the files would be.
    #[arg(long, value_name = "OUT.a", conflicts_with = "output")]
    pub archive: Option<PathBuf>,
    #[command(flatten)]
    pub limits: crate::Limits,
}

/// `key=value,key=value` into pairs, in order (extract filters).
fn key_values(spec: &str) -> Outcome<Vec<(String, String)>> {
    spec.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| Failure::new(format!("'{p}' in '{spec}' is not key=value")))
        })
        .collect()
}

pub fn run_package(a: &PackageArgs) -> Outcome<()> {
    if let Some(input) = &a.input {
        let request =
            crate::unpackage::Request { input, images: &a.image, archive: a.archive, output: a.output.as_deref() };
        return crate::unpackage::run(&request);
    }
    let Some(output) = &a.output else {
        return Err(Failure::new(
            "nothing to do: give -o OUT and --image=file=F,triple=T,arch=A to package, or an input file to extract from",
        ));
    };
    if a.image.is_empty() {
        return Err(Failure::new("packaging needs at least one --image=file=F,triple=T,arch=A"));
    }
    if a.archive {
        return Err(Failure::new("--archive applies to extracting: give the input file to extract from"));
    }
    let specs: Vec<&str> = a.image.iter().map(String::as_str).collect();
    let mut failed = None;
    let out = offload_binary::packager::package(&specs, |file| {
        read_all(Path::new(file)).map_err(|f| {
            failed = Some(f);
            offload::Error::new(0, "image file", "a readable file", file.to_string())
        })
    });
    if let Some(f) = failed {
        return Err(f);
    }
    let out = out.map_err(|e| Failure::new(format!("package: {e}")))?;
    // Read back what we are about to write: never hand out a file we cannot parse.
    for found in offload_binary::walk(&out) {
        found.binary.map_err(|e| Failure::new(format!("internal error: packaged output does not read back: {e}")))?;
    }
    write_atomic(output, &out)
}

fn matches(t: &Target, filter: &[(String, String)]) -> bool {
    filter.iter().all(|(k, v)| {
        let have = match k.as_str() {
            "id" | "target" => &t.target_id,
            "triple" => &t.triple,
            "arch" | "processor" => &t.processor,
            "kind" => &t.offload_kind,
            "features" => &t.features,
            _ => return false,
        };
        have == v
    })
}

pub fn run_extract(a: &ExtractArgs) -> Outcome<()> {
    let data = read_all(&a.file)?;
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "input".into());
    let opts = Options { verify_all: true, ..a.limits.options() };
    let tree = explore::explore(&data[..], &name, &opts);
    let filters: Vec<Vec<(String, String)>> = a.image.iter().map(|s| key_values(s)).collect::<Outcome<_>>()?;
    let chosen: Vec<Target> = targets::collect(&tree)
        .into_iter()
        .filter(|t| filters.is_empty() || filters.iter().any(|f| matches(t, f)))
        .collect();
    if chosen.is_empty() {
        return Err(Failure::new(format!("{}: no device image matches", a.file.display())));
    }
    let mut names = UniqueNames::new();
    let mut images = Vec::with_capacity(chosen.len());
    for t in &chosen {
        // An entry holding several images (a SYCL entry's frames) gives one file per image.
        let spans = if t.parts.is_empty() { core::slice::from_ref(&t.span) } else { &t.parts[..] };
        for span in spans {
            let bytes = tree.bytes(&data, *span).ok_or_else(|| {
                Failure::new(format!("{}: the bytes of {} are not available", a.file.display(), t.target_id))
            })?;
            // NVIDIA fatbin entries are named as cuobjdump names them (`<file>.<n>.sm_80.cubin`).
            let file_name = match t.file_name.as_deref().and_then(|f| f.rsplit_once('.')) {
                Some((stem, ext)) => names.take(stem, ext),
                None => names.take(&image_stem(&name, &t.target_id, t.member.as_deref()), image_extension(bytes)),
            };
            images.push((file_name, t.target_id.as_str(), bytes));
        }
    }
    match &a.archive {
        Some(out) => write_archive(out, &images),
        None => write_files(&a.output, &images),
    }
}

fn write_files(dir: &Path, images: &[(String, &str, &[u8])]) -> Outcome<()> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir, "create directory", e))?;
    // Every file is written before the first line is printed: a reader that closes the pipe
    // early (`offload extract f | head -1`) ends the process without leaving files half done.
    for (name, _, bytes) in images {
        write_atomic(&dir.join(name), bytes)?;
    }
    for (name, t, bytes) in images {
        println!("{}  {t}  {} bytes", dir.join(name).display(), bytes.len());
    }
    Ok(())
}

/// `--archive` (here and in `offload package IN`): the images, each `(member name, what it
/// is, bytes)`, as the members of one GNU archive in the order given, read back before it is
/// written; then one line per member.
pub fn write_archive(out: &Path, images: &[(String, &str, &[u8])]) -> Outcome<()> {
    let members: Vec<NewMember> =
        images.iter().map(|(name, _, bytes)| NewMember { name: name.clone(), data: bytes }).collect();
    let bytes = ar::write_gnu(&members).map_err(|e| Failure::new(format!("cannot write the archive: {e}")))?;
    let names: Vec<String> = members.iter().map(|m| m.name.clone()).collect();
    crate::verify::reads_back(&bytes, crate::verify::Written::Archive(&names))?;
    write_atomic(out, &bytes)?;
    for (name, what, bytes) in images {
        println!("{}({name})  {what}  {} bytes", out.display(), bytes.len());
    }
    Ok(())
}
