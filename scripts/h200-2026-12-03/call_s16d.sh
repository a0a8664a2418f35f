#!/usr/bin/env bash
# Session 16, GPU call S16d (2026-12-03): the tree of 8e262c1 on the H200: the split-K rule set from S16c's sweep
# (cut K only where tiles keep fewer than a third of the SMs busy, in units of at least 16 slices).
# (1) `host all` with nvcc's twin, timed, with the phase log (issue 31's 3 minutes, a second time) and its sweep;
# (2) GPU tests: wgemm_gpu's split-K test at its new shapes (16x4096x4096, 64x4096x2048, 100x4099x4101: every
#     element at both settings, the same bits over 20 launches); shapes_gpu's odd and decode shapes.
# Packs: scripts/gpu/pack.sh s16f --tests wgemm_gpu,shapes_gpu (8e262c1), with nvcc's twin of the same kernels (the
# twin of S16c: the kernels did not change) put in as twin/.
set -u
CALL=call_s16d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s16f/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 280 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=|the last in|assembled by|ptxas|driver compiles" "$O/all.log"
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
python3 scripts/compare-runs.py results/2026-12-03-h200-s16c "$O/all" > "$O/compare_s16c.txt" 2>&1; tail -2 "$O/compare_s16c.txt"
save
step 300 60 wgemm_split.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_split_k_lines
step 360 60 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" $O/*.log | cut -c1-300
date -u; save
