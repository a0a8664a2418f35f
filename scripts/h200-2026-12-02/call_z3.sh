#!/usr/bin/env bash
# Call Z3 on the H200 (2026-12-02, eighth session), as Z2 (sustained runs, clocks logged):
# probe_operands.cu with modes stores (the copies' shared-memory writes alone) and third (a third
# of the L2 reads replaced by shared stores, as multicast over a cluster of two would), random copied bytes.
set -u; export PATH=$PATH:/usr/local/cuda/bin
W=/tmp/lead; O=$W/outz3; mkdir -p "$O"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 50 > "$O/smi.csv" 2>&1 &
SMI=$!
nvcc -arch=sm_90 -O3 -o "$W/probe" nvcc/probe_mma_loop.cu > "$O/probe_build.log" 2>&1 &&
  timeout 150 "$W/probe" | tee "$O/probe.log"
sleep 1; kill $SMI
tar czf "$OUT/call_z3.tgz" -C "$W" outz3
