#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine (run as root, or with sudo available).
# Every step checks first, so a second run costs seconds.
set -euo pipefail

LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

missing=()
[ -x "$LLVM_BIN/clang-offload-bundler" ] || missing+=(clang-22)
[ -x "$LLVM_BIN/llvm-offload-binary" ] || missing+=(llvm-22)
[ -x "$LLVM_BIN/ld.lld" ] || missing+=(lld-22)
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
command -v spirv-dis >/dev/null || missing+=(spirv-tools)  # SPIR-V reference for tests/device_images.rs
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]} from Debian"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "install-deps: cargo is missing: install Rust (https://rustup.rs) first" >&2
  exit 1
fi
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "install-deps: adding the wasm32-unknown-unknown Rust target"
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  if command -v rustup >/dev/null && ! rustup component list --installed | grep -q "^$component"; then
    echo "install-deps: adding the Rust component $component"
    rustup component add "$component"
  fi
done
"$(dirname "${BASH_SOURCE[0]}")"/install-nvidia.sh || echo "install-deps: warning: the NVIDIA toolchain is not installed; the NVIDIA differential tests will say they are skipped" >&2
echo "install-deps: ok (clang-offload-bundler $("$LLVM_BIN/clang-offload-bundler" --version | grep -o 'version [0-9.]*'))"
