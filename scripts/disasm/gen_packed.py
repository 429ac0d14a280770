#!/usr/bin/env python3
"""Writes src/disasm/packed/tables.rs: the VOP3P opcode tables of every family, learned from
`llvm-mc --disassemble` 22.

For each family the opcode field (7 bits) is swept with VGPR operands; each opcode llvm-mc
accepts is then probed field by field: every modifier bit on its own (rejected, ignored or
printed), and every operand slot with an SGPR, an odd VGPR, an integer and a float inline
constant and a few literals. What llvm-mc prints for those probes picks the slot's behaviour
among the few the Rust printer knows (`Fit`, `Lit`). Families whose tables come out equal share
one table.

    python3 scripts/disasm/gen_packed.py            # rewrites src/disasm/packed/tables.rs
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_vector import run as objdump_run  # noqa: E402

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "src", "disasm", "packed", "tables.rs")

FAMILIES = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950",
            "gfx1010", "gfx1030", "gfx1100", "gfx1150", "gfx1200"]
# `s_nop 0`, twice: written after every candidate so that a word llvm-mc reads differently
# from its neighbours cannot shift the answers of the candidates after it.
SENTINEL = [0xBF800000, 0xBF800000]
WARNING = re.compile(r"<stdin>:1:(\d+): warning: invalid instruction encoding")
NOTE = re.compile(r"/\*Invalid register, operand has '([A-Za-z0-9_]+)' register class\*/")


def to_bytes(words):
    return struct.pack("<%dI" % len(words), *words)


def _run(mcpu, candidates):
    """One llvm-mc process over all candidates, each followed by the sentinel; None when it
    crashed or its answers cannot be put back on the candidates (a sentinel was swallowed)."""
    stream, starts = [], []
    for c in candidates:
        starts.append(4 * len(stream))
        stream.extend(c)
        stream.extend(SENTINEL)
    text = " ".join("0x%02x" % b for b in to_bytes(stream))
    run = subprocess.run(
        [os.path.join(LLVM_BIN, "llvm-mc"), "--disassemble", "-show-encoding",
         "-triple=amdgcn-amd-amdhsa", "-mcpu=" + mcpu],
        input=text + "\n", capture_output=True, text=True, check=False,
        env=dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1"))
    if run.returncode != 0:
        return None
    # All bytes are on line 1, so a warning's column is its byte offset (5 characters a byte).
    invalid = sorted((int(m.group(1)) - 1) // 5 for m in WARNING.finditer(run.stderr))
    segments, current = [], []
    for line in run.stdout.splitlines():
        if "; encoding: [" not in line:
            continue
        body = line.rpartition("; encoding: [")[0].strip()
        if body == "s_nop 0":
            segments.append(current)
            current = []
        else:
            current.append(body)
    if len(segments) != 2 * len(candidates):
        return None
    answers = []
    for k, c in enumerate(candidates):
        lo, hi = starts[k], starts[k] + 4 * len(c)
        bad = any(lo <= off < hi for off in invalid)
        seg = segments[2 * k]
        answers.append(seg[0] if len(seg) == 1 and not bad and not segments[2 * k + 1] else None)
    return answers


def disassemble(mcpu, candidates):
    """llvm-mc's text for each candidate (a list of dwords), or None. A batch that crashes
    llvm-mc (it does for some operands) is split until the crashing candidates stand alone."""
    if not candidates:
        return []
    if len(candidates) > 4000:
        half = len(candidates) // 2
        return disassemble(mcpu, candidates[:half]) + disassemble(mcpu, candidates[half:])
    got = _run(mcpu, candidates)
    if got is not None:
        return got
    if len(candidates) == 1:
        # llvm-mc crashed: `-show-encoding` encodes the instruction again, which fails for some
        # words llvm-objdump prints (an MFMA's `/*Invalid immediate*/` source). llvm-objdump,
        # which does not encode, answers for it.
        return objdump_run(mcpu, candidates, warned=True)
    if len(candidates) <= 64:
        return [disassemble(mcpu, [c])[0] for c in candidates]
    half = len(candidates) // 2
    return disassemble(mcpu, candidates[:half]) + disassemble(mcpu, candidates[half:])


# ---------------------------------------------------------------------------------------------
# VOP3P

def vop3p_prefix(mcpu):
    return 0xD3800000 if mcpu.startswith("gfx9") else 0xCC000000


SOURCES = [264, 272, 288]  # v8, v16, v32: aligned for any tuple width
# The modifier bits, in the order of the Rust masks: dword 0 bits 8-15, dword 1 bits 27-31.
MOD_BITS = [(0, b) for b in range(8, 16)] + [(1, b) for b in range(27, 32)]
HI_BITS = [(0, 14), (1, 27), (1, 28)]
LITERALS = [0x12345678, 0x3F800000, 0x00003C00, 0x3E22F983, 0x00000040, 0xFFFF3C00, 0x3C003C00, 0x00004400,
            0x40490FDB, 0x3FC90FDB, 0x3E230000, 0x3F000000]


def vop3p_word(mcpu, op, srcs=SOURCES, vdst=0, hi=True, flip=None, literal=None):
    w = [vop3p_prefix(mcpu) | (op << 16) | vdst, (srcs[2] << 18) | (srcs[1] << 9) | srcs[0]]
    if hi:
        for d, b in HI_BITS:
            w[d] |= 1 << b
    if flip:
        d, b = flip
        w[d] ^= 1 << b
    if literal is not None:
        w.append(literal)
    return w


def split_operands(text):
    """The mnemonic and the operand texts of an instruction without its trailing modifiers."""
    name, _, rest = text.partition(" ")
    notes = re.findall(r"/\*.*?\*/", rest)
    for i, n in enumerate(notes):
        rest = rest.replace(n, "\0%d\0" % i, 1)
    parts = rest.split(", ")
    if parts:
        parts[-1] = parts[-1].split(" ")[0]
    for i, n in enumerate(notes):
        parts = [p.replace("\0%d\0" % i, n) for p in parts]
    return name, [p for p in parts if p]


def reg_count(operand):
    m = re.match(r"^[vas]\[(\d+):(\d+)\]", operand)
    if m:
        return int(m.group(2)) - int(m.group(1)) + 1
    return 1


def form_of(name):
    if name.startswith(("v_mfma", "v_smfmac")):
        return "Mai"
    if name.startswith("v_accvgpr"):
        return "Move"
    if name.startswith(("v_fma_mix", "v_mad_mix")):
        return "Mix"
    return "Packed"


def fit(texts, expect):
    """How a slot takes a kind of value: Yes when it prints `expect`, Note(class) when
    llvm-mc adds an invalid-register comment, Imm when it adds `/*Invalid immediate*/`."""
    if texts is None:
        return "No"
    if texts.endswith("/*Invalid immediate*/"):
        return "Imm"
    m = NOTE.search(texts)
    if m:
        return 'Note("%s")' % m.group(1)
    return "Yes"


def operand_at(text, index):
    if text is None:
        return None
    _, ops = split_operands(text)
    return ops[index] if index < len(ops) else None


F16_INLINE = (0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118)
BF16_INLINE = (0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22)
F32_INLINE = (0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000, 0xC0800000,
              0x3E22F983)
F32_NAMES = ("0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494")


def small_int(v):
    return v <= 64 or v >= 0xFFFFFFF0


def literal_text(style, v):
    """The literal texts the Rust printer can produce (`Lit` in packed/mod.rs)."""
    low = v & 0xFFFF
    if style == "Full":
        return "lit(%#x)" % v if small_int(v) or v in F32_INLINE else "%#x" % v
    if style == "Half":
        return "lit(%#x)" % v if small_int(v) or v in F16_INLINE else "%#x" % v
    if style == "Brain":
        return "lit(%#x)" % v if small_int(v) or v in BF16_INLINE else "%#x" % v
    if style == "Mix":
        return "lit(%#x)" % v if low <= 64 or low >= 0xFFF0 or low in F16_INLINE else "%#x" % low
    if style == "Invalid":
        if v <= 64:
            text = "%d" % v
        elif v >= 0xFFFFFFF0:
            text = "%d" % (v - (1 << 32))
        elif v in F32_INLINE:
            text = F32_NAMES[F32_INLINE.index(v)]
        else:
            text = "%#x" % v
        return text + "/*Invalid immediate*/"
    return None


def literal_style(texts):
    if all(t is None for t in texts):
        return "No"
    for style in ("Full", "Half", "Brain", "Mix", "Invalid"):
        if all(t == literal_text(style, v) for t, v in zip(texts, LITERALS)):
            return style
    return "Unknown"


# gfx950: the register counts of source A by cbsz and of source B by blgp, for the f8f6f4 MFMAs.
F8F6F4_WIDTHS = {}


def learn_f8f6f4_widths(mcpu, op):
    cands = [[0xD3800000 | op << 16 | f << 8, 0x04021904] for f in range(8)]
    cands += [[0xD3800000 | op << 16, 0x04021904 | f << 29] for f in range(8)]
    texts = disassemble(mcpu, cands)
    widths = tuple(reg_count(split_operands(t)[1][1 + i // 8]) if t else 0 for i, t in enumerate(texts))
    assert F8F6F4_WIDTHS.setdefault(mcpu, widths) == widths, (mcpu, op, widths)


def learn_vop3p(mcpu):
    gfx9 = mcpu.startswith("gfx9")
    with_hi = disassemble(mcpu, [vop3p_word(mcpu, op) for op in range(128)])
    without_hi = disassemble(mcpu, [vop3p_word(mcpu, op, hi=False) for op in range(128)])
    ops = []
    for op in range(128):
        text = with_hi[op] or without_hi[op]
        if not text:
            continue
        name = text.split()[0]
        form = form_of(name)
        hi = with_hi[op] is not None and not (form in ("Mai", "Move") and without_hi[op])
        if name.endswith("f8f6f4"):
            # Source A and B widths follow cbsz and blgp (the formats of A and B).
            learn_f8f6f4_widths(mcpu, op)
        base = with_hi[op] if hi else without_hi[op]
        _, base_ops = split_operands(base)
        probes = [vop3p_word(mcpu, op, hi=hi, flip=bit) for bit in MOD_BITS]
        probes.append(vop3p_word(mcpu, op, hi=hi, vdst=1))
        nsrc = len(base_ops) - 1
        if name == "v_mfma_ld_scale_b32":
            nsrc = len(base_ops)
        slot_probes = []
        for i in range(3):
            row = []
            # llvm-mc 22 crashes on a float constant in an MFMA's AV operand; `disassemble`
            # then asks llvm-objdump.
            for v in (2, 257, 129, 240, 248):
                s = list(SOURCES)
                s[i] = v
                row.append(vop3p_word(mcpu, op, s, hi=hi))
            if not gfx9:
                for lit in LITERALS:
                    s = list(SOURCES)
                    s[i] = 255
                    row.append(vop3p_word(mcpu, op, s, hi=hi, literal=lit))
            slot_probes.append(row)
        answers = disassemble(mcpu, probes + [p for row in slot_probes for p in row])
        mods, rest = answers[:len(MOD_BITS) + 1], answers[len(MOD_BITS) + 1:]
        reject = shown = 0
        for i, t in enumerate(mods[:len(MOD_BITS)]):
            if t is None:
                reject |= 1 << i
            elif t != base:
                shown |= 1 << i
        first_src = 1 if name != "v_mfma_ld_scale_b32" else 0
        dst = None if name == "v_mfma_ld_scale_b32" else base_ops[0]
        slots = []
        if dst is None:
            slots.append(dict(count=0))
        else:
            slots.append(dict(count=reg_count(dst), file=dst[0], odd=fit(operand_at(mods[-1], 0), None)))
        per = len(rest) // 3
        for i in range(3):
            if i >= nsrc:
                slots.append(dict(count=0))
                continue
            row = rest[i * per:(i + 1) * per]
            idx = first_src + i
            texts = [operand_at(t, idx) for t in row]
            own = base_ops[idx]
            slot = dict(count=reg_count(own), file=own[0])
            slot["sgpr"] = fit(texts[0], None)
            slot["odd"] = fit(texts[1], None) if slot["count"] > 1 else "Yes"
            slot["int"] = fit(texts[2], None)
            slot["float"] = fit(texts[3], None)
            slot["ty"] = "F64" if texts[4] == "0.15915494309189532" else "F32"
            slot["lit"] = "No" if gfx9 else literal_style(texts[5:])
            slots.append(slot)
        ops.append(dict(code=op, name=name, form=form, hi=hi, nsrc=nsrc, slots=slots, reject=reject, shown=shown))
    return ops


def file_of(form, mcpu, index, slot):
    """Which register file a slot's VGPR field names."""
    if form == "Mai":
        if index == 1:
            return "Acc0"
        if index == 2:
            return "Acc1"
        if index == 3 and slot["count"] == 1:
            return "Vgpr"  # v_smfmac's index register
        if mcpu == "gfx908":
            return "Agpr" if index in (0, 3) else "Vgpr"
        return "AccCd" if index in (0, 3) else "Vgpr"
    return {"v": "Vgpr", "a": "Agpr"}.get(slot.get("file"), "Vgpr")


def rust_slot(form, mcpu, index, slot):
    if slot["count"] == 0:
        return "NONE"
    return "Slot { count: %d, file: SlotFile::%s, sgpr: Fit::%s, odd: Fit::%s, int: Fit::%s, float: Fit::%s, " \
           "ty: Type::%s, lit: Lit::%s }" % (
               slot["count"], file_of(form, mcpu, index, slot), slot.get("sgpr", "No"), slot.get("odd", "Yes"),
               slot.get("int", "No"), slot.get("float", "No"), slot.get("ty", "F32"), slot.get("lit", "No").replace("Unknown", "No"))


SLOTS = {}


def slot_name(text):
    if text == "NONE":
        return text
    if text not in SLOTS:
        SLOTS[text] = "S%d" % len(SLOTS)
    return SLOTS[text]


def rust_op(mcpu, o):
    slots = ", ".join(slot_name(rust_slot(o["form"], mcpu, i, s)) for i, s in enumerate(o["slots"]))
    return "    Op { code: %d, name: \"%s\", form: Form::%s, slots: [%s], base: %#06x, reject: %#06x, shown: %#06x },\n" % (
        o["code"], o["name"], o["form"], slots, 0x0340 if o["hi"] else 0, o["reject"], o["shown"])


# ---------------------------------------------------------------------------------------------
# VOPD (GFX11, GFX12)

def vopd_word(opx, opy, literal=None, vsrc1=(2, 4)):
    """src0x v1, vsrc1x v2, vdstx v10; src0y v3, vsrc1y v4, vdsty v13 (`v_dual_mov_b32` takes
    no vsrc1, and its field must be 0)."""
    w = [(0x32 << 26) | (opx << 22) | (opy << 17) | (vsrc1[0] << 9) | 0x101,
         (10 << 24) | (6 << 17) | (vsrc1[1] << 9) | 0x103]
    return w + ([literal] if literal is not None else [])


def vopd_form(half):
    """The operand form of one half of a VOPD text (`v_dual_add_f32 v13, v3, v4`)."""
    ops = half.split(" ", 1)[1].split(", ")
    if len(ops) == 2:
        return "Move"
    if len(ops) == 4:
        return "Addend" if ops[3].startswith("0x") else "Multiplier"
    return "Binary"


def learn_vopd(mcpu):
    """The X and Y opcode names and operand forms: X swept with Y = opcode 0 and Y with X = 0,
    each with and without a literal."""
    cands = [vopd_word(x, 0, lit, (v, 4)) for v in (2, 0) for lit in (None, 0x12345678) for x in range(16)]
    cands += [vopd_word(0, y, lit, (2, v)) for v in (4, 0) for lit in (None, 0x12345678) for y in range(32)]
    got = disassemble(mcpu, cands)
    xs, ys = {}, {}
    for i, text in enumerate(got[:64]):
        if text:
            xs.setdefault(i % 16, text.split(" :: ")[0])
    for i, text in enumerate(got[64:]):
        if text:
            ys.setdefault(i % 32, text.split(" :: ")[1])
    x = [(c, t.split()[0], vopd_form(t)) for c, t in sorted(xs.items())]
    y = [(c, t.split()[0], vopd_form(t)) for c, t in sorted(ys.items())]
    return x, y


def rust_vopd(name, ops):
    rows = "".join("    (%d, \"%s\", Dual::%s),\n" % op for op in ops)
    return "pub(super) static %s: &[(u8, &str, Dual)] = &[\n%s];\n\n" % (name, rows)


def main():
    tables = {}
    for mcpu in FAMILIES:
        ops = learn_vop3p(mcpu)
        body = "".join(rust_op(mcpu, o) for o in ops)
        unknown = [o["name"] for o in ops for s in o["slots"] if s.get("lit") == "Unknown"]
        if unknown:
            print(mcpu, "literal style unknown:", sorted(set(unknown)), file=sys.stderr)
        tables[mcpu] = body.replace("Lit::Unknown", "Lit::No")
    out = ["// Written by scripts/disasm/gen_packed.py from llvm-mc 22: do not edit.\n",
           "use super::{Dual, Fit, Form, Lit, Op, Slot, SlotFile, NONE};\n",
           "use crate::disasm::operands::Type;\n",
           "use crate::disasm::Isa;\n\n"]
    names = {}
    for mcpu in FAMILIES:
        body = tables[mcpu]
        same = next((n for n, b in names.items() if b == body), None)
        if same is None:
            same = "VOP3P_" + mcpu.upper()
            names[same] = body
            out.append("/// VOP3P opcodes (`%s` and the families that share it).\n" % mcpu)
            out.append("pub(super) static %s: &[Op] = &[\n%s];\n\n" % (same, body))
        tables[mcpu] = same
    out.append("// Operand slots shared by the tables.\n")
    for text, name in SLOTS.items():
        out.append("const %s: Slot = %s;\n" % (name, text))
    for mcpu, widths in F8F6F4_WIDTHS.items():
        out.append("\n/// %s's f8f6f4 MFMAs: the registers of source A by `cbsz`, then of source B by `blgp`.\n" % mcpu)
        out.append("pub(super) static F8F6F4_WIDTHS: [u8; 16] = [%s];\n" % ", ".join(str(w) for w in widths))
    out.append("\n/// The VOP3P table of a family, sorted by opcode.\n")
    out.append("pub(super) fn vop3p(isa: Isa) -> &'static [Op] {\n    match isa {\n")
    # GFX8 has no VOP3P.
    out.append("        Isa::Gfx803 | Isa::Gfx810 => &[],\n")
    for mcpu in FAMILIES:
        variant = "Gfx" + mcpu[3:]
        out.append("        Isa::%s => %s,\n" % (variant, tables[mcpu]))
    out.append("    }\n}\n")
    out.append("\n")
    vopd = {}
    for mcpu in ("gfx1100", "gfx1150", "gfx1200"):
        x, y = learn_vopd(mcpu)
        vopd[mcpu] = (x, y)
    out.append("/// VOPD X and Y opcodes of GFX11 (and GFX11.5, which llvm-mc reads the same).\n")
    assert vopd["gfx1100"] == vopd["gfx1150"]
    out.append(rust_vopd("VOPD_X_GFX11", vopd["gfx1100"][0]))
    out.append(rust_vopd("VOPD_Y_GFX11", vopd["gfx1100"][1]))
    out.append("/// VOPD X and Y opcodes of GFX12.\n")
    out.append(rust_vopd("VOPD_X_GFX12", vopd["gfx1200"][0]))
    out.append(rust_vopd("VOPD_Y_GFX12", vopd["gfx1200"][1]))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("".join(out))


if __name__ == "__main__":
    main()
