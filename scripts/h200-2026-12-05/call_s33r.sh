#!/usr/bin/env bash
# Session 33, GPU calls S33s and S33r (2026-12-05): `host shapes` in full (its own sample counts, not `host all`'s
# fewer) at the two sizes of issue 32's first targets, BF16 only, four times (S33s ran it once as call_s33s with
# `time`, S33r three times). Same pack and carry as call_s32a.sh. Usage: N=3 bash scripts/h200-2026-12-05/call_s33r.sh
set -u
CALL=call_s33r; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for i in $(seq 1 "${N:-3}"); do
  step 150 60 shapes$i.log "$W/new/host" shapes --families bf16 --shapes 4096x4096x4096,8192x8192x8192 \
    --out "$O/shapes$i"
  grep -E "rc=|targets \(bench" "$O/shapes$i.log" | cut -c1-400
  grep -E "│ BF16" "$O/shapes$i.log" | tr -s ' ' | cut -c1-200
done
date -u; save
