#!/usr/bin/env bash
# Session 38, GPU call S38b (2026-12-05): both kernel candidates for issue 32's bar at 4096³ in one H200 call, where
# the device's budget leaves room for one. `host gemm_bf16` checks every element of each line's last timed launch and
# of one at alpha=1.5, beta=0.5, so each row below is a checked one; the awkward sizes that would gate a merge come
# after (S37q's checks). Three builds alternate, three rounds at 4096: main's (pack m37: W1, W8), the quarter-stage
# branch's (pack qs: W1 with four slots and a quarter of C staged, W8 with a quarter staged) and w11-main's (pack w11:
# W8 and W11, W8 in clusters of two with B multicast); then 8192 once each while the call's time lasts. Carry
# ["dist/m37", "dist/qs", "dist/w11"], results/ aside. H200_ONLY=1 stops at once on any other card. LIMIT (360 s),
# the last second a 4096 step may start, skips 8192 when lowered: for a device budget short of a whole call.
set -u
. scripts/gpu/steps.sh
start_call call_s38b
for p in m37 qs w11; do unpack dist/$p/pack.tar.xz "$W/$p"; done
n=0
g() { n=$((n + 1)); gemm_rows "$4" "$5" "g${3}_$1_$n.log" "$W/$1/host" "$2" "$3"; }
L=${LIMIT:-360}
for r in 1 2 3; do
  g m37 W1,W8 4096 "$L" 60; g qs W1,W8 4096 "$L" 60; g w11 W8,W11 4096 "$L" 60
done
if [ "$L" -ge 360 ]; then g m37 W1,W8 8192 440 70; g qs W1,W8 8192 460 70; g w11 W8,W11 8192 480 70; fi
date -u; save
