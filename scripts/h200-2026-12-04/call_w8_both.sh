#!/usr/bin/env bash
# Session 26: (1) the storer-warp W8's every-line check alone (call_w8_storers's awkward step ran out of time in the
# JIT test before reaching it); (2) the half-staged W8 (branch staged-bulk-epilogue, ddc99ab) under Nsight at the base
# clock and timed beside W1 at 4096³ and 8192³.
set -u
CALL=call_w8_both; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/storers/pack.tar.xz "$W/st"; unpack dist/w8half/pack.tar.xz "$W/new"; env_line
use_host "$W/st"
step 5 220 st_awkward.log "$W/st/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/st_awkward.log" | cut -c1-300
use_host "$W/new"
ncu_base 300 120 ncu_half_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 400 120 ncu_half_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
step 500 60 half_time_8192.log "$W/new/host" gemm_bf16 --variants W1,W8 --size 8192
grep -E '^│ (W1|W8|cuBLAS)|rc=' "$O/half_time_8192.log" | tr -s ' ' | cut -c1-240
date -u; save
