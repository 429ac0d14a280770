// Image instructions of GFX12 (VIMAGE, VSAMPLE): address slots, the last a tuple; th and
// scope; llvm-mc assembles them for tests/disasm/generate.sh.
	.text
	.globl images
	.p2align 8
	.type images,@function
images:
	image_load v[0:3], [v4, v9], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D
	image_load v[0:3], [v4, v9, v12], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D th:TH_LOAD_NT scope:SCOPE_SE
	image_load v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D
	image_store v[0:1], [v4, v5, v6], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D_ARRAY
	image_sample v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
	image_sample_d v[0:3], [v20, v22, v24, v[26:31]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D
	image_sample_l v[0:1], [v4, v7, v9], s[8:15], s[16:19] dmask:0x3 dim:SQ_RSRC_IMG_2D
	image_gather4 v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
	image_sample v[0:4], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_CUBE a16 tfe
	image_sample v[0:1], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D d16
	image_atomic_add_uint v5, [v4, v5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN
	image_atomic_cmpswap v[6:7], v4, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D th:TH_ATOMIC_RETURN
	image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D
	image_msaa_load v[0:3], [v4, v5, v6, v7], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY
	image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s[4:7]
	image_bvh64_intersect_ray v[4:7], [v[9:10], v11, v[12:14], v[15:17], v[18:20]], ttmp[8:11]
	s_endpgm
