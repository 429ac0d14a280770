#!/usr/bin/env python3
"""The Code view on a kernel of over 1 MiB of code (`make bench`, the "Code view" step).

No cached wheel carries a kernel that large, so one is made here: `kernel_source` writes a
gfx90a kernel of STAGES stages, each a counted loop that fills a window of VGPRs (a different
width per stage, the widest close to the 256 allocated), works on it with a deterministic mix
of VOP2, VOP3, LDS, global memory and scalar instructions, and sums the window into v1; then
an if over the lanes (`s_and_saveexec_b64` / `s_cbranch_execz`). llvm-mc 22 assembles it and
ld.lld links it into a code object (under target/bench/code-view/, remade when missing).

Then `e2e/bench_code_view.mjs` opens the code object in the release build in headless Chromium
(target/e2e-dist, made by `make bench` before this step), selects the kernel in the tree and
clicks the inspector's Code button, in a fresh page each run (the disassembler worker starts
then, as it does for a user): the time from that click to the listing's first line drawn and
to the pressure strip drawn. Printed with what `offload disasm --pressure` says of the same
kernel and its time; nothing here asserts on time.

    scripts/bench_code_view.py [--runs N]       (default 3)
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import LLVM_BIN, OFFLOAD, ROOT  # noqa: E402

PROCESSOR = "gfx90a"
KERNEL = "code_view_1mib"
STAGES = 48
# Instructions in each stage's loop body, between filling the window and summing it.
BODY = 3900
# The VGPRs every stage keeps live besides its window: v0 (the lane id), v1 (the sum) and
# v[2:3] (the address loaded from); the windows start above them.
WINDOW_BASE = 8
ALLOCATED_VGPRS = 256
WORK = os.path.join(ROOT, "target", "bench", "code-view")
WANT_BYTES = 1 << 20


def window_width(stage):
    """How many VGPRs stage `stage` keeps live: from 16 up to 240, in an order that is not
    monotonic, so the peak lies in one stage in the middle of the kernel."""
    return 16 + (stage * 53) % (ALLOCATED_VGPRS - WINDOW_BASE - 16 + 1)


def body_instruction(rng, window):
    """One instruction of a loop body, reading and writing registers of the window."""
    def v():
        return f"v{rng.choice(window)}"
    kind = rng.random()
    if kind < 0.30:
        return f"v_fma_f32 {v()}, {v()}, {v()}, {v()}"
    if kind < 0.50:
        return f"v_mul_f32_e32 {v()}, {v()}, {v()}"
    if kind < 0.62:
        return f"v_add_f32_e32 {v()}, {v()}, {v()}"
    if kind < 0.68:
        return f"v_max_f32_e32 {v()}, {v()}, {v()}"
    if kind < 0.74:
        return f"ds_read_b32 {v()}, {v()} offset:{rng.randrange(0, 4096, 4)}"
    if kind < 0.78:
        return f"ds_write_b32 {v()}, {v()} offset:{rng.randrange(0, 4096, 4)}"
    if kind < 0.84:
        return f"global_load_dword {v()}, v[2:3], off offset:{rng.randrange(0, 2048, 4)}"
    if kind < 0.90:
        return "s_waitcnt vmcnt(0) lgkmcnt(0)"
    if kind < 0.96:
        return f"s_add_u32 s{rng.randrange(12, 20)}, s{rng.randrange(12, 20)}, {rng.randrange(1, 64)}"
    return f"v_cvt_f32_u32_e32 {v()}, v0"


def stage_source(stage, rng):
    """Stage `stage`: a counted loop over its window, then an if over the lanes."""
    window = list(range(WINDOW_BASE, WINDOW_BASE + window_width(stage)))
    lines = [f"  s_mov_b32 s10, {4 + stage % 5}", f".Lloop{stage}:"]
    lines += [f"  v_cvt_f32_u32_e32 v{r}, v0" for r in window]
    lines += [f"  {body_instruction(rng, window)}" for _ in range(BODY)]
    lines.append("  s_waitcnt vmcnt(0) lgkmcnt(0)")
    lines += [f"  v_add_f32_e32 v1, v1, v{r}" for r in window]
    lines += ["  s_sub_u32 s10, s10, 1", "  s_cmp_lg_u32 s10, 0", f"  s_cbranch_scc1 .Lloop{stage}"]
    lines += ["  v_cmp_gt_u32_e32 vcc, 32, v0", "  s_and_saveexec_b64 s[20:21], vcc", f"  s_cbranch_execz .Lskip{stage}",
              "  v_mul_f32_e32 v1, v1, v1", f".Lskip{stage}:", "  s_or_b64 exec, exec, s[20:21]"]
    return lines


def kernel_source():
    """The whole assembly file: the kernel and its descriptor."""
    rng = random.Random(37)
    lines = [
        f"// Made by scripts/bench_code_view.py: one {PROCESSOR} kernel of over 1 MiB of code.",
        f'  .amdgcn_target "amdgcn-amd-amdhsa--{PROCESSOR}"',
        "  .text", f"  .globl {KERNEL}", "  .p2align 8", f"  .type {KERNEL},@function", f"{KERNEL}:",
        "  s_load_dwordx2 s[0:1], s[4:5], 0x0",
        "  v_mov_b32 v1, 0",
        "  s_waitcnt lgkmcnt(0)",
        "  v_mov_b32 v2, s0",
        "  v_mov_b32 v3, s1",
    ]
    for stage in range(STAGES):
        lines += stage_source(stage, rng)
    lines += ["  global_store_dword v[2:3], v1, off", "  s_endpgm", ".Lend:", f"  .size {KERNEL}, .Lend-{KERNEL}", "",
              "  .rodata", "  .p2align 6", f"  .amdhsa_kernel {KERNEL}",
              "    .amdhsa_user_sgpr_kernarg_segment_ptr 1",
              f"    .amdhsa_next_free_vgpr {ALLOCATED_VGPRS}",
              "    .amdhsa_next_free_sgpr 24",
              f"    .amdhsa_accum_offset {ALLOCATED_VGPRS}",
              "  .end_amdhsa_kernel", ""]
    return "\n".join(lines + metadata())


def metadata():
    """The code object's metadata note: the page lists kernels (and so the tree's kernel node,
    the one a user clicks) from it."""
    return [
        "  .amdgpu_metadata", "---", "amdhsa.kernels:",
        "  - .args:",
        "      - .address_space:  global", "        .offset:         0", "        .size:           8",
        "        .value_kind:     global_buffer",
        "    .group_segment_fixed_size: 0", "    .kernarg_segment_align: 8", "    .kernarg_segment_size: 8",
        "    .max_flat_workgroup_size: 256", f"    .name:           {KERNEL}", "    .private_segment_fixed_size: 0",
        "    .sgpr_count:     24", f"    .symbol:         {KERNEL}.kd", f"    .vgpr_count:     {ALLOCATED_VGPRS}",
        "    .agpr_count:     0", "    .wavefront_size: 64",
        "amdhsa.target:   amdgcn-amd-amdhsa--" + PROCESSOR, "amdhsa.version:", "  - 1", "  - 2",
        "...", "  .end_amdgpu_metadata", ""]


def code_object():
    """The code object (made once): its path and its kernel's size in bytes (from llvm-readelf)."""
    os.makedirs(WORK, exist_ok=True)
    source = os.path.join(WORK, f"{KERNEL}_{PROCESSOR}.s")
    out = os.path.join(WORK, f"{KERNEL}_{PROCESSOR}.co")
    text = kernel_source()
    if not os.path.exists(out) or not os.path.exists(source) or open(source).read() != text:
        with open(source, "w") as f:
            f.write(text)
        obj = out[:-3] + ".o"
        subprocess.run([os.path.join(LLVM_BIN, "llvm-mc"), "-triple=amdgcn-amd-amdhsa", f"-mcpu={PROCESSOR}",
                        "-filetype=obj", source, "-o", obj], check=True)
        subprocess.run([os.path.join(LLVM_BIN, "ld.lld"), "-shared", "--build-id=none", obj, "-o", out], check=True)
    symbols = subprocess.run([os.path.join(LLVM_BIN, "llvm-readelf"), "-s", "--wide", out],
                             capture_output=True, text=True, check=True).stdout
    size = next(int(l.split()[2], 0) for l in symbols.splitlines() if l.split()[-1:] == [KERNEL] and "FUNC" in l)
    if size < WANT_BYTES:
        sys.exit(f"bench: the kernel made is {size} bytes, expected at least {WANT_BYTES}")
    return out, size


def cli_pressure(path):
    """What `offload disasm --pressure --json` says of the kernel, and how long it took."""
    start = time.perf_counter()
    out = subprocess.run([OFFLOAD, "disasm", "--pressure", "--json", path], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    function = json.loads(out.stdout)["images"][0]["functions"][0]
    return function, seconds


def main():
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    path, size = code_object()
    function, cli_seconds = cli_pressure(path)
    out = subprocess.run(["node", os.path.join(ROOT, "e2e", "bench_code_view.mjs"), path, KERNEL, str(runs)],
                         cwd=os.path.join(ROOT, "e2e"), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench: the page failed on the Code view:\n{out.stderr[-3000:]}")
    results = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    print(f"One {PROCESSOR} kernel, `{KERNEL}`: {size:,} bytes ({size / 2**20:.2f} MiB) of code, "
          f"{function['instructions']:,} instructions; the CLI says: {function['pressure']['summary']} "
          f"(`offload disasm --pressure --json` in {cli_seconds:.2f} s).")
    print()
    print("| run | click to the listing drawn | click to the pressure strip drawn (wall time) | strip bars | peak bar selects |")
    print("|---|---|---|---|---|")
    for i, r in enumerate(results, 1):
        print(f"| {i} | {r['listingMs']:.0f} ms | {r['stripMs']:.0f} ms ({r['wallMs']:.0f} ms) | {r['bars']} | 0x{r['peakAddress']} |")
    strip = statistics.median(r["stripMs"] for r in results)
    print()
    print(f"Median, click to the strip drawn: {strip:.0f} ms (aim: under 1,000 ms).")
    peak = function["pressure"]["peak"]["vgprs"]
    if any(int(r["peakAddress"], 16) != peak["address"] for r in results):
        sys.exit(f"bench: the page's peak is not the CLI's ({peak['address']:#x})")


if __name__ == "__main__":
    main()
