//! The NVIDIA reference tool (cuobjdump from the PyPI wheel `nvidia-cuda-cuobjdump`, installed
//! by scripts/install-nvidia.sh into .tools/nvidia), its answers, and real CUDA libraries from
//! PyPI wheels for the differential tests.
#![allow(dead_code)]

use super::{root, wheels};
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixture_dir() -> PathBuf {
    root().join("tests/fixtures/nvidia")
}

/// The NVIDIA fixtures (everything in tests/fixtures/nvidia but the script and listing).
pub fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !matches!(p.extension().and_then(|e| e.to_str()), Some("sh" | "txt" | "md")))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "only {} NVIDIA fixtures", v.len());
    v
}

/// Where scripts/install-nvidia.sh installs the toolchain: `$NVIDIA_TOOLS_DIR`, else
/// .tools/nvidia (as scripts/lib.sh says).
pub fn tools_dir() -> PathBuf {
    std::env::var_os("NVIDIA_TOOLS_DIR").map(PathBuf::from).unwrap_or_else(|| root().join(".tools/nvidia"))
}

/// Where nvcc and cuobjdump are: `$NVCC_BIN`, else the project's install.
pub fn nv_bin() -> PathBuf {
    std::env::var_os("NVCC_BIN").map(PathBuf::from).unwrap_or_else(|| tools_dir().join("root/nvidia/cu13/bin"))
}

/// cuobjdump, or `None` with a message saying what is skipped.
pub fn cuobjdump(test: &str) -> Option<PathBuf> {
    let p = nv_bin().join("cuobjdump");
    if p.is_file() {
        Some(p)
    } else {
        println!(
            "skipping {test}: cuobjdump is not installed at {} (scripts/install-nvidia.sh installs it)",
            p.display()
        );
        None
    }
}

/// What a cuobjdump run said.
#[derive(Debug)]
pub struct Answer {
    pub ok: bool,
    /// The signal it died by: then it gave no answer at all.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Answer {
    /// Whether cuobjdump crashed; if so, says so: a crash is no answer to compare with.
    pub fn crashed(&self, what: &str) -> bool {
        if let Some(signal) = self.signal {
            println!("{what}: cuobjdump died by signal {signal}: no answer to compare, case skipped");
        }
        self.signal.is_some()
    }
}

/// Runs cuobjdump with `args` in `dir`.
pub fn run(cuobjdump: &Path, args: &[&str], dir: &Path) -> Answer {
    let out = Command::new(cuobjdump).args(args).current_dir(dir).output().expect("run cuobjdump");
    Answer {
        ok: out.status.success(),
        signal: std::os::unix::process::ExitStatusExt::signal(&out.status),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One line of `cuobjdump --list-elf --list-ptx`: kind (`ELF`/`PTX`), number, file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub kind: String,
    pub number: u64,
    pub name: String,
}

impl Listed {
    /// The arch in the name as cuobjdump writes it (`x.3.sm_90a.cubin` gives `sm_90a`).
    pub fn arch(&self) -> String {
        let stem = self.name.rsplit_once('.').map_or(self.name.as_str(), |(s, _)| s);
        stem.rsplit_once('.').map_or(stem, |(_, a)| a).to_string()
    }
}

/// The images `cuobjdump --list-elf --list-ptx` lists, in its order.
pub fn parse_list(stdout: &str) -> Vec<Listed> {
    stdout
        .lines()
        .filter_map(|l| {
            let (head, name) = l.split_once(':')?;
            let mut words = head.split_whitespace();
            let kind = words.next()?.to_string();
            (words.next()? == "file").then_some(())?;
            let number = words.next()?.parse().ok()?;
            Some(Listed { kind, number, name: name.trim().to_string() })
        })
        .collect()
}

/// The files of a directory, name and bytes, sorted by name.
pub fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// A real CUDA library from a PyPI wheel: package, pinned version, path of the library in it.
pub struct RealLibrary {
    pub package: &'static str,
    pub version: &'static str,
    pub member: &'static str,
}

/// Two libraries of different toolkits and compressions, a few MB each: nvJPEG for CUDA 12
/// (cubins for sm_50..sm_121, LZ4) and for CUDA 13 (zstd).
pub const REAL_LIBRARIES: &[RealLibrary] = &[
    RealLibrary { package: "nvidia-nvjpeg-cu12", version: "12.4.0.76", member: "nvidia/nvjpeg/lib/libnvjpeg.so.12" },
    RealLibrary { package: "nvidia-nvjpeg", version: "13.3.2.43", member: "nvidia/cu13/lib/libnvjpeg.so.13" },
];

/// nvJPEG built with CUDA 11.8 (LZ4-compressed cubins from sm_35): cuobjdump 13.5 refuses any
/// file with an sm_35 image ("Support for 'sm_35' has been removed"), and PyPI has no older
/// cuobjdump, so this one is checked against LLVM's reading of its cubins instead.
pub const CUDA11_LIBRARY: RealLibrary =
    RealLibrary { package: "nvidia-nvjpeg-cu11", version: "11.9.0.86", member: "nvidia/nvjpeg/lib/libnvjpeg.so.11" };

/// The library, downloaded once into .tools/nvidia/libs (`pip download --no-deps
/// --only-binary=:all:`) and taken out of its wheel; `None` with a message when it cannot be
/// had (offline).
pub fn real_library(lib: &RealLibrary) -> Option<PathBuf> {
    let dir = tools_dir().join("libs").join(format!("{}-{}", lib.package, lib.version));
    let out = dir.join(Path::new(lib.member).file_name().unwrap());
    if out.is_file() {
        return Some(out);
    }
    let wheel = wheels::download(&format!("{}=={}", lib.package, lib.version), &dir, &[])?;
    if !wheels::unzip(&wheel, &dir, &[lib.member]) {
        println!("skipping {} {}: cannot unzip {}", lib.package, lib.version, wheel.display());
        return None;
    }
    std::fs::rename(dir.join(lib.member), &out).ok()?;
    let _ = std::fs::remove_file(&wheel);
    Some(out)
}
