#!/usr/bin/env bash
# Session 14, GPU call S14c (2026-12-03): `host shapes` alone, sampled in full (issue 32: `host all` takes 5 samples a
# figure; the experiment alone samples to the run's plan), committed as results/2026-12-03-h200-s14-shapes.
# Packs: the pack of S14a (dist/s14a).
set -u
CALL=call_s14c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s14a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 520 shapes.log bash -c "time $W/new/host shapes --out $O/shapes"
grep -E "^real|rc=|targets" "$O/shapes.log" | cut -c1-400
date -u; save
