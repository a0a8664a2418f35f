#!/usr/bin/env bash
# Session 18, GPU call S18d (2026-12-03): the final tree (W5 out of the table; the cluster pieces kept). (1) how many
# clusters of two of S18c's W5 the driver lets be resident at once (scripts/gpu/max_clusters.py on that build's
# sm_90a PTX, carried as dist/s18d-extra); (2) `host all` with nvcc's twin, timed; (3) the GPU tests: wgemm_gpu at
# awkward sizes and split-K, shapes_gpu's odd and decode shapes, reading_c_gpu, line_choice_gpu, gemm_bf16_gpu's
# wgmma case.
# Pack: scripts/gpu/pack.sh s18d --tests wgemm_gpu,shapes_gpu,reading_c_gpu,line_choice_gpu,gemm_bf16_gpu --twin
set -u
CALL=call_s18d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s18d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
xz -dc dist/s18d-extra/sm90a_w5.ptx.xz > "$W/w5.ptx"
step 5 60 max_clusters.log python3 scripts/gpu/max_clusters.py "$W/w5.ptx" wgemm_bm128_bn256_bk64_s4_c2_x2 384 197696
cat "$O/max_clusters.log"
host_all 70 300 all.log all
T=$W/new/tests
step 330 60 reading_c_gpu.log "$T/reading_c_gpu" --ignored --test-threads 1
step 360 60 line_choice_gpu.log "$T/line_choice_gpu" --ignored --test-threads 1
step 390 60 wgemm_awkward.log "$T/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
step 440 60 wgemm_split.log "$T/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
step 490 60 shapes_gpu.log "$T/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
step 540 50 gemm_bf16_gpu.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log $O/wgemm_*.log | cut -c1-300
date -u; save
