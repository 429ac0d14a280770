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
	// Words llvm-mc would not assemble from text, as llvm-objdump prints them: an f64 MFMA's
	// neg, src_* and an inline float in MFMA sources, an SGPR accumulator's AGPR class, v_bitop3's
	// truth table, a scaled MFMA's src_* scale.
	.long 0xd3ee588c, 0xbd2bad46
	.long 0xd3f4802f, 0x974258fb
	.long 0xd3ef1054, 0x0d5b28ee
	.long 0xd3e10055, 0x0fa676f4
	.long 0xd3c09064, 0x18427190
	.long 0xd2330549, 0x1d3c7a7e
	.long 0xd234007a, 0x65b7bbf2
	.long 0xd3ac3800, 0x2001fbf1, 0xd3ae8f4e, 0x666af16e
	s_endpgm
