#!/usr/bin/env bash
# Prepared in session 25 (2026-12-04), its Nsight and 8192³ steps run in session 26 by call_w8_both.sh (logs results/2026-12-04-h200-s26/logs/w8_both): W8 with half of each warp's
# rows stored by its own lanes first and the other half staged and bulk-stored last, so that the TMA stores that
# drain during the next tile are half of S25f's. (1) wgemm_gpu: the JIT's report, every line checked at the awkward
# sizes, split-K and streamed tails; (2) Nsight Compute at the base clock, W8 and cuBLAS at 4096³ and 8192³ (S25a has
# W1's: 300,812 vs 295,116 and, without C, 277,682); (3) `host gemm_bf16 --variants W1,W8` at both sizes.
# Pack (branch staged-bulk-epilogue): scripts/gpu/pack.sh w8half --tests wgemm_gpu; sent with results/ set aside.
set -u
CALL=call_w8_half_staged; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/w8half/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
ncu_base 100 150 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 200 150 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
for s in 4096 8192; do
  step 320 90 "time_$s.log" "$W/new/host" gemm_bf16 --variants W1,W8 --size "$s"
  grep -E '^│ (W1|W8|cuBLAS)|rc=' "$O/time_$s.log" | tr -s ' ' | cut -c1-240
done
step 420 170 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
step 560 200 cut.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/cut.log" | cut -c1-300
date -u; save
