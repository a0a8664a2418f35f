#!/usr/bin/env bash
# Session 33, GPU call S33c (2026-12-05): call_s30c.sh's checks on main's pack with W9 in the table: every line's
# split-K and streamed tails (W9's among the latter), every element checked, the same bits on every launch.
# Pack: scripts/gpu/pack.sh p9 --tests wgemm_gpu --twin; carry ["dist/p9"], results/ aside.
set -u
CALL=call_s30c_p9; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 400 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines \
  the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
date -u; save
