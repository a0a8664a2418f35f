#!/usr/bin/env bash
# Call U1 on the H200 (2026-12-01, fifth session): the lab end to end, the session's results folder.
# 1. `host all` with nvcc's twin compared (results/2026-12-01-h200-s5): the bulk copies in experiment 4
#    by default, the wgmma line (256, 16), mma_ilp's prologue in nvcc's form, the BF16 mma.sync
#    GEMM's interior path with its copies at each slice's first k-step (M7-M10).
# 2. Experiment 7 at the other sizes: 8192^3, 2048x8192x1024, 1000^3.
# 3. The GPU-only tests of what changed since they last passed (tensor cores, the copies).
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; O="$W/out"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1
pack() { tar czf "$OUT/call_u1.tgz" -C "$W" out; }
rows() { grep -E "^\| (M[0-9]+|W[0-9]|cuBLAS)" "$1" | cut -c1-70,180-330; }
echo "== host all"
( time timeout 300 $H all --out "$O/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$O/final_sweep.log" 2>&1
echo "host all rc=$?" | tee -a "$O/final_sweep.log"; grep -E "^real|FAILED" "$O/final_sweep.log" | head -8
rows "$O/final/tables.md" | head -24
pack
for s in 8192 2048x8192x1024 1000; do
  echo "== gemm_bf16 $s ($SECONDS s)"
  ( time timeout 120 $H gemm_bf16 --size $s --out "$O/bf16_$s" ) > "$O/bf16_$s.log" 2>&1
  echo "gemm_bf16 $s rc=$?" | tee -a "$O/bf16_$s.log"; rows "$O/bf16_$s/tables.md"
  pack
done
gpu_test() { # name timeout deadline [filter]
  [ "$SECONDS" -gt "$3" ] && { echo "## $1 not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $1 ${4:-} ($SECONDS s)"; timeout "$2" "$T/$1" --ignored --test-threads 1 --nocapture ${4:-} > "$O/test_$1.log" 2>&1
  echo "## $1 rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -8
  pack
}
gpu_test bf16_gemm_gpu 90 420
gpu_test mma_gpu 60 460
gpu_test smem_copy_gpu 90 470
gpu_test wgemm_gpu 100 480
gpu_test wgmma_table_gpu 60 530
date -u
