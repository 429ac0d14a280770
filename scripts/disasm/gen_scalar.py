"""Writes src/disasm/scalar/tables.rs: the SOP1, SOP2, SOPK, SOPC, SOPP and SMEM opcodes of every
family, with the operand layout each prints, as `llvm-mc --disassemble` 22 answers.

For each family and encoding the script sweeps the opcode field with neutral operand fields,
then probes each valid opcode: which fields print and where (a field set to a distinctive
register number is looked for in the operand list), how many registers each names (`s8` or
`s[8:9]`), how a source reads an inline constant and a literal (its type), and how the 16-bit
immediate of SOPK/SOPP prints (hex, decimal, or one of the named forms: `s_waitcnt`, `hwreg`,
`sendmsg`, `s_delay_alu`, …). A layout is a short string the decoder interprets
(see `src/disasm/scalar/mod.rs`):

    D<n>   SDST, n registers          A<n><t>  SSRC0 source, n dwords, type t
    B<n><t> SSRC1 source               K<s>     SIMM16 printed in style s
    L      a 32-bit literal after the instruction (s_setreg_imm32_b32)
    zD zA zB zK   that field must be zero (otherwise llvm-mc rejects the word)

SMEM layouts: `S<n>` SDATA of n registers (`S0` none, `Si` printed as a number), `P<n>` SBASE
of n registers, `O` the offset operands, `G` the cache-policy bits print, `zG` they must be
clear, `zO` no offset operands, `F` GFX12's prefetch operands (offset, soffset, count).

    python3 scripts/disasm/gen_scalar.py        # rewrites src/disasm/scalar/tables.rs
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mc import LLVM_BIN, words_to_bytes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "disasm", "scalar", "tables.rs")

FAMILIES = [
    ("Gfx803", "gfx803"), ("Gfx810", "gfx810"),
    ("Gfx900", "gfx900"), ("Gfx906", "gfx906"), ("Gfx908", "gfx908"), ("Gfx90a", "gfx90a"),
    ("Gfx942", "gfx942"), ("Gfx950", "gfx950"), ("Gfx1010", "gfx1010"), ("Gfx1030", "gfx1030"),
    ("Gfx1100", "gfx1100"), ("Gfx1150", "gfx1150"), ("Gfx1200", "gfx1200"),
]

# Field values the probes use: distinct SGPRs aligned to 4, so every width is legal.
DST, SRC0, SRC1 = 8, 20, 36
LIT = 0x12345678


def sop2(op, d, a, b):
    return 0x80000000 | (op << 23) | (d << 16) | (b << 8) | a


def sop1(op, d, a, _b=0):
    return 0xBE800000 | (d << 16) | (op << 8) | a


def sopc(op, _d, a, b):
    return 0xBF000000 | (op << 16) | (b << 8) | a


def sopk(op, d, k):
    return 0xB0000000 | (op << 23) | (d << 16) | k


def sopp(op, k):
    return 0xBF800000 | (op << 16) | k


# `s_nop 61` (valid in every family, and not a value the probes use): four after each candidate
# absorb a word llvm-mc reads as the start of a longer instruction, and mark where one
# candidate's answer ends. llvm-mc's `; encoding:` is re-encoded, not the bytes it read, so the
# answers are told apart by these marks rather than by sizes.
SEPARATOR = 0xBF80003D
SEPARATOR_TEXT = "s_nop 61"
# `s_nop 62` before each candidate starts its group of answers.
MARK = 0xBF80003E
MARK_TEXT = "s_nop 62"
WARNING = re.compile(r"^<stdin>:(\d+):(\d+): warning:")


def mc(mcpu, cands):
    """llvm-mc's text for each candidate (a list of dwords), or None when it does not decode
    as one instruction of exactly the candidate's size."""
    out = []
    for start in range(0, len(cands), 8000):
        out.extend(_mc_batch(mcpu, cands[start:start + 8000]))
    return out


def _mc_batch(mcpu, cands):
    lines = [" ".join("0x%02x" % b for b in words_to_bytes([MARK] + list(c) + [SEPARATOR] * 4)) for c in cands]
    run = subprocess.run(
        [os.path.join(LLVM_BIN, "llvm-mc"), "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + mcpu],
        input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    if run.returncode != 0:
        # llvm-mc 22 crashes on a few words: halve the batch until the crash is one candidate,
        # which gets None (llvm-objdump would not print it either).
        if len(cands) == 1:
            return [None]
        half = len(cands) // 2
        return _mc_batch(mcpu, cands[:half]) + _mc_batch(mcpu, cands[half:])
    bad = set()
    for line in run.stderr.splitlines():
        m = WARNING.match(line)
        if m:
            row, col = int(m.group(1)) - 1, int(m.group(2)) - 1
            if row < len(cands) and 20 <= col < 20 + 20 * len(cands[row]):
                bad.add(row)
    groups = []
    for line in run.stdout.splitlines():
        text = line.strip()
        if not text or text.startswith("."):
            continue
        if text == MARK_TEXT:
            groups.append([[], 0])
        elif groups and text == SEPARATOR_TEXT:
            groups[-1][1] += 1
        elif groups:
            groups[-1][0].append(text)
    # Each candidate's group starts at its mark; one that decodes to nothing is empty.
    result = []
    for row, c in enumerate(cands):
        # All four separators must follow as themselves, or the candidate read into them.
        texts, separators = groups[row] if row < len(groups) else ([], 0)
        result.append(texts[0] if len(texts) == 1 and separators == 4 and row not in bad else None)
    return result


def operands(text):
    """The mnemonic and the operand list of `text` (commas inside parentheses do not split)."""
    mnemonic, _, rest = text.partition(" ")
    ops, depth, cur = [], 0, ""
    for ch in rest:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return mnemonic, ops


REG = re.compile(r"^s(\d+)$|^s\[(\d+):(\d+)\]$")


def reg_of(token):
    m = REG.match(token)
    if not m:
        return None
    if m.group(1):
        return int(m.group(1)), 1
    return int(m.group(2)), int(m.group(3)) - int(m.group(2)) + 1


LIT_PROBES = [0x3f800000, 0x40, 0x3c00, 0x3ff00000, 0xfffffff0, 0x3e22f983, 0x3e22, 0x3118]


def source_type(make, position):
    """How the source at operand `position` reads constants, as a signature: the text of
    1/(2pi) and which of LIT_PROBES print as `lit(...)`. TYPE_CODES names the signatures."""
    probes = [[make(248)]] + [[make(255), v] for v in LIT_PROBES]
    texts = yield probes
    toks = [operands(t)[1] if t else None for t in texts]
    sig = [toks[0][position] if toks[0] and len(toks[0]) > position else None]
    for t in toks[1:]:
        tok = t[position] if t and len(t) > position else None
        sig.append(None if tok is None else tok.startswith("lit("))
    return tuple(sig)


def sop_layout(mcpu, make, op, fields):
    """Layout of SOP1/SOP2/SOPC opcode `op`: fields is the names of the register fields."""
    base = {"D": DST, "A": SRC0, "B": SRC1}
    tries = [dict(base), dict(base, D=0), dict(base, A=0), dict(base, B=0), dict(base, D=0, B=0),
             dict(base, A=0, B=0), dict(D=0, A=0, B=0)]
    tries = [{f: t[f] for f in fields} for t in tries]
    texts = yield [[make(op, t.get("D", 0), t.get("A", 0), t.get("B", 0))] for t in tries]
    for t, text in zip(tries, texts):
        if text:
            break
    else:
        return None
    mnemonic, ops = operands(text)
    by_value = {v: f for f, v in t.items() if v}
    layout = []
    seen = set()
    for position, tok in enumerate(ops):
        r = reg_of(tok)
        if tok.startswith("sendmsg("):
            layout.append("AM")  # s_sendmsg_rtn: SSRC0 is the message
            seen.add("A")
        elif re.match(r"^0x[0-9a-f]+$|^gpr_idx\(", tok) and "B" in fields:
            layout.append("BG")  # s_set_gpr_idx_on: SSRC1 is the index mode
            seen.add("B")
        elif r and r[0] in by_value:
            f = by_value[r[0]]
            seen.add(f)
            if f == "D":
                layout.append("D%d" % r[1])
            else:
                def mk(v, f=f):
                    vals = dict(t)
                    vals[f] = v
                    return make(op, vals.get("D", 0), vals.get("A", 0), vals.get("B", 0))
                sig = yield from source_type(mk, position)
                layout.append("%s%d%s" % (f, r[1], type_code(sig)))
        else:
            layout.append("?" + tok)
    for f in fields:
        if f not in seen:
            vals = dict(t)
            vals[f] = 4
            ok = (yield [[make(op, vals.get("D", 0), vals.get("A", 0), vals.get("B", 0))]])[0]
            if ok != text:
                layout.append("z" + f)
    return mnemonic, " ".join(layout)


# Source types by signature (1/(2pi)'s text, then lit() or not for each of LIT_PROBES):
#   i  32-bit integer or float          l  64-bit (1/(2pi) as a double; only small integers lit())
#   h  16-bit float (the literal's low half decides lit())
#   c  GFX12 s_cmp_*_f16 (1/(2pi) prints as 0x3118)
#   r  register only: constants print with /*Invalid immediate*/
#   n  no literal (s_barrier_*)
TYPE_CODES = {
    ("0.15915494", True, True, False, False, True, True, False, False): "i",
    ("0.15915494309189532", False, True, False, False, False, False, False, False): "l",
    ("0.15915494", True, True, True, True, True, False, False, True): "h",
    ("0x3118", True, True, False, False, True, True, False, False): "c",
    ("0.15915494/*Invalid immediate*/", False, False, False, False, False, False, False, False): "r",
    ("0.15915494", None, None, None, None, None, None, None, None): "n",
}


def type_code(sig):
    if sig not in TYPE_CODES:
        raise SystemExit("gen_scalar: a source type not seen before: %r" % (sig,))
    return TYPE_CODES[sig]
IMM_PROBES = [0, 1, 64, 65, 0x1234, 0xfff0]


def imm_style(texts):
    """The style a 16-bit immediate prints in, from the texts of IMM_PROBES."""
    last = [t.split(", ")[-1].split(" ", 1)[-1] if t else None for t in texts]
    styles = {
        "x": ["%#x" % v if v else "0x0" for v in IMM_PROBES],
        "i": [str(v) if v <= 64 else "%#x" % v for v in IMM_PROBES],
        "u": [str(v) for v in IMM_PROBES],
    }
    for name, want in styles.items():
        if last == want:
            return name
    joined = " ".join(t or "" for t in texts)
    for key, name in [("vmcnt", "W"), ("hwreg", "H"), ("sendmsg", "M"), ("instskip", "Y"), ("depctr", "C"),
                      ("gpr_idx", "G"), ("UC_VERSION", "V")]:
        if key in joined:
            return name
    if texts[0] and " " not in texts[0] and last[1:] == [str(v) for v in IMM_PROBES[1:]]:
        return "E"  # s_endpgm: nothing for 0, decimal otherwise
    return "?"


def sopk_layout(mcpu, op):
    tries = [(DST, False), (0, False), (DST, True), (0, True)]
    cands = []
    for d, lit in tries:
        cands += [[sopk(op, d, k)] + ([LIT] if lit else []) for k in IMM_PROBES]
    texts = yield cands
    n = len(IMM_PROBES)
    for i, (d, lit) in enumerate(tries):
        group = texts[i * n:(i + 1) * n]
        if any(group):
            break
    else:
        return None
    first = next(t for t in group if t)
    mnemonic, ops = operands(first)
    style = imm_style(group)
    layout = []
    for tok in ops:
        r = reg_of(tok)
        if r and r[0] == d and d:
            layout.append("D%d" % r[1])
        elif tok == "%#x" % LIT and lit:
            layout.append("L")
        else:
            layout.append("K" + style)
    if d == 0:
        layout.append("zD")
    if "K" + style not in layout:
        layout.append("zK")
    return mnemonic, " ".join(layout)


def sopp_layout(mcpu, op):
    texts = yield [[sopp(op, k)] for k in IMM_PROBES]
    if not any(texts):
        return None
    first = next(t for t in texts if t)
    mnemonic = first.split(" ")[0]
    if texts[1:] == [None] * (len(texts) - 1):
        return mnemonic, "zK"
    return mnemonic, "K" + imm_style(texts)


def run_all(mcpu, coroutines):
    """Runs probe coroutines in lockstep: each yields a list of candidates and is sent their
    texts; every round's candidates go to llvm-mc in one batch. Returns their results."""
    results = [None] * len(coroutines)
    pending = {}
    for i, co in enumerate(coroutines):
        try:
            pending[i] = next(co)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        flat = [c for cands in pending.values() for c in cands]
        texts = mc(mcpu, flat)
        nxt, pos = {}, 0
        for i, cands in pending.items():
            answer = texts[pos:pos + len(cands)]
            pos += len(cands)
            try:
                nxt[i] = coroutines[i].send(answer)
            except StopIteration as stop:
                results[i] = stop.value
        pending = nxt
    return results


def sweep(mcpu, kind):
    """[(opcode, mnemonic, layout)] of one encoding for one processor."""
    if kind == "sop2":
        ops = [(op, sop_layout(mcpu, sop2, op, "DAB")) for op in range(0x60)]
    elif kind == "sop1":
        ops = [(op, sop_layout(mcpu, sop1, op, "DA")) for op in range(256)]
    elif kind == "sopc":
        ops = [(op, sop_layout(mcpu, sopc, op, "AB")) for op in range(128)]
    elif kind == "sopk":
        ops = [(op, sopk_layout(mcpu, op)) for op in range(0x1d)]
    elif kind == "sopp":
        ops = [(op, sopp_layout(mcpu, op)) for op in range(128)]
    else:
        # GFX12 keeps the SMEM opcode in 6 bits, earlier families in 8.
        ops = [(op, smem_layout(mcpu, op)) for op in range(64 if generation(mcpu) == 12 else 256)]
    got = run_all(mcpu, [co for _, co in ops])
    return [(op, g[0], g[1]) for (op, _), g in zip(ops, got) if g]


def smem_words(mcpu, op, sdata=16, sbase=2, imm=1, soe=0, glc=0, offset=0x10, soffset=SRC0):
    """An SMEM candidate in the layout of `mcpu`'s generation."""
    gen = generation(mcpu)
    if gen == 8:
        # GFX8: no soe and no soffset; without imm the offset dword names the SGPR.
        return [0xC0000000 | (op << 18) | (imm << 17) | (glc << 16) | (sdata << 6) | sbase,
                offset if imm else soffset]
    if gen == 9:
        return [0xC0000000 | (op << 18) | (imm << 17) | (glc << 16) | (soe << 14) | (sdata << 6) | sbase,
                offset | (soffset << 25)]
    if gen in (10, 11):
        glc_bit = 16 if gen == 10 else 14
        return [0xF4000000 | (op << 18) | (glc << glc_bit) | (sdata << 6) | sbase, offset | (soffset << 25)]
    # GFX12: glc stands for th = 1 (TH_LOAD_NT), to see whether the opcode prints th/scope.
    return [0xF4000000 | (glc << 23) | (op << 13) | (sdata << 6) | sbase, offset | (soffset << 25)]


def generation(mcpu):
    return {"gfx8": 8, "gfx9": 9, "gfx10": 10, "gfx11": 11, "gfx12": 12}[
        re.match(r"gfx(8|9|1[0-2])", mcpu).group(0)]


def smem_layout(mcpu, op):
    gen = generation(mcpu)
    null = 124 if gen >= 11 else 125
    variants = [dict(), dict(glc=1), dict(sdata=0, sbase=0, offset=0, soffset=0 if gen <= 9 else null)]
    if gen <= 9:
        variants[2]["imm"] = 0
    texts = yield [smem_words(mcpu, op, **v) for v in variants]
    text = next((t for t in texts if t), None)
    if not text:
        return None
    mnemonic, ops = operands(text.split(" offset:")[0].replace(" glc", "").replace(" dlc", ""))
    layout = []
    full = texts[0] or texts[1]
    if full is None:
        # No operands at all (s_dcache_inv, …), or only the data (s_memtime).
        m, ops2 = operands(texts[2])
        if ops2:
            layout.append("S%d" % reg_of(ops2[0])[1])
        return m, " ".join(layout + ["zO"])
    mnemonic, ops = operands(full.replace(" glc", "").replace(" dlc", "").split(" offset:")[0])
    toks = list(ops)
    if toks and toks[-1] == "16" and len(toks) >= 3:
        # GFX12 s_prefetch_*: [sbase,] offset, soffset, and SDATA as a count.
        return mnemonic, " ".join((["P%d" % reg_of(toks[0])[1]] if reg_of(toks[0]) else []) + ["F"])
    if toks and toks[0] == "16":
        layout.append("Si")
        toks.pop(0)
    elif toks and reg_of(toks[0]) and reg_of(toks[0])[0] == 16:
        layout.append("S%d" % reg_of(toks.pop(0))[1])
    else:
        layout.append("S0")
    if toks and reg_of(toks[0]) and reg_of(toks[0])[0] == 4:
        layout.append("P%d" % reg_of(toks.pop(0))[1])
    if toks:
        layout.append("O")
    if texts[1] and (" glc" in texts[1] or " dlc" in texts[1] or " th:" in texts[1]):
        layout.append("G")
    elif texts[0] and not texts[1]:
        layout.append("zG")
    return mnemonic, " ".join(layout)


KINDS = ["sop2", "sop1", "sopk", "sopc", "sopp", "smem"]


def rust_table(name, rows):
    lines = ["pub(super) static %s: &[(u16, &str, &str)] = &[" % name]
    for op, m, layout in rows:
        lines.append("    (%#04x, \"%s\", \"%s\")," % (op, m, layout))
    lines.append("];")
    return "\n".join(lines)


def names_table(name, rows):
    lines = ["pub(super) static %s: &[(u16, &str)] = &[" % name]
    for v, text in rows:
        lines.append("    (%d, \"%s\")," % (v, text))
    lines.append("];")
    return "\n".join(lines)


def hwreg_names(mcpu):
    """HW_REG_* names by id: the getreg text of hwreg(id, 0, 32)."""
    op = [op for op, m, _ in sweep(mcpu, "sopk") if m == "s_getreg_b32"][0]
    texts = mc(mcpu, [[sopk(op, DST, i | (31 << 11))] for i in range(64)])
    out = []
    for i, t in enumerate(texts):
        m = re.search(r"hwreg\((HW_REG_\w+)\)", t or "")
        if m:
            out.append((i, m.group(1)))
    return out


def sendmsg_names(mcpu):
    """[(value, text)] of the s_sendmsg values that print a named message, keyed by the bits
    the names depend on (9:0 before GFX11, 7:0 after): llvm-mc prints a value whose masked
    bits name a message that way whatever its other bits are (checked over all 65536)."""
    op = [op for op, m, _ in sweep(mcpu, "sopp") if m == "s_sendmsg"][0]
    mask = 0x3ff if generation(mcpu) < 11 else 0xff
    texts = mc(mcpu, [[sopp(op, v)] for v in range(mask + 1)])
    return [(v, t.split(" ", 1)[1]) for v, t in enumerate(texts) if t and "MSG_" in t]


def main():
    tables = {}  # kind -> list of (rows, [families])
    for kind in KINDS:
        tables[kind] = []
        for family, mcpu in FAMILIES:
            rows = sweep(mcpu, kind)
            for entry in tables[kind]:
                if entry[0] == rows:
                    entry[1].append(family)
                    break
            else:
                tables[kind].append((rows, [family]))
    hw = []
    for family, mcpu in FAMILIES:
        rows = hwreg_names(mcpu)
        for entry in hw:
            if entry[0] == rows:
                entry[1].append(family)
                break
        else:
            hw.append((rows, [family]))
    msgs = []
    for family, mcpu in FAMILIES:
        rows = sendmsg_names(mcpu)
        for entry in msgs:
            if entry[0] == rows:
                entry[1].append(family)
                break
        else:
            msgs.append((rows, [family]))
    out = ["// Generated by scripts/disasm/gen_scalar.py from llvm-mc 22; do not edit.",
           "//! Opcode tables of the scalar encodings: (opcode, mnemonic, operand layout), sorted by",
           "//! opcode, one table per group of families llvm-mc answers alike for.", "",
           "use super::super::Isa;", ""]
    for kind in KINDS:
        names = []
        for i, (rows, fams) in enumerate(tables[kind]):
            name = "%s_%d" % (kind.upper(), i)
            names.append((name, fams))
            out.append("/// %s." % ", ".join(fams))
            out.append(rust_table(name, rows))
            out.append("")
        out.append("pub(super) fn %s(isa: Isa) -> &'static [(u16, &'static str, &'static str)] {" % kind)
        out.append("    match isa {")
        for name, fams in names:
            out.append("        %s => %s," % (" | ".join("Isa::" + f for f in fams), name))
        out.append("    }")
        out.append("}")
        out.append("")
    names = []
    for i, (rows, fams) in enumerate(hw):
        name = "HWREG_%d" % i
        names.append((name, fams))
        out.append("/// %s." % ", ".join(fams))
        out.append(names_table(name, rows))
        out.append("")
    out.append("pub(super) fn hwreg(isa: Isa) -> &'static [(u16, &'static str)] {")
    out.append("    match isa {")
    for name, fams in names:
        out.append("        %s => %s," % (" | ".join("Isa::" + f for f in fams), name))
    out.append("    }")
    out.append("}")
    out.append("")
    names = []
    for i, (rows, fams) in enumerate(msgs):
        name = "SENDMSG_%d" % i
        names.append((name, fams))
        out.append("/// %s." % ", ".join(fams))
        out.append(names_table(name, rows))
        out.append("")
    out.append("pub(super) fn sendmsg(isa: Isa) -> &'static [(u16, &'static str)] {")
    out.append("    match isa {")
    for name, fams in names:
        out.append("        %s => %s," % (" | ".join("Isa::" + f for f in fams), name))
    out.append("    }")
    out.append("}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
