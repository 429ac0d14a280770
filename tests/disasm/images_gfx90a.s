// Image instructions of gfx90a (MIMG): AGPR data, even-aligned tuples; llvm-mc assembles them
// for tests/disasm/generate.sh.
	.text
	.globl images
	.p2align 8
	.type images,@function
images:
	image_load v[0:3], v4, s[8:15] dmask:0xf
	image_load a[0:1], v4, s[8:15] dmask:0x3 glc
	image_store v[2:3], v4, s[8:15] dmask:0x3 unorm slc
	image_atomic_add v5, v4, s[8:15] dmask:0x1 glc
	image_atomic_cmpswap v[6:7], v4, s[8:15] dmask:0x3 glc
	image_sample v[0:3], v4, s[8:15], s[16:19] dmask:0xf
	image_load v[0:1], v4, s[8:15] dmask:0xf d16
	image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf
	s_endpgm
