#!/usr/bin/env bash
# Session 39, GPU call S39a (2026-12-06): on an H200 first, S38b at 4096³ (LIMIT=230: main's build, the quarter-stage
# branch's and w11-main's alternating; both candidates lost to W8 on an H100 in S38c and S37b, and the H200, where the
# power cap sets the clock, is the card); then, on any card, the GPU tests whose code session 39 changed: cli's
# two runs (support's host helper with a hang guard, 6cbb54b, 6abfa3f) and every test that now runs its experiment through
# support::run_verified (53fd903; contexts 6cd8fd6), the longest last. Pack: scripts/gpu/pack.sh m39 --tests
# cli,sweeps_gpu,smem_copy_gpu,wgmma_table_gpu,mma_gpu,gemm_bf16_gpu,block_trace_gpu on main. Carry ["dist/m39",
# "dist/w11", "dist/qs", "dist/m37"], results/ aside, timeout 600. Each step saves as it ends; one that could not end by
# 590 s is skipped and named.
set -u
. scripts/gpu/steps.sh
start_call call_s39a
if grep -q H200 "$O/env.txt"; then LIMIT=230 bash scripts/h200-2026-12-05/call_s38b.sh; else echo "not an H200: S38b not run"; fi
unpack dist/m39/pack.tar.xz "$W/m39"; use_host "$W/m39"
T=$W/m39/tests
test_step 390 200 cli_gpu.log "$T/cli" small_run_on_the_gpu_writes_a_results_folder \
  a_failure_in_one_experiment_keeps_the_ones_before_it
test_step 440 150 sweeps_gpu.log "$T/sweeps_gpu"
test_step 500 90 smem_copy_gpu.log "$T/smem_copy_gpu" the_sweep_runs_the_smem_lines_verified
test_step 500 90 wgmma_table_gpu.log "$T/wgmma_table_gpu"
test_step 440 150 mma_gpu.log "$T/mma_gpu"
test_step 500 90 block_trace_gpu.log "$T/block_trace_gpu"
test_step 340 250 gemm_bf16_gpu.log "$T/gemm_bf16_gpu"
date -u; save
