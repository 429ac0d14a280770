// Image instructions of GFX11 (MIMG): one-tuple and NSA addresses, the last NSA slot a tuple;
// llvm-mc assembles them for tests/disasm/generate.sh.
	.text
	.globl images
	.p2align 8
	.type images,@function
images:
	image_load v[0:3], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D
	image_load v[0:3], [v4, v9], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D
	image_load v[0:3], [v4, v9, v12], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D unorm glc
	image_store v[0:1], v[4:6], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D_ARRAY slc dlc
	image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
	image_sample_d v[0:3], [v20, v22, v24, v26, v[28:32]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D
	image_sample_d v[0:3], v[20:28], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D
	image_sample_l v[0:1], [v4, v7, v9], s[8:15], s[16:19] dmask:0x3 dim:SQ_RSRC_IMG_2D
	image_gather4 v[0:3], v[4:5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
	image_sample v[0:4], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_CUBE a16 tfe
	image_sample v[0:1], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D d16
	image_atomic_add v5, v[4:5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D glc
	image_atomic_cmpswap v[6:7], v4, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D glc
	image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D
	image_msaa_load v[0:3], v[4:7], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY
	image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]
	image_bvh_intersect_ray v[4:7], v[9:16], s[4:7] a16
	image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s[4:7]
	image_bvh64_intersect_ray v[4:7], [v[9:10], v11, v[12:14], v[15:17], v[18:20]], s[4:7]
	// Words llvm-mc will not assemble from text, as llvm-objdump prints them (from random-word
	// checks, scripts/disasm/check_memory.py): NSA forms whose last address tuple would run
	// past v255: the first decoding, one data register and five address slots, is kept whole.
	.long 0xf107abcb, 0x3080000e, 0xff9c19e6
	.long 0xf1119349, 0x620f7c55, 0xfcb8cddf
	s_endpgm
