#!/usr/bin/env python3
"""How close each kernel's register peak comes to what it is allocated, over real ROCm wheels.

`offload disasm --pressure --json` over each wheel: per kernel, the peak of live VGPRs and SGPRs
(a backward liveness pass over its control-flow graph) divided by the metadata's `vgpr_count`
and `sgpr_count`. Prints the distribution per wheel (kernels per tenth of the allocation), the
kernels whose peak is 100% of it, the time taken, and fails if any peak is above its allocation.
Kernels allocated no register of a file are left out of that file's distribution.

Wheels come from the cache ($OFFLOAD_WHEEL_CACHE, else ~/.cache/offload-explorer/wheels),
downloaded once by `pip download` (bench_packages.wheel); a wheel pip cannot get is skipped.

    scripts/disasm_pressure.py [--quick]      (--quick: one wheel)
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import OFFLOAD  # noqa: E402
from bench_packages import wheel  # noqa: E402

QUICK = ["cupy-rocm-5-0==13.3.0"]
FULL = QUICK + ["jax-rocm60-pjrt==0.5.0", "jax-rocm7-pjrt==0.10.0"]
FILES = ("vgprs", "sgprs", "agprs")


def ratios(doc):
    """{file: [peak / allocated]} over the kernels of one `--pressure --json` document, and the
    (kernel, file, peak, allocated) of any peak above its allocation."""
    out = {f: [] for f in FILES}
    above = []
    for image in doc["images"]:
        for function in image["functions"]:
            p = function["pressure"]
            allocated = p["allocated"]
            if not allocated:
                continue
            for f in FILES:
                have, peak = allocated[f], p["peak"][f]["count"]
                if have is None:
                    continue
                if peak > have:
                    above.append((function["name"], f, peak, have))
                if have > 0:
                    out[f].append(peak / have)
    return out, above


def row(values):
    buckets = [0] * 11
    for r in values:
        buckets[min(int(r * 10), 10)] += 1
    return buckets


def main():
    requirements = QUICK if "--quick" in sys.argv else FULL
    header = "| wheel | file | kernels | " + " | ".join(f"{i * 10}–{i * 10 + 9}%" for i in range(10)) + " | 100% | time |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    failed = False
    for requirement in requirements:
        path = wheel(requirement)
        if path is None:
            continue
        start = time.perf_counter()
        run = subprocess.run([OFFLOAD, "disasm", "--pressure", "--json", path], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if run.returncode != 0:
            print(f"{requirement}: offload disasm --pressure failed: {run.stderr.strip()}")
            failed = True
            continue
        by_file, above = ratios(json.loads(run.stdout))
        for f in FILES:
            if by_file[f]:
                cells = " | ".join(str(n) for n in row(by_file[f]))
                print(f"| {requirement} | {f} | {len(by_file[f])} | {cells} | {seconds:.1f} s |")
        for name, f, peak, have in above[:10]:
            print(f"ABOVE: {requirement} {name}: peak {peak} {f} > {have} allocated")
        failed |= bool(above)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
