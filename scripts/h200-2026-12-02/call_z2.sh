#!/usr/bin/env bash
# Call Z2 on the H200 (2026-12-02, eighth session): probe_operands.cu with the GEMM's global
# traffic added (mode copy) and every mode also run sustained (about 1.5 s back to back), with
# SM clock, power and the clock-event reasons logged by nvidia-smi every 50 ms beside it.
set -u; export PATH=$PATH:/usr/local/cuda/bin
W=/tmp/lead; O=$W/outz2; mkdir -p "$O"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 50 > "$O/smi.csv" 2>&1 &
SMI=$!
nvcc -arch=sm_90 -O3 -o "$W/probe" nvcc/probe_mma_loop.cu > "$O/probe_build.log" 2>&1 &&
  timeout 150 "$W/probe" | tee "$O/probe.log"
sleep 1; kill $SMI
tar czf "$OUT/call_z2.tgz" -C "$W" outz2
