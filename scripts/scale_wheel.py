#!/usr/bin/env python3
"""Builds a wheel shaped like a deep-learning framework's, from real fixtures: many small text
members (Python sources, headers, licences, as a framework ships thousands of) around a few
hundred members with device code (NVIDIA fatbins that nvcc made, compressed clang offload
bundles that clang made). Members are deflated, as pip's wheels are, and the text members come
first in zip order, as a framework's `functorch/...` sources do, so that a reader that walks
members in order meets the device code last.

    scripts/scale_wheel.py OUT.whl [--text N] [--nv N] [--hip N]

Defaults: 12,000 text members, 400 NVIDIA fatbins (3 cubins each, LZ4-compressed entries),
100 compressed bundles (2 code objects each in 3 compressed bundles): 1,800 device images. The
content is deterministic: the same arguments give the same bytes.
"""
import argparse
import os
import random
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
NV = os.path.join(FIXTURES, "nvidia", "nv_3arch_lz4_all.fatbin")
HIP = os.path.join(FIXTURES, "hip_elf_2arch_compressed.hipfb")
# A fixed date: zipfile writes the time of day otherwise, and the bytes would change.
DATE = (2024, 1, 1, 0, 0, 0)

WORDS = ("tensor kernel device stream graph module layer shape dtype buffer launch grid block "
         "thread warp memory cache scalar vector reduce gather scatter batch").split()


def text_member(rng, i):
    """A small Python source of a few hundred bytes to a few KiB: what most members are."""
    lines = [f'"""Module {i}: {" ".join(rng.choice(WORDS) for _ in range(8))}."""', "import math", ""]
    for f in range(rng.randint(2, 40)):
        args = ", ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        lines.append(f"def {rng.choice(WORDS)}_{f}({args}):")
        lines.append(f"    return math.fsum([{args}]) * {rng.random():.6f}")
        lines.append("")
    return "\n".join(lines) + "\n"


def write(z, name, data):
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    z.writestr(info, data)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--text", type=int, default=12_000)
    p.add_argument("--nv", type=int, default=400)
    p.add_argument("--hip", type=int, default=100)
    a = p.parse_args()
    rng = random.Random(35)
    nv, hip = open(NV, "rb").read(), open(HIP, "rb").read()
    tmp = a.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(a.text):
            folder = ("functorch", "nn", "ops", "include/core", "utils")[i % 5]
            write(z, f"scale/{folder}/m{i:05}.py", text_member(rng, i))
        for i in range(a.nv):
            write(z, f"scale/lib/nv/kernels_{i:04}.fatbin", nv)
        for i in range(a.hip):
            write(z, f"scale/lib/hip/kernels_{i:04}.hipfb", hip)
        write(z, "scale-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: scale\nVersion: 1.0\n")
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
