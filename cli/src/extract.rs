//! `offload extract FILE`: the device images of any file (bundles, offload binaries, fatbins,
//! objects, libraries, archives, packages), written as files named after what they are, or as
//! the members of one static archive (`--archive`).

use crate::fail::{Failure, Outcome};
use crate::io::{read_all, write_atomic};
use crate::verify::{self, Written};
use clap::Args;
use offload::explore::{self, Options};
use offload::format::archive::ar::{self, NewMember};
use offload::report::file_names::{image_extension, image_stem, UniqueNames};
use offload::report::targets::{self, Target};
use std::path::{Path, PathBuf};

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

pub fn run(a: &ExtractArgs) -> Outcome<()> {
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
    verify::reads_back(&bytes, Written::Archive(&names))?;
    write_atomic(out, &bytes)?;
    for (name, what, bytes) in images {
        println!("{}({name})  {what}  {} bytes", out.display(), bytes.len());
    }
    Ok(())
}
