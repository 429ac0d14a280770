//! `offload package` (alias `offload-binary`): llvm-offload-binary's command line. With
//! `-o OUT --image=file=F,triple=T,arch=A,...` it packages device images into an LLVM offload
//! binary; with an input file it extracts, as [`crate::offload_binary_extract`] describes.

use crate::fail::{Failure, Outcome};
use crate::io::{read_all, write_atomic};
use crate::offload_binary_extract::{self, Request};
use clap::Args;
use offload::format::offload_binary;
use std::path::{Path, PathBuf};

/// llvm-offload-binary's command line: `-o OUT --image=...` packages; `IN [--image=...]`
/// extracts (see `offload_binary_extract.rs`).
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

pub fn run(a: &PackageArgs) -> Outcome<()> {
    if let Some(input) = &a.input {
        let request = Request { input, images: &a.image, archive: a.archive, output: a.output.as_deref() };
        return offload_binary_extract::run(&request);
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
