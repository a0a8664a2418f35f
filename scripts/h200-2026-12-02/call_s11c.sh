#!/usr/bin/env bash
# Session 11, third GPU call (2026-12-02): the merged issue-30 build (every helper's line cuts merged) against the
# last committed run. `host all` with nvcc's twin (the issue's check), held against results/2026-12-02-h200-s8 with
# scripts/compare-runs.py; then faults_gpu and gemm_hashes_gpu (the driver paths and every hashed check).
# Packs: scripts/gpu/pack.sh s11c --tests faults_gpu,gemm_hashes_gpu --twin
set -u
CALL=call_s11c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s11c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 330 all.log bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
python3 scripts/compare-runs.py results/2026-12-02-h200-s8 "$O/all" > "$O/compare_s8.txt" 2>&1; tail -8 "$O/compare_s8.txt"; save
step 400 60 faults_gpu.log "$W/new/tests/faults_gpu" --ignored --test-threads 1
grep -E "test result|panicked|FAILED|rc=" "$O/faults_gpu.log" | cut -c1-300 | head -10
step 470 110 gemm_hashes_gpu.log "$W/new/tests/gemm_hashes_gpu" --ignored --test-threads 1
grep -E "test result|FAILED|rc=" "$O/gemm_hashes_gpu.log" | head -5
date -u
