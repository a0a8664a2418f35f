#!/usr/bin/env bash
# GPU call S41a, prepared in session 40 (2026-12-06): on an H200 first, S38b at 4096³ (LIMIT=230: main's build, the
# quarter-stage branch's and w11-main's alternating); then, on any card, the GPU tests whose code session 39 changed
# and that did not finish in session 40's calls (results/2026-12-05-h100-s35/logs/s40/README.md). There each step's
# own timeout ended them while the process held a CPU with the GPU idle (the JIT of the PTX modules, over 110 s for
# wgmma_table_gpu), so the steps here allow twice the time seen. call_s41b.sh runs the rest on the same warm machine.
# Pack: scripts/gpu/pack.sh m39 --tests cli,sweeps_gpu,smem_copy_gpu,wgmma_table_gpu,mma_gpu,gemm_bf16_gpu,block_trace_gpu
# on main. Carry ["dist/m39", "dist/w11", "dist/qs", "dist/m37"], results/ aside, timeout 600.
set -u
. scripts/gpu/steps.sh
start_call call_s41a
if grep -q H200 "$O/env.txt"; then LIMIT=230 bash scripts/h200-2026-12-05/call_s38b.sh; else echo "not an H200: S38b not run"; fi
unpack dist/m39/pack.tar.xz "$W/m39"; use_host "$W/m39"
T=$W/m39/tests
test_step 340 250 wgmma_table_gpu.log "$T/wgmma_table_gpu"
test_step 340 250 gemm_bf16_wgmma.log "$T/gemm_bf16_gpu" the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
date -u; save
