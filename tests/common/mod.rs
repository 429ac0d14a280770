//! Helpers shared by the integration tests that run the LLVM 22 reference tools.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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
    /// A fresh directory named after the test file (`suite`) and the test.
    pub fn new(suite: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("offload-{suite}-{name}-{}", std::process::id()));
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

/// A xorshift32 stream of bytes: test contents that differ from input to input and compress
/// like code rather than like zeros, the same on every run.
pub struct XorShift(pub u32);

impl XorShift {
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 17;
                self.0 ^= self.0 << 5;
                self.0 as u8
            })
            .collect()
    }
}
