#!/usr/bin/env bash
# Session 23, GPU call S23b (2026-12-04), branch pingpong (S23a's kernels): in S23a the streamed-tails test ran
# past its 120 s step with nothing printed (the module's assembly and the split-K test before it shared the step).
# (1) that test alone, 300 s, its threads sampled after 20 s (a hang shows where it waits);
# (2) the streamed tail timed against the tail dealt whole, streamed anyway where the rule's bounds decline at
#     big shapes of few tail tiles (runs under MIN_UNIT_STEPS): W6 at 4096x14336x4096 and 16384x4096x4096,
#     W4 at 8192³, W1 at 16384³.
# Pack: scripts/gpu/pack.sh s23b --tests wgemm_gpu
set -u
CALL=call_s23b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s23b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
T=$W/new/tests/wgemm_gpu
watch_threads "wgemm_gpu --ignored" "$O/threads.txt" &
step 5 300 tails.log "$T" --ignored --test-threads 1 --nocapture the_streamed_tails_are
wait
grep -h -E "FAILED|test result|panicked|rc=|tail tiles" "$O/tails.log" | cut -c1-300 | head -30
head -5 "$O/threads.txt"
step 320 270 tail_timed.log "$T" --ignored --test-threads 1 --nocapture the_streamed_tail_timed
grep -h -E "FAILED|test result|panicked|rc=|TFLOP|does not" "$O/tail_timed.log" | cut -c1-300
date -u; save
