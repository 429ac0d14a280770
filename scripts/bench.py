#!/usr/bin/env python3
"""Benchmark: our `offload` CLI against clang-offload-bundler 22 on the same inputs.

Four 64 MiB device images (deterministic, compressible like real code objects) are bundled;
the bundle compressed by clang-offload-bundler with zstd is then listed, unbundled for one
target and decompressed by both sides. Each command runs several times; the table shows the
best wall time and the peak resident memory (from the kernel's rusage) of each side and their
ratios. Nothing here asserts on time: it prints figures.

`make bench` also runs two helpers of this script around every step:

    bench.py capture FILE -- COMMAND...   runs COMMAND, its output shown and kept in FILE
                                          (with FILE.meta: when it ran, the load average)
    bench.py report DIR OUT               writes OUT (docs/benchmarks.md) from the captures
                                          in DIR, with the date, machine, tools and commit
"""
import datetime
import json
import os
import platform
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
            p = os.path.join(WORK, f)
            if not f.startswith("image") and os.path.isfile(p):
                os.remove(p)


# ------------------------------------------------------------ make bench's report --

def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def capture(out, cmd):
    """Runs cmd with its standard output shown as it comes and kept in `out`; standard error
    passes through. Returns cmd's exit status. `out`.meta records when it ran and the load
    average (1, 5, 15 minutes) before and after, which matter on a shared machine."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    meta = {"command": " ".join(cmd), "started": now(), "load_before": load_average()}
    with open(out, "wb") as kept:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
        for line in proc.stdout:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
            kept.write(line)
        status = proc.wait()
    meta.update(finished=now(), load_after=load_average(), status=status)
    with open(out + ".meta", "w") as f:
        json.dump(meta, f, indent=1)
    return status


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def first_line(cmd, containing=""):
    """The first line of cmd's output that contains `containing`, or "unknown"."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return next((l.strip() for l in out.splitlines() if containing in l), "unknown")


def machine():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory = "unknown memory"
    model = "unknown CPU"
    try:
        with open("/proc/meminfo") as f:
            kib = next(int(l.split()[1]) for l in f if l.startswith("MemTotal:"))
        memory = f"{kib / 2**20:.1f} GiB memory"
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    except (OSError, StopIteration, ValueError):
        pass
    return f"{cores} cores (nproc), {memory}, {model}, Linux {platform.release()}"


def commit():
    """The commit measured, and whether the working tree differed from it (this report aside)."""
    head = first_line(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(
        ["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/benchmarks.md"],
        capture_output=True, text=True).stdout.strip()
    return f"{head}, with uncommitted changes" if dirty else head


STEPS = [
    ("cli.md", "CLI", "The CLI against clang-offload-bundler 22",
     "`scripts/bench.py`: four 64 MiB device images (compressible like code objects) bundled by "
     "both tools; then the bundle that clang-offload-bundler compressed with zstd is listed, "
     "unbundled for one target and decompressed by both. Best wall time of the runs; peak "
     "memory from the kernel's rusage. The bundle, the unbundled target and the decompressed "
     "bundle are compared with the reference's; a difference stops the run.", False),
    ("packages.md", "packages", "Large packages",
     "`scripts/bench_packages.py`: three public wheels from PyPI (cached; skipped when offline), "
     "a framework's CUDA wheel of over 25,000 members, a CUDA one over 500 MiB of few members with "
     "thousands of device images, and a ROCm one over 100 MiB: "
     "`list`, `kernels`, `fit` and `sizes` on each whole wheel; `cuobjdump "
     "--dump-resource-usage` beside our `kernels` on the CUDA wheel's largest library, unzipped.", False),
    ("remote.md", "remote", "Reading over HTTP",
     "`scripts/bench_remote.py`: `offload list URL` against scripts/remote_server.py throttled to "
     "100 Mbit/s with 50 ms latency: a raw 1 GiB library with a small offload section (a HIP "
     "fixture with a 1 GiB section added by llvm-objcopy), and cached wheels: bytes fetched against "
     "the stored bytes of their members that can hold device code plus the central directory, time "
     "against a plain download of that many bytes, peak memory.", False),
    ("remote-stream.md", "remote-stream", "Hosts without ranges, explored as the file arrives",
     "`scripts/bench_remote_stream.py`: `offload kernels --json URL` on the cached wheels from "
     "scripts/remote_server.py's `/norange/` (the whole file, 200 OK) throttled to 100 Mbit/s with "
     "50 ms latency: members explored as they arrive, against `OFFLOAD_DEBUG=arriving-whole` "
     "(explored once all has arrived, as before) and a plain download of the file; every answer "
     "checked against the local copy's.", False),
    ("packages-page.md", "packages-page", "Large packages in the page",
     "`scripts/bench_packages.py --page` (`e2e/bench_packages.mjs`): the release build in headless "
     "Chromium opens the same wheels through its file input, its members explored on one share "
     "worker per core: pick to the first \"Runs on\" target on screen (shown, with the member "
     "count, while the rest is read), pick to the explored summary with every image decoded (wall "
     "time, and the page's own `data-first-render-ms`), our CLI's `kernels` on the same wheel in "
     "the same run and the ratio of the two, what the Kernels view says, and the peak resident "
     "memory of the browser's own processes (all of them, an empty page's about 0.9 GiB included), "
     "sampled every 50 ms.", False),
    ("code-view.md", "code-view", "A 1 MiB kernel in the Code view",
     "`scripts/bench_code_view.py` (`e2e/bench_code_view.mjs`): one gfx90a kernel of over 1 MiB of "
     "code, made by the script (48 counted loops over windows of up to 240 VGPRs; llvm-mc 22 and "
     "ld.lld), dropped on the release build in headless Chromium, a fresh page each run, its kernel "
     "selected in the tree; from the click on the inspector's Code button (the disassembler worker "
     "starts then) to the listing's first line and to the pressure strip in the document, as the page "
     "itself records them (performance.now() on each animation frame; the wall time around the click "
     "in brackets); then the strip's peak is clicked and the instruction it selects is checked "
     "against `offload disasm --pressure`.", False),
    ("disasm.md", "disasm", "AMDGPU disassembly against llvm-objdump 22",
     "`scripts/disasm_agreement.py`: every GFX8-GFX12 code object of four ROCm wheels from PyPI "
     "(cached; skipped when offline) is listed by `offload disasm` and `llvm-objdump -d`; per "
     "processor, the instructions whose text equals llvm-objdump's, out of all; the most frequent "
     "mismatches with their words; and both tools' time over all the code objects and on the "
     "largest one.", False),
    ("web-size.txt", "size", "The page's transfer size",
     "`scripts/web-size.mjs` on the release build: every wasm and JS file raw and gzipped "
     "(level 9), then the two aims: what the first paint needs (index.html, the style sheet, "
     "shell.js) and what exploring a file needs (the page's binary, which its explorer workers "
     "run too). The editor worker is fetched on the first edit, comparison or device archive.", True),
    ("browser.md", "browser", "The page in Chromium",
     "`e2e/bench.mjs`: the release build in headless Chromium opens, through its file input, the "
     "compressed bundle above (with the default settings, listed from its header; with \"verify "
     "every compressed bundle\"; and one entry decompressed on demand) and a 1 GiB host file (a HIP "
     "object with a 1 GiB section). \"Page-measured\" is the page's own figure "
     "(`data-first-render-ms`): from the file's arrival to the explored summary on screen; the wall "
     "time adds Playwright's file chooser; for the on-demand row, from the click on the entry to "
     "its Download button. The memory is that of all Chromium processes, sampled every 50 ms "
     "(what an empty page takes included).", False),
    ("engines.md", "engines", "The page in each browser engine",
     "`e2e/engines/bench.mjs`: the same release build in headless Chromium (playwright-core), "
     "Firefox ESR (geckodriver) and WebKitGTK's MiniBrowser (WebKitWebDriver, under Xvfb) "
     "opens, through its file input, a sample, the compressed bundle and the 1 GiB host file "
     "above, and a real HIP library and its wheel (cupy ROCm 4.3's `thrust.so` and the whole "
     "wheel, from the CLI's real-library tests' cache; skipped when missing). Each cell is the "
     "page's own figure from the file's arrival to the targets on screen "
     "(`data-first-render-ms`), the wall time around the pick in brackets.", False),
]

READING = """\
## How to read these figures

- **Bundling** builds nothing in memory: the header is laid out from the inputs' sizes and
  each input is copied into place by the kernel (`copy_file_range`), so none of the images
  passes through the process. The smallest peaks in the CLI table are rusage's floor for a
  child of this Python script (its pages count), not the tool's own.
- **Unbundling from a compressed bundle and decompressing** stream: the payload is read 1 MiB
  at a time and decoded in 128 KiB chunks, and only the requested entries are written. What
  stays in memory is libzstd's window: clang-offload-bundler compresses with long-distance
  matching, whose frames declare a 128 MiB window, which any streaming decoder must keep.
- **We check the hash; the reference does not** (it checks only with `--verbose`). MD5 is
  sequential, so with the hash checked no run can be faster than the MD5 of the whole
  decompressed bundle; it runs on a second thread beside decoding and writing. This is why the
  aim of 2x the reference's speed for unbundling and decompressing is out of reach.
- **Listing a compressed bundle** decodes only the start of the zstd stream, as far as the
  bundle header; the rest of the file is not read.
- **`list --verify`** goes through the explorer, which keeps the decompressed byte space for
  the tree, so it holds the whole decompressed bundle.
- **In the page**, the workers decode zstd with libzstd compiled to wasm32 (the core's `zstd-c`
  feature, single-threaded) and hash each chunk as it comes out; only headers are read from the
  `Blob` until something asks for more.
- **The aims** these figures are read against: bundling 3x faster than the reference;
  unbundling and decompressing a compressed bundle 2x faster with at most half its memory; in the
  page, the 256 MiB bundle decompressed and verified within 1.5 s; the first paint at most
  200 KiB and what exploring needs at most 400 KiB gzipped.
- The machine may be shared: under load the same commands take several times as long (see the
  load averages above). Compare the figures of one run, not across runs.
"""


def report(directory, out):
    """Writes `out` from the captures of one `make bench` run in `directory`."""
    metas = {}
    for name, *_ in STEPS:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            sys.exit(f"bench: {path} is missing: run `make bench`, which makes every step's output first")
        with open(path + ".meta") as f:
            metas[name] = json.load(f)
        if metas[name]["status"] != 0:
            sys.exit(f"bench: the step that wrote {path} failed; {out} is left as it was")
    tools = [
        first_line([BUNDLER, "--version"], "version"),
        first_line(["chromium", "--version"], "Chromium"),
        first_line(["firefox-esr", "--version"], "Firefox"),
        first_line(["dpkg-query", "-W", "-f=WebKitGTK ${Version}", "libwebkit2gtk-4.1-0"], "WebKitGTK"),
        first_line(["node", "--version"]).join(["Node ", ""]),
        first_line(["rustc", "--version"]),
    ]
    lines = [
        "# Benchmarks",
        "",
        "<!-- Generated by `make bench` (scripts/bench.py report); edits by hand are overwritten. -->",
        "",
        "Written by `make bench` from the output of its own run; nothing here is copied by hand. "
        "Times and memory are printed, never asserted. Run `make bench` again to refresh it.",
        "",
        f"- **Run:** {metas[STEPS[0][0]]['started']} to {metas[STEPS[-1][0]]['finished']}",
        f"- **Commit:** {commit()}",
        f"- **Machine:** {machine()}",
        f"- **Tools:** {'; '.join(tools)}",
        "- **Load average** (1, 5, 15 min) before and after each step: "
        + "; ".join(f"{label} {metas[name]['load_before']} → {metas[name]['load_after']}" for name, label, *_ in STEPS),
        "",
    ]
    for name, _, title, how, preformatted in STEPS:
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
            text = f.read().strip("\n")
        lines += [f"## {title}", "", how, ""]
        lines += ["```text", text, "```"] if preformatted else [text]
        lines.append("")
    lines.append(READING)
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(out + ".tmp", out)
    print(f"bench: wrote {os.path.relpath(out)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["capture"] and len(args) >= 4 and args[2] == "--":
        sys.exit(capture(args[1], args[3:]))
    elif args[:1] == ["report"] and len(args) == 3:
        report(args[1], args[2])
    elif not args:
        main()
    else:
        sys.exit("usage: bench.py | bench.py capture FILE -- COMMAND... | bench.py report DIR OUT")
