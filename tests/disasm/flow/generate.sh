#!/usr/bin/env bash
# Assembles the hand-written kernels of this directory (tests/disasm_flow.rs): each NAME_PROC.s
# with llvm-mc 22 for processor PROC into an object, linked by ld.lld into the code object
# NAME_PROC.co. Their blocks, loops and register peaks are known by construction (each file's
# comment says them).
#
# Usage: tests/disasm/flow/generate.sh        CLANG_BIN_DIR: LLVM 22 tools (/usr/lib/llvm-22/bin)
set -euo pipefail
CLANG_BIN_DIR=${CLANG_BIN_DIR:-/usr/lib/llvm-22/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/offload-flow.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for source in "$HERE"/*.s; do
  name=$(basename "$source" .s)
  proc=${name##*_}
  "$CLANG_BIN_DIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj "$source" -o "$WORK/$name.o"
  "$CLANG_BIN_DIR/ld.lld" -shared --build-id=none "$WORK/$name.o" -o "$HERE/$name.co"
  echo "$name.co" >&2
done
