#!/usr/bin/env python3
"""Benchmark: reading files over HTTP by range requests (`offload list URL`), against a local
server throttled like a real link (scripts/remote_server.py --throttle 12500000 --latency 50:
100 Mbit/s shared by all connections, 50 ms before every answer).

1. A raw 1 GiB library with a small offload section: a real HIP library of the fixtures
   (tests/fixtures/libhip_3tu_compressed.so) with a 1 GiB section added by llvm-objcopy
   (kept in target/bench-remote/). Printed: the time `list` takes, the bytes fetched and their
   share of the file.
2. Wheels from the wheel cache (~/.cache/offload-explorer/wheels; skipped when absent): the
   bytes fetched against the stored bytes of the members that can hold device code (those whose
   first bytes are an ELF, ar archive, bundle, compressed bundle, offload binary or fatbin,
   told by Python's zipfile here) plus the central directory; the time against a plain
   download of that many bytes from the same server (one GET of a range that long), and the
   CLI's peak memory (rusage).

Aims (issue #38): the raw library answers in < 2 s having fetched < 1 %; a wheel fetches no
more than its device members' stored bytes plus its directory, in no more than 1.2x the time
of a plain download of those bytes. Nothing here asserts: it prints figures.
"""

import json
import os
import struct
import subprocess
import sys
import time
import urllib.request
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFFLOAD = os.path.join(ROOT, "target", "release", "offload")
WORK = os.path.join(ROOT, "target", "bench-remote")
OBJCOPY = os.path.join(os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin"), "llvm-objcopy")
CACHE = os.environ.get("OFFLOAD_WHEEL_CACHE") or os.path.expanduser("~/.cache/offload-explorer/wheels")
WHEELS = [
    "nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl",
    "cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl",
    "cupy_cuda12x-13.3.0-cp311-cp311-manylinux2014_x86_64.whl",
]
THROTTLE = 12_500_000
LATENCY_MS = 50
# First bytes of what can hold device code (packages/explore.rs's `worth_opening`).
DEVICE_MAGICS = (b"\x7fELF", b"!<arch>\n", b"CCOB", b"__CLANG_OFFLOAD_BUNDLE__", b"\x10\xff\x10\xad",
                 b"\x50\xed\x55\xba", b"MZ", b"\xcf\xfa\xed\xfe")


def start_server(root):
    process = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "scripts", "remote_server.py"), "--quiet", "--root", root,
         "--throttle", str(THROTTLE), "--latency", str(LATENCY_MS)],
        stdout=subprocess.PIPE, text=True)
    url = process.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        sys.exit(f"bench_remote: the server printed {url!r}")
    return process, url


def get(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def fetched_by_offload(url, name):
    stats = json.loads(get(url + "_stats"))
    return stats["paths"].get(name, {}).get("agents", {}).get("offload", 0)


def run_offload(args):
    """(seconds, peak resident MiB of this run alone, exit status)."""
    start = time.monotonic()
    child = subprocess.Popen([OFFLOAD, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.monotonic() - start
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def plain_download(url, size):
    """Seconds one GET of `size` bytes takes from the same (throttled) server."""
    request = urllib.request.Request(url, headers={"Range": f"bytes=0-{size - 1}"})
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=600) as response:
        while response.read(1 << 20):
            pass
    return time.monotonic() - start


def big_library():
    """target/bench-remote/big_hip.so: the HIP library with a 1 GiB section added."""
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, "big_hip.so")
    if os.path.exists(out) and os.path.getsize(out) > 1 << 30:
        return out
    padding = os.path.join(WORK, "padding.bin")
    with open(padding, "wb") as f:
        f.truncate(1 << 30)
    source = os.path.join(ROOT, "tests", "fixtures", "libhip_3tu_compressed.so")
    subprocess.run([OBJCOPY, "--add-section", f".padding={padding}", source, out], check=True)
    os.remove(padding)
    return out


def device_stored(path):
    """(stored bytes of the members that can hold device code, central directory bytes)."""
    stored = 0
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if info.file_size == 0:
                continue
            with z.open(info) as member:
                head = member.read(32)
            if head.startswith(DEVICE_MAGICS):
                stored += info.compress_size
    with open(path, "rb") as f:
        f.seek(-22, os.SEEK_END)
        end = f.read(22)
    directory = struct.unpack("<I", end[12:16])[0]
    if directory == 0xFFFFFFFF:
        directory = os.path.getsize(path)  # a zip64 directory: not told apart here
    return stored, directory


def mib(n):
    return f"{n / (1 << 20):.1f} MiB"


def main():
    if not os.path.exists(OFFLOAD):
        sys.exit("bench_remote: build the CLI first (cargo build --release)")
    os.makedirs(WORK, exist_ok=True)
    for name in WHEELS:
        link = os.path.join(WORK, name)
        if os.path.exists(os.path.join(CACHE, name)) and not os.path.lexists(link):
            os.symlink(os.path.join(CACHE, name), link)
    library = big_library()
    process, url = start_server(WORK)
    try:
        print(f"## Remote reading at 100 Mbit/s with {LATENCY_MS} ms latency (scripts/remote_server.py)\n")
        print("| file | size | fetched | share | time | aim |")
        print("|---|---|---|---|---|---|")
        get(url + "_stats/reset")
        name = os.path.basename(library)
        elapsed, peak, status = run_offload(["list", f"{url}pypi-files/{name}"])
        fetched = fetched_by_offload(url, name)
        size = os.path.getsize(library)
        print(f"| raw library + 1 GiB section (`list`, exit {status}) | {mib(size)} | {fetched:,} B | "
              f"{100 * fetched / size:.4f} % | {elapsed:.2f} s | < 2 s, < 1 % |")
        print()
        print("| wheel | size | device members + directory | fetched | fetched / allowed | time | plain download | time ratio | peak memory |")
        print("|---|---|---|---|---|---|---|---|---|")
        for wheel in WHEELS:
            path = os.path.join(WORK, wheel)
            if not os.path.exists(path):
                print(f"| {wheel} | skipped: not in {CACHE} | | | | | | | |")
                continue
            stored, directory = device_stored(path)
            allowed = stored + directory
            get(url + "_stats/reset")
            elapsed, peak, status = run_offload(["list", f"{url}pypi-files/{wheel}"])
            fetched = fetched_by_offload(url, wheel)
            plain = plain_download(f"{url}pypi-files/{wheel}", allowed)
            print(f"| {wheel} (exit {status}) | {mib(os.path.getsize(path))} | {mib(allowed)} | {mib(fetched)} | "
                  f"{fetched / allowed:.3f} | {elapsed:.2f} s | {plain:.2f} s | {elapsed / plain:.2f} | {peak:.0f} MiB |")
        print()
        print("Aims: fetched / allowed <= 1.0 and time ratio <= 1.2 (issue #38).")
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
