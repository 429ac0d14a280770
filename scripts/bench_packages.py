#!/usr/bin/env python3
"""Benchmark: large packages. Four public wheels from PyPI, downloaded once into the wheel cache
($OFFLOAD_WHEEL_CACHE, else ~/.cache/offload-explorer/wheels) with `pip download --no-deps
--only-binary=:all:`:

- a framework's CUDA wheel of many members (TensorFlow 2.16.1: 563 MiB, over 13,000 members,
  most of them small Python sources and headers, the device code in a few large libraries);
- a CUDA wheel of few, large members with thousands of device images (cuDNN 9.5: 545 MiB, 31
  members, 4,099 images);
- a ROCm wheel over 100 MiB (JAX's ROCm 6.0 PJRT plugin: 117 MiB, 29 bundles, 261 code objects);
- a ROCm wheel of many kernels (JAX's ROCm 7 PJRT plugin 0.10.0: 131 MiB, 246 code objects,
  23,040 kernels, in one 495 MiB library).

Our `list`, `kernels`, `fit` and `sizes` run on each whole wheel (time and peak memory); on the
largest library of the CUDA wheels and of the many-kernel ROCm wheel, unzipped, our `list`,
`kernels` and `sizes` run alone, beside `cuobjdump --dump-resource-usage` (the NVIDIA reference
for what `kernels` answers) on the CUDA ones. Printed, never asserted.
A wheel pip cannot get (offline) is skipped with a message.

With `--page`, the page instead (the release build in target/e2e-dist, `e2e/bench_packages.mjs`
in headless Chromium): pick to the first "Runs on" target on screen (shown while the rest is
read), pick to the explored summary (every image decoded: the Kernels view's count is the
file's), what the Kernels view says, and the peak memory of the browser's processes; beside it,
our CLI's `kernels` on the same wheel in the same run, and the ratio of the two.
"""
import json
import os
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import OFFLOAD, ROOT, measure  # noqa: E402

CACHE = os.environ.get("OFFLOAD_WHEEL_CACHE", os.path.expanduser("~/.cache/offload-explorer/wheels"))
CUOBJDUMP = os.path.join(ROOT, ".tools", "nvidia", "root", "nvidia", "cu13", "bin", "cuobjdump")
WHEELS = [
    # (requirement, what, GPU for `fit`)
    ("tensorflow==2.16.1", "CUDA, many members", "sm_89"),
    ("nvidia-cudnn-cu12==9.5.1.17", "CUDA", "sm_89"),
    ("jax-rocm60-pjrt==0.5.0", "ROCm", "gfx90a"),
    ("jax-rocm7-pjrt==0.10.0", "ROCm, many kernels", "gfx942"),
]


def wheel(requirement):
    """The cached wheel file of `requirement`, downloaded first if needed; None when offline."""
    name, version = requirement.split("==")
    prefix = f"{name.replace('-', '_')}-{version}-"
    os.makedirs(CACHE, exist_ok=True)
    find = lambda: next((os.path.join(CACHE, f) for f in sorted(os.listdir(CACHE))
                         if f.startswith(prefix) and f.endswith(".whl")), None)
    if find() is None:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--python-version", "3.11", "--implementation", "cp", "--platform", "manylinux2014_x86_64",
               "--platform", "manylinux_2_28_x86_64", "-d", CACHE, requirement]
        if subprocess.run(cmd).returncode != 0:
            print(f"skipped {requirement}: pip download failed (offline?)")
            return None
    return find()


def largest_library(path):
    """The largest member of the wheel that is a shared library, unzipped next to the wheel."""
    with zipfile.ZipFile(path) as z:
        libs = [i for i in z.infolist() if ".so" in os.path.basename(i.filename)]
        big = max(libs, key=lambda i: i.file_size)
        out = os.path.join(CACHE, "bench-unzipped", os.path.basename(big.filename))
        if not os.path.exists(out) or os.path.getsize(out) != big.file_size:
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(big) as src, open(out + ".tmp", "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            os.replace(out + ".tmp", out)
    return out


def count(cmd, what):
    """How many `what` (targets or kernels) a JSON answer of ours holds, counted by a child
    Python: the document is large, and this script's own memory would count in the peak of
    every command it starts after (rusage counts a forked child's pages)."""
    counter = f"import json, sys; print(len(json.load(sys.stdin)[{what!r}]))"
    ours = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    counted = subprocess.run([sys.executable, "-c", counter], stdin=ours.stdout, capture_output=True, check=True)
    ours.stdout.close()
    ours.wait()
    return int(counted.stdout)


def row(name, cmd):
    try:
        t, m = measure(cmd)
    except SystemExit as failed:
        # A reference that fails gave no answer (cuobjdump dies on some real libraries).
        return f"| {name} | failed: {str(failed).splitlines()[-1][:80]} | |"
    return f"| {name} | {t:.2f} s | {m / 1024:.0f} MiB |"


def page():
    """The page on each wheel (see the module's doc)."""
    paths = [p for p in (wheel(r) for r, _, _ in WHEELS) if p is not None]
    if not paths:
        return
    out = subprocess.run(["node", os.path.join(ROOT, "e2e", "bench_packages.mjs"), *paths],
                         cwd=os.path.join(ROOT, "e2e"), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench: the page failed on the wheels:\n{out.stderr[-2000:]}")
    print("| wheel | members | pick to first target | pick to every kernel (page-measured) | CLI `kernels` | page / CLI | Kernels view says | peak memory, browser: proportional (PSS) | resident, summed (RSS; of which the page's renderer) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path, line in zip(paths, out.stdout.splitlines()):
        r = json.loads(line)
        cli, _ = measure([OFFLOAD, "kernels", path])
        members = len(zipfile.ZipFile(path).infolist())
        print(f"| {r['wheel']} ({r['mib']} MiB) | {members:,} | {r['firstTargetMs'] / 1000:.1f} s | "
              f"{r['wallMs'] / 1000:.1f} s ({r['pageMs'] / 1000:.1f} s) | {cli:.1f} s | {r['wallMs'] / 1000 / cli:.1f}x | "
              f"{r['kernels']} | {r['peakPssMib']} MiB | {r['peakMib']} MiB ({r['peakByType'].get('renderer', 0)} MiB) |")


def main():
    if "--page" in sys.argv[1:]:
        page()
        return
    if not os.path.exists(OFFLOAD):
        sys.exit(f"bench: {OFFLOAD} is missing; run `cargo build --release`")
    for requirement, what, gpu in WHEELS:
        path = wheel(requirement)
        if path is None:
            continue
        images = count([OFFLOAD, "list", "--json", "--verify", path], "targets")
        kernels = count([OFFLOAD, "kernels", "--json", path], "kernels")
        print(f"### {what}: {os.path.basename(path)}")
        print()
        print(f"{os.path.getsize(path) / 2**20:.0f} MiB, {len(zipfile.ZipFile(path).infolist())} members, "
              f"{images} device images, {kernels} kernels; best of the runs, peak resident memory.")
        print()
        print("| command | time | peak memory |")
        print("|---|---|---|")
        print(row("offload list", [OFFLOAD, "list", path]))
        print(row("offload kernels", [OFFLOAD, "kernels", path]))
        # `fit` answers "no" with exit status 1: an answer, not a failure.
        fit = f'"$0" fit --gpu {gpu} "$1"; test $? -le 1'
        print(row(f"offload fit --gpu {gpu}", ["sh", "-c", fit, OFFLOAD, path]))
        print(row("offload sizes", [OFFLOAD, "sizes", path]))
        if what in ("CUDA", "CUDA, many members", "ROCm, many kernels"):
            lib = largest_library(path)
            print()
            print(f"Its largest library, unzipped ({os.path.basename(lib)}, "
                  f"{os.path.getsize(lib) / 2**20:.0f} MiB):")
            print()
            print("| command | time | peak memory |")
            print("|---|---|---|")
            if what.startswith("ROCm"):
                pass
            elif os.path.exists(CUOBJDUMP):
                print(row("cuobjdump --dump-resource-usage", [CUOBJDUMP, "--dump-resource-usage", lib]))
            else:
                print(f"| cuobjdump: not installed ({CUOBJDUMP}) | | |")
            for command in ("list", "kernels", "sizes"):
                print(row(f"offload {command}", [OFFLOAD, command, lib]))
        print()


if __name__ == "__main__":
    main()
