#!/usr/bin/env bash
# GPU call S41b, prepared in session 40 (2026-12-06): the rest of S41a, on the same warm machine (any sm_90 card):
# block_trace_gpu (its step ended at 200 s in session 40 after the FP32 row's trace was judged), smem_copy_gpu's sweep
# and sweeps_gpu's read-only test, which session 40's calls did not reach or finish. Pack m39 as in call_s41a.sh;
# carry ["dist/m39"], results/ aside, timeout 600.
set -u
. scripts/gpu/steps.sh
start_call call_s41b
unpack dist/m39/pack.tar.xz "$W/m39"; use_host "$W/m39"
T=$W/m39/tests
test_step 20 330 block_trace_gpu.log "$T/block_trace_gpu"
test_step 360 200 smem_copy_gpu.log "$T/smem_copy_gpu" the_sweep_runs_the_smem_lines_verified
test_step 440 140 sweeps_read_only.log "$T/sweeps_gpu" the_read_only_kernels_run_beside_their_copies_verified
date -u; save
