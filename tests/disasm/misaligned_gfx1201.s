// Scalar tuples off their alignment for gfx1201, written by tests/disasm/misaligned.py:
// each word is llvm-mc's encoding of the instruction beside it with the tuple's field
// moved up; llvm-objdump prints the aligned tuple with a warning after the words.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx1201"
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
  .long 0xf4002141, 0xf8000000  // s_load_dwordx2 s5 as s[4:5], s[2:3], 0x0
  .long 0xf4003c41, 0xf8000000  // s_load_dwordx2 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xf4004141, 0xf8000000  // s_load_dwordx4 s5 as s[4:7], s[2:3], 0x0
  .long 0xf4004181, 0xf8000000  // s_load_dwordx4 s6 as s[4:7], s[2:3], 0x0
  .long 0xf40041c1, 0xf8000000  // s_load_dwordx4 s7 as s[4:7], s[2:3], 0x0
  .long 0xf4005c41, 0xf8000000  // s_load_dwordx4 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4005c81, 0xf8000000  // s_load_dwordx4 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4005cc1, 0xf8000000  // s_load_dwordx4 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4006241, 0xf8000000  // s_load_dwordx8 s9 as s[8:15], s[2:3], 0x0
  .long 0xf4006281, 0xf8000000  // s_load_dwordx8 s10 as s[8:15], s[2:3], 0x0
  .long 0xf40062c1, 0xf8000000  // s_load_dwordx8 s11 as s[8:15], s[2:3], 0x0
  .long 0xf4002141, 0xf8000000  // s_load_b64 s5 as s[4:5], s[2:3], 0x0
  .long 0xf4003c41, 0xf8000000  // s_load_b64 ttmp5 as ttmp[4:5], s[2:3], 0x0
  .long 0xf4004141, 0xf8000000  // s_load_b128 s5 as s[4:7], s[2:3], 0x0
  .long 0xf4004181, 0xf8000000  // s_load_b128 s6 as s[4:7], s[2:3], 0x0
  .long 0xf40041c1, 0xf8000000  // s_load_b128 s7 as s[4:7], s[2:3], 0x0
  .long 0xf4005c41, 0xf8000000  // s_load_b128 ttmp5 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4005c81, 0xf8000000  // s_load_b128 ttmp6 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4005cc1, 0xf8000000  // s_load_b128 ttmp7 as ttmp[4:7], s[2:3], 0x0
  .long 0xf4022142, 0xf8000000  // s_buffer_load_dwordx2 s5 as s[4:5], s[4:7], 0x0
  .long 0xf4023c42, 0xf8000000  // s_buffer_load_dwordx2 ttmp5 as ttmp[4:5], s[4:7], 0x0
  .long 0x04000405  // v_add_f64 v[0:1], s5 as s[4:5], v[2:3]
  .long 0x04000471  // v_add_f64 v[0:1], ttmp5 as ttmp[4:5], v[2:3]
  .long 0xd6140000, 0x00160902  // v_fma_f64 v[0:1], v[2:3], v[4:5], s5 as s[4:5]
  .long 0xd6140000, 0x01c60902  // v_fma_f64 v[0:1], v[2:3], v[4:5], ttmp5 as ttmp[4:5]
  .long 0x7e001e05  // v_cvt_f32_f64_e32 v0, s5 as s[4:5]
  .long 0x7e001e71  // v_cvt_f32_f64_e32 v0, ttmp5 as ttmp[4:5]
  .long 0xd51f0000, 0x00000a81  // v_lshlrev_b64 v[0:1], 1, s5 as s[4:5]
  .long 0xd51f0000, 0x0000e281  // v_lshlrev_b64 v[0:1], 1, ttmp5 as ttmp[4:5]
  .long 0xe7c6c001, 0x08001200, 0x00000504  // image_sample v[0:3], [v4, v5], s9 as s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
  .long 0xe7c6c001, 0x08001400, 0x00000504  // image_sample v[0:3], [v4, v5], s10 as s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
  .long 0xe7c6c001, 0x08001600, 0x00000504  // image_sample v[0:3], [v4, v5], s11 as s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
  .long 0xee050005, 0x00000001, 0x00000002  // global_load_dword v1, v2, s5 as s[4:5]
  .long 0xee050071, 0x00000001, 0x00000002  // global_load_dword v1, v2, ttmp5 as ttmp[4:5]
  .long 0xee050005, 0x00000001, 0x00000002  // global_load_b32 v1, v2, s5 as s[4:5]
  .long 0xee050071, 0x00000001, 0x00000002  // global_load_b32 v1, v2, ttmp5 as ttmp[4:5]
  .long 0xc405007c, 0x00800a01, 0x00000000  // buffer_load_b32 v1, off, s5 as s[4:7], null
  .long 0xc405007c, 0x00800c01, 0x00000000  // buffer_load_b32 v1, off, s6 as s[4:7], null
  .long 0xc405007c, 0x00800e01, 0x00000000  // buffer_load_b32 v1, off, s7 as s[4:7], null
  .long 0xc405007c, 0x0080e201, 0x00000000  // buffer_load_b32 v1, off, ttmp5 as ttmp[4:7], null
  .long 0xc405007c, 0x0080e401, 0x00000000  // buffer_load_b32 v1, off, ttmp6 as ttmp[4:7], null
  .long 0xc405007c, 0x0080e601, 0x00000000  // buffer_load_b32 v1, off, ttmp7 as ttmp[4:7], null
  .long 0xd3c64010, 0x11000a04, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s5 as s[4:7]
  .long 0xd3c64010, 0x11000c04, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s6 as s[4:7]
  .long 0xd3c64010, 0x11000e04, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s7 as s[4:7]
  .long 0xd3c64010, 0x1100e204, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], ttmp5 as ttmp[4:7]
  .long 0xd3c64010, 0x1100e404, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], ttmp6 as ttmp[4:7]
  .long 0xd3c64010, 0x1100e604, 0x0e0b0a09  // image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], ttmp7 as ttmp[4:7]
  .long 0x8b850d09  // s_and_b64 {A}, {B}, {C}: 3 fields each one register up
  .long 0x98850609  // s_cselect_b64 {A}, {B}, s[6:7]: 2 fields each one register up
  s_endpgm
.Lend:
  .size misaligned, .Lend-misaligned

