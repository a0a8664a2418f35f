#!/usr/bin/env bash
# Call T on the H200 (2026-12-01, fourth session): the lab after this session's changes, end to end.
# 1. `host all` with nvcc's twin compared (the session's results folder): the bulk copies back in
#    experiment 4, the wgmma line (256, 16), mma_ilp's prologue in nvcc's form, the BF16 mma.sync GEMM's
#    interior fast path (branch bf16s4).
# 2. Experiment 7 at 8192^3, every line (mma.sync and wgmma) beside cuBLAS.
# 3. The GPU-only tests of what changed, while the call's time lasts.
# Carried: dist/lead/pack.tar.xz: host, GPU test binaries (tests/), nvcc's twin built here by
# nvcc/build.sh with nvcc 13.0.88 (twin/).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; O="$W/out"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$O/env.txt" 2>&1
pack() { tar czf "$OUT/call_t.tgz" -C "$W" out; }
echo "== host all"
( time timeout 300 $H all --out "$O/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$O/final_sweep.log" 2>&1
echo "host all rc=$?" | tee -a "$O/final_sweep.log"; grep -E "^real|FAILED" "$O/final_sweep.log" | head -8
grep -E "^\| (M[0-9]+|W[0-9]|cuBLAS)" "$O/final/tables.md" | cut -c1-70,180-330 | head -24
pack
echo "== gemm_bf16 8192 ($SECONDS s)"
( time timeout 150 $H gemm_bf16 --size 8192 --out "$O/bf16_8192" ) > "$O/bf16_8192.log" 2>&1
echo "gemm_bf16 8192 rc=$?" | tee -a "$O/bf16_8192.log"
grep -E "^\| (M[0-9]+|W[0-9]|cuBLAS)" "$O/bf16_8192/tables.md" | cut -c1-70,180-330
pack
gpu_test() { # name timeout deadline [filter]
  [ "$SECONDS" -gt "$3" ] && { echo "## $1 not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $1 ${4:-}"; timeout "$2" "$T/$1" --ignored --test-threads 1 --nocapture ${4:-} > "$O/test_$1.log" 2>&1
  echo "## $1 rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -8
  pack
}
gpu_test bf16_gemm_gpu 90 400
gpu_test mma_gpu 60 450
gpu_test smem_copy_gpu 90 480
gpu_test wgmma_table_gpu 60 520
date -u
