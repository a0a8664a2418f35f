#!/usr/bin/env bash
# Session 14, GPU call S14b (2026-12-03): the two GPU tests S14a's steps cut short (70 s and 115 s were too little with
# cuBLAS's cold load and BF16 at 4096^3): block_trace_gpu whole, and shapes_gpu's `--variants auto` test.
# Packs: the pack of S14a (dist/s14a).
set -u
CALL=call_s14b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s14a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 240 block_trace_gpu.log "$W/new/tests/block_trace_gpu" --ignored --test-threads 1 --nocapture
step 260 280 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture variants_auto
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-200
date -u; save
