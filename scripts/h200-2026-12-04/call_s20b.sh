#!/usr/bin/env bash
# Session 20, GPU call S20b (2026-12-04; planned as S19f): the final kernels (two builds of the consumer loop, the plain one back on the
# uniform datapath): (1) the streamed tail timed against the tail dealt whole again (wgemm_gpu, alternating rounds);
# (2) every element at the streamed shapes, at split-K's and at the awkward sizes; (3) W1 beside cuBLAS at
# 2048x8192x1024, where K is short and the loop's per-slice instructions count most (0.93 in S19b and S19e).
# Pack: the pack of S20a (scripts/gpu/pack.sh s20a --tests wgemm_gpu,shapes_gpu,gemm_bf16_gpu,line_choice_gpu,reading_c_gpu --twin)
set -u
CALL=call_s20b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s20a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
T=$W/new/tests
step 10 120 wgemm_ab.log "$T/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tail_timed
grep -h -E "W[0-9] at|test result|FAILED|panicked|rc=" "$O/wgemm_ab.log" | sed 's/^test .*\.\.\. //' | cut -c1-300
step 130 60 wgemm_tail.log "$T/wgemm_gpu" --ignored --test-threads 1 the_streamed_tails
step 180 60 wgemm_split.log "$T/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
step 230 90 wgemm_awkward.log "$T/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "test result|FAILED|panicked|rc=" "$O"/wgemm_tail.log "$O"/wgemm_split.log "$O"/wgemm_awkward.log | cut -c1-300
step 300 60 bf16_2048x8192x1024.log "$W/new/host" gemm_bf16 --variants W1 --size 2048x8192x1024
grep -E "│ (W1|cuBLAS)|rc=" "$O/bf16_2048x8192x1024.log" | tr -s ' ' | cut -c1-260
date -u; save
