#!/usr/bin/env bash
# Session 24, GPU call S24e (2026-12-04): two trial FP32 lines beside R4, R6 = cuBLAS's tile
# (256x128x8, 3 stages) and R7 = R4 with a fourth stage; `host occupancy --variants R4,R6,R7` at 4096 and 8192.
# Pack: scripts/gpu/pack.sh s24e, on the table with the two lines after R5 (not kept: neither beat R4); sent with
# results/ set aside (scripts/gpu/results_aside.sh).
set -u
CALL=call_s24e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24e/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for s in 4096 8192; do
  step 200 120 "fp32_$s.log" "$W/new/host" occupancy --variants R4,R6,R7 --size "$s"
  grep -E '^│ (R4|R6|R7|cuBLAS)' "$O/fp32_$s.log" | tr -s ' ' | cut -c1-220
done
date -u; save
