#!/usr/bin/env bash
# Generates the device-image fixtures in this directory (kernels inside code objects, cubins,
# PTX, SPIR-V, bitcode) and records what the reference tools say about them:
#   <image>.notes.txt            llvm-readelf --notes (AMDGPU metadata as YAML)
#   <cubin>.resource-usage.txt   cuobjdump --dump-resource-usage
#   <spv>.dis.txt                spirv-dis (header and preamble only)
#
# Usage: tests/images/generate.sh [OUTDIR]        (default: this directory)
#   CLANG_BIN_DIR  LLVM 22 tools (default /usr/lib/llvm-22/bin)
#   NVIDIA_DIR     the unpacked PyPI NVIDIA toolchain, holding bin/nvcc and bin/cuobjdump
#                  (default: where scripts/install-nvidia.sh puts it, NVIDIA_CUDA_DIR of
#                  scripts/lib.sh); without it the CUDA fixtures are left as they are.
#
# Compiles run in a scratch directory with relative paths, fixed -cuid values and no debug
# info: two runs give identical files.
set -euo pipefail

CLANG_BIN_DIR=${CLANG_BIN_DIR:-/usr/lib/llvm-22/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../scripts/lib.sh"
OUT=${1:-$HERE}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
NVIDIA_DIR=${NVIDIA_DIR:-$NVIDIA_CUDA_DIR}

export PATH="$CLANG_BIN_DIR:$PATH"
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
unset OFFLOAD_BUNDLER_COMPRESS OFFLOAD_BUNDLER_COMPRESSION_LEVEL COMPRESSED_BUNDLE_FORMAT_VERSION \
  CCC_OVERRIDE_OPTIONS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LD_PRELOAD || true

die() { echo "generate.sh: $*" >&2; exit 1; }
for t in clang clang-offload-bundler llvm-offload-binary llvm-objcopy llvm-readelf ld.lld; do
  command -v "$t" >/dev/null || die "missing tool '$t' (CLANG_BIN_DIR=$CLANG_BIN_DIR)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/offload-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
step() { echo "== $*" >&2; }

# The kernel sources are kept beside this script: the tests compile them again.
cp "$HERE/mini_hip.h" "$HERE/kernels.hip" "$HERE/saxpy_omp.c" "$HERE/kernels.cu" .

COMMON=(-O2 -g0 -ffile-prefix-map="$WORK"=. -fno-ident)
HIP=(-x hip -nogpulib -nogpuinc "${COMMON[@]}")

# ------------------------------------------------------------ HIP --
step "HIP: gfx90a and gfx1100"
clang "${HIP[@]}" --offload-arch=gfx90a --offload-arch=gfx1100 -cuid=img1 -c kernels.hip -o "$OUT/hip_kernels.o"
llvm-objcopy --dump-section .hip_fatbin=fatbin.hipfb "$OUT/hip_kernels.o"
clang-offload-bundler --type=o --unbundle --input=fatbin.hipfb \
  --targets=hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1100 \
  --output="$OUT/hip_kernels_gfx90a.co" --output="$OUT/hip_kernels_gfx1100.co"

# ------------------------------------------------------------ OpenMP --
# The OpenMP device code of a `-c` compile is bitcode (linked by clang-linker-wrapper, which
# needs libomptarget). Its code object is made as the wrapper makes it: the device bitcode
# compiled for gfx90a:xnack+, packaged with llvm-offload-binary and embedded in a host object
# as clang embeds it (.llvm.offloading).
step "OpenMP: gfx90a:xnack+"
# OpenMP names a target region after the device and inode numbers of its source file, which
# change from run to run; reached through a name that does not exist (-remap-file), the file
# gets a fixed device id and a hash of its name (as in tests/fixtures/generate.sh).
echo '#include "/offload-images/saxpy_omp.c"' > saxpy_main.c
clang -fopenmp --offload-arch=gfx90a:xnack+ -nogpulib "${COMMON[@]}" -c \
  -Xclang -remap-file -Xclang "/offload-images/saxpy_omp.c;$WORK/saxpy_omp.c" saxpy_main.c -o omp_host.o
llvm-objcopy --dump-section .llvm.offloading=omp_bitcode.offload omp_host.o
llvm-offload-binary omp_bitcode.offload --image=file=omp_device.bc,arch=gfx90a:xnack+
clang --target=amdgcn-amd-amdhsa -mcpu=gfx90a:xnack+ -nogpulib "${COMMON[@]}" -c omp_device.bc -o omp_kernels_gfx90a_xnack.co
cp omp_kernels_gfx90a_xnack.co "$OUT/"
llvm-offload-binary -o omp.offbin \
  --image=file=omp_kernels_gfx90a_xnack.co,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=openmp
echo 'int host_side(int x) { return x + 1; }' > host.c
clang "${COMMON[@]}" -c host.c -Xclang -fembed-offload-object=omp.offbin -o "$OUT/omp_kernels.o"

# ------------------------------------------------------------ SPIR-V and bitcode --
step "HIP: SPIR-V for AMD GPUs (amdgcnspirv) and bitcode"
# For amdgcnspirv clang embeds the module's bitcode and its cc1 command line, temporary file
# names included, in the SPIR-V: -fembed-bitcode=off leaves them out, so that two runs agree.
clang "${HIP[@]}" --offload-arch=amdgcnspirv -use-spirv-backend --cuda-device-only --no-gpu-bundle-output \
  -Xclang -fembed-bitcode=off -cuid=img2 kernels.hip -o hip_kernels_amdgcnspirv.spv
clang "${HIP[@]}" --offload-arch=gfx90a --cuda-device-only -emit-llvm -c -cuid=img3 kernels.hip -o hip_kernels_gfx90a.bc
cp hip_kernels_amdgcnspirv.spv hip_kernels_gfx90a.bc "$OUT/"

for co in hip_kernels_gfx90a hip_kernels_gfx1100 omp_kernels_gfx90a_xnack; do
  llvm-readelf --notes "$OUT/$co.co" > "$OUT/$co.notes.txt"
done
if command -v spirv-dis >/dev/null; then
  # Disassembled to a file first: sed stops reading at the first function, which would kill
  # spirv-dis by SIGPIPE (and this script, by pipefail) when the rest does not fit the pipe.
  spirv-dis --raw-id "$OUT/hip_kernels_amdgcnspirv.spv" -o hip_kernels_amdgcnspirv.dis
  sed '/OpFunction /q' hip_kernels_amdgcnspirv.dis |
    grep -E '^; |Op(Capability|Extension|ExtInstImport|MemoryModel|EntryPoint|ExecutionMode|Source) ' > "$OUT/hip_kernels_amdgcnspirv.dis.txt"
else
  echo "generate.sh: spirv-dis missing (Debian spirv-tools): hip_kernels_amdgcnspirv.dis.txt not rewritten" >&2
fi

# ------------------------------------------------------------ CUDA --
if [ -x "$NVIDIA_DIR/bin/nvcc" ] && [ -x "$NVIDIA_DIR/bin/cuobjdump" ]; then
  step "CUDA: nvcc $("$NVIDIA_DIR/bin/nvcc" --version | grep -o 'release [0-9.]*')"
  # -rdc keeps device functions apart, as cuobjdump lists them.
  "$NVIDIA_DIR/bin/nvcc" -cubin -rdc=true -arch=sm_80 -O2 kernels.cu -o cuda_kernels_sm80.cubin
  "$NVIDIA_DIR/bin/nvcc" -cubin -arch=sm_120 -O2 kernels.cu -o cuda_kernels_sm120.cubin
  "$NVIDIA_DIR/bin/nvcc" -ptx -arch=sm_80 -O2 kernels.cu -o cuda_kernels_sm80.ptx
  cp cuda_kernels_sm80.cubin cuda_kernels_sm120.cubin cuda_kernels_sm80.ptx "$OUT/"
  for c in cuda_kernels_sm80 cuda_kernels_sm120; do
    "$NVIDIA_DIR/bin/cuobjdump" --dump-resource-usage "$OUT/$c.cubin" > "$OUT/$c.resource-usage.txt"
  done
else
  echo "generate.sh: no NVIDIA toolchain in $NVIDIA_DIR (scripts/install-nvidia.sh fetches it): CUDA fixtures not rewritten" >&2
fi

cd "$OUT"
sha256sum -- *.o *.co *.bc *.spv *.cubin *.ptx 2>/dev/null > SHA256SUMS
step "done: $(wc -l < SHA256SUMS) fixtures in $OUT"
