#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine (run as root, or with sudo available).
# Every step checks first, so a second run costs seconds.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}

missing=()
[ -x "$LLVM_BIN/clang-offload-bundler" ] || missing+=(clang-22)
[ -x "$LLVM_BIN/llvm-offload-binary" ] || missing+=(llvm-22)
[ -x "$LLVM_BIN/ld.lld" ] || missing+=(lld-22)
# LLVM's Itanium demangler header, which build.rs compiles into the core.
[ -f /usr/lib/llvm-22/include/llvm/Demangle/ItaniumDemangle.h ] || missing+=(llvm-22-dev)
command -v cc >/dev/null || missing+=(gcc)
command -v zstd >/dev/null || missing+=(zstd)
# nvcc preprocesses and compiles host code with the system g++.
command -v g++ >/dev/null || missing+=(g++)
command -v unzip >/dev/null || missing+=(unzip)
# tests/fixtures/packages/generate.sh makes the package fixtures with the real tools.
command -v zip >/dev/null || missing+=(zip)
command -v xz >/dev/null || missing+=(xz-utils)
command -v dpkg-deb >/dev/null || missing+=(dpkg)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
# scripts/python-test.sh builds the wheel and tests it in virtual environments (Debian splits
# ensurepip, which `python3 -m venv` needs, into python3-venv).
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
command -v spirv-dis >/dev/null || missing+=(spirv-tools)  # SPIR-V reference for tests/device_images.rs
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

need_cargo
need_rust_target wasm32-unknown-unknown
need_rust_components rustfmt clippy
"$ROOT/scripts/install-nvidia.sh" || say "warning: the NVIDIA toolchain is not installed; the NVIDIA differential tests will say they are skipped" >&2
# cli/tests/check.rs validates `offload check`'s JUnit and SARIF reports against their schemas.
"$ROOT/scripts/install-report-schemas.sh" || say "warning: the report validators are not installed; cli/tests/check.rs will say its schema checks are skipped" >&2
say "ok (clang-offload-bundler $("$LLVM_BIN/clang-offload-bundler" --version | grep -o 'version [0-9.]*'))"
