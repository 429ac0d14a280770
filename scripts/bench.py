#!/usr/bin/env python3
"""Benchmark: our `offload` CLI against clang-offload-bundler 22 on the same inputs.

Four 64 MiB device images (deterministic, compressible like real code objects) are bundled;
the bundle compressed by clang-offload-bundler with zstd is then listed, unbundled for one
target and decompressed by both sides. Each command runs several times; the table shows the
best wall time and the peak resident memory (from the kernel's rusage) of each side and their
ratios. Nothing here asserts on time: it prints figures.
"""
import os
import random
import shutil
import subprocess
import sys
import time

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
BUNDLER = os.path.join(LLVM_BIN, "clang-offload-bundler")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFFLOAD = os.path.join(ROOT, "target", "release", "offload")
WORK = os.path.join(ROOT, "bench", "work")
IMAGE_MIB = int(os.environ.get("BENCH_IMAGE_MIB", "64"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
TARGETS = [
    "hipv4-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx908",
    "hipv4-amdgcn-amd-amdhsa--gfx90a",
    "hipv4-amdgcn-amd-amdhsa--gfx942",
]


def make_image(path, seed):
    """Bytes that compress about as well as AMDGPU code objects (4-5x with zstd): 8-byte
    'instructions' drawn with skewed frequencies from a vocabulary of 8192, every MiB drawn
    afresh so that nothing repeats at long distance."""
    if os.path.exists(path) and os.path.getsize(path) == IMAGE_MIB << 20:
        return
    rng = random.Random(seed)
    vocab = [rng.randbytes(8) for _ in range(8192)]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(vocab))]
    with open(path, "wb") as f:
        for _ in range(IMAGE_MIB):
            f.write(b"".join(rng.choices(vocab, weights=weights, k=(1 << 20) // 8)))


def measure(cmd):
    """Best wall time (s) and peak RSS (KiB) over RUNS runs of cmd."""
    best_t, peak = None, 0
    for _ in range(RUNS):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"bench: command failed: {' '.join(cmd)}\n{err}")
        best_t = elapsed if best_t is None else min(best_t, elapsed)
        peak = max(peak, usage.ru_maxrss)
    return best_t, peak


def same(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def main():
    if not os.path.exists(BUNDLER):
        sys.exit(f"bench: {BUNDLER} is missing; run `make deps`")
    if not os.path.exists(OFFLOAD):
        sys.exit(f"bench: {OFFLOAD} is missing; run `cargo build --release`")
    os.makedirs(WORK, exist_ok=True)
    images = []
    for i, _ in enumerate(TARGETS):
        p = os.path.join(WORK, f"image{i}.co")
        make_image(p, i)
        images.append(p)
    w = lambda name: os.path.join(WORK, name)
    inputs = [f"--input={p}" for p in images]
    targets = "--targets=" + ",".join(TARGETS)

    # The compressed bundle both sides read is made by the reference tool.
    subprocess.run([BUNDLER, "--type=o", targets, *inputs, f"--output={w('ref.cbundle')}", "--compress"], check=True)
    one = TARGETS[2]
    rows = [
        ("bundle 4 x %d MiB" % IMAGE_MIB,
         [BUNDLER, "--type=o", targets, *inputs, f"--output={w('ref.bundle')}"],
         [OFFLOAD, "bundle", "--type=o", targets, *inputs, f"--output={w('our.bundle')}"]),
        ("list compressed (zstd)",
         [BUNDLER, "--type=o", f"--input={w('ref.cbundle')}", "--list"],
         [OFFLOAD, "list", w("ref.cbundle")]),
        ("unbundle 1 target from compressed",
         [BUNDLER, "--type=o", f"--input={w('ref.cbundle')}", f"--targets={one}", f"--output={w('ref.one')}", "--unbundle"],
         [OFFLOAD, "unbundle", "--type=o", f"--input={w('ref.cbundle')}", f"--targets={one}", f"--output={w('our.one')}"]),
        ("decompress (reference: unbundle all 4)",
         [BUNDLER, "--type=o", f"--input={w('ref.cbundle')}", targets] + [f"--output={w(f'ref.all{i}')}" for i in range(4)] + ["--unbundle"],
         [OFFLOAD, "decompress", w("ref.cbundle"), "-o", w("our.decompressed")]),
        ("list compressed, hash verified",
         [BUNDLER, "--type=o", f"--input={w('ref.cbundle')}", "--list"],
         [OFFLOAD, "list", "--verify", w("ref.cbundle")]),
    ]
    results = []
    for name, ref, ours in rows:
        rt, rm = measure(ref)
        ot, om = measure(ours)
        results.append((name, rt, rm, ot, om))
    if not same(w("ref.bundle"), w("our.bundle")):
        sys.exit("bench: our bundle differs from clang-offload-bundler's")
    if not same(w("ref.one"), w("our.one")):
        sys.exit("bench: our unbundled target differs from clang-offload-bundler's")
    if not same(w("our.decompressed"), w("ref.bundle")):
        sys.exit("bench: our decompressed bundle differs from the uncompressed bundle")

    size = os.path.getsize(w("ref.cbundle"))
    print(f"inputs: 4 images of {IMAGE_MIB} MiB; compressed bundle {size / 2**20:.1f} MiB (zstd, by clang-offload-bundler); best of {RUNS} runs")
    print()
    print("| operation | clang-offload-bundler 22 | offload | speed-up | peak memory (ref / ours) | memory ratio |")
    print("|---|---|---|---|---|---|")
    for name, rt, rm, ot, om in results:
        print(f"| {name} | {rt * 1000:.0f} ms | {ot * 1000:.0f} ms | {rt / ot:.1f}x | {rm / 1024:.1f} / {om / 1024:.1f} MiB | {rm / max(om, 1):.1f}x |")
    if os.environ.get("BENCH_KEEP") != "1":
        for f in os.listdir(WORK):
            if not f.startswith("image"):
                os.remove(os.path.join(WORK, f))


if __name__ == "__main__":
    main()
