// Scalar tuples off their alignment for gfx1100, written by tests/disasm/misaligned.py:
// each word is llvm-mc's encoding of the instruction beside it with the tuple's field
// moved up; llvm-objdump prints the aligned tuple with a warning after the words.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
  .text
  .globl misaligned
  .p2align 8
  .type misaligned,@function
misaligned:
  .long 0xbe820105  // s_mov_b64 s[2:3], s5 as s[4:5]
  .long 0xbe820171  // s_mov_b64 s[2:3], ttmp5 as ttmp[4:5]
  .long 0x8b820605  // s_and_b64 s[2:3], s5 as s[4:5], s[6:7]
  .long 0x8b820671  // s_and_b64 s[2:3], ttmp5 as ttmp[4:5], s[6:7]
  .long 0xbf100205  // s_cmp_eq_u64 s5 as s[4:5], s[2:3]
  .long 0xbf100271  // s_cmp_eq_u64 ttmp5 as ttmp[4:5], s[2:3]
  .long 0xbe804805  // s_setpc_b64 s5 as s[4:5]
  .long 0xbe804871  // s_setpc_b64 ttmp5 as ttmp[4:5]
  .long 0xba050010  // s_call_b64 s5 as s[4:5], 16
  .long 0xba710010  // s_call_b64 ttmp5 as ttmp[4:5], 16
  .long 0xf4040141, 0xf8000000  // s_load_dwordx2 s5 as s[4:5], s[2:3], 0x0
  .long 0xf4041c41, 0xf8000000  // s_load_dwordx2 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xf4080141, 0xf8000000  // s_load_dwordx4 s5 as s[4:7], s[2:3], 0x0
  .long 0xf4080181, 0xf8000000  // s_load_dwordx4 s6 as s[4:7], s[2:3], 0x0
  .long 0xf40801c1, 0xf8000000  // s_load_dwordx4 s7 as s[4:7], s[2:3], 0x0
  .long 0xf4081c41, 0xf8000000  // s_load_dwordx4 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081c81, 0xf8000000  // s_load_dwordx4 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081cc1, 0xf8000000  // s_load_dwordx4 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xf40c0241, 0xf8000000  // s_load_dwordx8 s9 as s[8:15], s[2:3], 0x0
  .long 0xf40c0281, 0xf8000000  // s_load_dwordx8 s10 as s[8:15], s[2:3], 0x0
  .long 0xf40c02c1, 0xf8000000  // s_load_dwordx8 s11 as s[8:15], s[2:3], 0x0
  .long 0xf4040141, 0xf8000000  // s_load_b64 s5 as s[4:5], s[2:3], 0x0
  .long 0xf4041c41, 0xf8000000  // s_load_b64 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xf4080141, 0xf8000000  // s_load_b128 s5 as s[4:7], s[2:3], 0x0
  .long 0xf4080181, 0xf8000000  // s_load_b128 s6 as s[4:7], s[2:3], 0x0
  .long 0xf40801c1, 0xf8000000  // s_load_b128 s7 as s[4:7], s[2:3], 0x0
  .long 0xf4081c41, 0xf8000000  // s_load_b128 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081c81, 0xf8000000  // s_load_b128 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4081cc1, 0xf8000000  // s_load_b128 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4240142, 0xf8000000  // s_buffer_load_dwordx2 s5 as s[4:5], s[4:7], 0x0
  .long 0xf4241c42, 0xf8000000  // s_buffer_load_dwordx2 ttmp5 as ttmp[4:5], s[4:7], 0x0
  .long 0xd7270000, 0x00020405  // v_add_f64 v[0:1], s5 as s[4:5], v[2:3]
  .long 0xd7270000, 0x00020471  // v_add_f64 v[0:1], ttmp5 as ttmp[4:5], v[2:3]
  .long 0xd6140000, 0x00160902  // v_fma_f64 v[0:1], v[2:3], v[4:5], s5 as s[4:5]
  .long 0xd6140000, 0x01c60902  // v_fma_f64 v[0:1], v[2:3], v[4:5], ttmp5 as ttmp[4:5]
  .long 0x7e001e05  // v_cvt_f32_f64_e32 v0, s5 as s[4:5]
  .long 0x7e001e71  // v_cvt_f32_f64_e32 v0, ttmp5 as ttmp[4:5]
  .long 0xd73c0000, 0x00000a81  // v_lshlrev_b64 v[0:1], 1, s5 as s[4:5]
  .long 0xd73c0000, 0x0000e281  // v_lshlrev_b64 v[0:1], 1, ttmp5 as ttmp[4:5]
  .long 0xdc520000, 0x01050002  // global_load_dword v1, v2, s5 as s[4:5]
  .long 0xdc520000, 0x01710002  // global_load_dword v1, v2, ttmp5 as ttmp[4:5]
  .long 0xdc520000, 0x01050002  // global_load_b32 v1, v2, s5 as s[4:5]
  .long 0xdc520000, 0x01710002  // global_load_b32 v1, v2, ttmp5 as ttmp[4:5]
  .long 0x8b850d09  // s_and_b64 {A}, {B}, {C}: 3 fields each one register up
  .long 0x98850609  // s_cselect_b64 {A}, {B}, s[6:7]: 2 fields each one register up
  s_endpgm
.Lend:
  .size misaligned, .Lend-misaligned

