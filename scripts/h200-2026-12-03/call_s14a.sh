#!/usr/bin/env bash
# Session 14, GPU call S14a (2026-12-03): the merged tree of the session (block traces: achieved occupancy and the
# in-kernel clock on every GEMM row; sampled persistent copies; the shape sweep and --variants auto) on the H200:
# (1) `host all` with nvcc's twin, timed (issue 31: at most 3 minutes), compared with results/2026-12-02-h200-s12;
# (2) the GPU tests of what changed: block_trace_gpu, copy_samples_gpu (sampled copies, ours and the twin), shapes_gpu.
# Packs: scripts/gpu/pack.sh s14a --tests block_trace_gpu,stream_copy_gpu,shapes_gpu,copy_samples_gpu --twin
set -u
CALL=call_s14a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s14a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 330 all.log bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
python3 scripts/compare-runs.py results/2026-12-02-h200-s12 "$O/all" > "$O/compare_s12.txt" 2>&1; tail -6 "$O/compare_s12.txt"; save
step 360 70 block_trace_gpu.log "$W/new/tests/block_trace_gpu" --ignored --test-threads 1 --nocapture
step 430 50 copy_samples_gpu.log env LAB_TWIN_CUBIN=$TW/twin.cubin "$W/new/tests/copy_samples_gpu" --ignored --test-threads 1 --nocapture
step 480 115 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-200
date -u; save
