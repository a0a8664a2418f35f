#!/usr/bin/env bash
# Session 24, GPU call S24c (2026-12-04): S24b's pack again, wgemm_gpu's streamed-tails check alone (in S24b the timed
# tail test before it ran out the step's time): W7 among the lines whose last partial wave is streamed, every element
# at both settings, the same bits on 20 launches.
# Pack: scripts/gpu/pack.sh s24b --tests wgemm_gpu; sent with results/ set aside (scripts/gpu/results_aside.sh).
set -u
CALL=call_s24c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 300 tails.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_streamed_tails_are
grep -h -E "FAILED|test result|panicked|rc=|tail tiles" "$O/tails.log" | cut -c1-300
date -u; save
