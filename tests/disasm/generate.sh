#!/usr/bin/env bash
# Generates the disassembly fixtures in this directory: kernels.hip compiled for one processor
# of each instruction-set family, and what llvm-objdump 22 prints for each code object:
#   kernels_<proc>.co              the code object (clang -x hip --cuda-device-only)
#   kernels_<proc>.objdump.txt     llvm-objdump -d, from its "Disassembly of section" line
#   kernels_<proc>.kd.txt          llvm-objdump -D --disassemble-symbols=<every .kd>, likewise
#   kernels_<variant>.co, .kd.txt  descriptor variants the defaults do not reach: wave64 on
#                                  GFX10 (gfx1030_wave64), kernel arguments preloaded into
#                                  SGPRs (gfx942_preload), a dynamic stack (gfx90a_O0)
#   kernels_sweep_<proc>.co, .kd.txt  descriptors with pseudo-random fields and, one in three, a
#                                  reserved bit set (descriptor_sweep.py; llvm-mc), for llvm-objdump's
#                                  directives and error messages beyond what clang emits
#   zeros_<proc>.co                zeros.s assembled by llvm-mc: runs of zero bytes, code before
#                                  the first symbol, a symbol inside an instruction, a last
#                                  partial dword
#   zeros_<proc>.objdump.txt, .objdump-z.txt  llvm-objdump -d, and -d -z, of it
#   images_<proc>.co, .objdump.txt  images_<proc>.s (image instructions of the family: MIMG,
#                                  NSA forms, VIMAGE/VSAMPLE) assembled by llvm-mc, and llvm-objdump -d
#   interp_<proc>.co, .objdump.txt  interp_<proc>.s (GFX11/GFX12 VINTERP) likewise
#   vop3dpp_<proc>.co, .objdump.txt  vop3dpp_<proc>.s (GFX11/GFX12 VOP3 DPP16 and DPP8) likewise
#   mfma_gfx950.co, .objdump.txt   mfma_gfx950.s (f8f6f4 and scaled MFMAs) likewise
#   sdwa_<proc>.co, .objdump.txt   sdwa.s (SDWA forms without destination selects) for gfx942
#                                  and gfx950 likewise
#   sdwa_gfx10_<proc>.co, .objdump.txt  sdwa_gfx10.s (SDWA moves with scalar sources) for
#                                  gfx1010 and gfx1030 likewise
#   misaligned_<proc>.s, .co, .objdump.txt  scalar tuples named from a register off their
#                                  alignment, which llvm-objdump prints aligned with a warning
#                                  after the words (misaligned.py writes the .s from llvm-mc's
#                                  encodings), for one processor of each family likewise
# tests/disasm_agreement.rs compares offload::disasm's listing and descriptors with them.
#
# Usage: tests/disasm/generate.sh [OUTDIR]        (default: this directory)
#   CLANG_BIN_DIR  LLVM 22 tools (default /usr/lib/llvm-22/bin)
#
# Compiles run in a scratch directory with relative paths, a fixed -cuid and no debug info: two
# runs give identical files. The file name line of llvm-objdump's header is left out, so that
# the references do not depend on where the code objects are.
set -euo pipefail

CLANG_BIN_DIR=${CLANG_BIN_DIR:-/usr/lib/llvm-22/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PROCESSORS=(gfx803 gfx900 gfx906 gfx908 gfx90a gfx942 gfx950 gfx1010 gfx1030 gfx1100 gfx1151 gfx1201)

export PATH="$CLANG_BIN_DIR:$PATH"
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
unset CCC_OVERRIDE_OPTIONS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LD_PRELOAD || true

die() { echo "generate.sh: $*" >&2; exit 1; }
for t in clang llvm-mc llvm-objdump llvm-readelf python3; do
  command -v "$t" >/dev/null || die "missing tool '$t' (CLANG_BIN_DIR=$CLANG_BIN_DIR)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/offload-disasm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/disasm" "$WORK/images"
cp "$HERE/kernels.hip" "$HERE/descriptor_sweep.py" "$HERE/zeros.s" "$HERE"/images_*.s "$HERE"/interp_*.s "$HERE"/vop3dpp_*.s "$HERE"/mfma_gfx950.s "$HERE/sdwa.s" "$HERE/sdwa_gfx10.s" "$HERE/misaligned.py" "$WORK/disasm/"
cp "$HERE/../images/mini_hip.h" "$WORK/images/"
cd "$WORK/disasm"

# Everything from llvm-objdump's "Disassembly of section" line on.
from_section() { sed -n '/^Disassembly of section/,$p'; }

# compile NAME PROCESSOR [FLAGS...]: kernels_NAME.co and its descriptors, kernels_NAME.kd.txt.
compile() {
  local name=$1 proc=$2
  shift 2
  echo "== $name" >&2
  clang -x hip --offload-arch="$proc" --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc \
    -O2 -g0 -ffile-prefix-map="$WORK"=. -fno-ident -cuid=disasm "$@" kernels.hip -o "kernels_$name.co"
  local kds
  kds=$(llvm-readelf -s -W "kernels_$name.co" | awk '$4 == "OBJECT" && $8 ~ /\.kd$/ {print $8}' | sort -u | paste -sd, -)
  [ -n "$kds" ] || die "kernels_$name.co has no .kd symbols"
  llvm-objdump -D --disassemble-symbols="$kds" "kernels_$name.co" | from_section > "kernels_$name.kd.txt"
  cp "kernels_$name.co" "kernels_$name.kd.txt" "$OUT/"
}

for proc in "${PROCESSORS[@]}"; do
  compile "$proc" "$proc"
  llvm-objdump -d "kernels_$proc.co" | from_section > "$OUT/kernels_$proc.objdump.txt"
done
compile gfx1030_wave64 gfx1030 -mwavefrontsize64
compile gfx942_preload gfx942 -mllvm -amdgpu-kernarg-preload-count=4
compile gfx90a_O0 gfx90a -O0

for proc in gfx803 gfx900 gfx90a gfx942 gfx1030 gfx1100 gfx1201; do
  echo "== sweep_$proc" >&2
  name=kernels_sweep_$proc
  python3 descriptor_sweep.py "$proc" 24 > "$name.s"
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj "$name.s" -o "$name.co"
  kds=$(llvm-readelf -s -W "$name.co" | awk '$4 == "OBJECT" && $8 ~ /\.kd$/ {print $8}' | sort -u | paste -sd, -)
  llvm-objdump -D --disassemble-symbols="$kds" "$name.co" | from_section > "$name.kd.txt"
  cp "$name.co" "$name.kd.txt" "$OUT/"
done

for proc in gfx803 gfx900 gfx1030 gfx1100; do
  echo "== zeros_$proc" >&2
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj zeros.s -o "zeros_$proc.co"
  llvm-objdump -d "zeros_$proc.co" | from_section > "$OUT/zeros_$proc.objdump.txt"
  llvm-objdump -d -z "zeros_$proc.co" | from_section > "$OUT/zeros_$proc.objdump-z.txt"
  cp "zeros_$proc.co" "$OUT/"
done

for proc in gfx90a gfx1010 gfx1030 gfx1100 gfx1201; do
  echo "== images_$proc" >&2
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj "images_$proc.s" -o "images_$proc.co"
  llvm-objdump -d "images_$proc.co" | from_section > "$OUT/images_$proc.objdump.txt"
  cp "images_$proc.co" "$OUT/"
done
for name in interp vop3dpp; do
  for proc in gfx1100 gfx1201; do
    echo "== ${name}_$proc" >&2
    llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj "${name}_$proc.s" -o "${name}_$proc.co"
    llvm-objdump -d "${name}_$proc.co" | from_section > "$OUT/${name}_$proc.objdump.txt"
    cp "${name}_$proc.co" "$OUT/"
  done
done
echo "== mfma_gfx950" >&2
llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj mfma_gfx950.s -o mfma_gfx950.co
llvm-objdump -d mfma_gfx950.co | from_section > "$OUT/mfma_gfx950.objdump.txt"
cp mfma_gfx950.co "$OUT/"
for proc in gfx942 gfx950; do
  echo "== sdwa_$proc" >&2
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj sdwa.s -o "sdwa_$proc.co"
  llvm-objdump -d "sdwa_$proc.co" | from_section > "$OUT/sdwa_$proc.objdump.txt"
  cp "sdwa_$proc.co" "$OUT/"
done
for proc in gfx1010 gfx1030; do
  echo "== sdwa_gfx10_$proc" >&2
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj sdwa_gfx10.s -o "sdwa_gfx10_$proc.co"
  llvm-objdump -d "sdwa_gfx10_$proc.co" | from_section > "$OUT/sdwa_gfx10_$proc.objdump.txt"
  cp "sdwa_gfx10_$proc.co" "$OUT/"
done
for proc in gfx803 gfx900 gfx90a gfx942 gfx1030 gfx1100 gfx1201; do
  echo "== misaligned_$proc" >&2
  python3 misaligned.py "$proc" > "misaligned_$proc.s"
  llvm-mc -triple=amdgcn-amd-amdhsa -mcpu="$proc" -filetype=obj "misaligned_$proc.s" -o "misaligned_$proc.co"
  llvm-objdump -d "misaligned_$proc.co" | from_section > "$OUT/misaligned_$proc.objdump.txt"
  cp "misaligned_$proc.s" "misaligned_$proc.co" "$OUT/"
done

cd "$OUT"
sha256sum -- kernels_*.co zeros_*.co images_*.co interp_*.co vop3dpp_*.co mfma_*.co sdwa_*.co misaligned_*.co > SHA256SUMS
echo "== done: $(wc -l < SHA256SUMS) code objects in $OUT" >&2
