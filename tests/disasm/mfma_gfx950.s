// gfx950's f8f6f4 MFMAs (source widths by cbsz and blgp) and scaled MFMAs (v_mfma_ld_scale_b32
// and the MFMA after it, printed as one); llvm-mc assembles them for tests/disasm/generate.sh.
	.text
	.globl mfma
	.p2align 8
	.type mfma,@function
mfma:
	v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]
	v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:15], v[0:3] cbsz:2 blgp:4
	v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[4:11], v[12:19], a[0:15] cbsz:1 blgp:1
	v_mfma_f32_32x32x64_f8f6f4 v[16:31], v[4:7], v[12:17], v[16:31] cbsz:4 blgp:3
	v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel_hi:[0,0,0]
	v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:19], v[0:3], v20, v21 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:2
	v_mfma_scale_f32_32x32x64_f8f6f4 a[0:15], v[4:11], v[12:15], a[0:15], v22, v23 op_sel_hi:[1,1,0] blgp:4
	v_mfma_ld_scale_b32 v20, v21 op_sel_hi:[0,0]
	s_endpgm
