#!/usr/bin/env python3
"""Writes an assembly file of kernel descriptors with pseudo-random fields (fixed seed) for one
processor: most set only bits the family defines, some set a reserved bit too, so that the
descriptor test sees every directive with values other than the compiler's and llvm-objdump's
error messages. Used by generate.sh: descriptor_sweep.py PROCESSOR COUNT > sweep.s"""
import random
import sys

# compute_pgm_rsrc3 bits each family defines.
RSRC3 = {"gfx803": 0, "gfx900": 0, "gfx90a": 0x1003F, "gfx942": 0x1003F, "gfx1030": 0xF, "gfx1100": 0x80000FFF, "gfx1201": 0x80002FF0}


def descriptor(rng, processor, reserved_bit):
    gfx10_plus = processor.startswith("gfx1")
    rsrc1 = 0x3F | (0 if gfx10_plus else 0x3C0) | 0xFF000 | (1 << 21) | (1 << 23) | (1 << 26)
    rsrc1 |= 0xE0000000 if gfx10_plus else 0
    rsrc2 = 0x7F | 0x1F80 | 0x7F000000
    properties = 0x7F | 0x800 | (0x400 if gfx10_plus else 0)
    b = bytearray(64)
    for offset in (0, 4, 8):
        b[offset:offset + 4] = rng.getrandbits(rng.choice((8, 16, 32))).to_bytes(4, "little")
    b[16:24] = rng.getrandbits(64).to_bytes(8, "little")
    for offset, mask in ((44, RSRC3[processor]), (48, rsrc1), (52, rsrc2)):
        b[offset:offset + 4] = (rng.getrandbits(32) & mask).to_bytes(4, "little")
    b[56:58] = (rng.getrandbits(16) & properties).to_bytes(2, "little")
    if rng.random() < 0.5:
        b[58:60] = rng.getrandbits(16).to_bytes(2, "little")
    if reserved_bit:
        bit = rng.randrange(512)
        b[bit // 8] |= 1 << (bit % 8)
    return bytes(b)


def main():
    processor, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(f"descriptor sweep {processor}")
    print(f'.amdgcn_target "amdgcn-amd-amdhsa--{processor}"')
    print(".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_endpgm")
    print(".rodata")
    for i in range(count):
        data = descriptor(rng, processor, reserved_bit=i % 3 == 2)
        print(f".p2align 6\n.globl k{i}.kd\n.type k{i}.kd,@object\nk{i}.kd:")
        print(".byte " + ",".join(str(x) for x in data))
        print(f".size k{i}.kd, 64")


main()
