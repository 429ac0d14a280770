"""Measures the scalar decoder (src/disasm/scalar/) against llvm-mc 22 on random words.

    python3 scripts/disasm/check_scalar.py gfx90a [N]     # N candidates per encoding (default 2000)
    python3 scripts/disasm/check_scalar.py all [N]        # every family
    python3 scripts/disasm/check_scalar.py --objdump tests/images/hip_kernels_gfx90a.co gfx90a

For each encoding (SOP2, SOPK, SOP1, SOPC, SOPP, SMEM) it builds N candidates: an opcode drawn
from the family's valid set (the generated tables), the other fields random, and a literal
dword after the instruction when a source is 255 (half of them with an inline constant's
value, to exercise `lit(...)`). llvm-mc's text comes from gen_scalar.mc (llvm-mc 22, with the
candidates kept apart), ours from `examples/disasm_words.rs`. Agreement means the same text, or
both rejecting the word. Prints agreement per processor and encoding and the first mismatches.
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_scalar as gen  # noqa: E402
from decoder import decoder_command  # noqa: E402

ROOT = gen.ROOT
TABLES = gen.OUT
INLINE_LITERALS = [0, 1, 64, 0xfffffff0, 0x3f800000, 0xbf000000, 0x3e22f983, 0x3c00, 0x3118, 0x40, 0x41]


def valid_opcodes(family, kind):
    """The opcodes of `kind` the generated tables give `family`."""
    text = open(TABLES).read()
    fn = re.search(r"fn %s\(isa: Isa\).*?\n    match isa \{\n(.*?)\n    \}" % kind, text, re.S).group(1)
    # An arm may span lines once rustfmt has wrapped its patterns.
    for patterns, static in re.findall(r"((?:Isa::\w+\s*\|\s*)*Isa::\w+)\s*=>\s*(\w+)", fn):
        if family in re.findall(r"Isa::(\w+)", patterns):
            name = static
            break
    body = re.search(r"static %s: .*?= &\[\n(.*?)\n\];" % name, text, re.S).group(1)
    return [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r"\((0x[0-9a-f]+), \"[^\"]*\", \"([^\"]*)\"", body)]


def literal(rng):
    return rng.choice(INLINE_LITERALS) if rng.random() < 0.5 else rng.getrandbits(32)


def source_field(rng):
    """A source value, weighted towards the interesting ones (registers, constants, 255)."""
    r = rng.random()
    if r < 0.2:
        return 255
    if r < 0.3:
        return rng.choice([106, 107, 124, 125, 126, 127, 235, 236, 237, 238, 239, 251, 252, 253, 254, 248, 240])
    return rng.getrandbits(8)


def takes_literal(layout, a, b):
    """Whether a source the layout prints as a source is 255 (a literal follows)."""
    toks = layout.split()
    sources = [t[0] for t in toks if t[0] in "AB" and t[1:2].isdigit()]
    return (a == 255 and "A" in sources) or (b == 255 and "B" in sources)


def candidates(mcpu, family, kind, n, rng):
    ops = valid_opcodes(family, kind)
    gen_no = gen.generation(mcpu)
    out = []
    for _ in range(n):
        op, layout = rng.choice(ops)
        if kind == "sop2":
            a, b = source_field(rng), source_field(rng)
            w = [gen.sop2(op, rng.getrandbits(7), a, b)]
            if takes_literal(layout, a, b):
                w.append(literal(rng))
        elif kind == "sop1":
            a = source_field(rng)
            w = [gen.sop1(op, rng.getrandbits(7), a)]
            if takes_literal(layout, a, 0):
                w.append(literal(rng))
        elif kind == "sopc":
            a, b = source_field(rng), source_field(rng)
            w = [gen.sopc(op, 0, a, b)]
            if takes_literal(layout, a, b):
                w.append(literal(rng))
        elif kind == "sopk":
            w = [gen.sopk(op, rng.getrandbits(7) if rng.random() < 0.8 else 0, rng.getrandbits(16))]
            if "L" in layout.split():
                w.append(rng.getrandbits(32))
        elif kind == "sopp":
            k = rng.getrandbits(16) if rng.random() < 0.7 else rng.getrandbits(rng.choice([1, 4, 8]))
            w = [gen.sopp(op, k)]
            if w[0] in (gen.SEPARATOR, gen.MARK):
                w = [gen.sopp(op, 0)]  # the runner's own marks cannot be asked about
        else:
            w = smem_candidate(gen_no, op, rng)
        out.append(w)
    return out


def smem_candidate(gen_no, op, rng):
    word1 = rng.getrandbits(32)
    if rng.random() < 0.3:
        word1 = (word1 & ~(0x7f << 25)) | ((124 if gen_no >= 11 else 125) << 25)
    if rng.random() < 0.3:
        word1 &= ~0x1fffff & 0xffffffff
    if gen_no <= 9:
        w0 = 0xC0000000 | (op << 18) | (rng.getrandbits(18) & ~(1 << 13))
        if gen_no == 8 and rng.random() < 0.5:
            # An SGPR offset names a register in bits 6:0; the rest of the dword is spare.
            word1 &= 0xff
    elif gen_no == 12:
        w0 = 0xF4000000 | (rng.getrandbits(26) & ~(0x3f << 13)) | (op << 13)
    else:
        w0 = 0xF4000000 | (op << 18) | rng.getrandbits(18)
    return [w0, word1]


def ours(mcpu, cands):
    run = subprocess.run(
        decoder_command(mcpu),
        input="\n".join(" ".join("%08X" % w for w in c) for c in cands) + "\n",
        capture_output=True, text=True, check=True, cwd=ROOT)
    out = []
    for line in run.stdout.splitlines():
        if line == "<none>":
            out.append(None)
        else:
            text, _, size = line.rpartition("\t")
            out.append((text, int(size)))
    return out


def check(family, mcpu, n, rng, show=8):
    total_ok = total = 0
    for kind in gen.KINDS:
        cands = candidates(mcpu, family, kind, n, rng)
        theirs = gen.mc(mcpu, cands)
        mine = ours(mcpu, cands)
        bad = []
        for c, t, m in zip(cands, theirs, mine):
            mt = m[0] if m and m[1] == 4 * len(c) else None
            if m and m[1] != 4 * len(c):
                mt = "<size %d> %s" % (m[1], m[0])
            if t != mt:
                bad.append((c, t, mt))
        ok = len(cands) - len(bad)
        total_ok += ok
        total += len(cands)
        print("%-8s %-5s %6d/%d  %.2f%%" % (mcpu, kind, ok, len(cands), 100.0 * ok / len(cands)))
        for c, t, m in bad[:show]:
            print("    %s\n      llvm: %s\n      ours: %s" % (" ".join("%08X" % w for w in c), t, m))
    print("%-8s all   %6d/%d  %.3f%%" % (mcpu, total_ok, total, 100.0 * total_ok / total))
    return total_ok, total


OBJDUMP_LINE = re.compile(r"^\s+(\S.*?)\s*// ([0-9A-F]+): ((?:[0-9A-F]{8} ?)+)")


def check_objdump(path, mcpu):
    """Every scalar line llvm-objdump 22 prints for code object `path` against ours."""
    run = subprocess.run([os.path.join(gen.LLVM_BIN, "llvm-objdump"), "-d", path],
                         capture_output=True, text=True, check=True)
    rows = []
    for line in run.stdout.splitlines():
        m = OBJDUMP_LINE.match(line)
        if m and m.group(1).startswith("s_"):
            rows.append((m.group(1), [int(w, 16) for w in m.group(3).split()]))
    mine = ours(mcpu, [w for _, w in rows])
    bad = [(w, t, m) for (t, w), m in zip(rows, mine) if not m or m[0] != t]
    print("%s: %d/%d scalar lines agree" % (os.path.basename(path), len(rows) - len(bad), len(rows)))
    for w, t, m in bad[:20]:
        print("    %s\n      llvm: %s\n      ours: %s" % (" ".join("%08X" % x for x in w), t, m))


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--objdump":
        check_objdump(sys.argv[2], sys.argv[3])
        return
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    show = int(os.environ.get("SHOW", "8"))
    rng = random.Random(int(os.environ.get("SEED", "1")))
    for family, mcpu in gen.FAMILIES:
        if which in ("all", mcpu):
            check(family, mcpu, n, rng, show)


if __name__ == "__main__":
    main()
