"""Field layouts of the memory encodings, per generation, shared by gen_memory.py and
check_memory.py. Each field is (dword index, lowest bit, width); `fixed` are the encoding bits.
Taken from AMD's published ISA documents and confirmed by flipping bits under llvm-mc.
"""

GEN = {
    "gfx803": 8, "gfx810": 8, "gfx900": 9, "gfx906": 9, "gfx908": 9, "gfx90a": 9, "gfx942": 9, "gfx950": 9,
    "gfx1010": 10, "gfx1030": 10, "gfx1100": 11, "gfx1150": 11, "gfx1200": 12,
}
ISAS = list(GEN)

DS9 = dict(words=2, fixed=[(0, 26, 6, 0x36)], op=(0, 17, 8), gds=(0, 16, 1), acc=(0, 25, 1),
           off0=(0, 0, 8), off1=(0, 8, 8), addr=(1, 0, 8), data0=(1, 8, 8), data1=(1, 16, 8), vdst=(1, 24, 8))
DS10 = dict(DS9, op=(0, 18, 8), gds=(0, 17, 1), acc=None)
DS8 = DS9

FLAT9 = dict(words=2, fixed=[(0, 26, 6, 0x37)], offset=(0, 0, 13), lds=(0, 13, 1), seg=(0, 14, 2), glc=(0, 16, 1),
             slc=(0, 17, 1), op=(0, 18, 7), sc1=(0, 25, 1), addr=(1, 0, 8), data=(1, 8, 8), saddr=(1, 16, 7),
             acc=(1, 23, 1), vdst=(1, 24, 8))
FLAT10 = dict(FLAT9, offset=(0, 0, 12), dlc=(0, 12, 1), sc1=None, acc=None, nv=(1, 23, 1))
FLAT11 = dict(FLAT9, offset=(0, 0, 13), dlc=(0, 13, 1), glc=(0, 14, 1), slc=(0, 15, 1), seg=(0, 16, 2), lds=None,
              sc1=None, acc=None, sve=(1, 23, 1))
FLAT12 = dict(words=3, fixed=[(0, 26, 6, 0x3B)], saddr=(0, 0, 7), nv=(0, 7, 1), op=(0, 14, 7), seg=(0, 24, 2),
              vdst=(1, 0, 8), scale=(1, 16, 1), sve=(1, 17, 1), scope=(1, 18, 2), th=(1, 20, 3),
              data=(1, 23, 8), addr=(2, 0, 8), offset=(2, 8, 24))

MUBUF9 = dict(words=2, fixed=[(0, 26, 6, 0x38)], offset=(0, 0, 12), offen=(0, 12, 1), idxen=(0, 13, 1),
              glc=(0, 14, 1), sc1=(0, 15, 1), lds=(0, 16, 1), slc=(0, 17, 1), op=(0, 18, 7), vaddr=(1, 0, 8),
              vdata=(1, 8, 8), srsrc=(1, 16, 5), acc=(1, 23, 1), soffset=(1, 24, 8))
MUBUF8 = dict(MUBUF9, sc1=None, acc=None, tfe=(1, 23, 1))
MUBUF10 = dict(MUBUF9, sc1=None, dlc=(0, 15, 1), acc=None, slc=(1, 22, 1), tfe=(1, 23, 1), op=(0, 18, 8))
MUBUF11 = dict(words=2, fixed=[(0, 26, 6, 0x38)], offset=(0, 0, 12), slc=(0, 12, 1), dlc=(0, 13, 1),
               glc=(0, 14, 1), op=(0, 18, 8), vaddr=(1, 0, 8), vdata=(1, 8, 8), srsrc=(1, 16, 5), tfe=(1, 21, 1),
               offen=(1, 22, 1), idxen=(1, 23, 1), soffset=(1, 24, 8))
VBUF12 = dict(words=3, fixed=[(0, 26, 6, 0x31)], soffset=(0, 0, 7), nv=(0, 7, 1), op=(0, 14, 8), tfe=(0, 22, 1),
              vdata=(1, 0, 8), srsrc=(1, 9, 7), scope=(1, 18, 2), th=(1, 20, 3), fmt=(1, 23, 7), offen=(1, 30, 1),
              idxen=(1, 31, 1), vaddr=(2, 0, 8), offset=(2, 8, 24))

MTBUF9 = dict(MUBUF9, fixed=[(0, 26, 6, 0x3A)], op=(0, 15, 4), dfmt=(0, 19, 4), nfmt=(0, 23, 3), sc1=None, lds=None,
              slc=(1, 22, 1), acc=(1, 23, 1))
MTBUF8 = dict(MTBUF9, acc=None, tfe=(1, 23, 1))
MTBUF10 = dict(MUBUF10, fixed=[(0, 26, 6, 0x3A)], op=(0, 16, 3), op3=(1, 21, 1), fmt=(0, 19, 7), dlc=(0, 15, 1),
               lds=None, op7=None)
MTBUF11 = dict(MUBUF11, fixed=[(0, 26, 6, 0x3A)], op=(0, 15, 4), fmt=(0, 19, 7))

EXP9 = dict(words=2, fixed=[(0, 26, 6, 0x31)], op=(0, 0, 4), tgt=(0, 4, 6), compr=(0, 10, 1), done=(0, 11, 1),
            vm=(0, 12, 1), vsrc=(1, 0, 32))
EXP10 = dict(EXP9, fixed=[(0, 26, 6, 0x3E)])
EXP11 = dict(EXP10, compr=None, vm=None, row_en=(0, 13, 1))
# MIMG of GFX8 and gfx900-gfx908 (check_memory.py; the tables come from gen_image.py).
MIMG9 = dict(words=2, fixed=[(0, 26, 6, 0x3C)], dmask=(0, 8, 4), unorm=(0, 12, 1), glc=(0, 13, 1), da=(0, 14, 1),
             r128=(0, 15, 1), tfe=(0, 16, 1), lwe=(0, 17, 1), op=(0, 18, 7), slc=(0, 25, 1), vaddr=(1, 0, 8),
             vdata=(1, 8, 8), srsrc=(1, 16, 5), ssamp=(1, 21, 5), d16=(1, 31, 1))
LDSDIR = dict(words=1, fixed=[(0, 24, 8, 0xCE)], vdst=(0, 0, 8), chan=(0, 8, 2), attr=(0, 10, 6), wait=(0, 16, 4),
              op=(0, 20, 2), vsrc=(0, 23, 1))

LAYOUTS = {
    8: dict(ds=DS8, flat=FLAT9, mubuf=MUBUF8, mtbuf=MTBUF8, exp=EXP9, mimg=MIMG9),
    9: dict(ds=DS9, flat=FLAT9, mubuf=MUBUF9, mtbuf=MTBUF9, exp=EXP9, mimg=MIMG9),
    10: dict(ds=DS10, flat=FLAT10, mubuf=MUBUF10, mtbuf=MTBUF10, exp=EXP10),
    11: dict(ds=DS10, flat=FLAT11, mubuf=MUBUF11, mtbuf=MTBUF11, exp=EXP11, ldsdir=LDSDIR),
    12: dict(ds=DS10, flat=FLAT12, mubuf=VBUF12, exp=EXP11, ldsdir=LDSDIR),
}


def pack(layout, **fields):
    words = [0] * layout["words"]
    for w, shift, width, value in layout["fixed"]:
        words[w] |= value << shift
    for name, value in fields.items():
        spec = layout.get(name)
        if spec is None:
            continue
        w, shift, width = spec
        words[w] |= (value & ((1 << width) - 1)) << shift
    return words


# ---------------------------------------------------------------------------------------------
# Sweeps

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mc import disassemble, words_to_bytes  # noqa: E402

REG = re.compile(r"\b[va](\d+)\b|\b[va]\[(\d+):(\d+)\]")
# Canonical register numbers: each field gets its own, so the printed text tells which field an
# operand came from and how many registers it spans.
ADDR, DATA0, DATA1, VDST = 20, 40, 60, 80


def widths(text):
    """{first register: count} of the vector registers in `text`; a count of 32 (GFX12 block
    loads and stores) is written 15 to fit the shape's nibble."""
    out = {}
    for m in REG.finditer(text):
        if m.group(1) is not None:
            out[int(m.group(1))] = 1
        else:
            count = int(m.group(3)) - int(m.group(2)) + 1
            out[int(m.group(2))] = 15 if count == 32 else count
    return out


def run(cpu, candidates):
    return disassemble(cpu, [words_to_bytes(c) for c in candidates])


def mnemonic(text):
    return text.split(" ", 1)[0]


def off_value(gen):
    """The SADDR value printed `off`."""
    return {8: 0x7F, 9: 0x7F, 10: 0x7D}.get(gen, 0x7C)


def flat_saddr(gen):
    """The SADDR value a flat-segment instruction must carry."""
    return 0 if gen <= 9 else off_value(gen)


def sweep_ds(cpu):
    """(op, name, shape): shape nibbles vdst, addr, data0, data1 widths; bits 16-17 offset style
    (0 none, 1 `offset:`, 2 `offset0:`/`offset1:`, 3 `offset:swizzle(…)`), bit 18 gds allowed,
    bit 19 AGPR data allowed, bit 20 gds required."""
    gen = GEN[cpu]
    layout = LAYOUTS[gen]["ds"]
    fields = [("vdst", VDST), ("addr", ADDR), ("data0", DATA0), ("data1", DATA1)]
    ops = 1 << layout["op"][2]
    cands, keys = [], []
    for gds in (0, 1):
        for op in range(ops):
            for mask in range(16):
                regs = {f: v for i, (f, v) in enumerate(fields) if mask >> i & 1}
                cands.append(pack(layout, op=op, off0=1, off1=2, gds=gds, **regs))
                keys.append((gds, op, mask))
    # Opcodes llvm-mc only accepts with the GDS bit set (ds_gws_*, ds_ordered_count…) come from
    # the second half of the sweep and are marked "gds required".
    best, needs_gds = {}, set()
    for (gds, op, mask), text in zip(keys, run(cpu, cands)):
        if text is None or (gds and op in best and op not in needs_gds):
            continue
        if op not in best or bin(mask).count("1") > bin(best[op][0]).count("1"):
            best[op] = (mask, text)
            if gds:
                needs_gds.add(op)
    probes, pkeys = [], []
    for op, (mask, text) in best.items():
        regs = {f: v for i, (f, v) in enumerate(fields) if mask >> i & 1}
        probes.append(pack(layout, op=op, off0=1, off1=2, gds=1, **regs))
        pkeys.append((op, "gds"))
        if layout.get("acc"):
            probes.append(pack(layout, op=op, off0=1, off1=2, acc=1, gds=int(op in needs_gds), **regs))
            pkeys.append((op, "acc"))
    allowed = set()
    for key, text in zip(pkeys, run(cpu, probes)):
        if text is not None:
            allowed.add(key)
    table = []
    for op, (mask, text) in sorted(best.items()):
        w = widths(text)
        shape = 0
        for i, (f, v) in enumerate(fields):
            if mask >> i & 1:
                shape |= w.get(v, 0) << (4 * i)
        if "offset:swizzle" in text:
            style = 3
        elif "offset0:" in text:
            style = 2
        elif "offset:" in text:
            style = 1
        else:
            style = 0
        shape |= style << 16
        if (op, "gds") in allowed:
            shape |= 1 << 18
        if (op, "acc") in allowed:
            shape |= 1 << 19
        if op in needs_gds:
            shape |= 1 << 18 | 1 << 20
        table.append((op, mnemonic(text), shape))
    return table


def sweep_flat(cpu, seg):
    """(op, name, shape): nibbles vdst width, address width (saddr off), data width, vdst width
    when the atomic returns (glc / th:TH_ATOMIC_RETURN); bit 16 saddr printed, bit 17 AGPR data
    allowed, bit 18 lds allowed."""
    gen = GEN[cpu]
    layout = LAYOUTS[gen]["flat"]
    ops = 1 << layout["op"][2]
    ret = dict(th=1) if gen == 12 else dict(glc=1)
    cands = []
    for op in range(ops):
        saddr = flat_saddr(gen) if seg == 0 else off_value(gen)
        base = dict(op=op, seg=seg, addr=ADDR, data=DATA0, vdst=VDST, saddr=saddr)
        cands.append(pack(layout, **base))
        cands.append(pack(layout, **base, **ret))
        cands.append(pack(layout, **base, acc=1) if layout.get("acc") else None)
        cands.append(pack(layout, **base, lds=1) if layout.get("lds") else None)
    live = [c for c in cands if c is not None]
    texts = iter(run(cpu, live))
    answers = [next(texts) if c is not None else None for c in cands]
    table = []
    for op in range(ops):
        plain, rtn, acc, lds = answers[4 * op:4 * op + 4]
        if plain is None:
            continue
        w = widths(plain)
        shape = w.get(VDST, 0) | w.get(ADDR, 0) << 4 | w.get(DATA0, 0) << 8
        if rtn is not None:
            shape |= widths(rtn).get(VDST, 0) << 12
        if plain.rstrip().endswith(", off") or ", off " in plain or plain.count("off") >= 1 and seg != 0:
            shape |= 1 << 16
        if acc is not None:
            shape |= 1 << 17
        if lds is not None:
            shape |= 1 << 18
        table.append((op, mnemonic(plain), shape))
    return table


def sweep_buffer(cpu, kind):
    """(op, name, shape): nibble 0 vdata width (0: no operands); bit 16 lds allowed, bit 17 the
    vdata operand is absent when lds is set, bit 18 AGPR data allowed."""
    gen = GEN[cpu]
    layout = LAYOUTS[gen][kind]
    ops = 1 << layout["op"][2]
    extra = []
    if kind == "mtbuf" and layout.get("op3"):
        extra = [0, 1]
    cands, keys = [], []
    for op in range(ops):
        for hi in extra or [None]:
            code = op if hi is None else op | hi << 3
            fields = dict(op=op, vaddr=ADDR, vdata=DATA0, srsrc=2, soffset=6, offen=1)
            if hi is not None:
                fields["op3"] = hi
            if kind == "mtbuf":
                fields.update(dict(fmt=22) if layout.get("fmt") else dict(dfmt=4, nfmt=2))
            if gen == 12 and kind == "mtbuf":
                fields["fmt"] = 22
            cands.append(pack(layout, **fields))
            cands.append(pack(layout, **fields, lds=1) if layout.get("lds") else None)
            cands.append(pack(layout, **fields, acc=1) if layout.get("acc") else None)
            keys.append(code)
    live = [c for c in cands if c is not None]
    texts = iter(run(cpu, live))
    answers = [next(texts) if c is not None else None for c in cands]
    table = []
    bare = bare_buffer_ops(cpu, kind, layout, ops) if not extra else {}
    for i, code in enumerate(keys):
        plain, lds, acc = answers[3 * i:3 * i + 3]
        if plain is None:
            if code in bare:
                table.append((code, bare[code][0], bare[code][1]))
            continue
        shape = widths(plain).get(DATA0, 0)
        if lds is not None:
            shape |= 1 << 16
            if DATA0 not in widths(lds):
                shape |= 1 << 17
        if acc is not None:
            shape |= 1 << 18
        table.append((code, mnemonic(plain), shape))
    return table


def bare_buffer_ops(cpu, kind, layout, ops):
    """{op: (name, shape)} of the cache operations without operands (buffer_wbinvl1,
    buffer_gl0_inv, buffer_wbl2…), which llvm-mc only accepts with every operand field zero.
    Shape: bit 19 set, bit 20/21 glc accepted/printed, bit 22/23 bit 15 (sc1, dlc, scc)
    accepted/printed."""
    if kind != "mubuf" or GEN[cpu] == 12:
        return {}
    cands = []
    for op in range(ops):
        cands.append(pack(layout, op=op))
        cands.append(pack(layout, op=op, glc=1))
        cands.append([cands[-2][0] | 1 << 15] + cands[-2][1:])
    answers = run(cpu, cands)
    out = {}
    for op in range(ops):
        plain, glc, high = answers[3 * op:3 * op + 3]
        if plain is None or " " in plain:
            continue
        shape = 1 << 19
        if glc is not None:
            shape |= 1 << 20 | (1 << 21 if " " in glc else 0)
        if high is not None:
            shape |= 1 << 22 | (1 << 23 if " " in high else 0)
        out[op] = (plain, shape)
    return out


def sweep_formats(cpu):
    """The names llvm-mc prints inside `format:[…]` for each value of the typed-buffer format
    field(s): GFX9 `(data formats, number formats)`, GFX10+ one list of unified formats (an
    empty name for the default, which is not printed; a number for one without a name)."""
    gen = GEN[cpu]
    layout = LAYOUTS[gen]["mtbuf"] if gen < 12 else LAYOUTS[gen]["mubuf"]
    base = dict(op=128 if gen == 12 else 4, vaddr=ADDR, vdata=DATA0, srsrc=2, soffset=6)
    if gen <= 9:
        dfmt = run(cpu, [pack(layout, **base, dfmt=d, nfmt=0) for d in range(16)])
        nfmt = run(cpu, [pack(layout, **base, dfmt=1, nfmt=n) for n in range(8)])
        return [format_name(t) for t in dfmt], [format_name(t) for t in nfmt]
    return [format_name(t) for t in run(cpu, [pack(layout, **base, fmt=f) for f in range(128)])]


# The scalar operands whose special values print in their own way: (name, encoding, the opcode
# of a 32-bit load per generation, the field, its first special value, the pattern around it).
NAMES = [
    ("SADDR64", "flat", dict(seg=2), "saddr", 100, r"^\S+ v5, v(?:1|\[1:2\]), (.*)$"),
    ("SADDR32", "flat", dict(seg=1), "saddr", 100, r"^\S+ v5, (?:v1|off), (.*)$"),
    ("SRSRC", "mubuf", dict(), "srsrc", 24, r"^\S+ v5, off, (.*), s1$"),
    ("SOFFSET", "mubuf", dict(), "soffset", 100, r"^\S+ v5, off, s\[\d+:\d+\], (.*)$"),
]
LOAD = {8: dict(flat=20, mubuf=20), 9: dict(flat=20, mubuf=20), 10: dict(flat=12, mubuf=12), 11: dict(flat=20, mubuf=20),
        12: dict(flat=20, mubuf=20)}


def sweep_names(cpu, name):
    """What llvm-mc prints for each value of a scalar operand field from its first special
    value (lower values are plain SGPRs), "" where it rejects the word."""
    gen = GEN[cpu]
    _, kind, extra, field, first, pattern = next(n for n in NAMES if n[0] == name)
    layout = LAYOUTS[gen][kind]
    base = dict(op=LOAD[gen][kind], vdst=5, addr=1, vdata=5, srsrc=0, soffset=1, **extra)
    if gen == 12 and kind == "mubuf":
        base["soffset"] = 1
    if field == "saddr" and gen >= 11 and extra.get("seg") == 1:
        base["sve"] = 1
    top = 1 << layout[field][2]
    values = list(range(first, top))
    cands = [pack(layout, **dict(base, **{field: v})) for v in values]
    texts = run(cpu, cands)
    # A rejected word can throw the batch's read-back off for its neighbours (src_scc after two
    # invalid values came back empty): ask again, one word at a time, for every empty answer.
    texts = [t if t is not None else run(cpu, [c])[0] for c, t in zip(cands, texts)]
    out = []
    for text in texts:
        m = re.match(pattern, text or "")
        out.append(m.group(1) if m else "")
    return out


def sweep_th():
    """GFX12's `th:` names: index kind * 32 + scope * 8 + th, kind 0 load, 1 store, 2 atomic
    ("" when th is 0)."""
    layout = LAYOUTS[12]["flat"]
    cands = []
    for op in (20, 26, 0x35):  # global_load_b32, global_store_b32, global_atomic_add_u32
        for scope in range(4):
            for th in range(8):
                cands.append(pack(layout, op=op, seg=2, saddr=0x7C, th=th, scope=scope))
    out = []
    for text in run("gfx1200", cands):
        m = re.search(r" th:(\S+)", text or "")
        out.append(m.group(1) if m else "")
    return out


def sweep_ldsdir(cpu):
    """The LDSDIR/VDSDIR mnemonics by opcode (bits 21:20), "" where llvm-mc rejects."""
    texts = run(cpu, [[0xCE << 24 | op << 20 | 5] for op in range(4)])
    return [mnemonic(t) if t else "" for t in texts]


def format_name(text):
    m = re.search(r"format:\[?([A-Z0-9_,]+)\]?", text or "")
    return m.group(1) if m else ""


# ---------------------------------------------------------------------------------------------
# Output

HEADER = "// Generated by scripts/disasm/gen_memory.py from llvm-mc 22; do not edit.\n"


def rust_table(name, rows):
    lines = ["pub(super) static %s: &[Op] = &[" % name]
    for code, text, shape in sorted(rows):
        lines.append('    Op(%d, "%s", 0x%x),' % (code, text, shape))
    lines.append("];")
    return "\n".join(lines)


def rust_names(name, names):
    body = "".join('\n    "%s",' % n for n in names)
    return "pub(super) static %s: &[&str] = &[%s\n];" % (name, body)


def emit(group, per_isa, out):
    """One static per distinct table, and a function choosing it per family."""
    names, bodies = {}, []
    for cpu, rows in per_isa.items():
        key = tuple(rows)
        if key not in names:
            names[key] = "%s_%s" % (group.upper(), cpu.upper())
            bodies.append(rust_table(names[key], rows))
    arms = []
    for cpu, rows in per_isa.items():
        arms.append("        Isa::%s => %s," % (cpu.capitalize(), names[tuple(rows)]))
    fn = ["pub(super) fn %s(isa: Isa) -> &'static [Op] {" % group, "    match isa {"]
    missing = [isa for isa in ISAS if isa not in per_isa]
    fn += arms
    if missing:
        fn.append("        _ => &[],")
    fn += ["    }", "}"]
    out.append("\n".join(fn))
    out.extend(bodies)


def main():
    out = [HEADER + "\nuse super::Op;\nuse crate::disasm::Isa;"]
    emit("ds", {cpu: sweep_ds(cpu) for cpu in ISAS}, out)
    for seg, group in [(0, "flat"), (1, "scratch"), (2, "global")]:
        # GFX8 has flat only.
        emit(group, {cpu: sweep_flat(cpu, seg) for cpu in ISAS if seg == 0 or GEN[cpu] > 8}, out)
    emit("mubuf", {cpu: sweep_buffer(cpu, "mubuf") for cpu in ISAS}, out)
    emit("mtbuf", {cpu: sweep_buffer(cpu, "mtbuf") for cpu in ISAS if "mtbuf" in LAYOUTS[GEN[cpu]]}, out)
    for name, _, _, _, first, _ in NAMES:
        per_isa = {}
        for cpu in ["gfx803", "gfx900", "gfx1010", "gfx1030", "gfx1100", "gfx1200"]:
            if cpu == "gfx1010" and name != "SADDR32" or cpu == "gfx803" and name.startswith("SADDR"):
                continue
            per_isa[cpu] = sweep_names(cpu, name)
            out.append(rust_names("%s_%s" % (name, cpu.upper()), per_isa[cpu]))
    out.append(rust_names("TH_NAMES", sweep_th()))
    out.append(rust_names("LDSDIR_GFX1100", sweep_ldsdir("gfx1100")))
    out.append(rust_names("LDSDIR_GFX1200", sweep_ldsdir("gfx1200")))
    dfmt, nfmt = sweep_formats("gfx900")
    out.append(rust_names("DATA_FORMATS", dfmt))
    out.append(rust_names("NUMBER_FORMATS", nfmt))
    out.append(rust_names("FORMATS_GFX10", sweep_formats("gfx1030")))
    out.append(rust_names("FORMATS_GFX11", sweep_formats("gfx1100")))
    out.append(rust_names("FORMATS_GFX12", sweep_formats("gfx1200")))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../src/disasm/memory/tables.rs")
    with open(path, "w") as f:
        f.write("\n\n".join(out) + "\n")


if __name__ == "__main__":
    main()
