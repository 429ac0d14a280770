// gfx940's SDWA conversions from 8-bit floats, which print no dst_sel or dst_unused (they
// write a whole dword or a pair), beside ordinary SDWA lines; llvm-mc assembles them for
// tests/disasm/generate.sh (gfx942 and gfx950).
	.text
	.globl sdwa
	.p2align 8
	.type sdwa,@function
sdwa:
	v_cvt_f32_fp8_sdwa v0, v3 src0_sel:BYTE_1
	v_cvt_f32_bf8_sdwa v1, v4 src0_sel:BYTE_3
	v_cvt_pk_f32_fp8_sdwa v[2:3], v5 src0_sel:WORD_1
	v_cvt_pk_f32_bf8_sdwa v[4:5], s6 src0_sel:WORD_0
	v_cvt_f32_fp8_sdwa v6, v7 clamp src0_sel:DWORD
	v_cvt_f32_bf8_sdwa v8, v9 mul:2 src0_sel:BYTE_2
	v_cvt_pk_f32_fp8_sdwa v[10:11], v12 div:2 src0_sel:BYTE_0
	v_mov_b32_sdwa v13, v14 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0
	// Words llvm-mc would not assemble from text, as llvm-objdump prints them: dst_unused set
	// (ignored), sext, an odd first register of the pair (printed with a remark), and a dst_sel
	// other than DWORD (not an instruction: two `.long` lines).
	.long 0x7e00a8f9, 0x00011603
	.long 0x7e00a8f9, 0x00091603
	.long 0x7fdaacf9, 0x000d0ee0
	.long 0x7e00acf9, 0x00050003
	// A comparison writing s[12:13] (sd) whose scalar src0 is vcc_lo.
	.long 0x7cba26f9, 0x82838c6a
	s_endpgm
