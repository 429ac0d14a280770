"""Compares the vector ALU decoder (src/disasm/vector/) with llvm-objdump 22 on random words.

    python3 scripts/disasm/check_vector.py gfx90a [N]     # N random candidates per encoding
    python3 scripts/disasm/check_vector.py all [N]        # every family

For each encoding (VOP1, VOP2, VOPC, VOP3, the SDWA/DPP16/DPP8 forms, and VINTRP; `ONLY=dpp,dpp8`
picks some) it builds N candidates with random opcodes and fields (modifiers set with some
probability, a literal dword when a source names one), decodes them with `examples/disasm_words.rs` and with llvm-objdump, and prints per
encoding: words llvm-objdump decodes, how many of those we print identically, the words we
decode that it rejects, and the first mismatches with their words.
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gen_vector import FAMILIES, gen_of, recheck, run  # noqa: E402
from decoder import decoder_command  # noqa: E402

# Encodings to check (`ONLY=dpp,dpp8`), all when unset.
ONLY = [e for e in os.environ.get("ONLY", "").split(",") if e]
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LITERALS = [0, 1, 64, 65, 0x3F800000, 0x3E22F983, 0x3C00, 0x3118, 0x3FF00000, 0xBFE00000, 0xFFFFFFFF, 0xFFF0]


def literal():
    return random.choice(LITERALS) if random.random() < 0.3 else random.getrandbits(32)


def source():
    r = random.random()
    if r < 0.4:
        return 256 + random.randrange(256)
    if r < 0.6:
        return random.randrange(110)
    if r < 0.8:
        return random.choice([128, 129, 160, 192, 193, 208, 240, 241, 242, 247, 248, 255, 106, 124, 125, 126])
    return random.randrange(512)


def vop1(gen):
    return [0x7E000000 | random.randrange(256) << 17 | random.randrange(256) << 9 | source()]


def vop2(gen):
    op = random.randrange(62)
    return [op << 25 | random.randrange(256) << 17 | random.randrange(256) << 9 | source()]


def vopc(gen):
    return [0x7C000000 | random.randrange(256) << 17 | random.randrange(256) << 9 | source()]


def vop3(gen):
    nops = 0x380 if gen == 9 else 1024
    top = 0x34 if gen <= 9 else 0x35

    def maybe(bits):
        return random.getrandbits(bits) if random.random() < 0.25 else 0
    w0 = top << 26 | random.randrange(nops) << 16 | maybe(1) << 15 | maybe(4) << 11 | maybe(3) << 8
    w0 |= random.randrange(256)
    w1 = source() | source() << 9 | source() << 18 | maybe(2) << 27 | maybe(3) << 29
    return [w0, w1]


def sdwa(gen):
    w = random.choice([vop1, vop2, vopc])(gen)
    w[0] = (w[0] & ~0x1FF) | 0xF9
    if random.random() < 0.2:
        return w + [random.getrandbits(32)]
    # Mostly valid selects, each other bit now and then.
    w1 = random.randrange(256) | random.randrange(7) << 8 | random.randrange(4) << 11 | random.randrange(7) << 16
    if w[0] >> 25 != 0x3F or random.random() < 0.1:
        w1 |= random.randrange(7) << 24
    for bit in (13, 14, 15, 19, 20, 21, 23, 27, 28, 29, 31):
        if random.random() < 0.15:
            w1 |= 1 << bit
    return w + [w1]


def dpp_control():
    """A dpp_ctrl value: mostly the named ones, sometimes anything."""
    r = random.random()
    if r < 0.3:
        return random.randrange(0x100)
    if r < 0.8:
        return random.choice([0x101, 0x10F, 0x111, 0x118, 0x121, 0x12F, 0x130, 0x134, 0x138, 0x13C, 0x140, 0x141,
                              0x142, 0x143, 0x150, 0x15F, 0x160, 0x16F])
    return random.randrange(0x200)


def dpp(gen):
    w = random.choice([vop1, vop2, vopc])(gen)
    w[0] = (w[0] & ~0x1FF) | 0xFA
    mods = random.getrandbits(4) if random.random() < 0.3 else 0
    w1 = (random.randrange(256) | dpp_control() << 8 | random.getrandbits(2) << 18 | mods << 20
          | random.getrandbits(8) << 24)
    return w + [w1]


def dpp8(gen):
    w = random.choice([vop1, vop2, vopc])(gen)
    w[0] = (w[0] & ~0x1FF) | random.choice([0xE9, 0xEA])
    return w + [random.getrandbits(32)]


def vop3_dpp(gen):
    """VOP3 DPP16 (GFX11+): a VOP3 word with src0 = 250, then a DPP16 dword."""
    w = vop3(gen)
    w[1] = (w[1] & ~0x1FF) | 0xFA
    mods = random.getrandbits(4) if random.random() < 0.3 else 0
    w2 = (random.randrange(256) | dpp_control() << 8 | random.getrandbits(2) << 18 | mods << 20
          | random.getrandbits(8) << 24)
    return w + [w2]


def vop3_dpp8(gen):
    """VOP3 DPP8 (GFX11+): a VOP3 word with src0 = 233 or 234, then the lane selects."""
    w = vop3(gen)
    w[1] = (w[1] & ~0x1FF) | random.choice([0xE9, 0xEA])
    return w + [random.getrandbits(32)]


def vintrp(gen):
    """A VINTRP word (GFX8-GFX10): its top bits and any other bits."""
    return [(0x32 if gen == 10 else 0x35) << 26 | random.getrandbits(26)]


ENCODINGS = {"vop1": vop1, "vop2": vop2, "vopc": vopc, "vop3": vop3, "sdwa": sdwa, "dpp": dpp, "dpp8": dpp8,
             "vintrp": vintrp, "vop3dpp": vop3_dpp, "vop3dpp8": vop3_dpp8}
# The families with VINTRP.
VINTRP = ("gfx803", "gfx810", "gfx900", "gfx906", "gfx908", "gfx1010", "gfx1030")


def with_literal(words):
    fields = [words[0] & 0x1FF]
    if len(words) == 2 and words[0] >> 26 in (0x34, 0x35):
        fields = [words[1] & 0x1FF, (words[1] >> 9) & 0x1FF, (words[1] >> 18) & 0x1FF]
    if 255 in fields or (words[0] >> 31 == 0 and (words[0] >> 25) in (0x17, 0x18, 0x24, 0x25, 0x2C, 0x2D)):
        return words + [literal()]
    return words


def ours(mcpu, cands):
    env = dict(os.environ, CARGO_TARGET_DIR=os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")))
    stdin = "\n".join(" ".join("%08X" % w for w in c) for c in cands) + "\n"
    p = subprocess.run(decoder_command(mcpu),
                       input=stdin, capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    out = []
    for line, c in zip(p.stdout.splitlines(), cands):
        if line == "<none>":
            out.append(None)
        else:
            text, _, size = line.rpartition("\t")
            # A decoding of another length is not a decoding of this candidate (llvm's answer
            # for it is None too).
            out.append(text if int(size) == 4 * len(c) else None)
    return out


def check(mcpu, n, show):
    gen = gen_of(mcpu)
    random.seed(mcpu)
    for name, make in ENCODINGS.items():
        if (name == "sdwa" and gen >= 11) or (name == "dpp8" and gen <= 9) or (name.startswith("vop3dpp") and gen <= 10):
            continue
        if name == "vintrp" and mcpu not in VINTRP:
            continue
        if ONLY and name not in ONLY:
            continue
        cands = [with_literal(make(gen)) for _ in range(n)]
        theirs = run(mcpu, cands, warned=True)
        mine = ours(mcpu, cands)
        theirs = recheck(mcpu, cands, theirs, mine)
        valid = sum(t is not None for t in theirs)
        same = sum(t is not None and t == m for t, m in zip(theirs, mine))
        extra = sum(t is None and m is not None for t, m in zip(theirs, mine))
        pct = 100.0 * same / valid if valid else 100.0
        print("%-8s %-5s valid %6d  same %6d  %6.2f%%  we-decode-invalid %d" % (mcpu, name, valid, same, pct, extra))
        shown = 0
        for c, t, m in zip(cands, theirs, mine):
            if t != m and shown < show:
                print("    %-26s llvm: %s\n    %-26s ours: %s" % (" ".join("%08X" % w for w in c), t, "", m))
                shown += 1


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "gfx90a"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    show = int(os.environ.get("SHOW", "6"))
    for _, mcpu in FAMILIES:
        if which in ("all", mcpu):
            check(mcpu, n, show)


if __name__ == "__main__":
    main()
