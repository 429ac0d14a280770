#!/usr/bin/env python3
"""Compares the Rust decoder's text (examples/disasm_words.rs) with llvm-mc 22's on random words
of the encodings src/disasm/packed/ decodes.

    python3 scripts/disasm/check_packed.py gfx90a [N]      # N random candidates per encoding

Prints, per encoding, how many words llvm-objdump decodes and how many of those the decoder prints
identically, how many llvm-mc rejects that the decoder decodes anyway, and the first mismatches.
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_packed import LLVM_BIN, disassemble, learn_vopd, vop3p_prefix  # noqa: E402
from gen_vector import run as objdump_run  # noqa: E402
from decoder import decoder_command  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def ours(mcpu, candidates):
    lines = "".join(" ".join("%08X" % w for w in c) + "\n" for c in candidates)
    run = subprocess.run(decoder_command(mcpu),
                         input=lines, capture_output=True, text=True, cwd=ROOT, check=True)
    out = []
    for line in run.stdout.splitlines():
        if line == "<none>":
            out.append(None)
        else:
            text, _, size = line.rpartition("\t")
            # A decoding of another length is not a decoding of this candidate (llvm-objdump's
            # answer for it is None too: gfx950's scale load printed alone, before an MFMA it
            # does not pair with).
            out.append(text if int(size) == 4 * len(candidates[len(out)]) else None)
    return out


def random_literal(rng):
    return rng.choice([rng.getrandbits(32), rng.getrandbits(6), 0x3F800000, 0x3C00, 0x3E22F983, 0xFFFFFFFF,
                       rng.getrandbits(16)])


def vop3p_candidates(mcpu, rng, n):
    valid = [op for op, t in enumerate(disassemble(mcpu, [[vop3p_prefix(mcpu) | (op << 16) | 0x4000, 0x1C822108]
                                                          for op in range(128)])) if t]
    valid += [op for op, t in enumerate(disassemble(mcpu, [[vop3p_prefix(mcpu) | (op << 16), 0x04822108]
                                                           for op in range(128)])) if t]
    valid = sorted(set(valid))
    gfx9 = mcpu.startswith("gfx9")
    out = []
    for _ in range(n):
        op = rng.choice(valid)
        first = vop3p_prefix(mcpu) | (op << 16) | (rng.getrandbits(16) & ~(1 << 23 if gfx9 else 0))
        # Mostly VGPRs and sparse modifiers, so the sources and bits are seen alone and together.
        srcs = [rng.choice([256 + rng.getrandbits(8), 256 + 2 * rng.getrandbits(7), rng.getrandbits(9)])
                for _ in range(3)]
        if gfx9:
            srcs = [s if s != 255 else 256 for s in srcs]
        mods = rng.getrandbits(5) if rng.random() < 0.5 else rng.choice([0, 3, 1, 2])
        if rng.random() < 0.5:
            first &= ~0x7F00 | (rng.getrandbits(7) << 8 if rng.random() < 0.3 else 0)
        second = (mods << 27) | (srcs[2] << 18) | (srcs[1] << 9) | srcs[0]
        words = [first, second]
        if 255 in srcs:
            words.append(random_literal(rng))
        out.append(words)
    return out


def vopd_candidates(mcpu, rng, n):
    if not mcpu.startswith("gfx1") or mcpu.startswith("gfx10"):
        return []
    xs, ys = learn_vopd(mcpu)
    out = []
    for _ in range(n):
        x, y = rng.choice(xs), rng.choice(ys)
        src = [rng.choice([256 + rng.getrandbits(8), rng.getrandbits(9)]) for _ in range(2)]
        v1 = [0 if (f == "Move" and rng.random() < 0.9) else rng.getrandbits(8) for f in (x[2], y[2])]
        first = (0x32 << 26) | (x[0] << 22) | (y[0] << 17) | (v1[0] << 9) | src[0]
        second = (rng.getrandbits(8) << 24) | (rng.getrandbits(7) << 17) | (v1[1] << 9) | src[1]
        words = [first, second]
        if 255 in src or x[2] in ("Addend", "Multiplier") or y[2] in ("Addend", "Multiplier"):
            words.append(random_literal(rng))
        out.append(words)
    return out


def vinterp_candidates(mcpu, rng, n):
    """VINTERP (GFX11, GFX12): a valid opcode, every other bit at random; the sources mostly
    VGPRs, as real code has them."""
    if not mcpu.startswith(("gfx11", "gfx12")):
        return []
    ops = [op for op, t in enumerate(disassemble(mcpu, [[0xCD000000 | op << 16, 0x301 | 0x302 << 9 | 0x303 << 18]
                                                         for op in range(128)])) if t]
    out = []
    for _ in range(n):
        first = 0xCD000000 | rng.choice(ops) << 16 | rng.getrandbits(16)
        if rng.random() < 0.5:
            first &= ~0x7800
        srcs = [256 + rng.getrandbits(8) if rng.random() < 0.7 else rng.getrandbits(9) for _ in range(3)]
        second = rng.getrandbits(5) << 27 | srcs[2] << 18 | srcs[1] << 9 | srcs[0]
        if rng.random() < 0.5:
            second &= ~(7 << 29)
        out.append([first, second])
    return out


def scaled_mfma_candidates(mcpu, rng, n):
    """gfx950's scaled MFMA: `v_mfma_ld_scale_b32` (random scale sources and modifier bits) and
    an f8f6f4 MFMA (random formats, VGPR or AGPR tuples, abid 1 nine times in ten)."""
    if mcpu != "gfx950":
        return []
    out = []
    for _ in range(n):
        scale = [0xD3AC0000 | rng.getrandbits(8) << 8,
                 rng.choice([256 + rng.getrandbits(8), rng.getrandbits(9)])
                 | rng.choice([256 + rng.getrandbits(8), rng.getrandbits(9)]) << 9 | rng.getrandbits(5) << 27]
        abid = 1 if rng.random() < 0.9 else rng.getrandbits(4)
        op = rng.choice([45, 46])
        mfma = [0xD3800000 | op << 16 | abid << 11 | rng.getrandbits(3) << 8 | rng.getrandbits(1) << 15
                | 2 * rng.getrandbits(7),
                (256 + 2 * rng.getrandbits(7)) | (256 + 2 * rng.getrandbits(7)) << 9
                | (256 + 2 * rng.getrandbits(7)) << 18 | rng.getrandbits(5) << 27]
        out.append(scale + mfma)
    return out


ENCODINGS = {"vop3p": vop3p_candidates, "vopd": vopd_candidates, "vinterp": vinterp_candidates,
             "mfma_scale": scaled_mfma_candidates}


def objdump(mcpu, path):
    """Every instruction of a code object's listing, compared with the decoder's text: the
    words are read from llvm-objdump's comment column."""
    listing = subprocess.run([os.path.join(LLVM_BIN, "llvm-objdump"), "-d", "--mcpu=" + mcpu, path],
                             capture_output=True, text=True, check=True).stdout
    rows = []
    for line in listing.splitlines():
        text, sep, tail = line.strip().partition(" // ")
        if not sep or ":" not in tail:
            continue
        words = [int(w, 16) for w in tail.split(":", 1)[1].split()]
        rows.append((text.strip(), words))
    mine = ours(mcpu, [w for _, w in rows])
    # Only the encodings this group decodes count; the others are other groups' work.
    ids = [i for i, (_, w) in enumerate(rows) if mine[i] is not None or owned(mcpu, w[0])]
    same = [i for i in ids if mine[i] == rows[i][0]]
    print("%s %s: %d/%d instructions identical" % (mcpu, os.path.basename(path), len(same), len(ids)))
    for i in ids:
        if mine[i] != rows[i][0]:
            print("   ", " ".join("%08x" % w for w in rows[i][1]), "| llvm:", rows[i][0], "| ours:", mine[i])


def owned(mcpu, first):
    """Whether a first dword is of an encoding src/disasm/packed/ decodes."""
    if mcpu.startswith("gfx9"):
        return first >> 23 == 0x1A7 or first >> 26 == 0x32
    if mcpu.startswith("gfx10"):
        return first >> 24 == 0xCC or first >> 26 == 0x32
    return first >> 24 == 0xCC or first >> 26 == 0x32 or first >> 24 == 0xCD or first >> 26 == 0x33


def main():
    if sys.argv[1].endswith(".co"):
        objdump(sys.argv[2], sys.argv[1])
        return
    mcpu = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    only = sys.argv[3] if len(sys.argv) > 3 else None
    rng = random.Random(1)
    for name, make in ENCODINGS.items():
        if only and name != only:
            continue
        cands = make(mcpu, rng, n)
        if not cands:
            continue
        # llvm-objdump is the oracle (gen_vector.run reads its answers back by address, which
        # keeps its place across words of other lengths; an unaligned scalar tuple it decodes
        # with a warning counts): `llvm-mc -show-encoding` crashes when
        # it encodes again some words llvm-objdump prints (an `/*Invalid immediate*/` source of
        # an MFMA), which would count them as rejected.
        theirs = objdump_run(mcpu, cands, warned=True)
        mine = ours(mcpu, cands)
        valid = [i for i, t in enumerate(theirs) if t is not None]
        same = [i for i in valid if mine[i] == theirs[i]]
        extra = [i for i, t in enumerate(theirs) if t is None and mine[i] is not None]
        pct = 100.0 * len(same) / len(valid) if valid else 100.0
        print("%s %s: %d/%d valid words identical (%.2f%%), %d decoded that llvm-mc rejects" % (
            mcpu, name, len(same), len(valid), pct, len(extra)))
        shown = 0
        for i in range(len(cands)):
            if mine[i] != theirs[i] and shown < 12:
                shown += 1
                print("   ", " ".join("%08x" % w for w in cands[i]))
                print("      llvm:", theirs[i])
                print("      ours:", mine[i])


if __name__ == "__main__":
    main()
