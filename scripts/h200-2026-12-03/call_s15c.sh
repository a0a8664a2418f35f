#!/usr/bin/env bash
# Session 15, GPU call S15c (2026-12-03): the first 80 s of `host all` with nvcc's twin after the warm-up change
# (the built-in modules compiled on one thread in the order of first need, registry::warm_order), with the phase log
# (LAB_PHASE_TIMES=1): when occupancy's first row starts (S15b: 79.8 s) and whether its rows run at S15b's pace while
# the tensor-core module compiles beside them. Cut at 80 s on purpose (the session's device time was nearly spent).
# NOT RUN: session 15's device time ran out before a machine could start; kept for the next session (a whole
# `host all` with the phase log, as in call_s15b.sh, answers the same question and issue 31's 3 minutes at once).
# Packs: the release host of commit 2ed1576 and S15b's twin (dist/stage-s15b/twin), tarred as dist/s15c/pack.tar.xz.
set -u
CALL=call_s15c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s15c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 5 90 all.log env LAB_PHASE_TIMES=1 timeout 80 "$H" all --out "$O/all" --compare "$TW/twin.cubin" --compare-caps "$TW" --compare-label nvcc
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
head -12 "$O/phase_deltas.txt"; grep -E "experiment done|wrote" "$O/all.log" | head
date -u; save
