#!/usr/bin/env bash
# Session 15, GPU call S15b (2026-12-03): the tree with the wgmma GEMM at any shape (A or B copied into rows TMA can
# read where K or N is not a multiple of 8, odd N written a float at a time) on the H200:
# (1) `host all` with nvcc's twin, timed (issue 31: at most 3 minutes), with a temporary phase log
#     (LAB_PHASE_TIMES: elapsed-time marks on stderr around each row's timing, checks, race check and trace, each
#     shape's buffers, choice and timing; in the pack's build, not committed) to see where the time goes;
# (2) the GPU tests of what changed: wgemm_gpu's awkward sizes (every element of every ring line at odd K and N,
#     1x1x1 to 4095x4097x1023) and shapes_gpu's odd and decode shapes.
# Packs: scripts/gpu/pack.sh s15b --tests wgemm_gpu,shapes_gpu --twin
set -u
CALL=call_s15b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s15b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=|the last in" "$O/all.log"
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
sort -rn "$O/phase_deltas.txt" | head -30
python3 scripts/compare-runs.py results/2026-12-03-h200-s14 "$O/all" > "$O/compare_s14.txt" 2>&1; tail -4 "$O/compare_s14.txt"; save
step 320 60 wgemm_gpu.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture every_wgemm_line_passes_the_check_at_awkward_sizes
step 390 100 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-300
date -u; save
