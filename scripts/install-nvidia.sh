#!/usr/bin/env bash
# Installs the NVIDIA CUDA compiler, cuobjdump and the headers nvcc needs from their PyPI wheels
# into $NVIDIA_TOOLS_DIR (scripts/lib.sh: .tools/nvidia/, gitignored), for the NVIDIA fatbin
# fixtures and differential tests:
#
#   .tools/nvidia/wheels/   the downloaded wheels (pip download --no-deps --only-binary=:all:)
#   .tools/nvidia/root/     the wheels unpacked; nvcc, cuobjdump, fatbinary, ptxas are in
#                           root/nvidia/cu13/bin, cicc in root/nvidia/cu13/nvvm/bin
#                           ($NVIDIA_CUDA_DIR/bin and nvvm/bin)
#
# Versions are pinned. A second run checks the version stamp and returns at once. Offline, it
# says so and exits 1 (install-deps.sh goes on; the tests that need these tools skip, saying so).
# nvcc uses the system g++ as its host compiler.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NV_VERSION=13.5.37
NV_PACKAGES=(nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime nvidia-cuda-cuobjdump)
DIR=$NVIDIA_TOOLS_DIR
BIN=$NVIDIA_CUDA_DIR/bin
STAMP=$DIR/root/.installed

want="$NV_VERSION ${NV_PACKAGES[*]}"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$BIN/nvcc" ] && [ -x "$BIN/cuobjdump" ]; then
  exit 0
fi

mkdir -p "$DIR/wheels"
for p in "${NV_PACKAGES[@]}"; do
  norm=${p//-/_}
  if ! ls "$DIR/wheels/${norm}-${NV_VERSION}-"*.whl >/dev/null 2>&1; then
    say "downloading $p $NV_VERSION from PyPI"
    pip_download "$DIR/wheels" "$p==$NV_VERSION" \
      --platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 \
      --python-version 3.11 || {
      say "could not download $p $NV_VERSION (offline?)" >&2
      exit 1
    }
  fi
done

rm -rf "$DIR/root"
mkdir -p "$DIR/root"
for p in "${NV_PACKAGES[@]}"; do
  unzip_wheel "$DIR/wheels/${p//-/_}-${NV_VERSION}-"*.whl "$DIR/root"
done
chmod +x "$BIN"/* "$NVIDIA_CUDA_DIR/nvvm/bin"/*
echo "$want" >"$STAMP"
say "$("$BIN/nvcc" --version | tail -1) in $DIR"
