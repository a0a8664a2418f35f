#!/usr/bin/env bash
# Session 17, GPU call S17d (2026-12-03): the tree of 5e2dcde plus line R5 (tuned FP32, 128x64x16 tiles, 4 stages) in
# the GEMM table, with the committed runs now packed (the tree is 40 MB: the pack and the GPU tests fit again).
# (1) `host all` with nvcc's twin, timed: the run the README links; (2) GPU tests: shapes_gpu's odd and decode shapes,
# gemm_bf16_gpu's wgmma case, wgemm_gpu's split-K and awkward sizes.
# Pack: scripts/gpu/pack.sh s17d --tests wgemm_gpu,shapes_gpu,gemm_bf16_gpu --twin
set -u
CALL=call_s17d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s17d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
grep -E "targets \(benchmarks" "$O/all.log" | cut -c1-420
grep -E "│ (BF16|FP32)" "$O/all.log" | awk -F'│' '{printf "%-5s %-20s %-5s %-6s %-5s %-10s %-10s %-7s %s\n",$2,$3,$4,$5,$6,$12,$13,$14,$16}'
save
step 330 90 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
step 420 90 gemm_bf16_gpu.log "$W/new/tests/gemm_bf16_gpu" --ignored --test-threads 1 the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
step 510 45 wgemm_split.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
step 550 45 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log $O/wgemm_*.log | cut -c1-300
date -u; save
