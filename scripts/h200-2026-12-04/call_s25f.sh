#!/usr/bin/env bash
# Session 25, GPU call S25f (2026-12-04): W8 with fewer, larger bulk stores: each warp stages 128 columns of its 16
# rows at a time in one buffer (rows 544 bytes apart) and stores each row's 512 bytes with one bulk copy, 256 copies
# a tile against S25d's 1024 of 128 bytes. Nsight Compute at the base clock, W8 and cuBLAS, at 4096³ and 8192³; then
# every line checked element by element at the awkward sizes.
# Pack: scripts/gpu/pack.sh s25f --tests wgemm_gpu; sent with results/ set aside.
set -u
CALL=call_s25f; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25f/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
ncu_base 100 150 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 200 150 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
step 300 200 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
date -u; save
