//! Builds LLVM's Itanium demangler (`src/report/demangle/itanium.cpp` over the header
//! `llvm/Demangle/ItaniumDemangle.h`) into the core, so kernel names read as llvm-cxxfilt prints
//! them. The header comes from Debian's `llvm-22-dev` (`/usr/lib/llvm-22/include`, or
//! `$OFFLOAD_LLVM_INCLUDE`). Natively it is compiled by the system C++ compiler; for wasm32 (the
//! page) by clang-22 (`$OFFLOAD_WASM_CXX`) against the WASI C and C++ headers of Debian's
//! `wasi-libc` and `libc++-22-dev-wasm32`, with no C library linked: the few C functions it
//! calls are Rust's (`src/report/demangle/wasm_libc.rs`).

use std::path::{Path, PathBuf};

const GLUE: &str = "src/report/demangle/itanium.cpp";
const LLVM_INCLUDE: &str = "/usr/lib/llvm-22/include";
const WASM_CXX: &str = "/usr/lib/llvm-22/bin/clang++";
const WASI_CXX_HEADERS: &str = "/usr/lib/llvm-22/include/wasm32-wasi/c++/v1";
const WASI_C_HEADERS: &str = "/usr/include/wasm32-wasi";

fn main() {
    println!("cargo:rerun-if-changed={GLUE}");
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["OFFLOAD_LLVM_INCLUDE", "OFFLOAD_WASM_CXX"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let include = PathBuf::from(std::env::var("OFFLOAD_LLVM_INCLUDE").unwrap_or_else(|_| LLVM_INCLUDE.into()));
    let header = include.join("llvm/Demangle/ItaniumDemangle.h");
    needs(&header, "LLVM's demangler header", "apt-get install -y llvm-22-dev, or set OFFLOAD_LLVM_INCLUDE");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file(GLUE)
        .include(&include)
        .std("c++17")
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        .define("NDEBUG", None)
        .opt_level(2);
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        let cxx = std::env::var("OFFLOAD_WASM_CXX").unwrap_or_else(|_| WASM_CXX.into());
        needs(Path::new(&cxx), "clang++ 22 for wasm32", "apt-get install -y clang-22, or set OFFLOAD_WASM_CXX");
        needs(
            &Path::new(WASI_CXX_HEADERS).join("__config"),
            "the WASI C++ headers",
            "apt-get install -y libc++-22-dev-wasm32",
        );
        needs(&Path::new(WASI_C_HEADERS).join("stdlib.h"), "the WASI C headers", "apt-get install -y wasi-libc");
        build
            .compiler(cxx)
            .cpp_link_stdlib(None)
            .flag("--target=wasm32-wasip1")
            .flag("-nostdlib++")
            .flag("-isystem")
            .flag(WASI_CXX_HEADERS)
            .flag("-isystem")
            .flag(WASI_C_HEADERS);
    }
    build.compile("offload_itanium_demangle");
}

/// Stops the build naming what is missing and how to install it.
fn needs(path: &Path, what: &str, how: &str) {
    if !path.exists() {
        panic!("{what} not found at {}: {how}", path.display());
    }
}
