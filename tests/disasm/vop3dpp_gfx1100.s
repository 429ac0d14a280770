// VOP3 instructions in their DPP forms (`_e64_dpp`: DPP16 and DPP8); llvm-mc assembles them for
// tests/disasm/generate.sh.
	.text
	.globl vop3dpp
	.p2align 8
	.type vop3dpp,@function
vop3dpp:
	v_add3_u32_e64_dpp v0, v1, v2, v3 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf
	v_fma_f32_e64_dpp v0, -|v1|, v2, v3 clamp dpp8:[7,6,5,4,3,2,1,0]
	v_fma_f32_e64_dpp v0, v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_add_f32_e64_dpp v4, v5, v6 mul:2 row_xmask:3 row_mask:0x3 bank_mask:0xf fi:1
	v_max_i32_e64_dpp v4, v5, v6 dpp8:[0,0,0,0,1,1,1,1] fi:1
	v_cmp_lt_f32_e64_dpp s10, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	v_cmpx_gt_u32_e64_dpp v1, v2 row_share:2 row_mask:0xf bank_mask:0xf
	v_bfe_u32_e64_dpp v7, v8, v4, v5 row_ror:7 row_mask:0xf bank_mask:0xf
	v_lshl_add_u32_e64_dpp v9, v10, v2, v11 dpp8:[1,2,3,4,5,6,7,0]
	v_sin_f32_e64_dpp v12, v13 row_mirror row_mask:0xf bank_mask:0xf
	v_cndmask_b32_e64_dpp v14, v15, v16, s20 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
	// Words as llvm-objdump prints them: a 16-bit comparison's op_sel (sources only), src1
	// constants of v_fmac_f32_e64_dpp in hex.
	.long 0xd43a1811, 0x006b70fa, 0xfc047bb0
	.long 0xd43a0811, 0x006b70e9, 0xfc047bb0
	.long 0xd52b0209, 0x000102ea, 0x71a6af9f
	.long 0xd52b0009, 0x0001e0fa, 0xff00e401
	s_endpgm
