#!/usr/bin/env python3
"""Benchmark: wheels read from a host that serves no ranges (scripts/remote_server.py's
`/norange/`: the whole file, 200 OK), throttled like a real link (--throttle 12500000
--latency 50: 100 Mbit/s, 50 ms before every answer), explored as they arrive against
explored once they have all arrived.

For each wheel of the cache (~/.cache/offload-explorer/wheels; skipped when absent), the time of
`offload kernels --json URL`:

- after: members explored as they arrive (the CLI's way);
- before: `OFFLOAD_DEBUG=arriving-whole`, nothing explored before the file has all arrived (how
  the CLI read such hosts before);
- a plain download of the whole file from the same server, and `offload kernels --json` on the
  local copy: the least "before" can take is about their sum, the least "after" can take is the
  download alone;
- each remote answer is checked against the local copy's (the same JSON but the file name).

Nothing here asserts: it prints figures.

    python3 scripts/bench_remote_stream.py [WHEEL ...]
"""

import json
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The same server, link and places as bench_remote.py's.
from bench_remote import CACHE, LATENCY_MS, OFFLOAD, WORK, start_server  # noqa: E402
WHEELS = [
    "nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl",
    "cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl",
    "jax_rocm7_pjrt-0.10.0-py3-none-manylinux_2_28_x86_64.whl",
]
def timed(args, env=None):
    """(seconds, stdout) of `offload ARGS`."""
    start = time.monotonic()
    done = subprocess.run([OFFLOAD, *args], capture_output=True, env={**os.environ, **(env or {})})
    elapsed = time.monotonic() - start
    if done.returncode not in (0, 1):
        sys.exit(f"bench_remote_stream: offload {' '.join(args)}: exit {done.returncode}: {done.stderr.decode()}")
    return elapsed, done.stdout


def answer(stdout):
    """The JSON answer without the keys that name the file."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if not (k in ("file", "old", "new") and isinstance(v, str))}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(json.loads(stdout))


def plain_download(url):
    """Seconds one GET of the whole file takes from the same (throttled) server."""
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=1200) as response:
        while response.read(1 << 20):
            pass
    return time.monotonic() - start


def main():
    if not os.path.exists(OFFLOAD):
        sys.exit("bench_remote_stream: build the CLI first (cargo build --release)")
    wheels = sys.argv[1:] or WHEELS
    os.makedirs(WORK, exist_ok=True)
    for name in wheels:
        link = os.path.join(WORK, name)
        if os.path.exists(os.path.join(CACHE, name)) and not os.path.lexists(link):
            os.symlink(os.path.join(CACHE, name), link)
    process, url = start_server(WORK)
    try:
        print(f"## Hosts without ranges: explored as the file arrives (100 Mbit/s, {LATENCY_MS} ms)\n")
        print("| wheel | size | plain download | `kernels` on the local copy | before: download, then explore "
              "| after: explore as it arrives | after / before | same answer |")
        print("|---|---|---|---|---|---|---|---|")
        for wheel in wheels:
            path = os.path.join(WORK, wheel)
            if not os.path.exists(path):
                print(f"| {wheel} | skipped: not in {CACHE} | | | | | | |")
                continue
            remote = f"{url}norange/{wheel}"
            download = plain_download(remote)
            local, local_out = timed(["kernels", "--json", path])
            before, before_out = timed(["kernels", "--json", remote], {"OFFLOAD_DEBUG": "arriving-whole"})
            after, after_out = timed(["kernels", "--json", remote])
            same = answer(local_out) == answer(before_out) == answer(after_out)
            size = os.path.getsize(path) / (1 << 20)
            print(f"| {wheel} | {size:.1f} MiB | {download:.2f} s | {local:.2f} s | {before:.2f} s | {after:.2f} s | "
                  f"{after / before:.2f} | {'yes' if same else 'NO'} |")
        print()
        print("Exploring as the file arrives hides the exploring behind the download: `after` tends to the plain "
              "download's time, `before` to the download's plus the local exploration's.")
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
