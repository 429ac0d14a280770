"""Writes src/disasm/memory/image_tables.rs: the MIMG (image) opcodes of GFX8 and of gfx900,
gfx906, gfx908 and gfx90a, with what llvm-mc 22 prints for each (gfx940 and later GFX9 have no
images; GFX10 and later are `gen_image_dim.py`'s).

gfx90a reads dword 0 bit 16 as `ACC` (the data in AGPRs) instead of `TFE`.

MIMG is two dwords. Dword 0: `DMASK` 11:8, `UNORM` 12, `GLC` 13, `DA` 14, `R128` (GFX9 `A16`)
15, `TFE` 16, `LWE` 17, `OP` 24:18, `SLC` 25, `111100` in 31:26. Dword 1: `VADDR` 7:0, `VDATA`
15:8, `SRSRC` 20:16 (four SGPRs a step), `SSAMP` 25:21 (likewise), `D16` 31.

For each family every opcode is decoded with and without a sampler, with distinctive register
fields; the text tells the mnemonic, whether the opcode takes a sampler, and how many VGPRs its
address has (llvm-mc reads that from the opcode). Then:

- the width of the data operand for every `DMASK`, `TFE`, `LWE` and `D16` (128 words per
  opcode; a rule is a row of 128 counts, 0 where llvm-mc rejects the word, shared between
  opcodes and families);
- each other modifier bit alone: whether it prints (and as what), is ignored, or makes the word
  invalid; the order they print in;
- what each value of `SRSRC` and `SSAMP` prints as (SGPR and trap-temporary tuples);
- which of the bits no field uses llvm-mc rejects;
- the data width printed when the tuple would run past `v255` (the width of the opcode's first
  decoding, which llvm-mc keeps when the wider tuple does not exist).

The answers are llvm-objdump's, read back by address (`gen_vector.run`).

    python3 scripts/disasm/gen_image.py        # rewrites src/disasm/memory/image_tables.rs
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_vector import run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "disasm", "memory", "image_tables.rs")
FAMILIES = [("Gfx803", "gfx803"), ("Gfx810", "gfx810"), ("Gfx900", "gfx900"), ("Gfx906", "gfx906"),
            ("Gfx908", "gfx908"), ("Gfx90a", "gfx90a")]

VADDR, VDATA, SRSRC, SSAMP = 20, 40, 2, 4
# The single-bit modifiers, in the order llvm-mc prints them: (dword, bit).
# Dword 0 bit 7 is gfx90a's `SCC` (a spare bit elsewhere, which an opcode's rejected mask covers).
MODS = [(0, 12), (0, 13), (0, 25), (0, 7), (0, 15), (0, 16), (0, 17), (0, 14), (1, 31)]
TFE, LWE, D16 = 5, 6, 8
# The bits no field uses: dword 0 bits 6:0, dword 1 bits 30:26.
SPARE = [(0, b) for b in range(7)] + [(1, b) for b in range(26, 31)]
REG = re.compile(r"^[va](\d+)$|^[va]\[(\d+):(\d+)\]$")


def word(op, dmask=0xF, vaddr=VADDR, vdata=VDATA, srsrc=SRSRC, ssamp=SSAMP, bits=()):
    w = [0xF0000000 | dmask << 8 | op << 18, vaddr | vdata << 8 | srsrc << 16 | ssamp << 21]
    for dword, bit in bits:
        w[dword] |= 1 << bit
    return w


def operands(text):
    """Mnemonic, the operand list, and the words after the operands."""
    mnemonic, _, rest = text.partition(" ")
    parts = rest.split(", ")
    last = parts[-1].split(" ")
    parts[-1] = last[0]
    return mnemonic, parts, last[1:]


def count(token):
    m = REG.match(token)
    if not m:
        return None
    if m.group(1):
        return 1
    return int(m.group(3)) - int(m.group(2)) + 1


def learn(cpu):
    """(ops, rules, modifier names, srsrc names, ssamp names, spare mask)."""
    with_sampler = run(cpu, [word(op) for op in range(128)])
    without = run(cpu, [word(op, ssamp=0) for op in range(128)])
    base = {}
    for op in range(128):
        t = with_sampler[op] if with_sampler[op] and len(operands(with_sampler[op])[1]) == 4 else without[op]
        if t is not None:
            base[op] = t
    ops = sorted(base)
    sampler = {op: len(operands(base[op])[1]) == 4 for op in ops}
    ssamp = {op: SSAMP if sampler[op] else 0 for op in ops}
    # Data widths over DMASK, TFE, LWE, D16.
    index = [(d, t, l, h) for h in (0, 1) for l in (0, 1) for t in (0, 1) for d in range(16)]
    cands = []
    for op in ops:
        for d, t, l, h in index:
            bits = [MODS[k] for k, on in ((TFE, t), (LWE, l), (D16, h)) if on]
            cands.append(word(op, dmask=d, ssamp=ssamp[op], bits=bits))
    texts = run(cpu, cands)
    # A data tuple past v255 keeps the width of the opcode's first decoding.
    # (gfx90a: so does a tuple at an odd VGPR, printed with llvm-mc's complaint when it is wider
    # than one; v255 may not decode at all there, v253 does.)
    fallback = {op: count(operands(t)[1][0].split("/*")[0]) if t else None
                for op, t in zip(ops, run(cpu, [word(op, vdata=255, ssamp=ssamp[op]) for op in ops]))}
    odd = run(cpu, [word(op, vdata=253, ssamp=ssamp[op]) for op in ops])
    for op, t in zip(ops, odd):
        if fallback[op] is None:
            fallback[op] = count(operands(t)[1][0].split("/*")[0])
    rules = {}
    for i, op in enumerate(ops):
        row = []
        for t in texts[128 * i:128 * (i + 1)]:
            row.append(count(operands(t)[1][0]) if t else 0)
        rules[op] = tuple(row)
    # The other modifiers, one at a time, and the spare bits.
    probes = [k for k in range(len(MODS)) if k not in (TFE, LWE, D16)]
    cands = [word(op, ssamp=ssamp[op], bits=[MODS[k]]) for op in ops for k in probes]
    cands += [word(op, ssamp=ssamp[op], bits=[s]) for op in ops for s in SPARE]
    texts = run(cpu, cands)
    names = [None] * len(MODS)
    shapes = {}
    spare_rejected = 0
    n = len(probes)
    for i, op in enumerate(ops):
        mnemonic, parts, words = operands(base[op])
        vaddr = count(parts[1])
        printed = rejected = 0
        for j, k in enumerate(probes):
            t = texts[n * i + j]
            if t is None:
                rejected |= 1 << k
            elif t != base[op]:
                printed |= 1 << k
                extra = [w for w in operands(t)[2] if w not in words]
                names[k] = extra[0] if extra else names[k]
        for k in (TFE, LWE, D16):
            # Printed whenever the data rule accepts the bit.
            printed |= 1 << k
        for j, s in enumerate(SPARE):
            if texts[n * len(ops) + len(SPARE) * i + j] is None:
                spare_rejected |= 1 << SPARE.index(s)
        shapes[op] = (mnemonic, vaddr, sampler[op], printed, rejected, fallback[op])
    acc = False
    for k, bits in ((TFE, [MODS[TFE]]), (LWE, [MODS[LWE]]), (D16, [MODS[D16]])):
        t = next(t for t in run(cpu, [word(op, ssamp=ssamp[op], bits=bits) for op in ops]) if t)
        if k == TFE and operands(t)[1][0].startswith("a"):
            # gfx90a: the bit puts the data in AGPRs (`ACC`) and prints nothing.
            acc = True
            names[k] = ""
            continue
        names[k] = [w for w in operands(t)[2] if not w.startswith("dmask:")][0]
    if acc:
        shapes = {op: s[:3] + (s[3] & ~(1 << TFE),) + s[4:] for op, s in shapes.items()}
    # Register names of the resource and sampler fields.
    load = next(op for op in ops if not sampler[op])
    sample = next(op for op in ops if sampler[op])
    srsrc = [operands(t)[1][2] if t else "" for t in run(cpu, [word(load, ssamp=0, srsrc=v) for v in range(32)])]
    ssamps = [operands(t)[1][3] if t else "" for t in run(cpu, [word(sample, ssamp=v) for v in range(32)])]
    return shapes, rules, names, srsrc, ssamps, spare_rejected | int(acc) << 15


def rust_str(s):
    return '"%s"' % s


def main():
    out = ["// Generated by scripts/disasm/gen_image.py from llvm-mc 22; do not edit.",
           "//! MIMG opcodes per family (see `super::image`): (opcode, mnemonic, shape), the data-width",
           "//! rules, modifier names and the names of the resource and sampler fields.",
           "",
           "use super::ImageOp;",
           "use crate::disasm::Isa;",
           ""]
    rule_rows = []
    families = {}
    for isa, cpu in FAMILIES:
        shapes, rules, names, srsrc, ssamp, spare = learn(cpu)
        rows = []
        for op, (mnemonic, vaddr, sampler, printed, rejected, fallback) in sorted(shapes.items()):
            if rules[op] not in rule_rows:
                rule_rows.append(rules[op])
            shape = (vaddr | int(sampler) << 4 | fallback << 5 | printed << 8 | rejected << 17
                     | rule_rows.index(rules[op]) << 26)
            rows.append("    ImageOp(%d, %s, 0x%x)," % (op, rust_str(mnemonic), shape))
        families[isa] = ("\n".join(rows), names, srsrc, ssamp, spare)
        print(isa, len(rows), "opcodes", file=sys.stderr)
    statics = {}
    for isa, (rows, names, srsrc, ssamp, spare) in families.items():
        for kind, body in (("OPS", rows), ("MODS", names), ("SRSRC", srsrc), ("SSAMP", ssamp)):
            key = (kind, repr(body))
            if key in statics:
                continue
            name = "%s_%s" % (kind, isa.upper())
            statics[key] = name
            if kind == "OPS":
                out += ["static %s: &[ImageOp] = &[" % name, body, "];", ""]
            else:
                n = len(body)
                out += ["static %s: [&str; %d] = [%s];" % (name, n, ", ".join(rust_str(x or "") for x in body)), ""]
    out.append("/// The data widths: by `DMASK | TFE << 4 | LWE << 5 | D16 << 6`, the VGPR count (0: invalid).")
    out.append("pub(super) static RULES: [[u8; 128]; %d] = [" % len(rule_rows))
    for row in rule_rows:
        out.append("    [%s]," % ", ".join(str(c) for c in row))
    out += ["];", ""]
    out.append("/// A family's MIMG tables: opcodes; modifier names by bit (`UNORM`, `GLC`, `SLC`, `R128`,")
    out.append("/// `SCC`, `TFE`, `LWE`, `DA`, `D16`); `SRSRC` and `SSAMP` names by field value; spare bits that")
    out.append("/// must be zero (see `super::image`), bit 15 set where the `TFE` bit is gfx90a's `ACC` (AGPR")
    out.append("/// data). `None` for families whose images are not decoded.")
    out.append("#[allow(clippy::type_complexity)]")
    out.append("pub(super) fn tables(isa: Isa) -> Option<(&'static [ImageOp], &'static [&'static str; 9], "
               "&'static [&'static str; 32], &'static [&'static str; 32], u32)> {")
    out.append("    Some(match isa {")
    for isa, (rows, names, srsrc, ssamp, spare) in families.items():
        out.append("        Isa::%s => (%s, &%s, &%s, &%s, 0x%x)," % (
            isa, statics[("OPS", repr(rows))], statics[("MODS", repr(names))], statics[("SRSRC", repr(srsrc))],
            statics[("SSAMP", repr(ssamp))], spare))
    out.append("        _ => return None,")
    out += ["    })", "}", ""]
    with open(OUT, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
