#!/usr/bin/env bash
# Session 25, GPU call S25d (2026-12-04): line W8 (W1 with a 3-slot ring, C staged through shared memory and written
# by bulk stores that drain while the next tile's MMAs run). (1) wgemm_gpu: the JIT's report, every line checked
# element by element at the awkward sizes, cut (split-K) and streaming its tail; (2) `host gemm_bf16` W1 and W8
# beside cuBLAS (and nvcc's twin) at 4096³ and 8192³; (3) Nsight Compute at the base clock, W8 and cuBLAS.
# Pack: scripts/gpu/pack.sh s25d --tests wgemm_gpu --twin; sent with results/ set aside.
set -u
CALL=call_s25d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 5 300 wgemm_gpu.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  the_jit_reports every_wgemm_line_passes_the_check the_split_k_lines the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=|^test " "$O/wgemm_gpu.log" | cut -c1-300
i=0
for s in 4096 8192 4096; do
  i=$((i + 1))
  step 420 90 "time_${s}_$i.log" "$H" gemm_bf16 --variants W1,W8 --size "$s" \
    --compare "$TW/twin.cubin" --compare-caps "$TW" --compare-label nvcc
  grep -E '^│ (W1|W8|cuBLAS)|rc=|FAIL|fail' "$O/time_${s}_$i.log" | tr -s ' ' | cut -c1-240
done
ncu_base 470 150 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 530 150 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
date -u; save
