#!/usr/bin/env bash
# Prepared in session 25 (2026-12-04), run in session 26 (2026-12-04, 21:05 UTC; logs results/2026-12-04-h200-s26/logs/w8_storers). Branch storer-warps: W8
# (W1 with a 3-slot ring) whose consumer warps store the second 128 columns of their rows themselves and hand the
# first 128 through a staging buffer to the producer warpgroup's three idle warps, which store them with ordinary
# 16-byte stores while the consumers run the next tile's MMAs (no TMA stores: S25d and S25f found the producer's loads
# waiting behind those). (1) wgemm_gpu: the JIT's report and every line checked at the awkward sizes, split-K and
# streamed tails, the same bits every launch; (2) Nsight Compute at the base clock, W8 and cuBLAS at 4096³ and
# 8192³ (S25a: W1 300,812 vs 295,116 cycles; without C 277,682); (3) `host gemm_bf16 --variants W1,W8` at both sizes.
# Pack: scripts/gpu/pack.sh storers --tests wgemm_gpu; sent with results/ set aside.
set -u
CALL=call_w8_storers; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/storers/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 200 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_jit_reports every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
ncu_base 260 150 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 330 150 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
for s in 4096 8192; do
  step 420 90 "time_$s.log" "$W/new/host" gemm_bf16 --variants W1,W8 --size "$s"
  grep -E '^│ (W1|W8|cuBLAS)|rc=' "$O/time_$s.log" | tr -s ' ' | cut -c1-240
done
step 520 240 cut.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/cut.log" | cut -c1-300
date -u; save
