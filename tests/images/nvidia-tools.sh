#!/usr/bin/env bash
# Fetches the NVIDIA tools the CUDA image tests compare with, from PyPI, into .tools/nvidia/
# (git-ignored): nvcc, ptxas, cicc (nvidia-cuda-nvcc, nvidia-nvvm, nvidia-cuda-crt), cuobjdump
# (nvidia-cuda-cuobjdump), the CUDA headers nvcc includes (nvidia-cuda-runtime), and two real
# CUDA libraries whose cubins the tests read (nvidia-nvjpeg for CUDA 13, nvidia-nvjpeg-cu12 for
# CUDA 12: cubins in both e_flags encodings). About 140 MB of wheels; a second run does nothing.
#
# Usage: tests/images/nvidia-tools.sh        then: tests/images/generate.sh, cargo test
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=$ROOT/.tools/nvidia
mkdir -p "$DIR/wheels"
PLATFORMS=(--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64)

if [ ! -x "$DIR/root/nvidia/cu13/bin/cuobjdump" ] || [ ! -x "$DIR/root/nvidia/cu13/bin/nvcc" ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: "${PLATFORMS[@]}" --python-version 3.11 -d "$DIR/wheels" \
    nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-cuobjdump nvidia-cuda-runtime
  for w in "$DIR"/wheels/nvidia_cuda_*.whl "$DIR"/wheels/nvidia_nvvm-*.whl; do
    python3 -m zipfile -e "$w" "$DIR/root"
  done
  chmod +x "$DIR"/root/nvidia/cu13/bin/* "$DIR"/root/nvidia/cu13/nvvm/bin/*
fi
if [ ! -d "$DIR/nvjpeg13" ] || [ ! -d "$DIR/nvjpeg12" ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: "${PLATFORMS[@]}" --python-version 3.11 -d "$DIR/wheels" \
    nvidia-nvjpeg nvidia-nvjpeg-cu12
  python3 -m zipfile -e "$DIR"/wheels/nvidia_nvjpeg-1*.whl "$DIR/nvjpeg13"
  python3 -m zipfile -e "$DIR"/wheels/nvidia_nvjpeg_cu12-*.whl "$DIR/nvjpeg12"
fi
echo "nvidia-tools: $("$DIR/root/nvidia/cu13/bin/cuobjdump" --version | tail -1)"
