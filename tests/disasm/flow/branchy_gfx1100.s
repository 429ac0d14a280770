// An if/else diamond and a block after s_endpgm nothing reaches (gfx1100, wave32). By
// construction: 5 blocks: 0 (to the else block when no lane takes the then side, else into
// the then block), 1 (then, jumps to the join), 2 (else, falls into the join), 3 (the join,
// ends), 4 (unreachable); no loop. The VGPR peak is 2 (v1, v2) at `v_mov_b32 v2, 0`; the SGPR
// peak is 4 (s0, s1, s2, vcc_lo) at `s_and_saveexec_b32`.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
  .text
  .globl branchy
  .p2align 8
  .type branchy,@function
branchy:
  s_load_b64 s[0:1], s[0:1], 0x0
  v_cmp_gt_u32_e32 vcc_lo, 32, v0
  s_and_saveexec_b32 s2, vcc_lo
  s_cbranch_execz .Lelse
  v_mov_b32 v1, 1
  s_branch .Ljoin
.Lelse:
  v_mov_b32 v1, 2
.Ljoin:
  s_or_b32 exec_lo, exec_lo, s2
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
  global_store_b32 v2, v1, s[0:1]
  s_endpgm
.Ldead:
  v_mov_b32 v3, 7
  s_endpgm
.Lbranchy_end:
  .size branchy, .Lbranchy_end-branchy

  .rodata
  .p2align 6
  .amdhsa_kernel branchy
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_wavefront_size32 1
    .amdhsa_next_free_vgpr 4
    .amdhsa_next_free_sgpr 3
  .end_amdhsa_kernel
