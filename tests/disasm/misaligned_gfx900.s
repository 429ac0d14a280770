// Scalar tuples off their alignment for gfx900, written by tests/disasm/misaligned.py:
// each word is llvm-mc's encoding of the instruction beside it with the tuple's field
// moved up; llvm-objdump prints the aligned tuple with a warning after the words.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx900"
  .text
  .globl misaligned
  .p2align 8
  .type misaligned,@function
misaligned:
  .long 0xbe820105  // s_mov_b64 s[2:3], s5 as s[4:5]
  .long 0xbe820171  // s_mov_b64 s[2:3], ttmp5 as ttmp[4:5]
  .long 0x86820605  // s_and_b64 s[2:3], s5 as s[4:5], s[6:7]
  .long 0x86820671  // s_and_b64 s[2:3], ttmp5 as ttmp[4:5], s[6:7]
  .long 0xbf120205  // s_cmp_eq_u64 s5 as s[4:5], s[2:3]
  .long 0xbf120271  // s_cmp_eq_u64 ttmp5 as ttmp[4:5], s[2:3]
  .long 0xbe801d05  // s_setpc_b64 s5 as s[4:5]
  .long 0xbe801d71  // s_setpc_b64 ttmp5 as ttmp[4:5]
  .long 0xba850010  // s_call_b64 s5 as s[4:5], 16
  .long 0xbaf10010  // s_call_b64 ttmp5 as ttmp[4:5], 16
  .long 0xc0060141, 0x00000000  // s_load_dwordx2 s5 as s[4:5], s[2:3], 0x0
  .long 0xc0061c41, 0x00000000  // s_load_dwordx2 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xc00a0141, 0x00000000  // s_load_dwordx4 s5 as s[4:7], s[2:3], 0x0
  .long 0xc00a0181, 0x00000000  // s_load_dwordx4 s6 as s[4:7], s[2:3], 0x0
  .long 0xc00a01c1, 0x00000000  // s_load_dwordx4 s7 as s[4:7], s[2:3], 0x0
  .long 0xc00a1c41, 0x00000000  // s_load_dwordx4 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xc00a1c81, 0x00000000  // s_load_dwordx4 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xc00a1cc1, 0x00000000  // s_load_dwordx4 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xc00e0241, 0x00000000  // s_load_dwordx8 s9 as s[8:15], s[2:3], 0x0
  .long 0xc00e0281, 0x00000000  // s_load_dwordx8 s10 as s[8:15], s[2:3], 0x0
  .long 0xc00e02c1, 0x00000000  // s_load_dwordx8 s11 as s[8:15], s[2:3], 0x0
  .long 0xc0260142, 0x00000000  // s_buffer_load_dwordx2 s5 as s[4:5], s[4:7], 0x0
  .long 0xc0261c42, 0x00000000  // s_buffer_load_dwordx2 ttmp5 as ttmp[4:5], s[4:7], 0x0
  .long 0xd2800000, 0x00020405  // v_add_f64 v[0:1], s5 as s[4:5], v[2:3]
  .long 0xd2800000, 0x00020471  // v_add_f64 v[0:1], ttmp5 as ttmp[4:5], v[2:3]
  .long 0xd1cc0000, 0x00160902  // v_fma_f64 v[0:1], v[2:3], v[4:5], s5 as s[4:5]
  .long 0xd1cc0000, 0x01c60902  // v_fma_f64 v[0:1], v[2:3], v[4:5], ttmp5 as ttmp[4:5]
  .long 0x7e001e05  // v_cvt_f32_f64_e32 v0, s5 as s[4:5]
  .long 0x7e001e71  // v_cvt_f32_f64_e32 v0, ttmp5 as ttmp[4:5]
  .long 0x7cc40405  // v_cmp_eq_f64_e32 vcc, s5 as s[4:5], v[2:3]
  .long 0x7cc40471  // v_cmp_eq_f64_e32 vcc, ttmp5 as ttmp[4:5], v[2:3]
  .long 0xd28f0000, 0x00000a81  // v_lshlrev_b64 v[0:1], 1, s5 as s[4:5]
  .long 0xd28f0000, 0x0000e281  // v_lshlrev_b64 v[0:1], 1, ttmp5 as ttmp[4:5]
  .long 0xd1000000, 0x00160501  // v_cndmask_b32_e64 v0, v1, v2, s5 as s[4:5]
  .long 0xd1000000, 0x01c60501  // v_cndmask_b32_e64 v0, v1, v2, ttmp5 as ttmp[4:5]
  .long 0xd1190500, 0x00020501  // v_add_co_u32_e64 v0, s5 as s[4:5], v1, v2
  .long 0xd1197100, 0x00020501  // v_add_co_u32_e64 v0, ttmp5 as ttmp[4:5], v1, v2
  .long 0xd0ca0005, 0x00020501  // v_cmp_eq_u32_e64 s5 as s[4:5], v1, v2
  .long 0xd0ca0071, 0x00020501  // v_cmp_eq_u32_e64 ttmp5 as ttmp[4:5], v1, v2
  .long 0xdc508000, 0x01050002  // global_load_dword v1, v2, s5 as s[4:5]
  .long 0xdc508000, 0x01710002  // global_load_dword v1, v2, ttmp5 as ttmp[4:5]
  .long 0x86850d09  // s_and_b64 {A}, {B}, {C}: 3 fields each one register up
  .long 0x85850609  // s_cselect_b64 {A}, {B}, s[6:7]: 2 fields each one register up
  s_endpgm
.Lend:
  .size misaligned, .Lend-misaligned

