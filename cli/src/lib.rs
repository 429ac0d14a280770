//! `offload`: list, bundle, unbundle, package, extract, compress and decompress GPU offload
//! containers. A thin shell over the `offload` core crate.
//!
//! A library as well as the binary (`main.rs` only calls [`run`]): the Python module
//! (`python/`) runs the same command line in-process for its `offload` console script, and
//! asks [`api`] for the documents the commands print with `--json`.

pub mod api;
mod bundler;
pub(crate) mod check;
mod codec;
mod diff;
mod disasm;
pub mod doctor;
mod extract;
pub mod fail;
mod fit;
mod input;
mod io;
mod json;
mod kernels;
mod kpack;
mod list;
mod offload_binary;
mod offload_binary_extract;
pub mod remote;
mod replace;
mod response_file;
mod sizes;
mod temporary;
mod unbundle;
mod verify;

use clap::{Args, Parser, Subcommand};
use offload::explore::Options;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "offload",
    version,
    about = "Explore and edit GPU fat binaries: LLVM offload binaries, clang offload bundles, compressed bundles, and the objects and libraries that carry them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Allow an output to replace one of the command's input files (still written through a
    /// temporary file and a rename).
    #[arg(long, global = true)]
    overwrite_input: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Show everything offloaded inside a file: the tree of containers, then the device targets.
    List(ListArgs),
    /// Bundle inputs into one file, like `clang-offload-bundler` (same options).
    Bundle(bundler::BundlerArgs),
    /// Unbundle (or `--list`) a bundle, like `clang-offload-bundler --unbundle` (same options).
    Unbundle(bundler::BundlerArgs),
    /// Package device images into LLVM offload binaries (`-o OUT --image=...`), or extract them
    /// (`IN --image=file=OUT,...`, `IN --archive -o LIB.a`): llvm-offload-binary's command line.
    #[command(alias = "offload-binary")]
    Package(offload_binary::PackageArgs),
    /// Write the device images found in a file, optionally only those matching filters.
    Extract(extract::ExtractArgs),
    /// Compress a bundle into a compressed bundle (CCOB).
    Compress(codec::CompressArgs),
    /// Decompress a compressed bundle (CCOB) into the bundle it holds, or an NVIDIA fatbin (or
    /// the fatbin sections of a file) into a fatbin whose entries are all decompressed.
    Decompress(codec::DecompressArgs),
    /// Put new contents into an offload section of an object, executable or library.
    ReplaceSection(replace::ReplaceArgs),
    /// List every kernel of a file in one table, a column group per target (registers, SGPRs,
    /// LDS, scratch).
    Kernels(kernels::KernelsArgs),
    /// Disassemble the AMDGPU code objects of a file as llvm-objdump -d does (a kernel's code and
    /// descriptor with --kernel); PTX prints its text.
    Disasm(disasm::DisasmArgs),
    /// What each target costs: bytes of its images, share of the file (estimated inside
    /// compressed containers), a bar per target; `--drop` gives the exact size without some
    /// targets, and `-o` writes that file.
    Sizes(sizes::SizesArgs),
    /// Compare two files: targets added, removed and common, size changes, images that differ,
    /// kernels added, removed or changed. Exit 0 when equal, 1 when different, 2 on error.
    Diff(diff::DiffArgs),
    /// Will the file run on these GPUs? Per library and kernel, the image that would load and why; exit 0 yes, 1 no, 2 trouble.
    Fit(fit::FitArgs),
    /// A release gate: required targets, every kernel on them, per-kernel limits, and (with
    /// --baseline) no regression; text, --json, --junit, --sarif. Exit 0 pass, 1 fail, 2 trouble.
    Check(check::CheckArgs),
    /// Will the libraries of this Python environment (or of these directories) run on this
    /// machine's GPUs? Per installed distribution and GPU; exit 0 yes, 1 no, 2 trouble.
    Doctor(doctor::DoctorArgs),
}

#[derive(Args)]
pub struct ListArgs {
    /// The file to list.
    pub file: PathBuf,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print JSON lines: the file, one line per package member with device code (or per
    /// target, for a file that is not a package), then a summary.
    #[arg(long, conflicts_with_all = ["json", "tree"])]
    pub jsonl: bool,
    /// Print the whole tree, every target and every diagnostic; without it a package is
    /// summarised (members with device code, targets, grouped diagnostics).
    #[arg(long)]
    pub tree: bool,
    /// Decompress every compressed bundle in full and check its hash, however large.
    #[arg(long)]
    pub verify: bool,
    #[command(flatten)]
    pub kpack: kpack::KpackArgs,
    #[command(flatten)]
    pub limits: Limits,
}

/// How much work reading a file may do: the limits every reading command accepts. Defaults
/// suit real files; a hostile one meets an error that names the option to raise.
#[derive(Args, Clone, Debug)]
pub struct Limits {
    /// Largest decompressed size accepted for one compressed bundle, in bytes.
    #[arg(long, default_value_t = Options::default().max_decompressed)]
    pub max_decompressed: u64,
    /// Deepest nesting of containers explored (a section holding a compressed bundle holding a
    /// bundle is three levels).
    #[arg(long, default_value_t = Options::default().max_depth)]
    pub max_depth: u32,
    /// Most entries shown under one container (bundle entries, archive members, binaries).
    #[arg(long, default_value_t = Options::default().max_entries)]
    pub max_entries: usize,
    /// Most bytes decompressed in all from the members and streams of a package (wheel, zip,
    /// tarball, conda, deb, rpm); each member is also held to --max-decompressed.
    #[arg(long, default_value_t = Options::default().max_package_decompressed)]
    pub max_package_decompressed: u64,
}

impl Limits {
    /// Explorer options with these limits.
    pub fn options(&self) -> Options {
        Options {
            max_decompressed: self.max_decompressed,
            max_depth: self.max_depth,
            max_entries: self.max_entries,
            max_package_decompressed: self.max_package_decompressed,
            ..Options::default()
        }
    }
}

/// clang-offload-bundler spells its long options with one dash (`-type=o`); accept that too.
fn normalize_args(args: Vec<String>) -> Vec<String> {
    const SINGLE_DASH: &[&str] = &[
        "type",
        "targets",
        "input",
        "inputs",
        "output",
        "outputs",
        "bundle-align",
        "compress",
        "compression-level",
        "allow-missing-bundles",
        "list",
        "unbundle",
        "check-input-archive",
        "hip-openmp-compatible",
        "verbose",
    ];
    args.into_iter()
        .map(|a| {
            // LLVM's tools also answer to --help-list and --help-hidden; so do we, with --help.
            if matches!(a.as_str(), "--help-list" | "--help-hidden" | "-help-list" | "-help-hidden" | "-help") {
                return "--help".to_string();
            }
            let name = a.strip_prefix('-').filter(|r| !r.starts_with('-')).map(|r| r.split('=').next().unwrap_or(r));
            match name {
                Some(n) if SINGLE_DASH.contains(&n) => format!("-{a}"),
                _ => a,
            }
        })
        .collect()
}

/// Runs the command line `args` (the program name first) and returns the exit status: what
/// the `offload` binary does, and what the Python module's console script does in-process.
pub fn run(args: Vec<String>) -> u8 {
    let args = match response_file::expand(args) {
        Ok(args) => args,
        Err(f) => {
            eprintln!("offload: error: {f}");
            return 1;
        }
    };
    // Not `parse_from`, which ends the process: inside Python that would skip its exit handlers.
    let cli = match Cli::try_parse_from(normalize_args(args)) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code().clamp(0, 255) as u8;
        }
    };
    io::allow_overwriting_inputs(cli.overwrite_input);
    remote::show_progress(true);
    let result = match cli.command {
        Command::List(a) => list::run(&a),
        // clang-offload-bundler's `--unbundle` and `--list`, under either command name.
        Command::Bundle(a) | Command::Unbundle(a) if a.unbundle || a.list => unbundle::run(&a),
        Command::Bundle(a) => bundler::run(&a),
        Command::Unbundle(a) => unbundle::run(&a),
        Command::Package(a) => offload_binary::run(&a),
        Command::Extract(a) => extract::run(&a),
        Command::Compress(a) => codec::run_compress(&a),
        Command::Decompress(a) => codec::run_decompress(&a),
        Command::ReplaceSection(a) => replace::run(&a),
        Command::Kernels(a) => kernels::run(&a),
        Command::Disasm(a) => disasm::run(&a),
        Command::Sizes(a) => sizes::run(&a),
        // `diff` answers with its own exit status, as diff(1) does.
        Command::Diff(a) => return diff::exit_code(diff::run(&a)),
        // `fit` answers with its exit status too: 0 runs, 1 does not, 2 trouble.
        // `fit --pip`: doctor's answer for the wheels pip would install.
        Command::Fit(a) if a.pip.asked() => {
            let request = doctor::Request {
                paths: Vec::new(),
                gpus: a.gpus.clone(),
                python: a.python.clone(),
                progress: true,
                pip: a.pip.clone(),
            };
            return doctor::answer_request(&request, a.json, a.verbose);
        }
        Command::Fit(a) => return diff::exit_code(fit::run(&a).map(|runs| !runs)),
        // So does `check`: 0 pass, 1 fail, 2 trouble.
        Command::Check(a) => return check::exit_code(&a),
        // So does `doctor`, for a whole environment.
        Command::Doctor(a) => return doctor::run(&a),
    };
    match result {
        Ok(()) => 0,
        Err(f) => {
            eprintln!("offload: error: {f}");
            1
        }
    }
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`offload list big.so | head`) would
/// panic; restoring the default makes the process end quietly, as `cat` or `ls` do.
pub fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; it only resets a signal
    // disposition to its default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_dash_bundler_options_are_accepted() {
        let args: Vec<String> = ["offload", "bundle", "-type=bc", "-targets=a,b", "--input=x", "-o", "-unbundle"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            normalize_args(args),
            ["offload", "bundle", "--type=bc", "--targets=a,b", "--input=x", "-o", "--unbundle"]
        );
    }
}
