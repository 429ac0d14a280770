// Image instructions of GFX10.3 (MIMG): one-tuple and NSA addresses, every DIM kind; llvm-mc
// assembles them for tests/disasm/generate.sh.
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
	image_sample_d v[0:3], [v20, v21, v22, v23, v24, v25, v26, v27, v28], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D
	image_sample_l v[0:1], [v4, v7, v9], s[8:15], s[16:19] dmask:0x3 dim:SQ_RSRC_IMG_2D
	image_sample_c_lz v0, v[4:6], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
	image_gather4 v[0:3], v[4:5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
	image_sample v[0:4], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_CUBE a16 tfe
	image_sample v[0:1], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D d16
	image_atomic_add v5, v[4:5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D glc
	image_atomic_cmpswap v[6:7], v4, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D glc
	image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D
	image_msaa_load v[0:3], v[4:7], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_MSAA_ARRAY
	image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]
	image_bvh64_intersect_ray v[4:7], v[9:20], s[4:7]
	image_bvh_intersect_ray v[4:7], v[9:16], s[4:7] a16
	image_bvh_intersect_ray v[4:7], [v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19], s[4:7]
	image_bvh64_intersect_ray v[4:7], [v9, v10, v11, v12, v13, v14, v15, v16, v17], s[4:7] a16
	// Words llvm-mc will not assemble from text, as llvm-objdump prints them (from random-word
	// checks, scripts/disasm/check_memory.py): a gather4 with TFE whose two-register address
	// starts at v255: the data is widened to five registers, the address kept as first decoded;
	// and an NSA form whose data would run past v255 (three NSA dwords): the first decoding,
	// one data register and eleven addresses, is kept whole.
	.long 0xf12170c0, 0x66206cff
	.long 0xf0e80fc6, 0x8a80ff9a, 0x0af45de4, 0xcd1f5ccd, 0x3f17b560
	s_endpgm
