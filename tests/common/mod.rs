//! Helpers shared by the integration tests: the core's (`mod common;`) and the CLI's
//! (cli/tests/support includes this module by `#[path]`). Here: where the LLVM 22 reference
//! tools are, scratch directories, seeded test contents; in the submodules, host files built by
//! clang-22 (`hosts`), the NVIDIA toolchain and its answers (`nvidia`), PyPI wheels (`wheels`).
#![allow(dead_code)]

pub mod hosts;
pub mod nvidia;
pub mod wheels;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The repository's root (the core's tests run in it, the CLI's in cli/).
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("tests/fixtures").is_dir() {
        here.to_path_buf()
    } else {
        here.join("..")
    }
}

/// Where the reference tools are: `$LLVM_BIN`, else Debian's `/usr/lib/llvm-22/bin`.
pub fn llvm_bin() -> PathBuf {
    PathBuf::from(std::env::var("LLVM_BIN").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into()))
}

/// The path of an LLVM 22 tool, or `None` (with a message) when it is not installed.
pub fn tool(name: &str, test: &str) -> Option<PathBuf> {
    let path = llvm_bin().join(name);
    if path.exists() {
        Some(path)
    } else {
        println!("skipping {test}: {} is not installed", path.display());
        None
    }
}

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh directory named after the test file (`suite`) and the test, and numbered: two
    /// made with the same names (by tests running at the same time) are two directories.
    pub fn new(suite: &str, name: &str) -> Scratch {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("offload-{suite}-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn dir(&self) -> &Path {
        &self.0
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, data).unwrap();
        path
    }

    pub fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
    }

    /// The names of the files in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Environment variables that change what clang-offload-bundler (and our bundler, which honours
/// them too) does; every run in the tests starts without them.
pub const BUNDLER_ENV: &[&str] = &[
    "OFFLOAD_BUNDLER_COMPRESS",
    "OFFLOAD_BUNDLER_COMPRESSION_LEVEL",
    "COMPRESSED_BUNDLE_FORMAT_VERSION",
    "OFFLOAD_BUNDLER_IGNORE_ENV_VAR",
    "OFFLOAD_BUNDLER_VERBOSE",
];

/// A xorshift32 stream: test contents that differ from input to input and compress like code
/// rather than like zeros, and the choices of seeded random cases; the same on every run from
/// the same seed. The seed must not be 0 (the stream would stay 0): see [`seed`].
pub struct XorShift(pub u32);

impl XorShift {
    /// The next number of the stream.
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// `n` bytes: the low byte of each of the next `n` numbers.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u32() as u8).collect()
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.next_u32() as usize % n.max(1)
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// True `percent` times in 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The seed of a seeded random suite: `$var` when it is set (to replay a run with the seed it
/// printed), else `default`; never 0, which [`XorShift`] cannot leave.
pub fn seed(var: &str, default: u32) -> u32 {
    std::env::var(var).ok().and_then(|s| s.parse().ok()).unwrap_or(default).max(1)
}

/// A seed that changes from run to run: the clock's nanoseconds.
pub fn clock_seed() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.subsec_nanos() | 1)
}
