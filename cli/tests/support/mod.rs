//! What the CLI's integration tests share (each test file has `mod support;`): the core tests'
//! helpers (tests/common: the LLVM 22 tools, scratch directories, seeded contents, HIP hosts,
//! the NVIDIA toolchain, PyPI wheels), and running our `offload` binary and the reference tools,
//! the fixtures, and the checks of `offload list`'s table and of a clean failure.
#![allow(dead_code, unused_imports)]

#[path = "../../../tests/common/mod.rs"]
pub mod common;
pub mod remote;

pub use common::{hosts, llvm_bin, nvidia, root, tool, wheels, Scratch, XorShift, BUNDLER_ENV};

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Our binary, as Cargo built it for these tests.
pub fn ours() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_offload"))
}

/// A file (or folder) of tests/fixtures: `name` may have folders (`nvidia/nv_elf.o`). It must
/// exist.
pub fn fixture(name: &str) -> PathBuf {
    let p = root().join("tests/fixtures").join(name);
    assert!(p.exists(), "missing fixture {}", p.display());
    p
}

/// A path as a string, for a command line.
pub fn s(p: &Path) -> String {
    p.to_str().expect("test paths are UTF-8").to_string()
}

/// The bytes of a file that must be there.
pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// How a program ended and what it printed.
#[derive(Debug)]
pub struct Out {
    /// The exit code; `None` when the program died by a signal.
    pub code: Option<i32>,
    /// The signal the program died by: then it gave no answer at all.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

impl From<Output> for Out {
    fn from(o: Output) -> Out {
        Out {
            code: o.status.code(),
            signal: std::os::unix::process::ExitStatusExt::signal(&o.status),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// Runs `program` with `args`, `env` set and the bundler's environment variables
/// ([`BUNDLER_ENV`]) cleared, in `cwd` when given.
pub fn exec(program: &Path, args: &[impl AsRef<OsStr>], env: &[(&str, &str)], cwd: Option<&Path>) -> Out {
    let mut c = Command::new(program);
    c.args(args);
    for v in BUNDLER_ENV {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    c.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display())).into()
}

/// [`exec`], which must succeed without a panic.
pub fn exec_ok(program: &Path, args: &[impl AsRef<OsStr>], env: &[(&str, &str)], cwd: Option<&Path>) -> Out {
    let o = exec(program, args, env, cwd);
    let shown: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    assert!(o.ok(), "{} {shown:?} failed: {o:?}", program.display());
    assert!(!o.stderr.contains("panicked"), "{} {shown:?} panicked: {}", program.display(), o.stderr);
    o
}

/// Runs `program` with `args` (see [`exec`]).
pub fn run(program: &Path, args: &[impl AsRef<OsStr>]) -> Out {
    exec(program, args, &[], None)
}

/// Runs `program` with `args`, which must succeed (see [`exec_ok`]).
pub fn must(program: &Path, args: &[impl AsRef<OsStr>]) -> Out {
    exec_ok(program, args, &[], None)
}

/// Runs `program` with `args` in `dir` (see [`exec`]).
pub fn run_in(dir: &Path, program: &Path, args: &[impl AsRef<OsStr>]) -> Out {
    exec(program, args, &[], Some(dir))
}

/// Runs `program` with `args` in `dir`, which must succeed (see [`exec_ok`]).
pub fn must_in(dir: &Path, program: &Path, args: &[impl AsRef<OsStr>]) -> Out {
    exec_ok(program, args, &[], Some(dir))
}

/// Runs our binary with `args` in `dir`.
pub fn offload_in(dir: &Path, args: &[impl AsRef<OsStr>]) -> Out {
    run_in(dir, ours(), args)
}

/// Runs our binary with `args`.
pub fn offload(args: &[impl AsRef<OsStr>]) -> Out {
    run(ours(), args)
}

/// Runs our binary with `args`, which must succeed.
pub fn offload_ok(args: &[impl AsRef<OsStr>]) -> Out {
    must(ours(), args)
}

/// Entry IDs of the fixtures' bundles (see tests/fixtures/README.md).
pub const HOST: &str = "host-x86_64-unknown-linux-gnu";
pub const GFX906: &str = "hipv4-amdgcn-amd-amdhsa--gfx906";
pub const GFX90A_XNACK: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
pub const HIP_906_XNACK_MINUS: &str = "hipv4-amdgcn-amd-amdhsa--gfx906:xnack-";
pub const HIP_90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";

/// A reference LLVM 22 tool, or `None` (saying that the comparison with it is skipped) when it
/// is not installed.
pub fn llvm_tool(name: &str) -> Option<PathBuf> {
    tool(name, &format!("the comparison with {name}"))
}

/// A failure as the CLI promises it: exit code 1, exactly one line on standard error naming
/// `names`, never a panic; for format errors the line says where, what was expected and what
/// was found.
pub fn assert_clean_failure(o: &Out, args: &[&str], names: &str, format_error: bool) {
    assert_eq!(o.code, Some(1), "offload {args:?}: expected exit code 1, got {o:?}");
    assert!(!o.stderr.contains("panicked"), "offload {args:?} panicked: {}", o.stderr);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "offload {args:?}: expected exactly one line on stderr, got {:?}", o.stderr);
    let line = lines[0];
    assert!(line.contains(names), "offload {args:?}: the error does not name {names:?}: {line}");
    if format_error {
        for word in ["at byte", "expected", "found"] {
            assert!(line.contains(word), "offload {args:?}: the error does not say {word:?}: {line}");
        }
    }
}

/// The device target IDs of `offload list`'s table, with their kind and compression columns.
pub fn listed_targets(stdout: &str) -> Vec<(String, String, String)> {
    let mut lines = stdout.lines();
    let count: usize = loop {
        let l = lines.next().unwrap_or_else(|| panic!("no 'device targets (N):' line in:\n{stdout}"));
        if let Some(rest) = l.strip_prefix("device targets (") {
            break rest.trim_end_matches("):").parse().expect("a target count");
        }
    };
    let header = lines.next().expect("a table header");
    assert!(header.trim_start().starts_with("target"), "unexpected table header {header:?}");
    let rows: Vec<(String, String, String)> = lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[0].to_string(), cells[1].to_string(), cells.last().unwrap().to_string())
        })
        .collect();
    assert_eq!(rows.len(), count, "the table has {} rows but says {count}:\n{stdout}", rows.len());
    rows
}

/// The target IDs of [`listed_targets`]' rows.
pub fn ids(rows: &[(String, String, String)]) -> Vec<&str> {
    rows.iter().map(|r| r.0.as_str()).collect()
}

/// Flips bits of one byte of a copy of `bytes`.
pub fn corrupt(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[at] ^= 0x5a;
    v
}
