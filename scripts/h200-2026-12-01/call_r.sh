#!/usr/bin/env bash
# Call R on the H200 (2026-12-01, fourth session).
# 1. The bulk copies (tma_copy_*) after the refill fix (the refill takes its stage's slot and barrier
#    addresses from the wait; ptxas 13.0 had given the refill the current stage's slot): smem_copy_gpu
#    (every test, the bulk one included) and `host inflight --bulk-copies`.
# 2. Experiment 6's ILP 2 at 4, 5 and 6 warps/SM against nvcc's twin, three times (the s3 run had
#    Rust/nvcc 0.949 at 5 warps/SM with nvcc's own noise at 3.7%): is the gap stable, and where do the
#    two modules' launch times fall?
# 3. Experiment 7 at 8192^3 with every line, the wgmma (W) lines included.
# 4. The GPU tests not run in the third session (cli_gpu, cli) while the call's time lasts.
# Carried: dist/lead/pack.tar.xz: host, GPU test binaries (tests/), nvcc's twin built here by nvcc/build.sh
# with nvcc 13.0.88 (twin/).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; O="$W/out"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$O/env.txt" 2>&1
pack() { tar czf "$OUT/call_r.tgz" -C "$W" out; }
gpu_test() { # name timeout deadline [filter]
  [ "$SECONDS" -gt "$3" ] && { echo "## $1 not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $1 ${4:-}"; timeout "$2" "$T/$1" --ignored --test-threads 1 --nocapture ${4:-} > "$O/test_$1.log" 2>&1
  echo "## $1 rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -8
  pack
}
gpu_test smem_copy_gpu 120 60
echo "== inflight --bulk-copies"
( time timeout 120 $H inflight --bulk-copies --out "$O/inflight" ) > "$O/inflight.log" 2>&1
echo "inflight rc=$?" | tee -a "$O/inflight.log"; grep -E "FAILED|tma_copy" "$O/inflight.log" | cut -c1-240 | head -20
pack
echo "== mma ILP 2 x3"
for i in 1 2 3; do
  timeout 60 $H mma --ilp 2 --warps-per-sm 4,5,6 --no-wgmma --compare "$W/twin/twin.cubin" --compare-label nvcc \
    --out "$O/mma_$i" > "$O/mma_$i.log" 2>&1; echo "mma $i rc=$?"
  grep -v '^#' "$O/mma_$i/mma.csv" 2>/dev/null | python3 -c "
import csv,sys
for r in csv.DictReader([l for l in sys.stdin if l.strip()]):
  print(r['ILP'], r['Warps/SM'], r['TFLOP/s'][:7], r['Noise (%)'][:5], r['nvcc TFLOP/s'][:7], r['Ours/nvcc'][:6], r['flags'][:90])"
done
pack
echo "== gemm_bf16 8192 ($SECONDS s)"
( time timeout 200 $H gemm_bf16 --size 8192 --out "$O/bf16_8192" ) > "$O/bf16_8192.log" 2>&1
echo "gemm_bf16 8192 rc=$?" | tee -a "$O/bf16_8192.log"
grep -E "^\| (M[0-9]|W[0-9]|cuBLAS)" "$O/bf16_8192/tables.md" 2>/dev/null | cut -c1-80,180-330
pack
gpu_test cli_gpu 90 420
gpu_test cli 120 480
date -u
