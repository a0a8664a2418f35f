#!/usr/bin/env bash
# Call Z6 on the H200 (2026-12-02, eighth session), as Z2 (sustained runs, clocks logged):
# nvcc/probe_mma_loop.cu with modes spread and copy_spr: the slice's 48 KB landing three chunks a
# thread at each k16 step rather than all at the first (does the landing cost for its burst?).
set -u; export PATH=$PATH:/usr/local/cuda/bin
W=/tmp/lead; O=$W/outz6; mkdir -p "$O"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 50 > "$O/smi.csv" 2>&1 &
SMI=$!
nvcc -arch=sm_90 -O3 -o "$W/probe" nvcc/probe_mma_loop.cu > "$O/probe_build.log" 2>&1 &&
  timeout 150 "$W/probe" | tee "$O/probe.log"
sleep 1; kill $SMI
tar czf "$OUT/call_z6.tgz" -C "$W" outz6
