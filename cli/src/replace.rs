//! `offload replace-section HOST --section NAME --with FILE -o OUT`: a new payload for an offload
//! section. Objects are re-laid out (the section may grow or shrink); linked executables and
//! libraries are written in place (the payload may not be larger than the section).

use crate::fail::{InFile, Outcome};
use crate::io::{read_all, write_atomic};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReplaceArgs {
    /// The object file, executable or shared library to rewrite.
    pub file: PathBuf,
    /// The offload section, named as `offload list` shows it: `.hip_fatbin`, `.llvm.offloading`,
    /// `__CLANG_OFFLOAD_BUNDLE__<entry id>`, `__HIP,__hip_fatbin`, `__LLVM,__offloading`, ...
    #[arg(long)]
    pub section: String,
    /// The file whose bytes become the section's contents.
    #[arg(long = "with", value_name = "FILE")]
    pub with: PathBuf,
    /// Where to write the result (written through a temporary file; may be FILE itself).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
}

pub fn run(a: &ReplaceArgs) -> Outcome<()> {
    let input = read_all(&a.file)?;
    let payload = read_all(&a.with)?;
    let r = offload::replace::replace_section(&input, &a.section, &payload).in_file(&a.file)?;
    write_atomic(&a.output, &r.bytes)?;
    let how = if r.in_place {
        format!("written in place, {} zero bytes of padding after the payload", r.new_size - payload.len() as u64)
    } else {
        String::from("object re-laid out")
    };
    println!("{}: section {}: {} -> {} bytes ({how})", a.output.display(), r.section, r.old_size, r.new_size);
    Ok(())
}
