#!/usr/bin/env bash
# Call Z4 on the H200 (2026-12-02, eighth session), pack of the seventh session (pack_s7.sh):
# probe_operands.cu with mode narrow (the stores' instructions with a quarter of their bytes),
# clocks logged by nvidia-smi every 50 ms; then three more processes each of the BF16 lines
# beside cuBLAS at 4096^3 and 8192^3 (Z1 ran two), for the spread of their ratio.
set -u; export PATH=$PATH:/usr/local/cuda/bin
W=/tmp/lead; O=$W/outz4; mkdir -p "$O"; tar xJf dist/lead/pack7.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=$(pwd)/target/release/host
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 50 > "$O/smi.csv" 2>&1 &
SMI=$!
nvcc -arch=sm_90 -O3 -o "$W/probe" nvcc/probe_mma_loop.cu > "$O/probe_build.log" 2>&1 &&
  timeout 150 "$W/probe" | tee "$O/probe.log"
for run in 3 4 5; do
  for s in 4096 8192; do
    [ "$SECONDS" -gt 500 ] && { echo "## $s run $run not run ($SECONDS s)"; continue; }
    v=M2,M9,MT1; [ $s = 8192 ] && v=M9,MT1
    echo "## $s run $run ($SECONDS s)"; date -u +%T
    timeout 120 $H gemm_bf16 --size $s --variants $v --format markdown > "$O/bf16_${s}_$run.md" 2>&1
    grep -E "^\| (M2|M9|MT1|cuBLAS)" "$O/bf16_${s}_$run.md" | cut -d"|" -f2,10,13,15
  done
done
kill $SMI
tar czf "$OUT/call_z4.tgz" -C "$W" outz4
