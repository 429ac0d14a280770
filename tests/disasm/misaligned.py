#!/usr/bin/env python3
"""Writes the assembly of one kernel whose instructions name scalar register tuples from a
register off their alignment (an odd SGPR or trap temporary for a pair, one not a multiple of 4
for more): llvm-mc 22 will not assemble such operands from text, so each instruction is assembled
by llvm-mc with an aligned tuple and the field moved up in its encoding, written as `.long` words
with the instruction it came from beside them. llvm-objdump prints each from the aligned register
below with a warning after the words (`; Warning: SGPR_64: scalar reg isn't aligned 5`), one per
such operand; tests/disasm_agreement.rs compares our listing with its output (generate.sh).

The field is found by assembling the instruction twice, with two aligned tuples (`s[4:5]` and
`s[8:9]`): the lowest bit where the encodings differ is where the field's value bit 2 sits.

    python3 tests/disasm/misaligned.py PROCESSOR > misaligned_PROCESSOR.s
"""
import os
import re
import subprocess
import sys

LLVM_BIN = os.environ.get("CLANG_BIN_DIR", "/usr/lib/llvm-22/bin")

# (template, tuple kind): {S} a pair, {Q} four registers, {O} eight; each tried with SGPRs and
# trap temporaries. A template a processor does not have is left out.
TEMPLATES = [
    "s_mov_b64 s[2:3], {S}",
    "s_and_b64 s[2:3], {S}, s[6:7]",
    "s_cmp_eq_u64 {S}, s[2:3]",
    "s_setpc_b64 {S}",
    "s_call_b64 {S}, 16",
    "s_load_dwordx2 {S}, s[2:3], 0x0",
    "s_load_dwordx4 {Q}, s[2:3], 0x0",
    "s_load_dwordx8 {O}, s[2:3], 0x0",
    "s_load_b64 {S}, s[2:3], 0x0",
    "s_load_b128 {Q}, s[2:3], 0x0",
    "s_buffer_load_dwordx2 {S}, s[4:7], 0x0",
    "v_add_f64 v[0:1], {S}, v[2:3]",
    "v_fma_f64 v[0:1], v[2:3], v[4:5], {S}",
    "v_cvt_f32_f64_e32 v0, {S}",
    "v_cmp_eq_f64_e32 vcc, {S}, v[2:3]",
    "v_lshlrev_b64 v[0:1], 1, {S}",
    "v_cndmask_b32_e64 v0, v1, v2, {S}",
    "v_add_co_u32_e64 v0, {S}, v1, v2",
    "v_cmp_eq_u32_e64 {S}, v1, v2",
    "v_pk_fma_f32 v[0:1], {S}, v[2:3], v[4:5]",
    "image_sample v[0:3], [v4, v5], {O}, s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "global_load_dword v1, v2, {S}",
    "global_load_b32 v1, v2, {S}",
    "buffer_load_b32 v1, off, {Q}, null",
    "image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], {Q}",
]
# Aligned tuples for each kind: (file, first register, a second first register, registers).
TUPLES = {
    "S": [("s", 4, 8, 2), ("ttmp", 4, 8, 2)],
    "Q": [("s", 4, 8, 4), ("ttmp", 4, 8, 4)],
    "O": [("s", 8, 16, 8)],
}
# Instructions with more than one tuple off its alignment: llvm-objdump prints one warning per
# operand, in operand order, with nothing between them. (template, fields moved up by one).
SEVERAL = [
    ("s_and_b64 {A}, {B}, {C}", 3),
    ("s_cselect_b64 {A}, {B}, s[6:7]", 2),
]


def tuple_text(file, first, count):
    return f"{file}[{first}:{first + count - 1}]"


def encode(processor, line):
    """The bytes llvm-mc encodes `line` into for `processor`, or None."""
    run = subprocess.run([os.path.join(LLVM_BIN, "llvm-mc"), "-triple=amdgcn-amd-amdhsa", f"-mcpu={processor}",
                          "-show-encoding"], input=line + "\n", capture_output=True, text=True)
    m = re.search(r"encoding: \[(.*?)\]", run.stdout)
    return bytes(int(b, 16) for b in m.group(1).split(",")) if m else None


def decoded(processor, blob):
    """What llvm-mc decodes `blob` to (spaces aside), or None unless it is one instruction."""
    run = subprocess.run([os.path.join(LLVM_BIN, "llvm-mc"), "--disassemble", "-triple=amdgcn-amd-amdhsa",
                          f"-mcpu={processor}"], input=" ".join(f"{b:#04x}" for b in blob) + "\n",
                         capture_output=True, text=True)
    lines = [l for l in run.stdout.splitlines() if l.startswith("\t") and not l.strip().startswith(".")]
    return " ".join(lines[0].split()) if len(lines) == 1 else None


def moved(processor, template, file, a, b, count, by):
    """`template` with a tuple of `count` registers of `file`, its field moved up by `by` from
    register `a` (found by the bits where the encodings with `a` and `b` differ), or None."""
    low_enc = encode(processor, template.format(S=tuple_text(file, a, count)))
    high_enc = encode(processor, template.format(S=tuple_text(file, b, count)))
    if low_enc is None or high_enc is None or len(low_enc) != len(high_enc):
        return None
    low, high = int.from_bytes(low_enc, "little"), int.from_bytes(high_enc, "little")
    differ = low ^ high
    if differ == 0:
        return None
    bit = (differ & -differ).bit_length() - 1
    values = a ^ b
    shift = bit - ((values & -values).bit_length() - 1)
    if shift < 0:
        return None
    moved_enc = (low + (by << shift)).to_bytes(len(low_enc), "little")
    # A field that counts registers by four (GFX9-GFX11 buffer and image resources) cannot name
    # a register off its alignment: moving "it" changes the field below, and the instruction
    # no longer reads as the aligned one; the template is left out.
    aligned = decoded(processor, low_enc)
    return moved_enc if aligned is not None and decoded(processor, moved_enc) == aligned else None


def several(processor, template, fields):
    """`template` with its first `fields` pairs moved up by one register each."""
    names = "ABC"[:fields]
    base = {n: tuple_text("s", 4 * (i + 1), 2) for i, n in enumerate(names)}
    words = encode(processor, template.format(**base))
    if words is None:
        return None
    original = int.from_bytes(words, "little")
    value = original
    for n in names:
        other = dict(base, **{n: tuple_text("s", 4 * (len(names) + 1) + 4, 2)})
        changed = encode(processor, template.format(**other))
        if changed is None:
            return None
        differ = original ^ int.from_bytes(changed, "little")
        low = (differ & -differ).bit_length() - 1
        # The two first registers differ from bit 2 or 3 on; the field's value 4 * (i + 1).
        first = 4 * (names.index(n) + 1)
        values = first ^ (4 * (len(names) + 1) + 4)
        value += 1 << (low - ((values & -values).bit_length() - 1))
    return value.to_bytes(len(words), "little")


def words_line(blob, comment):
    words = [int.from_bytes(blob[i:i + 4], "little") for i in range(0, len(blob), 4)]
    return f"  .long {', '.join(f'{w:#010x}' for w in words)}  // {comment}"


def main():
    processor = sys.argv[1]
    lines = [
        f"// Scalar tuples off their alignment for {processor}, written by tests/disasm/misaligned.py:",
        "// each word is llvm-mc's encoding of the instruction beside it with the tuple's field",
        "// moved up; llvm-objdump prints the aligned tuple with a warning after the words.",
        f'  .amdgcn_target "amdgcn-amd-amdhsa--{processor}"',
        "  .text", "  .globl misaligned", "  .p2align 8", "  .type misaligned,@function", "misaligned:",
    ]
    for template in TEMPLATES:
        kind = re.search(r"\{([SQO])\}", template).group(1)
        for file, a, b, count in TUPLES[kind]:
            for by in (1, 2, 3)[:count - 1]:
                blob = moved(processor, template.replace("{" + kind + "}", "{S}"), file, a, b, count, by)
                if blob is not None:
                    shown = template.replace("{" + kind + "}", f"{file}{a + by} as {tuple_text(file, a, count)}")
                    lines.append(words_line(blob, shown))
    for template, fields in SEVERAL:
        blob = several(processor, template, fields)
        if blob is not None:
            lines.append(words_line(blob, f"{template}: {fields} fields each one register up"))
    lines += ["  s_endpgm", ".Lend:", "  .size misaligned, .Lend-misaligned", ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
