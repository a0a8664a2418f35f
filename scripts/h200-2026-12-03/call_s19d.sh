#!/usr/bin/env bash
# Session 19, GPU call S19d (2026-12-03): the streamed tail with each block's pieces run in reverse (two shared K
# fronts): (1) timed against the tail dealt whole (wgemm_gpu, alternating rounds; W1 at the sweep's shapes where it
# streams, W3 at 16384^3); (2) every element and the same bits at the streamed shapes again.
# Pack: scripts/gpu/pack.sh s19d --tests wgemm_gpu,shapes_gpu,reading_c_gpu,line_choice_gpu --twin
set -u
CALL=call_s19d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s19d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
T=$W/new/tests
step 10 200 wgemm_ab.log "$T/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tail_timed
grep -h -E "^W[0-9]|test result|FAILED|panicked|rc=" "$O/wgemm_ab.log" | cut -c1-300
step 220 90 wgemm_tail.log "$T/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tails
grep -h -E "test result|FAILED|panicked|rc=" "$O/wgemm_tail.log" | cut -c1-300
date -u; save
