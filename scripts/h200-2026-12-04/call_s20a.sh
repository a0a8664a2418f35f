#!/usr/bin/env bash
# Session 20, GPU call S20a (2026-12-04): the final kernels of session 19 (43bd5cb: the plain K loop back on the
# uniform datapath, the streamed tail in a build of its own), first GPU run. (1) `host all` with nvcc's twin, timed
# (the run to commit); (2) the GPU tests of the figures it feeds: reading_c_gpu, line_choice_gpu, and gemm_bf16_gpu's
# wgmma case.
# Pack: scripts/gpu/pack.sh s20a --tests wgemm_gpu,shapes_gpu,gemm_bf16_gpu,line_choice_gpu,reading_c_gpu --twin
set -u
CALL=call_s20a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s20a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 300 all.log all
T=$W/new/tests
step 320 60 reading_c_gpu.log "$T/reading_c_gpu" --ignored --test-threads 1
step 380 60 line_choice_gpu.log "$T/line_choice_gpu" --ignored --test-threads 1
step 440 140 gemm_bf16_gpu.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-300
date -u; save
