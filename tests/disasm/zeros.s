// Runs of zero bytes, for the listing's `...` lines (tests/disasm_agreement.rs): llvm-objdump -d
// skips at least 8 zero bytes up to the next symbol, rounded down to whole dwords, and -z
// decodes them. Assembled for one processor of several families by generate.sh.
.text
  // No symbol at the start: llvm-objdump labels it <.text>.
  s_nop 0
  .long 0, 0
.globl run_in_the_middle
.type run_in_the_middle,@function
run_in_the_middle:
  s_nop 0
  .long 0, 0
  s_nop 0
  // One zero dword alone is decoded.
  .long 0
  s_nop 0
  // Twelve zero bytes and three more before a nonzero byte: twelve are skipped.
  .long 0, 0, 0
  .byte 0, 0, 0, 0x7e
  // Seven zero bytes then 0xbf: not skipped.
  .long 0
  .byte 0, 0, 0, 0xbf
  s_endpgm
  .long 0, 0, 0, 0
local_label:
  s_endpgm
  .long 0, 0
.globl starts_with_zeros
.type starts_with_zeros,@function
starts_with_zeros:
  .long 0, 0, 0
  s_branch local_label
  s_mov_b32 s0, 0x12345678
// A symbol inside the previous instruction: llvm-objdump decodes again from it.
.globl inside
.type inside,@function
.set inside, . - 4
  s_endpgm
  .long 0, 0
  // Three bytes past the last whole dword.
  .byte 0, 0, 0
