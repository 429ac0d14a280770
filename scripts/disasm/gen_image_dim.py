"""Writes src/disasm/memory/image_dim_tables.rs: the images of GFX10 (MIMG), GFX11 (MIMG) and
GFX12 (VIMAGE, VSAMPLE), whose address count follows the `DIM` field, with what llvm-objdump 22
prints for each opcode.

The layouts (bit positions; `LAYOUTS` below, mirrored by `image_dim::LAYOUTS`):

- GFX10 MIMG, 2 dwords + `NSA` dwords: dword 0 `OP` 24:18 (bit 7 of the opcode in bit 0), `NSA`
  2:1 (extra dwords of one-byte addresses), `DIM` 5:3, `DMASK` 11:8; dword 1 `VADDR` 7:0,
  `VDATA` 15:8, `SRSRC` 20:16 and `SSAMP` 25:21 (four SGPRs a step).
- GFX11 MIMG, 2 dwords + 1 if `NSA` (dword 0 bit 0): `DIM` 4:2, `OP` 25:18, `DMASK` 11:8; dword 1
  as GFX10 but `SSAMP` 30:26; the extra dword holds addresses 1-4, the last a tuple for the rest.
- GFX12 VIMAGE (`110100`) and VSAMPLE (`111001`), 3 dwords: `DIM` 2:0, `OP` 21:14, `DMASK` 25:22;
  dword 1 `VDATA` 7:0, `RSRC` 17:9 and (VSAMPLE) `SAMP` 31:23 as 9-bit register operands, `SCOPE`
  19:18, `TH` 22:20, (VIMAGE) address 4 in 31:24; dword 2 addresses 0-3. The last address slot
  used is a tuple for the rest; one address prints bare.

The single-bit modifiers (`MODS` of each layout) are probed one at a time: the name each prints,
for which opcodes it makes the word invalid, and the order they print in. For each opcode:

- the data width for every `DMASK`, `TFE`, `LWE`, `D16` (128 entries: a width, 0 where llvm-mc
  rejects the word, 0x80 where llvm-objdump keeps the opcode's first decoding);
- the address count for every `DIM`, `A16` and `NSA` size (64 entries, same marks): the tuple
  width without NSA, the number of address registers with it;
- the first decoding per `NSA` size (data width, address count), which llvm-objdump prints when
  the fields ask for a form the opcode does not have;
- per `NSA` size, whether the mnemonic is followed by two spaces (the NSA forms of some opcodes).

    python3 scripts/disasm/gen_image_dim.py    # rewrites src/disasm/memory/image_dim_tables.rs
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_vector import run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "disasm", "memory", "image_dim_tables.rs")

# Field positions: (dword, shift, width). `slots`: where address i sits, (dword, shift); `nsa`:
# the field giving the count of extra dwords (GFX10) or whether there is one (GFX11).
LAYOUTS = {
    "gfx10": dict(
        dwords=2, top=0xF0000000, op=[(0, 18, 7), (0, 0, 1)], dim=(0, 3, 3), dmask=(0, 8, 4),
        vdata=(1, 8, 8), srsrc=(1, 16, 5), ssamp=(1, 21, 5), nsa=(0, 1, 2),
        slots=[(1, 0)] + [(2 + i // 4, 8 * (i % 4)) for i in range(12)], tuple_last=False,
        mods=[(0, 12), (0, 13), (0, 25), (0, 7), (0, 15), (0, 16), (0, 17), (1, 30), (1, 31)],
        fixed=[(0, 26, 6)]),
    "gfx11": dict(
        dwords=2, top=0xF0000000, op=[(0, 18, 8)], dim=(0, 2, 3), dmask=(0, 8, 4),
        vdata=(1, 8, 8), srsrc=(1, 16, 5), ssamp=(1, 26, 5), nsa=(0, 0, 1),
        slots=[(1, 0), (2, 0), (2, 8), (2, 16), (2, 24)], tuple_last=True,
        mods=[(0, 7), (0, 12), (0, 13), (0, 14), (0, 15), (0, 16), (0, 17), (1, 21), (1, 22)],
        fixed=[(0, 26, 6)]),
    "vimage": dict(
        dwords=3, top=0xD0000000, op=[(0, 14, 8)], dim=(0, 0, 3), dmask=(0, 22, 4),
        vdata=(1, 0, 8), srsrc=(1, 9, 9), ssamp=None, nsa=None,
        slots=[(2, 0), (2, 8), (2, 16), (2, 24), (1, 24)], tuple_last=True,
        mods=[(0, 4), (0, 5), (0, 6), (0, 7), (1, 23)], fixed=[(0, 26, 6)]),
    "vsample": dict(
        dwords=3, top=0xE4000000, op=[(0, 14, 8)], dim=(0, 0, 3), dmask=(0, 22, 4),
        vdata=(1, 0, 8), srsrc=(1, 9, 9), ssamp=(1, 23, 9), nsa=None,
        slots=[(2, 0), (2, 8), (2, 16), (2, 24)], tuple_last=True,
        mods=[(0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 13), (1, 8)], fixed=[(0, 26, 6)]),
}
# (Rust Isa, processor, layout, table name).
FAMILIES = [("Gfx1010", "gfx1010", "gfx10"), ("Gfx1030", "gfx1030", "gfx10"), ("Gfx1100", "gfx1100", "gfx11"),
            ("Gfx1150", "gfx1150", "gfx11"), ("Gfx1200", "gfx1200", "vimage"), ("Gfx1200", "gfx1200", "vsample")]
# Distinctive register numbers: data, addresses (slot i: 20 + i), resource, sampler.
VDATA, VADDR = 40, 20
REG = re.compile(r"^v(\d+)$|^v\[(\d+):(\d+)\]$")
FALLBACK = 0x80


def put(words, field, value):
    d, shift, width = field
    words[d] = (words[d] & ~(((1 << width) - 1) << shift)) | (value & ((1 << width) - 1)) << shift


class Probe:
    def __init__(self, layout):
        self.L = LAYOUTS[layout]

    def srsrc(self, value=None):
        # GFX10/11: s[4:11] (field 1, four SGPRs a step); GFX12: the SGPR number.
        return value if value is not None else (1 if self.L["srsrc"][2] == 5 else 4)

    def ssamp(self, on, value=None):
        if not on or self.L["ssamp"] is None:
            return 0
        return value if value is not None else (3 if self.L["ssamp"][2] == 5 else 12)

    def word(self, op, sampler, dim=0, nsa=0, dmask=0xF, vdata=VDATA, naddr=13, bits=(), srsrc=None, ssamp=None):
        L = self.L
        w = [0] * (L["dwords"] + (nsa if L["nsa"] else 0))
        w[0] = L["top"]
        shift = 0
        for f in L["op"]:
            put(w, f, op >> shift)
            shift += f[2]
        put(w, L["dim"], dim)
        put(w, L["dmask"], dmask)
        put(w, L["vdata"], vdata)
        put(w, L["srsrc"], self.srsrc(srsrc))
        if L["ssamp"] is not None:
            put(w, L["ssamp"], self.ssamp(sampler, ssamp))
        if L["nsa"] is not None:
            put(w, L["nsa"], nsa)
        used = 1 if (L["nsa"] is not None and nsa == 0) else len(L["slots"])
        # GFX12 rejects a nonzero address slot its address count leaves unused: all are v0 there.
        for i, (d, s) in enumerate(L["slots"][:min(used, naddr)]):
            if d < len(w) and L["nsa"] is not None:
                w[d] |= (VADDR + i) << s
        for d, b in bits:
            w[d] |= 1 << b
        return w


def count(token):
    m = REG.match(token.split("/*")[0])
    if not m:
        return None
    return 1 if m.group(1) else int(m.group(3)) - int(m.group(2)) + 1


def parse(text):
    """(mnemonic, two spaces?, data width, address count, srsrc, ssamp or None, modifiers)."""
    # llvm-objdump's complaints hold spaces: set them aside while splitting.
    notes = re.findall(r"/\*.*?\*/", text)
    for i, n in enumerate(notes):
        text = text.replace(n, "\x00%d\x00" % i, 1)

    def back(x):
        return x and re.sub(r"\x00(\d+)\x00", lambda m: notes[int(m.group(1))], x)
    m = re.match(r"^(\S+)( +)(\S+), (\[(?:[^\[\]]|\[[^\]]*\])*\]|\S+), (\S+?)(?:, (\S+?))?((?: \S+)*)$", text)
    if not m:
        return None
    name, spaces, data, addr, srsrc, ssamp, mods = m.groups()
    if addr.startswith("["):
        n = sum(count(back(a)) or 0 for a in addr[1:-1].split(", "))
    else:
        n = count(back(addr))
    return name, len(spaces) == 2, count(back(data)), n, back(srsrc), back(ssamp), mods.split()


def learn(cpu, layout):
    P = Probe(layout)
    L = P.L
    nsas = [0] if L["nsa"] is None else list(range(1 << L["nsa"][2]))
    extra = (lambda s: s) if L["nsa"] is not None else (lambda s: 0)
    # Opcodes: every 8-bit value, with and without a sampler, 2D (most opcodes take it) and 1D.
    cands = [P.word(op, s, dim=d, nsa=0) for op in range(256) for s in (True, False) for d in (1, 0)]
    texts = run(cpu, cands)
    base, sampler = {}, {}
    for op in range(256):
        for k, (s, d) in enumerate([(True, 1), (True, 0), (False, 1), (False, 0)]):
            t = texts[4 * op + k]
            p = t and parse(t)
            if p and (p[5] is not None) == s and p[0].startswith("image_"):
                base[op], sampler[op] = p, s
                break
    ops = sorted(base)
    # The dmask each opcode decodes with at DIM 0: wide enough to tell a first decoding apart.
    probe_dmask = {}
    cands = [P.word(op, sampler[op], dmask=dm) for op in ops for dm in (7, 3, 1, 0xF)]
    texts = run(cpu, cands)
    for i, op in enumerate(ops):
        widths = [parse(t)[2] if t and parse(t) else None for t in texts[4 * i:4 * i + 4]]
        probe_dmask[op] = next((dm for dm, w in zip((7, 3, 1, 0xF), widths) if w), 1)
    mods = L["mods"]
    names = {}
    # Modifier names: each bit alone on every opcode.
    cands = [P.word(op, sampler[op], dmask=probe_dmask[op], bits=[b]) for op in ops for b in mods]
    texts = run(cpu, cands)
    rejected = {op: 0 for op in ops}
    plain = run(cpu, [P.word(op, sampler[op], dmask=probe_dmask[op]) for op in ops])
    for i, op in enumerate(ops):
        p0 = parse(plain[i]) if plain[i] else None
        for j, b in enumerate(mods):
            t = texts[len(mods) * i + j]
            if t is None:
                rejected[op] |= 1 << j
                continue
            p = parse(t)
            if p and p0:
                new = [x for x in p[6] if x not in p0[6]]
                if new and b not in names:
                    names[b] = new[0]
    # Print order: all accepted bits at once on the opcode that accepts most.
    best = min(ops, key=lambda op: bin(rejected[op]).count("1"))
    allbits = [b for j, b in enumerate(mods) if not rejected[best] >> j & 1 and b in names]
    if L["nsa"] is None:
        allbits.append((1, 18))  # GFX12 `scope:`, to place `th:`/`scope:` among the modifiers
    t = run(cpu, [P.word(best, sampler[best], dmask=probe_dmask[best], bits=allbits)])[0]
    order = parse(t)[6] if t else []
    at = next((i for i, x in enumerate(order) if x.startswith(("th:", "scope:"))), len(order))
    cpol_after = sum(1 for x in order[:at] if x in names.values())
    ordered = sorted([b for b in mods if b in names], key=lambda b: order.index(names[b]) if names[b] in order else 99)
    role = {names[b]: b for b in ordered}
    tfe, lwe, d16, a16 = (role.get(n) for n in ("tfe", "lwe", "d16", "a16"))
    # Data widths over DMASK, TFE, LWE, D16.
    index = [(d, t, l, h) for h in (0, 1) for l in (0, 1) for t in (0, 1) for d in range(16)]
    cands = []
    for op in ops:
        for d, t_, l, h in index:
            bits = [b for b, on in ((tfe, t_), (lwe, l), (d16, h)) if on and b is not None]
            cands.append(P.word(op, sampler[op], dmask=d, bits=bits))
    texts = run(cpu, cands)
    # First decodings per NSA size: a DIM and A16 the opcode has no form for is found below;
    # here the data width of an invalid-form word is read where the address count is also off.
    rules = {}
    for i, op in enumerate(ops):
        row = []
        for k, t in enumerate(texts[128 * i:128 * (i + 1)]):
            p = parse(t) if t else None
            row.append(p[2] if p else 0)
        rules[op] = row
    # Address counts over DIM, A16, NSA.
    acands = []
    for op in ops:
        for s in range(4):
            for a in (0, 1):
                for dim in range(8):
                    if s not in nsas:
                        acands.append(None)
                        continue
                    bits = [a16] if a and a16 is not None else []
                    acands.append(P.word(op, sampler[op], dim=dim, nsa=extra(s), dmask=probe_dmask[op], bits=bits))
    real = [c for c in acands if c is not None]
    rtexts = iter(run(cpu, real))
    atexts = [next(rtexts) if c is not None else None for c in acands]
    # The same words with D16 set: a first decoding keeps its data width whatever D16 asks, which
    # tells it apart where the plain width happens to equal it (image_msaa_load's four VGPRs at
    # a DIM it has no form for).
    d16_cands = [c and P.word(op, sampler[op], dim=(k % 8), nsa=extra(k // 16), dmask=probe_dmask[op],
                              bits=([a16] if (k // 8) % 2 and a16 is not None else []) + [d16])
                 for i, op in enumerate(ops) for k, c in enumerate(acands[64 * i:64 * (i + 1)])] \
        if d16 is not None else []
    real16 = [c for c in d16_cands if c]
    r16 = iter(run(cpu, real16))
    d16_texts = [next(r16) if c else None for c in d16_cands]
    addr_rows, fallbacks, spaces = {}, {}, {}
    for i, op in enumerate(ops):
        want = rules[op][probe_dmask[op]]
        want16 = rules[op][probe_dmask[op] | 64]
        row, fb, sp = [], [0, 0, 0, 0], 0
        for k, t in enumerate(atexts[64 * i:64 * (i + 1)]):
            s = k // 16
            p = parse(t) if t else None
            if p is None:
                row.append(0)
                continue
            if p[1]:
                sp |= 1 << s
            t16 = d16_texts[64 * i + k] if d16_texts else None
            p16 = parse(t16) if t16 else None
            if p[2] != want or (p16 is not None and want16 not in (0, FALLBACK) and p16[2] != want16):
                row.append(FALLBACK)
                fb[s] = p[2] | p[3] << 3
            else:
                row.append(p[3])
        addr_rows[op] = row
        fallbacks[op] = fb
        spaces[op] = sp
    # Data-width entries that differ from the usual: llvm-objdump's first decoding when the
    # address shape is the first decoding's too (GFX12 atomics with a DMASK they do not take).
    # The same sweep at the opcode's DIMs with fewest and most addresses (no NSA), where a first
    # decoding shows by its address count at one of them at least.
    def valid(op, d):
        return 0 < addr_rows[op][d] < FALLBACK
    for pick in (min, max):
        chosen = {op: pick([d for d in range(8) if valid(op, d)] or [0], key=lambda d: addr_rows[op][d]) for op in ops}
        cands3 = []
        for op in ops:
            for d, t_, l, h in index:
                bits = [b for b, on in ((tfe, t_), (lwe, l), (d16, h)) if on and b is not None]
                cands3.append(P.word(op, sampler[op], dim=chosen[op], dmask=d, bits=bits))
        texts3 = run(cpu, cands3)
        for i, op in enumerate(ops):
            expect = addr_rows[op][chosen[op]]
            for k, t in enumerate(texts3[128 * i:128 * (i + 1)]):
                p = parse(t) if t else None
                if p and expect not in (FALLBACK, 0) and p[3] != expect:
                    rules[op][k] = FALLBACK
                    if not fallbacks[op][0]:
                        fallbacks[op][0] = p[2] | p[3] << 3
    # First decodings the sweep above did not meet: a data tuple past v255, which llvm-objdump
    # cannot widen, so it keeps the first decoding whole, at every NSA size (the NSA forms'
    # first decodings hold their own address counts).
    sizes = range(1 << L["nsa"][2]) if L["nsa"] is not None else range(1)
    for nsa in sizes:
        cands = [P.word(op, sampler[op], dmask=probe_dmask[op], vdata=254, nsa=nsa) for op in ops]
        for op, t in zip(ops, run(cpu, cands)):
            p = parse(t) if t else None
            if p and not fallbacks[op][nsa]:
                fallbacks[op][nsa] = p[2] | p[3] << 3
    # Register names of the resource and sampler fields.
    width = L["srsrc"][2]
    load = next(op for op in ops if not sampler[op])
    # A tuple off its alignment decodes from the aligned register below, with llvm-objdump's
    # warning after the words (`warned`): a name like any other.
    srsrc = [parse(t)[4] if t and parse(t) else "" for t in
             run(cpu, [P.word(load, False, dmask=probe_dmask[load], srsrc=v) for v in range(min(1 << width, 256))],
                 warned=True)]
    ssamp = []
    if L["ssamp"] is not None:
        sample = next(op for op in ops if sampler[op])
        ssamp = [parse(t)[5] if t and parse(t) else "" for t in
                 run(cpu, [P.word(sample, True, dmask=probe_dmask[sample], ssamp=v)
                           for v in range(min(1 << L["ssamp"][2], 256))], warned=True)]
    # GFX12's 9-bit register fields name VGPRs from 256 on, with llvm-objdump's complaint: the
    # register class it names, checked on a few values.
    vgpr_names = []
    for fieldname, names_ in (("srsrc", srsrc), ("ssamp", ssamp)):
        if L[fieldname] is None or L[fieldname][2] < 9:
            vgpr_names.append("")
            continue
        op = load if fieldname == "srsrc" else sample
        values = [256, 260, 300, 500]
        kw = [dict(srsrc=v) if fieldname == "srsrc" else dict(ssamp=v) for v in values]
        got = run(cpu, [P.word(op, sampler[op], dmask=probe_dmask[op], **k) for k in kw])
        cls = None
        for v, t in zip(values, got):
            p = parse(t) if t else None
            x = p and (p[4] if fieldname == "srsrc" else p[5])
            m = x and re.match(r"^v\[(\d+):(\d+)\]/\*Invalid register, operand has '(\w+)' register class\*/$", x)
            assert m and int(m.group(1)) == v - 256, (fieldname, v, t)
            cls = (m.group(3), int(m.group(2)) - int(m.group(1)) + 1)
        vgpr_names.append(cls[0])
    # Spare bits: those of no field, each alone on image_load (or the first opcode).
    used = set()
    for f in [L["dim"], L["dmask"], L["vdata"], L["srsrc"], L["ssamp"], L["nsa"]] + L["op"] + L["fixed"]:
        if f:
            used |= {(f[0], f[1] + k) for k in range(f[2])}
    used |= set(mods)
    used |= {(d, s + k) for d, s in L["slots"] for k in range(8) if d < L["dwords"]}
    if L is LAYOUTS["vimage"] or L is LAYOUTS["vsample"]:
        used |= {(1, 18 + k) for k in range(5)}
    spare_bits = [(d, b) for d in range(L["dwords"]) for b in range(32) if (d, b) not in used]
    texts = run(cpu, [P.word(load, False, dmask=probe_dmask[load], bits=[sb]) for sb in spare_bits])
    spare = [sb for sb, t in zip(spare_bits, texts) if t is None]
    shapes = {}
    for op in ops:
        shapes[op] = dict(name=base[op][0], sampler=sampler[op], rule=rules[op], addr=addr_rows[op],
                          fallback=fallbacks[op], spaces=spaces[op],
                          rejected=sum(1 << ordered.index(b) for j, b in enumerate(mods)
                                       if rejected[op] >> j & 1 and b in ordered),
                          rejected_unnamed=[b for j, b in enumerate(mods) if rejected[op] >> j & 1 and b not in ordered])
    unnamed = [b for b in mods if b not in names]
    return dict(vgpr_names=vgpr_names, ops=shapes, mods=[(b, names[b]) for b in ordered], roles=(tfe, lwe, d16, a16), cpol_after=cpol_after,
                srsrc=srsrc,
                ssamp=ssamp, spare=spare, unnamed=unnamed)


def base_addr(row):
    """The address count at DIM 0, no A16, no NSA (the sweep's data-width words)."""
    return row[0]


def rust_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def main():
    out = ["// Generated by scripts/disasm/gen_image_dim.py from llvm-mc 22; do not edit.",
           "//! GFX10, GFX11 and GFX12 image opcodes per family (see `super::image_dim`).",
           "",
           "use super::{DimFamily, DimOp};",
           ""]
    rules, addrs, statics = [], [], {}
    fams = []
    only = sys.argv[1:]
    for isa, cpu, layout in FAMILIES:
        if only and cpu not in only:
            continue
        f = learn(cpu, layout)
        rows = []
        for op, s in sorted(f["ops"].items()):
            for table, row in ((rules, tuple(s["rule"])), (addrs, tuple(s["addr"]))):
                if row not in table:
                    table.append(row)
            fb = sum(v << (8 * i) for i, v in enumerate(s["fallback"]))
            unnamed_mask = 0
            for b in s["rejected_unnamed"]:
                unnamed_mask |= 1 << f["unnamed"].index(b)
            shape = (int(s["sampler"]) | rules.index(tuple(s["rule"])) << 1 | addrs.index(tuple(s["addr"])) << 8
                     | s["spaces"] << 16 | s["rejected"] << 20 | unnamed_mask << 32)
            rows.append("    DimOp(%d, %s, 0x%x, 0x%x)," % (op, rust_str(s["name"]), shape, fb))
        fams.append((isa, layout, f, "\n".join(rows)))
        print(isa, layout, len(rows), "opcodes", "mods", f["mods"], "unnamed", f["unnamed"], "spare", f["spare"],
              file=sys.stderr)

    def static(kind, body, ty):
        key = (kind, body)
        if key not in statics:
            name = "%s_%d" % (kind, len([k for k in statics if k[0] == kind]))
            statics[key] = name
            out.append("static %s: %s = %s;" % (name, ty, body))
            out.append("")
        return statics[key]

    entries = []
    for isa, layout, f, rows in fams:
        ops = static("OPS", "&[\n%s\n]" % rows, "&[DimOp]")
        mods = static("MODS", "&[%s]" % ", ".join("(%d, %d, %s)" % (b[0], b[1], rust_str(n)) for b, n in f["mods"]),
                      "&[(u8, u8, &str)]")
        unnamed = static("UNNAMED", "&[%s]" % ", ".join("(%d, %d)" % b for b in f["unnamed"]), "&[(u8, u8)]")
        spare = static("SPARE", "&[%s]" % ", ".join("(%d, %d)" % b for b in f["spare"]), "&[(u8, u8)]")
        srsrc = static("NAMES", "&[%s]" % ", ".join(rust_str(x or "") for x in f["srsrc"]), "&[&str]")
        ssamp = static("NAMES", "&[%s]" % ", ".join(rust_str(x or "") for x in f["ssamp"]), "&[&str]")
        roles = ", ".join([str(next((i for i, (b, _) in enumerate(f["mods"]) if b == r), 15)) for r in f["roles"]]
                          + [str(f["cpol_after"])])
        entries.append((isa, layout, "DimFamily { ops: %s, mods: %s, unnamed: %s, spare: %s, srsrc: %s, ssamp: %s, "
                        "vgpr_classes: [%s], roles: [%s] }" % (
                            ops, mods, unnamed, spare, srsrc, ssamp, ", ".join(rust_str(c) for c in f["vgpr_names"]),
                            roles)))
    out.append("/// Data widths by `DMASK | TFE << 4 | LWE << 5 | D16 << 6`: the VGPR count, 0 where the word")
    out.append("/// is invalid, 0x80 where llvm-objdump keeps the opcode's first decoding.")
    out.append("pub(super) static RULES: [[u8; 128]; %d] = [" % len(rules))
    out += ["    [%s]," % ", ".join(str(c) for c in r) for r in rules]
    out += ["];", ""]
    out.append("/// Address counts by `DIM | A16 << 3 | NSA << 4`, marked as [`RULES`].")
    out.append("pub(super) static ADDRESSES: [[u8; 64]; %d] = [" % len(addrs))
    out += ["    [%s]," % ", ".join(str(c) for c in r) for r in addrs]
    out += ["];", ""]
    out.append("/// The families: GFX10 and GFX11 MIMG by family; GFX12 VIMAGE and VSAMPLE.")
    out.append("/// `roles`: where `TFE`, `LWE`, `D16` and `A16` are in `mods` (15: none), and how many of")
    out.append("/// `mods` print before GFX12's `th:`/`scope:`.")
    for isa, layout, body in entries:
        out.append("pub(super) static %s_%s: DimFamily = %s;" % (layout.upper(), isa.upper(), body))
    with open(OUT, "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
