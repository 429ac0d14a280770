"""Compares the memory decoder with llvm-mc 22 on random words of valid opcodes.

    scripts/disasm/check_memory.py gfx90a [N]     # N random candidates per encoding (default 2000)
    scripts/disasm/check_memory.py all [N]
    scripts/disasm/check_memory.py gfx90a 2000 mimg,mtbuf   # only these encodings

For each encoding (DS, flat, scratch, global, MUBUF, MTBUF, EXP, LDSDIR, MIMG, and the BVH
intersections of GFX10+) the opcode is drawn from the
generated table and every other bit at random; each field is zeroed half the time, since
llvm-mc rejects nonzero fields an opcode does not use. Prints, per processor and encoding, how
many of the words llvm-mc decodes we print identically, how many we decode that llvm-mc rejects,
and the first mismatches with their words.
"""
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_memory import GEN, ISAS, LAYOUTS, pack  # noqa: E402
from gen_vector import recheck, run as objdump_run  # noqa: E402
from gen_image_dim import LAYOUTS as DIM_LAYOUTS  # noqa: E402
from decoder import decoder_command  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "../.."))
TABLES = os.path.join(ROOT, "src/disasm/memory/tables.rs")
IMAGE_TABLES = os.path.join(ROOT, "src/disasm/memory/image_tables.rs")
DIM_TABLES = os.path.join(ROOT, "src/disasm/memory/image_dim_tables.rs")


def table_ops():
    """{(group, cpu): [opcodes]} from the generated tables."""
    text = open(TABLES).read()
    statics = {}
    for m in re.finditer(r"static (\w+): &\[Op\] = &\[(.*?)\];", text, re.S):
        statics[m.group(1)] = [int(c) for c in re.findall(r"Op\((\d+),", m.group(2))]
    out = {}
    for m in re.finditer(r"fn (\w+)\(isa: Isa\) -> &'static \[Op\] \{(.*?)\n\}", text, re.S):
        for arm in re.finditer(r"Isa::(\w+) => (\w+),", m.group(2)):
            out[(m.group(1), arm.group(1).lower())] = statics.get(arm.group(2), [])
    text = open(IMAGE_TABLES).read()
    statics = {m.group(1): [int(c) for c in re.findall(r"ImageOp\((\d+),", m.group(2))]
               for m in re.finditer(r"static (\w+): &\[ImageOp\] = &\[(.*?)\];", text, re.S)}
    for arm in re.finditer(r"Isa::(\w+) => \((\w+),", text):
        out[("mimg", arm.group(1).lower())] = statics.get(arm.group(2), [])
    text = open(DIM_TABLES).read()
    statics = {m.group(1): [int(c) for c in re.findall(r"DimOp\((\d+),", m.group(2))]
               for m in re.finditer(r"static (\w+): &\[DimOp\] = &\[(.*?)\];", text, re.S)}
    for m in re.finditer(r"static (\w+)_(GFX\w+): DimFamily = DimFamily \{\s*ops: (\w+),", text):
        group = "mimg" if m.group(1) in ("GFX10", "GFX11") else m.group(1).lower()
        out[(group, m.group(2).lower())] = statics.get(m.group(3), [])
    return out


def dim_candidates(cpu, ops, layout, n, rng):
    """Random words of a GFX10-GFX12 image encoding (`gen_image_dim.LAYOUTS`): every bit at
    random, each field zeroed 40% of the time, the NSA dwords the NSA field asks for, and on
    GFX12 the address slots past a random count zeroed (llvm-mc rejects them otherwise)."""
    L = DIM_LAYOUTS[layout]
    out = []
    for _ in range(n):
        nsa = 0
        if L["nsa"]:
            nsa = rng.randrange(1 << L["nsa"][2]) if rng.random() < 0.5 else 0
        w = [rng.getrandbits(32) for _ in range(L["dwords"] + nsa)]
        fields = [L["dim"], L["dmask"], L["vdata"], L["srsrc"], L["ssamp"]] + [(d, b, 1) for d, b in L["mods"]]
        for f in fields:
            if f and rng.random() < 0.4:
                dim_put(w, f, 0)
        code = rng.choice(ops)
        shift = 0
        for f in L["op"]:
            dim_put(w, f, code >> shift)
            shift += f[2]
        for d, sh, width in L["fixed"]:
            dim_put(w, (d, sh, width), L["top"] >> sh)
        if L["nsa"]:
            dim_put(w, L["nsa"], nsa)
        else:
            keep = rng.randrange(1, len(L["slots"]) + 1)
            for d, sh in L["slots"][keep:]:
                dim_put(w, (d, sh, 8), 0)
        out.append(w)
    return out


def dim_put(words, field, value):
    d, shift, width = field
    words[d] = (words[d] & ~(((1 << width) - 1) << shift)) | (value & ((1 << width) - 1)) << shift


def random_words(layout, fields, rng):
    words = [rng.getrandbits(32) for _ in range(layout["words"])]
    for name, spec in layout.items():
        if name in ("words", "fixed", "op") or spec is None:
            continue
        w, shift, width = spec
        roll = rng.random()
        if roll < 0.4:
            words[w] &= ~(((1 << width) - 1) << shift)
        elif roll < 0.6 and name == "saddr":
            # `off`, and the value flat instructions must carry, are common in real code.
            value = rng.choice([0x7F, 0x7D, 0x7C])
            words[w] = (words[w] & ~(((1 << width) - 1) << shift)) | value << shift
    for w, shift, width, value in layout["fixed"]:
        words[w] = (words[w] & ~(((1 << width) - 1) << shift)) | value << shift
    for name, value in fields.items():
        w, shift, width = layout[name]
        words[w] = (words[w] & ~(((1 << width) - 1) << shift)) | (value & ((1 << width) - 1)) << shift
    return words


def candidates(cpu, n, rng):
    gen = GEN[cpu]
    ops = table_ops()
    out = {}
    groups = [("ds", "ds", None), ("flat", "flat", 0), ("scratch", "flat", 1), ("global", "flat", 2),
              ("mubuf", "mubuf", None), ("mtbuf", "mtbuf", None), ("exp", "exp", None), ("ldsdir", "ldsdir", None),
              ("mimg", "mimg", None)]
    for group, kind, seg in groups:
        layout = LAYOUTS[gen].get(kind)
        # EXP and LDSDIR have no opcode table: their "opcode" field is drawn whole.
        codes = ops.get((group, cpu), []) or (list(range(16)) if group in ("exp", "ldsdir") else [])
        if layout is None or not codes:
            continue
        cands = []
        for _ in range(n):
            code = rng.choice(codes)
            fields = dict(op=code)
            if seg is not None:
                fields["seg"] = seg
            if kind == "mtbuf" and layout.get("op3"):
                fields = dict(op=code & 7, op3=code >> 3)
            cands.append(random_words(layout, fields, rng))
        out[group] = cands
    for group, layout in (("mimg", "gfx10" if gen == 10 else "gfx11"), ("vimage", "vimage"), ("vsample", "vsample")):
        codes = ops.get((group, cpu), [])
        if gen >= 10 and codes:
            out[group] = dim_candidates(cpu, codes, layout, n, rng)
    if gen >= 10:
        out["bvh"] = bvh_candidates(gen, n, rng)
    return out


def bvh_candidates(gen, n, rng):
    """`image_bvh_intersect_ray` and `image_bvh64_intersect_ray` (src/disasm/memory/bvh.rs): the
    fixed dword 0 of either, random registers, NSA and A16, and now and then any other bit."""
    out = []
    for _ in range(n):
        wide = rng.getrandbits(1)
        regs = [rng.getrandbits(8) for _ in range(6)]
        if gen == 10:
            w0 = (0xF19C9F01 if wide else 0xF1989F01) | rng.choice([0, 1, 2, 3]) << 1
            w1 = regs[0] | regs[1] << 8 | rng.getrandbits(5) << 16 | rng.getrandbits(1) << 30 | rng.getrandbits(4) << 26
            words = [w0, w1] + [rng.getrandbits(32) for _ in range(w0 >> 1 & 3)]
        elif gen == 11:
            w0 = (0xF0688F80 if wide else 0xF0648F80) | rng.getrandbits(1) | rng.getrandbits(1) << 16
            w1 = regs[0] | regs[1] << 8 | rng.getrandbits(5) << 16 | rng.getrandbits(3) << 23
            words = [w0, w1] + ([rng.getrandbits(32)] if w0 & 1 else [])
        else:
            w0 = 0xD3C68010 if wide else 0xD3C64010
            rsrc = rng.choice([4 * rng.randrange(26), rng.getrandbits(9)])
            words = [w0, regs[1] | rsrc << 9 | regs[2] << 24, rng.getrandbits(32)]
        # A bit anywhere, one word in five: the bits that must be zero or one.
        if rng.random() < 0.2:
            d = rng.randrange(min(2, len(words)))
            words[d] ^= 1 << rng.randrange(32)
        out.append(words)
    return out


def ours(cpu, cands):
    lines = "\n".join(" ".join("%08X" % w for w in c) for c in cands) + "\n"
    run_ = subprocess.run(decoder_command(cpu),
                          input=lines, capture_output=True, text=True, cwd=ROOT, check=True)
    out = []
    for line, c in zip(run_.stdout.splitlines(), cands):
        text, _, size = line.rpartition("\t")
        # A decoding of another length is not a decoding of this candidate (llvm-mc's answer
        # for it is None too).
        out.append(None if line == "<none>" or int(size) != 4 * len(c) else text)
    return out


NOP = {8: 0xBF800000, 9: 0xBF800000, 10: 0xBF800000, 11: 0xBF800000, 12: 0xBF800000}


def reference(cpu, cands):
    """llvm-objdump's answers, read back by address (`gen_vector.run`: two `s_nop 0` after each
    candidate keep the stream aligned when a rejected candidate's later dwords decode as the
    start of an instruction)."""
    return objdump_run(cpu, cands, warned=True)


def check(cpu, n, seed=1, show=6, only=None):
    rng = random.Random(seed)
    isa = ALIAS.get(cpu, cpu)
    for group, cands in candidates(isa, n, rng).items():
        if only and group not in only:
            continue
        theirs = reference(cpu, cands)
        mine = ours(cpu, cands)
        theirs = recheck(isa, cands, theirs, mine)
        valid = sum(t is not None for t in theirs)
        agree = sum(t is not None and t == m for t, m in zip(theirs, mine))
        extra = sum(t is None and m is not None for t, m in zip(theirs, mine))
        pct = 100.0 * agree / valid if valid else 100.0
        print("%-8s %-8s %5d/%5d = %6.2f%%  (%d decoded that llvm-mc rejects)" % (cpu, group, agree, valid, pct, extra))
        shown = 0
        for c, t, m in zip(cands, theirs, mine):
            if t != m and shown < show:
                print("    %s\n      llvm: %s\n      ours: %s" % (" ".join("%08X" % w for w in c), t, m))
                shown += 1


ALIAS = {"gfx1201": "gfx1200", "gfx1101": "gfx1100", "gfx940": "gfx942", "gfx1031": "gfx1030"}
LINE = re.compile(r"^\t(\S.*?)\s*// [0-9A-F]+: ((?:[0-9A-F]{8} ?)+)$")
MEMORY_TOPS = {8: {0x36, 0x37, 0x38, 0x3A, 0x31, 0x3C}, 9: {0x36, 0x37, 0x38, 0x3A, 0x31, 0x3C}, 10: {0x36, 0x37, 0x38, 0x3A, 0x3E},
               11: {0x36, 0x37, 0x38, 0x3A, 0x3E, 0x33}, 12: {0x36, 0x3B, 0x31, 0x3E, 0x33}}


def check_objdump(path, show=10):
    """Every memory instruction llvm-objdump -d prints for the code object at `path`, against ours."""
    dump = subprocess.run([os.path.join(os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin"), "llvm-objdump"), "-d",
                           path], capture_output=True, text=True, check=True).stdout
    cpu = re.search(r"amdgcn-amd-amdhsa--(gfx\w+)|file format elf64-amdgpu", dump)
    mcpu = subprocess.run([os.path.join(os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin"), "llvm-readelf"), "-h",
                           path], capture_output=True, text=True).stdout
    m = re.search(r"Flags:.*\b(gfx\w+)", mcpu)
    cpu = m.group(1) if m else "gfx90a"
    gen = GEN.get(cpu, GEN.get(ALIAS.get(cpu, ""), 9))
    rows = []
    for line in dump.splitlines():
        m = LINE.match(line)
        if m:
            words = [int(w, 16) for w in m.group(2).split()]
            if words[0] >> 26 in MEMORY_TOPS[gen]:
                rows.append((m.group(1), words))
    mine = ours(cpu, [w for _, w in rows])
    agree = sum(t == o for (t, _), o in zip(rows, mine))
    print("%s (%s): %d/%d memory instructions identical" % (path, cpu, agree, len(rows)))
    shown = 0
    for (t, w), o in zip(rows, mine):
        if t != o and shown < show:
            print("    %s\n      llvm: %s\n      ours: %s" % (" ".join("%08X" % x for x in w), t, o))
            shown += 1


def main():
    if sys.argv[1].endswith(".co"):
        for path in sys.argv[1:]:
            check_objdump(path)
        return
    cpus = ISAS if sys.argv[1] == "all" else [sys.argv[1]]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    for cpu in cpus:
        check(cpu, n, only=only)


if __name__ == "__main__":
    main()
