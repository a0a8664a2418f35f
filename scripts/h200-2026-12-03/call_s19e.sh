#!/usr/bin/env bash
# Session 19, GPU call S19e (2026-12-03): the final tree (pieces of a streamed tail run in reverse). (1) `host all` with nvcc's twin, timed (the run to
# commit: the streamed tail in the shape sweep); (2) the GPU tests of the figures it feeds: reading_c_gpu,
# line_choice_gpu, and gemm_bf16_gpu's wgmma case, with the time it needs.
# Pack: scripts/gpu/pack.sh s19e --tests wgemm_gpu,shapes_gpu,gemm_bf16_gpu,line_choice_gpu,reading_c_gpu --twin
set -u
CALL=call_s19e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s19e/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 300 all.log all
T=$W/new/tests
step 320 60 reading_c_gpu.log "$T/reading_c_gpu" --ignored --test-threads 1
step 380 60 line_choice_gpu.log "$T/line_choice_gpu" --ignored --test-threads 1
step 440 140 gemm_bf16_gpu.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-300
date -u; save
