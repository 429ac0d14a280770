// Matrix multiply-accumulate into AGPRs (gfx90a). By construction: one block; the AGPR peak is
// 16 (a[0:15]), first reached at `v_accvgpr_write_b32 a15, 0` and held through the
// v_mfma_f32_16x16x1f32; the VGPR peak is 3 (v3, v4, v5) at `v_mov_b32 v5, s1`.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
  .text
  .globl agpr_kernel
  .p2align 8
  .type agpr_kernel,@function
agpr_kernel:
  s_load_dwordx2 s[0:1], s[4:5], 0x0
  v_mov_b32 v1, 1.0
  v_mov_b32 v2, 2.0
  v_accvgpr_write_b32 a0, 0
  v_accvgpr_write_b32 a1, 0
  v_accvgpr_write_b32 a2, 0
  v_accvgpr_write_b32 a3, 0
  v_accvgpr_write_b32 a4, 0
  v_accvgpr_write_b32 a5, 0
  v_accvgpr_write_b32 a6, 0
  v_accvgpr_write_b32 a7, 0
  v_accvgpr_write_b32 a8, 0
  v_accvgpr_write_b32 a9, 0
  v_accvgpr_write_b32 a10, 0
  v_accvgpr_write_b32 a11, 0
  v_accvgpr_write_b32 a12, 0
  v_accvgpr_write_b32 a13, 0
  v_accvgpr_write_b32 a14, 0
  v_accvgpr_write_b32 a15, 0
  v_mfma_f32_16x16x1f32 a[0:15], v1, v2, a[0:15]
  s_nop 7
  s_nop 7
  v_accvgpr_read_b32 v3, a15
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v4, s0
  v_mov_b32 v5, s1
  global_store_dword v[4:5], v3, off
  s_endpgm
.Lagpr_end:
  .size agpr_kernel, .Lagpr_end-agpr_kernel

  .rodata
  .p2align 6
  .amdhsa_kernel agpr_kernel
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 6
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
