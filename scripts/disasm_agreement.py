#!/usr/bin/env python3
"""Agreement of `offload disasm` with `llvm-objdump -d` 22 over every AMDGPU code object of real
ROCm wheels from PyPI, per processor: instructions whose text is llvm-objdump's, out of all.

The wheels are downloaded once into the wheel cache ($OFFLOAD_WHEEL_CACHE, else
~/.cache/offload-explorer/wheels) with `pip download --no-deps --only-binary=:all:`; a wheel pip
cannot get (offline) is skipped with a message. Every device image is extracted with
`offload extract`; each GFX8-GFX12 code object is listed by both tools and their lines are
compared by address: instruction lines, and the `...` lines of skipped zero runs (keyed by where
the run starts); a line we print where llvm-objdump prints none counts against us too. Every mismatch is written to target/disasm-mismatches.txt (its words,
ours, llvm-objdump's); the first few per processor are printed. Also printed: the time both
tools took over all the code objects, and on the largest one, as a ratio.

    scripts/disasm_agreement.py [--quick]      (--quick: one small wheel, for `make test`)
"""
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import OFFLOAD, ROOT  # noqa: E402
from bench_packages import wheel  # noqa: E402

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
OBJDUMP = os.path.join(LLVM_BIN, "llvm-objdump")
QUICK = ["jax-rocm60-plugin==0.5.0"]
# The cupy ROCm wheels carry GFX8 (gfx801, gfx802, gfx803) code objects as well.
FULL = QUICK + ["jax-rocm60-pjrt==0.5.0", "cupy-rocm-5-0==13.3.0", "cupy-rocm-4-3==13.3.0"]
# An instruction line: tab, text, padding, `// ADDRESS: WORDS`, and a branch target's label.
LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}): ([0-9A-F ]+?)(?: <.*>)?$")
LABEL = re.compile(r"^([0-9a-f]{16}) <.*>:$")
ZEROS = "\t\t..."
SHOWN_PER_PROCESSOR = 5
FAMILIES = ("gfx8", "gfx9", "gfx10", "gfx11", "gfx12")


def instructions(text):
    """{address: (text, words)} of a listing; a run of zeros (`...`) is keyed by where it starts
    (after the line or label before it), with the text `...`."""
    out = {}
    after = 0
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            address = int(m.group(2), 16)
            out[address] = (m.group(1).rstrip(), m.group(3))
            words = m.group(3).split()
            after = address + sum(len(w) // 2 for w in words)
        elif line == ZEROS:
            out.setdefault(after, ("...", ""))
        else:
            label = LABEL.match(line)
            if label:
                after = int(label.group(1), 16)
    return out


def processor_of(path):
    """The processor llvm-objdump's header names, e.g. `gfx90a`, from the e_flags."""
    with open(path, "rb") as f:
        head = f.read(64)
    if head[:4] != b"\x7fELF" or head[18:20] != b"\xe0\x00":
        return None
    run = subprocess.run([os.path.join(LLVM_BIN, "llvm-readelf"), "-h", path], capture_output=True, text=True)
    m = re.search(r"Flags:\s+0x[0-9a-f]+, (gfx[0-9a-z-]+)", run.stdout)
    name = m.group(1) if m else None
    return name if name and name.startswith(FAMILIES) else None


def timed(cmd):
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    return run, time.perf_counter() - start


def compare(path, tally, mismatches, times):
    processor = processor_of(path)
    if processor is None:
        return
    ref, ref_time = timed([OBJDUMP, "-d", path])
    ours, our_time = timed([OFFLOAD, "disasm", path])
    if ref.returncode != 0:
        print(f"  {os.path.basename(path)}: llvm-objdump failed; not compared")
        return
    if ours.returncode != 0:
        print(f"  {os.path.basename(path)}: offload disasm failed: {ours.stderr.strip()}")
    theirs, mine = instructions(ref.stdout), instructions(ours.stdout)
    t = tally[processor]
    for address, (text, words) in theirs.items():
        t[1] += 1
        got = mine.get(address)
        if got and got[0] == text:
            t[0] += 1
        else:
            mismatches[processor].append((os.path.basename(path), address, words, got[0] if got else "(none)", text))
    for address in mine.keys() - theirs.keys():
        # A line of ours where llvm-objdump has none (a run of zeros it skips, say).
        t[1] += 1
        text, words = mine[address]
        mismatches[processor].append((os.path.basename(path), address, words, text, "(none)"))
    times.append((os.path.getsize(path), path, ref_time, our_time))


def main():
    quick = "--quick" in sys.argv
    tally = collections.defaultdict(lambda: [0, 0])
    mismatches = collections.defaultdict(list)
    times = []
    for requirement in QUICK if quick else FULL:
        path = wheel(requirement)
        if path is None:
            continue
        with tempfile.TemporaryDirectory() as scratch:
            run = subprocess.run([OFFLOAD, "extract", path, "-o", scratch], capture_output=True, text=True)
            if run.returncode != 0:
                print(f"skipped {requirement}: offload extract failed: {run.stderr.strip()}")
                continue
            files = sorted(os.listdir(scratch))
            print(f"{requirement}: {len(files)} device images")
            for name in files:
                compare(os.path.join(scratch, name), tally, mismatches, times)
    if not tally:
        print("no ROCm wheel available (offline?): nothing compared")
        return 0
    report(tally, mismatches, times)
    return 0


def report(tally, mismatches, times):
    print()
    print("| processor | instructions | equal | agreement |")
    print("|---|---:|---:|---:|")
    for processor in sorted(tally, key=lambda p: (len(p), p)):
        equal, total = tally[processor]
        print(f"| {processor} | {total:,} | {equal:,} | {100.0 * equal / max(total, 1):.3f}% |")
    equal = sum(t[0] for t in tally.values())
    total = sum(t[1] for t in tally.values())
    print(f"| all | {total:,} | {equal:,} | {100.0 * equal / max(total, 1):.3f}% |")
    out = os.path.join(ROOT, "target", "disasm-mismatches.txt")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        for processor in sorted(mismatches):
            for image, address, words, ours, theirs in mismatches[processor]:
                f.write(f"{processor}\t{image}\t{address:#x}\t{words}\tours: {ours}\tllvm-objdump: {theirs}\n")
    for processor in sorted(mismatches):
        rows = mismatches[processor]
        # One example of each of the most frequent mnemonics llvm-objdump printed.
        by_mnemonic = collections.Counter(r[4].split(" ")[0] for r in rows)
        print(f"\n{processor}: {len(rows)} mismatches (all in {os.path.relpath(out, ROOT)}); most frequent:")
        for mnemonic, n in by_mnemonic.most_common(SHOWN_PER_PROCESSOR):
            image, address, words, ours, theirs = next(r for r in rows if r[4].split(" ")[0] == mnemonic)
            print(f"  {n:>6} x {words:<26} ours: {ours}\n  {'':>6}   {'':<26} llvm: {theirs}")
    ref = sum(t[2] for t in times)
    mine = sum(t[3] for t in times)
    size, path, big_ref, big_mine = max(times)
    print(f"\ntime over {len(times)} code objects: llvm-objdump -d {ref:.2f} s, offload disasm {mine:.2f} s "
          f"({ref / max(mine, 1e-9):.1f}x)")
    print(f"largest ({size / 1048576:.1f} MiB): llvm-objdump -d {big_ref:.2f} s, offload disasm {big_mine:.2f} s "
          f"({big_ref / max(big_mine, 1e-9):.1f}x)")


if __name__ == "__main__":
    sys.exit(main())
