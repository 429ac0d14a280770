// Parameter interpolation of GFX12 (VINTERP) and the LDS parameter loads it follows; llvm-mc
// assembles them for tests/disasm/generate.sh.
	.text
	.globl interp
	.p2align 8
	.type interp,@function
interp:
	ds_param_load v1, attr0.x wait_va_vdst:15 wait_vm_vsrc:1
	v_interp_p10_f32 v3, v1, v0, v1 wait_exp:1
	v_interp_p2_f32 v4, v1, v5, v3 wait_exp:7
	v_interp_p10_f16_f32 v6, v1, v0, v1 wait_exp:0
	v_interp_p2_f16_f32 v7, v1, v5, v6 op_sel:[1,0,0,0] wait_exp:0
	v_interp_p10_rtz_f16_f32 v8, -v1, v0, v1 op_sel:[0,0,1,0] wait_exp:2
	v_interp_p2_rtz_f16_f32 v9, v1, v5, v8 clamp op_sel:[0,0,0,1] wait_exp:3
	v_interp_p10_f32 v10, -v2, -v0, -v2 clamp wait_exp:0
	s_endpgm
