// GFX10's SDWA moves relative to m0 with a scalar or constant source (s0 set): the SDWA operand
// takes them, so llvm-objdump prints them without the remark the 32-bit forms (VGPR sources
// only) get. llvm-mc refuses them as text, so they are words; assembled for
// tests/disasm/generate.sh (gfx1010 and gfx1030).
	.text
	.globl sdwa
	.p2align 8
	.type sdwa,@function
sdwa:
	v_movrels_b32_sdwa v8, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2
	.long 0x7e1086f9, 0x0080065f
	.long 0x7e1086f9, 0x00800691
	.long 0x7e1088f9, 0x008006f0
	.long 0x7e1088f9, 0x0080066a
	.long 0x7e1090f9, 0x0080065f
	.long 0x7e1084f9, 0x0080065f
	.long 0x7e3688f9, 0x00881d4f
	s_endpgm
