#!/usr/bin/env bash
# Session 19, GPU call S19c (2026-12-03): the streamed tail timed against the tail dealt whole (wgemm_gpu, alternating
# rounds), after S19b's sweep put W1 streamed at 0.87 of cuBLAS at 4096x4096x14336 (1.01 dealt whole in S18d).
# Pack: scripts/gpu/pack.sh s19c --tests wgemm_gpu
set -u
CALL=call_s19c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s19c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 200 wgemm_ab.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tail_timed
grep -h -E "^W1|test result|FAILED|panicked|rc=" "$O/wgemm_ab.log" | cut -c1-300
date -u; save
