// A counted loop (gfx900, wave64). By construction: 3 blocks (entry, the loop, the exit), one
// loop whose header is the loop block and whose back edge is its own s_cbranch_scc1; the VGPR
// peak is 4 (v0, v1, v4, v5) at `v_add_u32_e32 v5, v4, v1` inside the loop; the SGPR peak is 4
// (s[4:5] read, s[0:1] written) at the first instruction.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx900"
  .text
  .globl loop_kernel
  .p2align 8
  .type loop_kernel,@function
loop_kernel:
  s_load_dwordx2 s[0:1], s[4:5], 0x0
  v_mov_b32 v1, 0
  s_mov_b32 s2, 16
.Lloop:
  v_mul_lo_u32 v4, v0, v0
  v_add_u32_e32 v5, v4, v1
  v_add_u32_e32 v1, v5, v4
  s_sub_u32 s2, s2, 1
  s_cmp_lg_u32 s2, 0
  s_cbranch_scc1 .Lloop
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s0
  v_mov_b32 v3, s1
  global_store_dword v[2:3], v1, off
  s_endpgm
.Lloop_end:
  .size loop_kernel, .Lloop_end-loop_kernel

  .rodata
  .p2align 6
  .amdhsa_kernel loop_kernel
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 6
    .amdhsa_next_free_sgpr 6
  .end_amdhsa_kernel
