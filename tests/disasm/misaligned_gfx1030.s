// Scalar tuples off their alignment for gfx1030, written by tests/disasm/misaligned.py:
// each word is llvm-mc's encoding of the instruction beside it with the tuple's field
// moved up; llvm-objdump prints the aligned tuple with a warning after the words.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx1030"
  .text
  .globl misaligned
  .p2align 8
  .type misaligned,@function
misaligned:
  .long 0xbe820405  // s_mov_b64 s[2:3], s5 as s[4:5]
  .long 0xbe820471  // s_mov_b64 s[2:3], ttmp5 as ttmp[4:5]
  .long 0x87820605  // s_and_b64 s[2:3], s5 as s[4:5], s[6:7]
  .long 0x87820671  // s_and_b64 s[2:3], ttmp5 as ttmp[4:5], s[6:7]
  .long 0xbf120205  // s_cmp_eq_u64 s5 as s[4:5], s[2:3]
  .long 0xbf120271  // s_cmp_eq_u64 ttmp5 as ttmp[4:5], s[2:3]
  .long 0xbe802005  // s_setpc_b64 s5 as s[4:5]
  .long 0xbe802071  // s_setpc_b64 ttmp5 as ttmp[4:5]
  .long 0xbb050010  // s_call_b64 s5 as s[4:5], 16
  .long 0xbb710010  // s_call_b64 ttmp5 as ttmp[4:5], 16
  .long 0xf4040141, 0xfa000000  // s_load_dwordx2 s5 as s[4:5], s[2:3], 0x0
  .long 0xf4041c41, 0xfa000000  // s_load_dwordx2 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xf4080141, 0xfa000000  // s_load_dwordx4 s5 as s[4:7], s[2:3], 0x0
  .long 0xf4080181, 0xfa000000  // s_load_dwordx4 s6 as s[4:7], s[2:3], 0x0
  .long 0xf40801c1, 0xfa000000  // s_load_dwordx4 s7 as s[4:7], s[2:3], 0x0
  .long 0xf4081c41, 0xfa000000  // s_load_dwordx4 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081c81, 0xfa000000  // s_load_dwordx4 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081cc1, 0xfa000000  // s_load_dwordx4 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xf40c0241, 0xfa000000  // s_load_dwordx8 s9 as s[8:15], s[2:3], 0x0
  .long 0xf40c0281, 0xfa000000  // s_load_dwordx8 s10 as s[8:15], s[2:3], 0x0
  .long 0xf40c02c1, 0xfa000000  // s_load_dwordx8 s11 as s[8:15], s[2:3], 0x0
  .long 0xf4240142, 0xfa000000  // s_buffer_load_dwordx2 s5 as s[4:5], s[4:7], 0x0
  .long 0xf4241c42, 0xfa000000  // s_buffer_load_dwordx2 ttmp5 as ttmp[4:5], s[4:7], 0x0
  .long 0xd5640000, 0x00020405  // v_add_f64 v[0:1], s5 as s[4:5], v[2:3]
  .long 0xd5640000, 0x00020471  // v_add_f64 v[0:1], ttmp5 as ttmp[4:5], v[2:3]
  .long 0xd54c0000, 0x00160902  // v_fma_f64 v[0:1], v[2:3], v[4:5], s5 as s[4:5]
  .long 0xd54c0000, 0x01c60902  // v_fma_f64 v[0:1], v[2:3], v[4:5], ttmp5 as ttmp[4:5]
  .long 0x7e001e05  // v_cvt_f32_f64_e32 v0, s5 as s[4:5]
  .long 0x7e001e71  // v_cvt_f32_f64_e32 v0, ttmp5 as ttmp[4:5]
  .long 0xd6ff0000, 0x00000a81  // v_lshlrev_b64 v[0:1], 1, s5 as s[4:5]
  .long 0xd6ff0000, 0x0000e281  // v_lshlrev_b64 v[0:1], 1, ttmp5 as ttmp[4:5]
  .long 0xdc308000, 0x01050002  // global_load_dword v1, v2, s5 as s[4:5]
  .long 0xdc308000, 0x01710002  // global_load_dword v1, v2, ttmp5 as ttmp[4:5]
  .long 0x87850d09  // s_and_b64 {A}, {B}, {C}: 3 fields each one register up
  .long 0x85850609  // s_cselect_b64 {A}, {B}, s[6:7]: 2 fields each one register up
  s_endpgm
.Lend:
  .size misaligned, .Lend-misaligned

