#!/usr/bin/env bash
# Call Y5 on the H200 (2026-12-01, seventh session), the session's final build (the MT lines as
# in call Y3: each slot's release, wait and first loads at the start of its last k-step):
# 1. gemm_bf16_gpu's ring-rows test (W and MT lines verified at 4096^3 and 1000x776x1000).
# 2. `host all` with nvcc's twin compared: the lab's run of this build (its results folder).
# 3. Experiment 7 at 8192^3, 2048x8192x1024 and 1000^3 on the lines that lead at 4096^3.
# Carried: dist/lead/pack7.tar.xz (scripts/h200-2026-12-01/pack_s7.sh, with the sixth
# session's twin).
set -u
W=/tmp/lead; O=$W/outy5; mkdir -p "$O"; tar xJf dist/lead/pack7.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_y5.tgz" -C "$W" outy5; }
keys() { grep -E "^\| (M|W[0-9]|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
tests() { grep -E "^test |test result|panicked|4096\^3|rc=" "$O/$1" | tail -${2:-12}; }
step 5 120 ring.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
tests ring.log
step 130 300 final_sweep.log bash -c "time $H all --out $O/final --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|^wrote|FAILED|rc=" "$O/final_sweep.log" | cut -c1-160 | head -12; keys "$O/final/tables.md" | head -20
for s in 8192 2048x8192x1024 1000; do
  step 400 90 bf16_$s.log $H gemm_bf16 --size $s --variants M2,M7,M9,W1,MT1,MT2 --out "$O/bf16_$s"
  keys "$O/bf16_$s/tables.md"
done
date -u
