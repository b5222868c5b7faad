"""The gallery's tail sizes, one a kernel that has one: the gallery test runs each kernel at its default size and at
this one on every device, the sanitizer test at this one on one device (tests/test_gallery.py,
tests/test_sanitizer.py)."""

# sizes that are not a multiple of the kernel's tile: softmax 37 rows (tiles of 15 rows on the A2/A3: 15 + 15 + 7;
# of 20 on the 950: 20 + 17), RMSNorm 45 rows (8 blocks of 6 rows, the last of 3; tiles of 5 rows on the A2/A3: a
# 1-row tail tile), LayerNorm 13 rows, syncall_sum 131 DataBlock pairs, sigmoid 1001 floats (15 chunks of 64 and a
# 41-float tail; an unaligned last vector on the 950), clip_by_value 200003 elements (8 cores, 5 of them "big",
# two tiles each, the last one short; GM padded to 32 bytes), reduce_tiling 504 floats (its second regime: a
# counter-mode ReduceDataBlock whose last repeat has 56 lanes), greater_equal 4173 (7 cores of 544 elements, the
# last core 365, copied in and out rounded to 384), gelu_grad and log 100003 (big cores, several tiles, the last
# short), add_best_practice 13 rows (one core: three 4096-element copies and a 1024 tail; 8 cores of 1-2 rows), its
# scalar scenario 5 rows (a 4096 copy and a 1024 tail); gelu_reg 8000 floats (two cores of 4000: 62 vectors and a
# 32-lane UpdateMask tail); heaviside 12345 halves and heaviside_scalar 12345 floats
# (49 and 97 blocks of 512 bytes over 40 cores: 9 and 17 of them one block more, the last block past the input);
# swish and swish_half 100003 (8 cores, big and small, of a UB-filling tile and a short one); xlogy and xlogy_scalar
# 12352 floats and xlogy_broadcast 10112 halves (two full tiles and a tail; one full tile and a tail on the A2);
# sasum 295003 (per core a 20480-float tile, a 16384-float one, an 8-float DataCopyPad tile; 3 floats left over);
# ge_glu, ge_glu_aligned 997 rows (125 rows a core: 2 full groups and a tail group; the last core 122) and
# ge_glu_vreduce 50003 rows (6251 a core: one 6144-row group and 107; the last core 6246); reshape 100003 floats
# (UB-filling tiles and a reminder rounded up to 8 floats); add_rms_norm 531 rows (67 a core: a group of 64 rows and
# one of 3; the last core 62); is_finite and is_finite_bf16 100003 (8 cores of 12480 halves: a full tile and a short
# one, the last core 12643, its 310P short tile read rounded up); bitwise_and_int16 100003 and bitwise_and_int32 50003
# (big and small cores, the last tile short, GM padded to 32 bytes); addcmul, addcmul_bf16 200003 and addcmul_int32
# 50003 (several UB-filling tiles a core, the last short); argmax_llm and argmax_llm_half 37 rows (two blocks of 16 and
# one of 5); rotary_embedding and rotary_embedding_float 13 tokens (one block each); fake_quant 13 channels (5 of the 8
# cores two channels; on the A2/A3 a full tile and a partial one a channel);
# relu_grad* 30011 (3 cores of 10240 or 10112 elements; the last core's short tile rounded up to 256 bytes); selu*
# 40003 (8 cores of 5008 or 5024, the last 4947 or 4835: a DataCopyPad of a non-32-byte length, computed rounded up);
# hard_swish_grad* 50003 (8 cores of 6251 elements starting at unaligned GM bytes, the last 6246; each one tile whose
# count is not whole 64-element groups); mse_loss 60011 (8 cores of 7504 floats: two tiles each, the last core 7483)
# and mse_loss_sum_half 20011 (8 cores, one tile each: the GM workspace merge); mse_loss_none_bf16 20011;
# huber_loss 100003 and huber_loss_sum_half / _none_bf16 50003 (8 cores of 512-byte blocks, two prefetched tiles a core
# for the float mean, the last core's short tile copied by DataCopyPad); log_softmax_grad* 37 rows (7 tiles of 5 rows
# and a 2-row remainder on the eighth core) and log_softmax_grad_narrow 2403 rows (7 tiles of 301, one of 296);
# sync_batch_norm_gather_stats* 1003 channels (4 cores of 256 or 272 channels, the last core's short);
# bitwise_not_int16 and bitwise_not_int8 300003 (8 cores, big and small, of 2-3 UB tiles, the last core's last tile
# moving its real bytes by DataCopyPad) and bitwise_not_int32 100003 (2 tiles a core); arange and arange_int32 100003
# (three 4920-element tiles a core on the A2/A3, the last core's short tile leaving by DataCopyPad); right_shift_int32
# and right_shift_int16 3001 (8 cores of 376 or 375 elements from unaligned GM starts, the last repeat partial; the
# default 2000 runs on one core) and right_shift_scalar_int32 100003 (an odd size: the amount past the width, the
# sign fill; the default shifts by a valid amount); neg_int8, neg_int32, neg_bf16 300003 (8 cores, big and small, of
# 2-4 UB tiles, the last short);
# floor, floor_half, floor_bf16 100003 (8 cores of 512-byte blocks, big and small, 2 UB tiles a core, the last core's
# last tile a partial 512-byte block read past the input and copied out by DataCopyPad); nan_to_num and
# nan_to_num_bf16 100003 and nan_to_num_half 300003 (8 cores of 256-byte blocks, two tiles a core, the last short);
# is_pos_inf_half 200003 and is_pos_inf / is_pos_inf_bf16 20003 (8 cores of 512-byte multiples, the last core's last
# tile not a whole 256 bytes: its Compare lanes past the copy zeroed); real_complex64 and real_complex32 100003 (8
# cores of 128-byte blocks, several prefetched tiles, in-place GatherMask repeats over the last core's padding),
# real_complex64_single 2003 (one core, counter-mode GatherMask; the default 1001) and real_float 100003; round,
# round_half, round_bf16, round_int32 and round_decimals 100003 (8 cores of 32-byte blocks, UB-filling tiles, the last
# short; the counter-mode Round over a count that is not whole repeats); l2_loss and l2_loss_half 300003 (8 cores, two
# tiles each, the last core's last tile short of a whole block: its DataCopyPad dummy lanes) and l2_loss_single_bf16
# 5003 (one core, one short tile); lerp, lerp_half, lerp_bf16 200003 (8 cores of 32-byte blocks, big and small, 4-5
# UB-filling tiles, the last short); hardtanh_grad and hardtanh_grad_bf16 20003 and hardtanh_grad_half 130003 (the
# other kernel of each: the single-tile one on 8 cores of 512-byte multiples, the last short, and the double-buffered
# one); kl_div 100003 (8 cores of unaligned GM starts, several tiles), kl_div_mean_half 8000 (one core: a full tile
# and a short one summed) and kl_div_batchmean_bf16_log_target 100003 (8 cores, the workspace and SyncAll);
# approximate_equal, approximate_equal_half and approximate_equal_bf16 100003 (8 cores of 12504 or 12512 elements: a
# full 11056-element tile whose 256-byte rounded compare passes its count, and a short one; the last core shorter);
# is_close, is_close_half_equal_nan, is_close_bf16 and is_close_int32 100003 (8 cores from unaligned GM starts, 3 of
# 12501 elements and 5 of 12500: three tiles of 3328 (float, int32) or 3840 (16-bit) elements and a short one computed
# rounded up to 256 elements); exp, exp_half and exp_bf16 100003 (8 cores of 32-byte blocks, big and small, a
# UB-filling tile and a short one a core); softmax_grad and softmax_grad_half 13 rows of 1001 (5 cores of 2 rows, 3 of
# one; rows padded to 1008 by DataCopyPad) and softmax_grad_bf16 13 rows of 77 (padded to 80); reduce_max_v2 101 x 97
# floats, reduce_max_v2_half_axis0 301 x 33 halves and reduce_max_v2_axis1 203 x 50 floats (8 cores of 32-byte blocks,
# the last core's GlobalTensor cut inside its last block); relu6_d* 300003 (8 cores of 37888 elements, the last 34787:
# two or three UB tiles a core, the last short and no multiple of a vector); drop_out_v3_grad* 130003 (8 cores of
# 16384 elements, the last 15315: float in two tiles, of 15104 and 1280 or 211, the last VF step of 256 elements
# partial); angle_v2_int8 2977, angle_v2_int16 2993, angle_v2_int32 and angle_v2_int64 3001 (8 cores of 32-byte
# input blocks, big and small, the input not a whole block of the type or of 8 floats: the original's last-core move
# back; one short tile a core on the A2/A3, 64-element tiles on the 910, the last short); masked_select_v3* 100003 (8
# cores of 12501 or 12500 elements: a UB tile and a short one, one tile with no mask bit set, the last core's shorter);
# nll_loss and nll_loss_none_half 301 rows (8 cores of 38 rows, the last 35: the scalar path, GetValue per row; the
# default 1100 rows, 138 a core, takes the vector path);
# fused_add_rms_norm 403 rows of 200 floats and fused_add_rms_norm_half 403 rows of 208 halves (8 cores of 51 rows,
# the last 46: tiles of 38 (float) or 48 (half) rows and a short one, the Brcb's last repeat partial);
# population_count 300003 (8 cores of 37504 int16, two tiles each (31744 and 5760), the last core 37475: a DataCopyPad
# of a non-32-byte length) and population_count_uint16 1001 (single-buffered: 8 cores of 128, the last 105);
# square_sum_all 20011 (4 cores of 5003 or 5002 floats from unaligned GM starts: a 4096 tile and a short one whose
# last vector is partial; core 0's merge of 32 floats takes its tail-vector path, the deviation's zeroed lanes);
# non_finite_check 300007 (five tensors, the largest over three cores and in several UB chunks, the one-element
# last tensor's DataCopyPad with rightPadding), non_finite_check_half 30011 and non_finite_check_bf16 20011 (one
# chunk a piece, unaligned tensor ends);
# gcd_int32 66048 (8 cores of 8256: two 4096 tiles and a 64-element one, core 0's second tile the scalar
# fallback; tests/test_gcd.py runs it sanitized);
# sigmoid_regbase* 130003 (8 cores of 16256 elements, the last 16211: float in two tiles, of 15872 and 384 or 339,
# the 16-bit types in one; the last no multiple of a vector; kept small: the sanitized tail runs in the default
# suite); index_fill_d* 300003 (8 cores of 256-byte blocks, big
# and small, double-buffered float tiles of 7552 on the A2: 5 a core, the last short; GM padded to whole blocks);
# quantize and quantize_half 300007 (8 cores of 37501 elements from unaligned GM starts, the last 37500: UB tiles of
# 8960 (float) or 11264 (half) on the A2, the last short) and quantize_per_channel_bf16 18 * 1001 (18 rows of 1001
# over 6 cores of 3 rows, a tile a row);
# shrink and shrink_half 100003 (8 cores of 12501 from unaligned GM starts, the last 12496: float tiles of 10240 and
# a short one, half one tile; each core's last tile compared over lanes past its copy, the deviation's zeroes);
# data_format_dim_map 130560 (8 cores of 16320: two UB tiles of 7680 (950) or 5952 (A2/A3) and a short one, whole
# 64-element groups: D44) and data_format_dim_map_int64 31232 (8 cores of 3904, one tile each);
# sign_bits_unpack 300011 bytes (8 cores of 37504 or 37568, two buffers: 15 tiles of 2368 bytes and a short one on the
# A2) and sign_bits_unpack_half 30011 (8 cores, 5 of them one 64-byte block more, one buffer, a tile each);
# sign_bits_pack 300003 floats (8 cores, three tiles each, the last core's last tile 611 floats copied by DataCopyPad
# with 5 padding floats and compared as 640: the deviation's -1s) and sign_bits_pack_half 100003 (2 cores, two tiles
# each, the last 24739 halves padded by 13 and compared as 24832);
# dynamic_quant 427 rows of 700 (8 cores of 54 or 53 rows: two 25-row UB tiles and a 4- or 3-row remainder),
# dynamic_quant_bf16 13 rows of 1001 (5 cores of 2 rows, 3 of 1) and dynamic_quant_smooth_half 9 rows of 77 (one core
# of 2 rows);
# cross_entropy_loss 13 rows (5 cores of 2 rows, 3 of 1: front and tail cores), cross_entropy_loss_none_smoothing 37
# rows (5 cores of 5 rows, 3 of 4; the ignored row on core 0) and cross_entropy_loss_sum_big_c 9 rows of 50000 (one
# core of 2 rows, 7 of 1);
# diag_part 1001 x 1001 (126 sub-blocks of 8 over 8 cores, 6 of them 16 and 2 15, the last sub-block one element),
# diag_part_half 99 x 99 (7 cores of one 16-element sub-block, the last 3 elements: rows of 6 bytes padded to 32)
# and diag_part_int32 5 x 5 (one core, one short sub-block);
# relu_v2 300003 floats (8 cores of 37504, tiles of 9376 through the four-buffer TQueBind, the last core short) and
# relu_v2_int8 300003 (tiles of 16384 and a short one); relu_v2_int64 1544 (3 cores of 448 by Gather, a last core of
# 200 by the scalar unit);
# softplus* 200003 (past the single-buffer threshold: double-buffered tiles, 8 cores of 32-byte blocks, big and
# small, several tiles a core and a short last one);
# mish* 100003 (8 cores of 32-byte blocks, big and small: float two tiles a core, the 16-bit types one; each
# core's last tile compared over lanes past its count, the deviation's zeroes);
# soft_margin_loss and soft_margin_loss_half 100003 (8 cores of 12501 from unaligned GM starts, the last 12496: UB
# tiles of 6144 (float) or 8192 (half) on the A2 and a short one by DataCopyPad), soft_margin_loss_mean 100003 and
# soft_margin_loss_sum_half 50003 (one core: 19 tiles of 5440 floats or 8 of 7008 halves, the last short);
# group_norm 13 x 16 x 64 (52 groups over 8 cores, 4 of them 7), group_norm_half 3 x 32 x 48 (24 groups, 3 a core),
# group_norm_bf16_big_group 3 x 8 x 1024 (6 cores of one 4096-element group: tiles of 3072 and 1024 on the A2, a
# channel boundary inside the first) and group_norm_single 9 x 16 x 1 (144 one-element groups, 18 a core);
# reg_unalign_reduce_max 9 rows of 255 (cores of 4, 4 and 1 rows: the one-row core's padding a single lane);
# trace_v2 and trace_v2_half 13 x 18 (5 cores of 2 diagonal elements, 3 of 1); logical_and 450003 (past the
# single-buffer threshold: 8 cores of 56256 or 56224, two 24576-byte tiles widened in two parts and a short one
# widened into the TBuf's second half); bincount 4099 (8 cores of 513 or 512 elements, all read from GM by
# GetValue: no whole 4096 tile), bincount_int64 3001 (one core, no whole tile) and bincount_large_bins 7 (7 cores,
# core 0 alone scattering into GM);
# reg_align_* 1280 halves (5 vector pairs: scenario 4's five DATA_BLOCK_COPY steps, the others 10 or 20 steps),
# reg_interleave 384 (3 steps), reg_pack 192 (3 steps of 64), reg_merge_mode 456 (7 vectors and an 8-lane tail);
# logit* 20011 (3 cores of 6671 or 6670: one tile each, not a whole number of 64-float repeats); linear_index and
# linear_index_int64 3001 (8 cores of 376, the last 369), linear_index_dim0 7007 and linear_index_dim1_int64 91
# (3 cores of 31, the last 29: a piece of 8-element groups and a short last group);
# avg_pool3d_grad* 30011 (a plane longer than a UB part: two chunks a plane, the second short);
# atanh 300007, atanh_half 5, atanh_bf16 1001 and fills* 5 to 100000 (whole 512-byte blocks over the cores and a
# short last one; GM padded to 512 bytes), erfinv 17 (one core, a DataCopyPad of 68 bytes); equal* 4099 (big and
# small cores, compare counts rounded up to 256 bytes); reflection_pad1d_v2 37 rows of 9 (rows split over the cores
# with a remainder), pdist 6 x 100 and pdist_p0 3 x 130 (pairs dealt in blocks of 8, one partial); rms_norm_quant
# 9000 (one row a core and a tail row), clipped_swiglu 3 x 384 (rows over the cores, the last short),
# dynamic_block_quant 9000 (one row a core and a tail row whose column blocks spread over the cores); index_check*
# 20011 and 3001 (several UB batches a core, a short last one), cast_v3* 20011 (a big tail core, a GM SetValue tail),
# lp_norm_v3 20032 and its row / column variants 4848 and 4040 (per-core norms over uneven shares); get_ub_size*
# 100000 (a 63488-half tile and a 36512 tail), copy_ub2ub 192 and its row forms 7 rows, reg_auxscalar 2048,
# reg_mask_copy 288, reg_mask_select 64 (a tail vector each);
# apply_adagrad, apply_adagrad_half 100003 and apply_adagrad_bf16_no_update 30011 (8 cores of 512-element multiples,
# UB-filling tiles, the last core's last tile short of a whole vector: its zeroed load lanes); cross_v2, cross_v2_bf16,
# cross_v2_uint8 6 x 3001 (tiles of a component's run dealt over the cores, each component's last tile short) and
# cross_v2_one_step* 15009 (5003 vectors in tiles of 624 (uint8: 512), the last of 11 or 395); deep_norm 1003 rows
# and deep_norm_half 1003 rows (8 cores of 126, tiles of 63; the last core 121: 63 + 58; on the 310P rows of 100 halves
# end in a scalar-moved block) and deep_norm_bf16 263 rows (8 cores of 33, tiles of 16: 16 + 16 + 1; the last core 32);
# rsqrt 200003, rsqrt_bf16 200003, rsqrt_int32 200003, rsqrt_half and rsqrt_int8 300003, rsqrt_int16 and
# rsqrt_uint8 400003 and rsqrt_bool 800003 (past the single-buffer threshold: double-buffered tiles, 8 cores of
# 32-byte blocks, big and small, two or three full tiles a core and a short one); reduce_min_v2 901 rows of 100 and
# reduce_min_v2_axis0 301 rows of 300 (8 cores of 32-byte blocks, 4096-float tiles: two full and a short one, the last
# core's last block past the input), reduce_min_v2_axis1_half 1501 rows of 48 (an 8192-half tile and a short one a
# core); logdet 13 matrices of 16 x 16 (8 cores, 5 of them a second matrix) and logdet_blocked 2 matrices of 210 x 210
# (one core, the GM workspace slot reused); atomic_add_copy and atomic_max_copy 4000 halves a block
# (untiled: one larger tile), reg_cast_widen and reg_cast_narrow 320 (5 vectors), reg_pair_reduce 576 (9 vectors),
# create_vec_index 4000 (31 repeats of 128 int16 and a 32-element tail of CreateVecIndex's Adds);
# transpose 1280 (five 16 x 16 matrices, one launch each) and transpose_nchw2nhwc 336 (N = 7 images of [3, 2, 8]);
# softmax_v2 101 rows of 1000 floats (8 cores of 13 rows, the last 10: tiles of 12 rows and a 1-row tail),
# softmax_v2_half 3001 rows of 100 (376 a core: two 188-row tiles, the last core 369: 188 + 181),
# softmax_v2_bf16 1001 rows of 37 and softmax_v2_half_to_float 13 rows of 9000 (one-row tiles, 2 a core, the last 1);
# in_infer_v2 2 planes of 30011 (each plane's R over 4 cores: 7503 elements, one short tile with a partial vector),
# in_infer_v2_half 6 planes of 40003 (a 30208-half tile and a 9795 one) and in_infer_v2_many_planes 600 planes of 101;
# triu 5003 planes of 8 x 8 (21 groups of 239 planes, the last 223, over 8 cores: 3 or 2 groups a core, double
# buffered), tril_half 1001 planes of 11 x 11, tril_int8 3001 of 16 x 16, triu_int64 1001 of 5 x 6, triu_medium 37
# planes of 40 x 70 (13 groups of 3, the last 1), tril_medium_half 19 of 100 x 30 (7 groups of 3, the last 1),
# triu_all_zero / tril_all_input 6000 planes of 9 x 5 (8 cores of 33750 elements: a UB-filling chunk and a short one);
# foreach_lerp_scalar and _half 200003 (8 cores of 25000: two whole-vector chunks of 10560 floats and a short one,
# halves one chunk and a short), _bf16 100003; foreach_addcmul_scalar and its half / bf16 / int32 entries 100003 (a
# 7936-element chunk and a short one a core); foreach_norm 300003 floats (37500 a core: a 31680-float chunk and a
# short one, the second through the DIST_BRC_B32 slot load), foreach_norm_half_l1 200003, foreach_norm_bf16_inf 100003;
# floor_div and its int32 / int8 / uint8 / half / bf16 entries 100003 (8 cores of 32-byte blocks, big and small, 2-3
# tiles a core, the last short); onehot 61 indices (8 cores of one 8-index block, the last core's block past the
# input); maximum_v2 and its int32 / half entries 100003, maximum_v2_int16 / _bf16 / _int8 200003 (2 tiles a core; the
# bf16 and int8 tiles longer than the original's TBufs hold);
# add_intro 8 * 512 floats; add_reg_intro 4 * 960 (15 vectors a block);
# sync_all 8 * 24; tmp_buffer 1008; tensor_allocation_1 and reg_trait_div_int64 320; scatter_compat 496 (a random
# permutation at seed 1); gelu_hp_memory / gelu_hp_reg 21 rows (a 5-row last row block, a one-row last tile);
# reg_align_offset 1280 (ten steps, the last 3 of the tenth masked off);
# truncate_div and its half_float / int32 / int16 / int8 / bf16 entries 100003 (8 cores of 12544 elements, the last
# 12195: a UB tile and a short one whose 64-lane rounding passes the copy) and truncate_div_int64 2049 (3 cores of
# 704, the last 641, on the scalar unit); dot_v2 200003 and dot_v2_half 100003 (8 cores of 32-byte blocks, big and
# small: 6 or 2 tiles a core, the last short); accumulate_nv2 200003, its half / int8 entries 100003 and
# accumulate_nv2_int32_single 30011 (big and small cores of 32- or 512-byte blocks, GM padded); sign* 100003 (8 cores:
# a full tile, whose Sign runs in several counter-mode chunks and a tail chunk, and a short one); log_add_exp 60011
# (8 cores of 7502: a 5456-float tile and a short one) and log_add_exp_half 100003,
# log_add_exp_bf16_row 1003 rows of 48 (8 cores of 126 rows, the last 121) and log_add_exp_outer 97 rows of 48;
# hinge_loss 30011 and hinge_loss_half / _bf16 20011 (8 cores of 3752 or 3751 floats from unaligned GM starts, a 3272-
# float tile and a short one; one short 16-bit tile a core); threshold_v2 100003 (8 cores of 12512, the last 12419:
# one tile each whose 256-byte rounded compare passes the copy, zeroed first), threshold_v2_half 1000 (single-buffered
# 128-element cores, the last 104) and threshold_v2_bf16 50003; gaussian_nll_loss 60011 (8 cores of 7502 or 7501: a
# 4904-float tile and a short one, the workspace and SyncAll), gaussian_nll_loss_none_half 20011 and
# gaussian_nll_loss_sum_bf16_scalar_var 3001 (the broadcast var's SetValues between V_S / S_V pairs);
# threshold_grad_v2_d and its half / bf16 / int32 / int8 / uint8 entries 300003 (8 cores of 256-byte blocks, big and
# small, 2-6 tiles a core, the last short; GM padded to the block); foreach_div_scalar 200003 (the list's first
# tensor of 82002 floats in 15872-float chunks over cores whose ranges end inside tensors) and foreach_div_scalar_half /
# _bf16 40011 (short chunks whose last vector is partial); blend_face_bg_part_two and _uint8_bg 30011 (8 cores of 3752
# or 3751 elements from unaligned GM starts: a 2048-element tile and a short one padded to 32 bytes);
# to_absolute_b_box* 100000 (8 blocks of 12800 elements, the last 10400: two float tiles a former block, 12672 + 128;
# reversed: core ranges cut inside the 12500-element coordinate segments); background_replace and _uint8 100003 (8
# cores of 12500 elements, the last 12503: a 32-byte-rounded step and a backed-off 32-byte last step); iou_v2 and
# iou_v2_iof 1001 (8 cores of 128 boxes, the last 105: its tile's lanes past the copy zeroed), iou_v2_half 50007 (8
# cores of 2288-box tiles on the A2 / A3, 3 on the first six, 2 on the last two: the last core's second short) and
# iou_v2_iof_bf16 3001 (8 cores of 384, the last 313); grid_unnormal* 2 x 5003 (8 cores of 1251 elements, the last
# 1249: one tile each whose last 64-lane vector is partial, its lanes past the copy zeroed); bounding_box_encode*
# 4 x 3001 (8 cores of 1536 coordinates, the last 1252: 384 boxes a core through the scalar loops);
# hard_sigmoid_v2 and its half / bf16 60011 / 30011 (8 cores of 512-byte-aligned blocks, one short tile each, the
# last core shorter) and hard_sigmoid_v2_int32 30011 (two cores: 64 KiB a core); hard_shrink 100003 and
# hard_shrink_bf16 30011 (8 cores from unaligned GM starts, tiles not whole repeats: the lanes past zeroed) and
# hard_shrink_half 1001 (single-buffered cores of 126 halves, the last 119); apply_rms_prop 30011 and its half / bf16
# 20011 (8 block-aligned cores, the last short); relu_v3 30008 (4 cores of 512-element blocks, the last tile neither
# whole repeats nor whole mask blocks), relu_v3_half 1000 (one core) and relu_v3_int32 20008;
# transposev 3 rows (2880 floats: 8 cores of 360, one short tile each), transposev_half_4d 2 rows and transposev_int8
# 8 rows (288 bytes: 9 blocks, one core a block more);
# cosh 30011 and cosh_half 20011 (8 block-split cores, big and small, one short tile each; GM padded to the block);
# hard_shrink_grad 30011, hard_shrink_grad_half 1001 (single-buffered: the reduced ubFactor) and _bf16 20011 (8 cores
# from unaligned GM starts, one short tile each: the lanes past the copy zeroed for the whole-buffer compute);
# hard_sigmoid_grad_v2 30011, its half 1001 (single-buffered) and bf16 20011 (likewise);
# vf_axpy 1001 floats (15 vectors and a 41-lane UpdateMask tail; the copy rounds to 1008, the loads reach 1024, the
# lanes between zeroed), vf_reduce_* 37 rows of 250 (4 chunks a row, the last of 58 columns); square_diff 30011 and
# square_diff_half 20011 (8 cores of 32-byte blocks, big and small, GM padded to the block); softmax_membase 37 rows (5
# blocks of 8 rows, the last 5: tiles of 2, 2, 1); kv_rms_norm_rope_cache 61 tokens a batch (488 rows: 8 blocks of 61,
# tiles of 8 rows and a 5-row tail); rms_norm_quant_story 37 rows (8 blocks of 5 rows, the last of 2); sigmoid_custom
# 30011 and sigmoid_custom_half 20011 (8 cores, big and small; a tile of counter-mode chunks and a tail chunk);
# vf_broadcast_* 5 rows (the mid case 5 x 3) of 653 floats: 10 vectors and a 13-lane tail a row; as_strided* 5001
# (a [625, 4] view: 8 cores of 313 output elements, the last 309; the offset table appended to the tiling);
# iou_v2_not_aligned* 41 x 37 (37 bboxes against 41 gtboxes: 6 cores of 8 gtbox rows, the last 1 (half: 3 of 16,
# the last 9); bbox tiles of 8 (16), the last 5 spilling and its rows past the tile's end packed);
# nms_with_mask 520 boxes (GatherMasks of 260 repeats split in calls of 252 and 8);
# roi_align_v2 13 ROIs (8 cores: the first five two ROIs, the rest one);
# stack_group_points* 37 points (1110 outputs: 70 blocks of 16, the first 6 cores 9, the last block partial);
# is_nan, is_nan_half and is_nan_bf16 30011 (8 cores of 3840 elements, the last 3131: a DataCopyPad tile whose
# 128-lane Compare passes the copy, those lanes zeroed); celu and celu_alpha 30011 (8 cores of 3752 floats, the last
# 3747 by DataCopyPad) and celu_half 30011 (8 cores of 3760 halves, the last 3691); hard_swish 30011 (40 cores of
# 752 floats by DataCopy, the last 683 by DataCopyPad); scale 30011 (8 cores of 3752 or 3751 floats from unaligned
# GM starts), scale_trailing_half 30000 (30 rows of 1000 over 8 cores, 6 of them 4 rows) and scale_middle_bf16
# 9000 (9 rows of 1000: one core two rows, the scale index wrapping every 3 rows);
# gelu_v2, gelu_v2_tanh and gelu_v2_half 5000 (one core: a 4096-element tile and a 904-element one, not whole 64-lane
# repeats: the Duplicate + Compare branch, its count rounded up to 64);
# unpack 7800 ([13, 6, 100] floats: 8 cores of 1-2 rows, strided row tiles), unpack_gather_half 740 ([37, 4, 5]:
# 8 cores of 4-5 rows, one slab each) and unpack_scatter_int32 30003 ([1, 3, 10001]: 6 tiles over 6 cores, the
# 1809-element residues by DataCopyPad);
# bias_add 203 rows of 64 floats (8 cores of 1624: core 0 row-aligned takes the channel cache, the others FillBias
# on the scalar unit), bias_add_half_nchw 13 images (8 cores of 1274 halves: InnerSizeAdds with scalar heads and
# tails), bias_add_int32_kcycle 41 rows of 300 (big and small cores from unaligned channel phases, one short tile) and
# bias_add_bf16_nchw 13 images (as the half one, in float);
# arg_max_with_value 3 planes of (24, 1100) (4 cores of 103 or 104 output blocks, column tiles of 1024 and 76, three
# 8-row blocks), arg_max_with_value_half 3 of (40, 600) and _bf16 3 of (16, 700) (2 cores, big and small);
# arg_max_with_value_copy 16411 rows of 64 (1050304 floats: 8 cores of 16-block multiples, two tiles each);
# median 3 rows of 10007 floats (3 cores, two chunks a row), median_half 13 rows of 9000 (8 cores: two rows a core,
# the last core idle) and median_bf16 one row of 24576 (one core, three full chunks); median_big 3 rows of 30000
# (3 cores, four chunks, the last 5424), median_int32 9 rows of 9000 (8 cores launched: two rows on each of cores
# 0-3, one on core 4, the rest idle) and median_uint8 13 rows of 8500 (two chunks, the second 308 elements);
# the devkit examples run their fixed data (size_rule) and
# add_custom and leaky_relu, like their originals, take only totals that split into whole tiles
TAILS = {"softmax": 37 * 1024, "rmsnorm": 45 * 4096, "layernorm": 13 * 1024, "syncall_sum": 131 * 64,
         "sigmoid": 1001, "clip_by_value": 200003, "clip_by_value_bf16": 200003, "reduce_tiling": 504,
         "greater_equal": 4173, "greater_equal_float": 4173, "gelu_grad": 100003, "gelu_grad_float": 100003,
         "log": 100003, "log_half": 100003, "add_best_practice": 13 * 1024, "add_best_practice_scalar": 5 * 1024,
         "gelu_reg": 8000, "heaviside": 12345, "heaviside_scalar": 12345,
         "swish": 100003, "swish_half": 100003, "xlogy": 12352, "xlogy_scalar": 12352, "xlogy_broadcast": 10112,
         "sasum": 295003, "ge_glu": 997 * 200, "ge_glu_aligned": 997 * 256, "ge_glu_vreduce": 50003 * 2,
         "reshape": 100003, "add_rms_norm": 531 * 2500, "is_finite": 100003, "is_finite_bf16": 100003,
         "bitwise_and_int16": 100003, "bitwise_and_int32": 50003, "addcmul": 200003, "addcmul_bf16": 200003,
         "addcmul_int32": 50003, "argmax_llm": 37 * 512, "argmax_llm_half": 37 * 512,
         "rotary_embedding": 13, "rotary_embedding_float": 13, "fake_quant": 13 * 3000,
         "relu_grad": 30011, "relu_grad_half": 30011, "relu_grad_bf16": 30011, "relu_grad_int32": 30011,
         "relu_grad_int8": 30011, "relu_grad_uint8": 30011, "selu": 40003, "selu_half": 40003, "selu_bf16": 40003,
         "selu_int32": 40003, "selu_int8": 40003, "hard_swish_grad": 50003, "hard_swish_grad_half": 50003,
         "hard_swish_grad_bf16": 50003, "mse_loss": 60011, "mse_loss_sum_half": 20011, "mse_loss_none_bf16": 20011,
         "huber_loss": 100003, "huber_loss_sum_half": 50003, "huber_loss_none_bf16": 50003,
         "log_softmax_grad": 37 * 1024, "log_softmax_grad_padded": 37 * 1001, "log_softmax_grad_narrow": 2403 * 40,
         "sync_batch_norm_gather_stats": 1003, "sync_batch_norm_gather_stats_chunked": 1003,
         "bitwise_not_int16": 300003, "bitwise_not_int32": 100003, "bitwise_not_int8": 300003, "arange": 100003,
         "arange_int32": 100003, "right_shift_int32": 3001, "right_shift_int16": 3001,
         "right_shift_scalar_int32": 100003, "neg_int8": 300003, "neg_int32": 300003, "neg_bf16": 300003,
         "floor": 100003, "floor_half": 100003, "floor_bf16": 100003, "nan_to_num": 100003,
         "nan_to_num_half": 300003, "nan_to_num_bf16": 100003, "is_pos_inf_half": 200003, "is_pos_inf": 20003,
         "is_pos_inf_bf16": 20003, "real_complex64": 100003, "real_complex32": 100003,
         "real_complex64_single": 2003, "real_float": 100003, "round": 100003, "round_half": 100003,
         "round_bf16": 100003, "round_int32": 100003, "round_decimals": 100003, "l2_loss": 300003,
         "l2_loss_half": 300003, "l2_loss_single_bf16": 5003, "lerp": 200003, "lerp_half": 200003,
         "lerp_bf16": 200003, "hardtanh_grad": 20003, "hardtanh_grad_half": 130003, "hardtanh_grad_bf16": 20003,
         "kl_div": 100003, "kl_div_mean_half": 8000, "kl_div_batchmean_bf16_log_target": 100003,
         "approximate_equal": 100003, "approximate_equal_half": 100003, "approximate_equal_bf16": 100003,
         "is_close": 100003, "is_close_half_equal_nan": 100003, "is_close_bf16": 100003, "is_close_int32": 100003,
         "exp": 100003, "exp_half": 100003, "exp_bf16": 100003, "softmax_grad": 13 * 1001,
         "softmax_grad_half": 13 * 1001, "softmax_grad_bf16": 13 * 77, "reduce_max_v2": 101 * 97,
         "reduce_max_v2_half_axis0": 301 * 33, "reduce_max_v2_axis1": 203 * 50,
         "relu6_d": 300003, "relu6_d_half": 300003, "relu6_d_int32": 300003, "relu6_d_bf16": 300003,
         "drop_out_v3_grad": 130003, "drop_out_v3_grad_half": 130003, "drop_out_v3_grad_bf16": 130003,
         "angle_v2_int8": 2977, "angle_v2_int16": 2993, "angle_v2_int32": 3001, "angle_v2_int64": 3001,
         "masked_select_v3": 100003, "masked_select_v3_half": 100003, "masked_select_v3_int8": 100003,
         "masked_select_v3_int64": 100003,
         "nll_loss": 301, "nll_loss_none_half": 301, "fused_add_rms_norm": 403 * 200,
         "fused_add_rms_norm_half": 403 * 208, "population_count": 300003, "population_count_uint16": 1001,
         "square_sum_all": 20011, "non_finite_check": 300007, "non_finite_check_half": 30011,
         "non_finite_check_bf16": 20011, "gcd_int32": 66048,
         "reg_unalign_reduce_max": 9 * 255, "sigmoid_regbase": 130003, "sigmoid_regbase_half": 130003,
         "sigmoid_regbase_bf16": 130003, "index_fill_d": 300003, "index_fill_d_half": 300003,
         "index_fill_d_bf16": 300003, "quantize": 300007, "quantize_half": 300007,
         "quantize_per_channel_bf16": 18 * 1001, "shrink": 100003, "shrink_half": 100003,
         "data_format_dim_map": 130560, "data_format_dim_map_int64": 31232,
         "sign_bits_unpack": 300011, "sign_bits_unpack_half": 30011, "sign_bits_pack": 300003,
         "sign_bits_pack_half": 100003, "cross_entropy_loss": 13 * 13192,
         "cross_entropy_loss_none_smoothing": 37 * 1000, "cross_entropy_loss_sum_big_c": 9 * 50000,
         "diag_part": 1001 * 1001, "diag_part_half": 99 * 99, "diag_part_int32": 5 * 5,
         "relu_v2": 300003, "relu_v2_int8": 300003, "relu_v2_int64": 1544,
         "softplus": 200003, "softplus_half": 200003, "softplus_bf16": 200003,
         "mish": 100003, "mish_half": 100003, "mish_bf16": 100003,
         "soft_margin_loss": 100003, "soft_margin_loss_mean": 100003, "soft_margin_loss_half": 100003,
         "soft_margin_loss_sum_half": 50003, "group_norm": 13 * 1024, "group_norm_half": 3 * 1536,
         "group_norm_bf16_big_group": 3 * 8192, "group_norm_single": 9 * 16,
         "dynamic_quant": 427 * 700, "dynamic_quant_bf16": 13 * 1001, "dynamic_quant_smooth_half": 9 * 77,
         "trace_v2": 13, "trace_v2_half": 13, "logical_and": 450003, "bincount": 4099, "bincount_int64": 3001,
         "bincount_large_bins": 7, "reg_align_post_update": 1280, "reg_align_addr_reg": 1280,
         "reg_align_data_block": 1280, "reg_align_broadcast": 1280, "reg_align_upsample": 1280,
         "reg_interleave": 384, "reg_pack": 192, "reg_merge_mode": 456,
         "logit": 20011, "logit_half": 20011, "logit_bf16": 20011,
         "linear_index": 3001, "linear_index_int64": 3001, "linear_index_dim0": 7 * 1001,
         "linear_index_dim1_int64": 7 * 13,
         "avg_pool3d_grad": 30011, "avg_pool3d_grad_half": 30011, "avg_pool3d_grad_bf16_disjoint": 30011,
         "atanh": 300007, "atanh_half": 5, "atanh_bf16": 1001, "erfinv": 17, "fills": 5, "fills_half": 1001,
         "fills_bf16": 3, "fills_int8": 100000,
         "equal": 4099, "equal_half": 4099, "equal_int32": 4099, "equal_int8": 4099,
         "reflection_pad1d_v2": 37 * 9, "pdist": 6 * 100, "pdist_p0": 3 * 130,
         "rms_norm_quant": 9000, "clipped_swiglu": 3 * 384, "dynamic_block_quant": 9000,
         "index_check": 20011, "index_check_int64": 20011, "index_check_out_of_range": 3001, "cast_v3": 20011,
         "cast_v3_half_uint8": 20011, "cast_v3_half_int8": 20011, "cast_v3_half_bool": 20011, "lp_norm_v3": 20032,
         "lp_norm_v3_min_rows_half": 4848, "lp_norm_v3_max_cols": 4040,
         "get_ub_size": 100000, "get_ub_size_runtime": 100000, "copy_ub2ub": 192, "copy_ub2ub_rows": 7,
         "copy_ub2ub_counter": 7, "reg_auxscalar": 2048, "reg_mask_copy": 288, "reg_mask_select": 64,
         "apply_adagrad": 100003, "apply_adagrad_half": 100003, "apply_adagrad_bf16_no_update": 30011,
         "cross_v2": 6 * 3001, "cross_v2_bf16": 6 * 3001, "cross_v2_uint8": 6 * 3001, "cross_v2_one_step": 15009,
         "cross_v2_one_step_half": 15009, "cross_v2_one_step_int16": 15009, "cross_v2_one_step_uint8": 15009,
         "deep_norm": 1003 * 200, "deep_norm_half": 1003 * 100, "deep_norm_bf16": 263 * 333,
         "rsqrt": 200003, "rsqrt_half": 300003, "rsqrt_bf16": 200003, "rsqrt_int32": 200003, "rsqrt_int16": 400003,
         "rsqrt_int8": 300003, "rsqrt_uint8": 400003, "rsqrt_bool": 800003, "reduce_min_v2": 901 * 100,
         "reduce_min_v2_axis0": 301 * 300, "reduce_min_v2_axis1_half": 1501 * 48, "logdet": 13 * 256,
         "logdet_blocked": 2 * 210 * 210,
         "atomic_add_copy": 4000, "atomic_max_copy": 4000, "reg_cast_widen": 320, "reg_cast_narrow": 320,
         "reg_pair_reduce": 576, "create_vec_index": 4000,
         "transpose": 1280, "transpose_nchw2nhwc": 336,
         "softmax_v2": 101 * 1000, "softmax_v2_half": 3001 * 100, "softmax_v2_bf16": 1001 * 37,
         "softmax_v2_half_to_float": 13 * 9000, "in_infer_v2": 2 * 30011, "in_infer_v2_half": 6 * 40003,
         "in_infer_v2_many_planes": 600 * 101, "triu": 5003 * 64, "tril_half": 1001 * 121, "tril_int8": 3001 * 256,
         "triu_int64": 1001 * 30, "triu_medium": 37 * 2800, "tril_medium_half": 19 * 3000,
         "triu_all_zero": 6000 * 45, "tril_all_input": 6000 * 45,
         "foreach_lerp_scalar": 200003, "foreach_lerp_scalar_half": 200003, "foreach_lerp_scalar_bf16": 100003,
         "foreach_addcmul_scalar": 100003, "foreach_addcmul_scalar_half": 100003,
         "foreach_addcmul_scalar_bf16": 100003, "foreach_addcmul_scalar_int32": 100003, "foreach_norm": 300003,
         "foreach_norm_half_l1": 200003, "foreach_norm_bf16_inf": 100003,
         "floor_div": 100003, "floor_div_int32": 100003, "floor_div_int8": 100003, "floor_div_uint8": 100003,
         "floor_div_half": 100003, "floor_div_bf16": 100003, "onehot": 61, "onehot_depth64": 61,
         "maximum_v2": 100003, "maximum_v2_int32": 100003, "maximum_v2_int16": 200003, "maximum_v2_half": 100003,
         "maximum_v2_bf16": 200003, "maximum_v2_int8": 200003,
         "add_intro": 8 * 512, "add_reg_intro": 4 * 960, "sync_all": 8 * 24, "tmp_buffer": 1008,
         "tensor_allocation_1": 320, "reg_trait_div_int64": 320, "scatter_compat": 496,
         "gelu_hp_memory": 21 * 512, "gelu_hp_reg": 21 * 512, "reg_align_offset": 1280,
         "truncate_div": 100003, "truncate_div_half_float": 100003, "truncate_div_int32": 100003,
         "truncate_div_int16": 100003, "truncate_div_int8": 100003, "truncate_div_bf16": 100003,
         "truncate_div_int64": 2049, "dot_v2": 200003, "dot_v2_half": 100003, "accumulate_nv2": 200003,
         "accumulate_nv2_half": 100003, "accumulate_nv2_int8": 100003, "accumulate_nv2_int32_single": 30011,
         "sign": 100003, "sign_half": 100003, "sign_bf16": 100003, "sign_int32": 100003, "sign_int16": 100003,
         "log_add_exp": 60011, "log_add_exp_half": 100003, "log_add_exp_bf16_row": 1003 * 48,
         "log_add_exp_outer": 97 * 48,
         "hinge_loss": 30011, "hinge_loss_half": 20011, "hinge_loss_bf16": 20011, "threshold_v2": 100003,
         "threshold_v2_half": 1000, "threshold_v2_bf16": 50003, "gaussian_nll_loss": 60011,
         "gaussian_nll_loss_none_half": 20011, "gaussian_nll_loss_sum_bf16_scalar_var": 3001,
         "threshold_grad_v2_d": 300003, "threshold_grad_v2_d_half": 300003, "threshold_grad_v2_d_bf16": 300003,
         "threshold_grad_v2_d_int32": 300003, "threshold_grad_v2_d_int8": 300003, "threshold_grad_v2_d_uint8": 300003,
         "foreach_div_scalar": 200003, "foreach_div_scalar_half": 40011, "foreach_div_scalar_bf16": 40011,
         "blend_face_bg_part_two": 30011, "blend_face_bg_part_two_uint8_bg": 30011,
         "to_absolute_b_box": 100000, "to_absolute_b_box_half": 100000, "to_absolute_b_box_reversed": 100000,
         "to_absolute_b_box_reversed_half": 100000, "background_replace": 100003, "background_replace_uint8": 100003,
         "iou_v2": 1001, "iou_v2_half": 50007, "iou_v2_iof_bf16": 3001, "iou_v2_iof": 1001,
         "grid_unnormal": 2 * 5003, "grid_unnormal_half_align_corners": 2 * 5003,
         "bounding_box_encode": 4 * 3001, "bounding_box_encode_half": 4 * 3001,
         "hard_sigmoid_v2": 60011, "hard_sigmoid_v2_half": 30011, "hard_sigmoid_v2_bf16": 30011,
         "hard_sigmoid_v2_int32": 30011, "hard_shrink": 100003, "hard_shrink_half": 1001, "hard_shrink_bf16": 30011,
         "apply_rms_prop": 30011, "apply_rms_prop_half": 20011, "apply_rms_prop_bf16": 20011, "relu_v3": 30008,
         "relu_v3_half": 1000, "relu_v3_int32": 20008,
         "transposev": 3 * 960, "transposev_half_4d": 2 * 1280, "transposev_int8": 8 * 36,
         "cosh": 30011, "cosh_half": 20011,
         "hard_shrink_grad": 30011, "hard_shrink_grad_half": 1001, "hard_shrink_grad_bf16": 20011,
         "hard_sigmoid_grad_v2": 30011, "hard_sigmoid_grad_v2_half": 1001, "hard_sigmoid_grad_v2_bf16": 20011,
         "vf_axpy": 1001, "vf_reduce_sum_ar": 37 * 250, "vf_reduce_max_ar": 37 * 250, "vf_reduce_sum_ra": 37 * 250,
         "vf_reduce_max_ra": 37 * 250, "vf_reduce_sum_binary_ar": 37 * 250, "square_diff": 30011,
         "square_diff_half": 20011, "softmax_membase": 37, "kv_rms_norm_rope_cache": 61, "rms_norm_quant_story": 37,
         "sigmoid_custom": 30011, "sigmoid_custom_half": 20011,
         "vf_broadcast_head": 5, "vf_broadcast_mid": 5, "vf_broadcast_tail": 5, "vf_broadcast_distbrc": 5,
         "as_strided": 5001, "as_strided_int32": 5001, "as_strided_half": 5001,
         "iou_v2_not_aligned": 41 * 37, "iou_v2_not_aligned_half": 41 * 37,
         "iou_v2_not_aligned_iof_bf16": 41 * 37, "iou_v2_not_aligned_iof": 41 * 37,
         "nms_with_mask": 520, "roi_align_v2": 13,
         "stack_group_points": 37, "stack_group_points_half": 37,
         "is_nan": 30011, "is_nan_half": 30011, "is_nan_bf16": 30011, "celu": 30011, "celu_alpha": 30011,
         "celu_half": 30011, "hard_swish": 30011,
         "scale": 30011, "scale_trailing_half": 30000, "scale_middle_bf16": 9000, "gelu_v2": 5000,
         "gelu_v2_tanh": 5000, "gelu_v2_half": 5000, "unpack": 7800, "unpack_gather_half": 740,
         "unpack_scatter_int32": 30003,
         "bias_add": 203 * 64, "bias_add_half_nchw": 13 * 784, "bias_add_int32_kcycle": 41 * 300,
         "bias_add_bf16_nchw": 13 * 784,
         "arg_max_with_value": 3 * 24 * 1100, "arg_max_with_value_half": 3 * 40 * 600,
         "arg_max_with_value_bf16": 3 * 16 * 700, "arg_max_with_value_copy": 16411 * 64,
         "median": 3 * 10007, "median_half": 13 * 9000,
         "median_bf16": 24576, "median_big": 3 * 30000, "median_int32": 9 * 9000, "median_uint8": 13 * 8500}
