#!/usr/bin/env bash
# Session 23, GPU call S23a (2026-12-04), branch pingpong: W6 (ping-pong consumers) now streams its last
# partial wave where the rule says so; the rule's bound (TAIL_GAIN_STEPS) timed where it declines.
# (1) wgemm_gpu: every element of every line at awkward sizes; split-K; streamed tails (W6 among them);
# (2) the streamed tail timed against the tail dealt whole, streamed anyway at 4096³ (W1, W6) and 8192³ (W6).
# Pack: scripts/gpu/pack.sh s23a --tests wgemm_gpu
set -u
CALL=call_s23a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s23a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
T=$W/new/tests/wgemm_gpu
step 5 120 awkward.log "$T" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
step 130 120 cut.log "$T" --ignored --test-threads 1 --nocapture the_split_k_lines the_streamed_tails_are
grep -h -E "FAILED|test result|panicked|rc=|tail tiles" "$O/awkward.log" "$O/cut.log" | cut -c1-300 | head -30
step 260 300 tail_timed.log "$T" --ignored --test-threads 1 --nocapture the_streamed_tail_timed
grep -h -E "FAILED|test result|panicked|rc=|TFLOP|does not" "$O/tail_timed.log" | cut -c1-300
date -u; save
