#!/usr/bin/env bash
# Session 16, GPU call S16b (2026-12-03): `host all` with nvcc's twin, timed, with the phase log, after the built-in
# PTX is assembled by ptxas processes started at once (host/src/cuda/ptx_assembly.rs; S16a showed occupancy's loads
# waiting 64.6 s behind the driver's JIT of later modules). Issue 31's bar: at most 3 minutes, every figure checked.
# NOT RUN: no machine could be started when it was called; S16c (call_s16c.sh) ran the same command on a later tree.
# Packs: scripts/gpu/pack.sh s16b (the release host of 4d28b87), with S16a's twin (dist/stage-s16a/twin: the
# kernels are unchanged), tarred as dist/s16b/pack.tar.xz.
set -u
CALL=call_s16b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s16b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=|the last in|assembled by|ptxas|driver compiles" "$O/all.log"
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
sort -rn "$O/phase_deltas.txt" | head -12; head -6 "$O/phase_deltas.txt"
python3 scripts/compare-runs.py results/2026-12-03-h200-s15 "$O/all" > "$O/compare_s15.txt" 2>&1; tail -2 "$O/compare_s15.txt"
grep FAIL "$O/compare_s15.txt" | awk '{print $2}' | sort | uniq -c
date -u; save
