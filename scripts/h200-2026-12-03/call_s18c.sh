#!/usr/bin/env bash
# Session 18, GPU call S18c (2026-12-03): line W5 (W1's tile in clusters of two: each block loads half of the pair's
# slice of B and multicasts it to both). (1) wgemm_gpu at awkward sizes, every line (W5's first run); (2) wgemm_gpu's
# lines beside cuBLAS at 2048x8192x1024, 4096³, 8192³ (C read and not); (3) `host gemm_bf16 --variants W1,W5` at the
# same sizes, interleaved with cuBLAS.
# Pack: scripts/gpu/pack.sh s18c --tests wgemm_gpu
set -u
CALL=call_s18c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s18c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 150 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "test result|FAILED|panicked|rc=" "$O/wgemm_awkward.log" | cut -c1-400 | head -20
if grep -q "test result: ok" "$O/wgemm_awkward.log"; then
  step 170 150 wgemm_large.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture every_wgemm_line_beside_cublas_at_large_sizes
  grep -E "^(W1|W5|cuBLAS)|test result|rc=" "$O/wgemm_large.log" | cut -c1-140
  for s in 2048x8192x1024 4096 8192; do
    step 330 80 "bf16_$s.log" "$W/new/host" gemm_bf16 --variants W1,W5 --size "$s"
    grep -E "│ (W1|W5|cuBLAS)" "$O/bf16_$s.log" | cut -c1-220
  done
fi
date -u; save
