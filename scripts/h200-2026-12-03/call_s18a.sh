#!/usr/bin/env bash
# Session 18, GPU call S18a (2026-12-03): the tree of e76af16 (the shape sweep times 8192³ again with the epilogue
# reading C; the short list keeps three lines per kind). (1) reading_c_gpu: each sample from the initial C, a bad
# sample caught; (2) `host all` with nvcc's twin, timed; (3) `host shapes` in full at 8192³ and 4096³ (a second
# figure reading C, at the run's sampling); (4) GPU tests: shapes_gpu's odd and decode shapes, wgemm_gpu's split-K.
# Pack: scripts/gpu/pack.sh s18a --tests reading_c_gpu,shapes_gpu,wgemm_gpu,gemm_bf16_gpu --twin
set -u
CALL=call_s18a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s18a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 60 reading_c_gpu.log "$W/new/tests/reading_c_gpu" --ignored --test-threads 1
grep -h -E "test |test result|panicked" "$O/reading_c_gpu.log" | cut -c1-300
host_all 80 300 all.log all
step 330 120 shapes_full.log "$W/new/host" shapes --shapes 4096,8192 --out "$O/shapes_full"
grep -E "C read|beta|targets \(benchmarks" "$O/shapes_full.log" | cut -c1-600
step 460 90 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
step 550 45 wgemm_split.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log $O/wgemm_*.log | cut -c1-300
date -u; save
