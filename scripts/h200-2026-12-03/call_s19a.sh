#!/usr/bin/env bash
# Session 19, GPU call S19a (2026-12-03): the streamed tail (stream-K for the last partial wave). (1) its
# GPU test: every element and the same bits at shapes where each line streams; split-K's test again (the units now
# meet through the same slots code); (2) `host gemm_bf16 --variants W1` at 8192^3, 4096x14336x4096 and
# 16384x4096x4096, where W1 streams, beside cuBLAS (per second and per clock); (3) shapes_gpu's odd and decode shapes.
# Pack: scripts/gpu/pack.sh s19a --tests wgemm_gpu,shapes_gpu,gemm_bf16_gpu,line_choice_gpu,reading_c_gpu --twin
set -u
CALL=call_s19a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s19a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
T=$W/new/tests
step 10 90 wgemm_tail.log "$T/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tails
grep -h -E "tail tiles|test result|FAILED|panicked|rc=" "$O/wgemm_tail.log" | cut -c1-300 | head -20
step 100 80 wgemm_split.log "$T/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
grep -h -E "test result|FAILED|panicked|rc=" "$O/wgemm_split.log" | cut -c1-300 | head
if grep -q "test result: ok" "$O/wgemm_tail.log"; then
  for s in 8192 4096x14336x4096 16384x4096x4096; do
    step 400 80 "bf16_$s.log" "$W/new/host" gemm_bf16 --variants W1 --size "$s"
    grep -E "│ (W1|cuBLAS)|per clock|rc=" "$O/bf16_$s.log" | tr -s ' ' | cut -c1-260
  done
fi
step 480 70 shapes_gpu.log "$T/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" "$O/shapes_gpu.log" | cut -c1-300 | head
date -u; save
