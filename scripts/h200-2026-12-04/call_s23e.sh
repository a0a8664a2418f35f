#!/usr/bin/env bash
# Session 23, GPU call S23e (2026-12-04): after the review's mend of the consumer loops (end_unit retires the last
# group and releases its slot in both; the ping-pong turn's barriers in wait_turn / pass_turn; W1-W4's K loops the
# same SASS, W6's one instruction shorter), the streamed-tails test once more: W1-W4 and W6 every element at both
# settings, the same bits on 20 launches (W6's whole waves and its tail's pieces among them).
# Pack: scripts/gpu/pack.sh s23e --tests wgemm_gpu
set -u
CALL=call_s23e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s23e/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 140 tails.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tails_are
grep -h -E "FAILED|test result|panicked|rc=|tail tiles" "$O/tails.log" | cut -c1-300
date -u; save
