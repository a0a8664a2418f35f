#!/usr/bin/env bash
# The tenth session's final call on the H200 (2026-12-02), the merged issue-30 redesign (pack_s10.sh):
# 1. `host all` with nvcc's twin compared (now with its sm_90a module: the wgmma table, the W and MT lines and the
#    bulk copies compared too): every figure to hold against the last committed run, results/2026-12-02-h200-s8/,
#    with scripts/compare-runs.py (behaviour frozen: structure equal, each figure within 3%, BF16 GEMM rows 10%);
# 2. faults_gpu (the driver's module loading and error paths that the redesign moved), if time is left;
# 3. gemm_hashes_gpu, if time is left.
set -u
W=/tmp/lead; O=$W/out10; mkdir -p "$O"; tar xJf dist/s10/pack10.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
export LAB_HOST=$(pwd)/target/release/host
H=$LAB_HOST; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_s10.tgz" -C "$W" out10; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
step 10 470 all.log bash -c "time $H all --out $O/all --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|^wrote|FAILED|error|rc=|took|s\)$" "$O/all.log" | cut -c1-200 | tail -20
python3 scripts/compare-runs.py results/2026-12-02-h200-s8 "$O/all" > "$O/compare.txt" 2>&1; tail -40 "$O/compare.txt"; save
step 490 60 faults_gpu.log "$T/faults_gpu" --ignored --test-threads 1
grep -E "test result|panicked|FAILED|rc=" "$O/faults_gpu.log" | cut -c1-300 | head -10
step 555 40 hashes.log "$T/gemm_hashes_gpu" --ignored --test-threads 1
grep -E "test result|FAILED|rc=" "$O/hashes.log" | tail -4
date -u
