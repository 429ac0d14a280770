"""Runs `llvm-mc --disassemble` 22 over many candidate instructions in one process.

The table generators in this folder sweep an encoding's opcode and field space: each candidate
is the bytes of one instruction (its dwords, little-endian, and a literal when it names one).
llvm-mc reads all candidates as one byte stream, one candidate per line; `-show-encoding` tells
how many bytes each decoded instruction took and its warnings tell where a word did not decode,
so every answer is put back on the candidate that starts where it starts.

    from mc import disassemble
    texts = disassemble("gfx90a", [words_to_bytes([0xBE800000])])   # ["s_mov_b32 s0, s0"]

A candidate llvm-mc rejects, or decodes to a size other than its own, gets `None`.

For quick probes only: `-show-encoding` prints the bytes llvm-mc would encode again, which for a
few words (an "Invalid immediate" literal, a re-encoded VOP3) is not the size it read, and the
walk then loses its place for the rest of the batch. The table generators use their own runners,
which put `s_nop` sentinels after each candidate and read the answers back by address
(`gen_vector.py`'s `run`, `gen_scalar.py`, `gen_packed.py`).
"""
import os
import re
import struct
import subprocess

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
# Candidates per llvm-mc process: large enough that starting a process costs little, small
# enough that a run's output stays in memory comfortably.
BATCH = 20000
WARNING = re.compile(r"^<stdin>:(\d+):(\d+): warning: invalid instruction encoding")
# One byte is written as `0xHH ` (5 characters).
TOKEN = 5


def words_to_bytes(words):
    return struct.pack("<%dI" % len(words), *words)


def disassemble(mcpu, candidates, triple="amdgcn-amd-amdhsa"):
    """The text llvm-mc prints for each candidate (bytes), or None."""
    out = []
    for start in range(0, len(candidates), BATCH):
        out.extend(_batch(mcpu, candidates[start:start + BATCH], triple))
    return out


def _batch(mcpu, candidates, triple):
    lines, starts, offset = [], [], 0
    for c in candidates:
        starts.append(offset)
        lines.append(" ".join("0x%02x" % b for b in c) + " ")
        offset += len(c)
    run = subprocess.run(
        [os.path.join(LLVM_BIN, "llvm-mc"), "--disassemble", "-show-encoding",
         "-triple=" + triple, "-mcpu=" + mcpu],
        input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    line_start = starts
    invalid = set()
    for line in run.stderr.splitlines():
        m = WARNING.match(line)
        if m:
            row, col = int(m.group(1)) - 1, int(m.group(2)) - 1
            invalid.add(line_start[row] + col // TOKEN)
    decoded = []
    for line in run.stdout.splitlines():
        if "; encoding: [" not in line:
            continue
        text, _, enc = line.rpartition("; encoding: [")
        size = enc.count(",") + 1
        decoded.append((text.strip(), size))
    # Walk the stream: an invalid word is skipped 4 bytes at a time (as llvm-mc does for
    # AMDGPU), a decoded instruction by its size.
    answers, pos, i = {}, 0, 0
    while i < len(decoded) or pos in invalid:
        if pos in invalid:
            pos += 4
            continue
        text, size = decoded[i]
        answers[pos] = (text, size)
        pos += size
        i += 1
    result = []
    for c, s in zip(candidates, starts):
        got = answers.get(s)
        result.append(got[0] if got and got[1] == len(c) else None)
    return result


if __name__ == "__main__":
    import sys
    mcpu = sys.argv[1]
    words = [int(w, 16) for w in sys.argv[2:]]
    print(disassemble(mcpu, [words_to_bytes(words)]))
