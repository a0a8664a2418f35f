#!/usr/bin/env bash
# wgemm call 1 on the H200 (2026-12-01, branch wgemm): the gemm_wgmma lines' JIT report, the every-element check at
# awkward sizes, and the lines beside cuBLAS BF16 at 2048x8192x1024, 4096^3, 8192^3. Carried: dist/wgemm/wgemm_gpu.xz
# (the test binary of host/tests/wgemm_gpu.rs, release, stripped; it embeds kernels_sm90a.ptx) and
# dist/wgemm/kernels_sm90a.ptx.
set -u
W=/tmp/wgemm; mkdir -p "$W"; D=$(pwd)/dist/wgemm
xz -dc "$D/wgemm_gpu.xz" > "$W/wgemm_gpu" && chmod +x "$W/wgemm_gpu"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/env.txt" 2>&1
(ptxas --version | tail -1; ptxas -arch=sm_90a -v "$D/kernels_sm90a.ptx" -o "$W/k.cubin") > "$W/ptxas.log" 2>&1
grep -A3 wgemm "$W/ptxas.log" | grep -E "Used|spill" | head -6
run() { timeout "$2" "$W/wgemm_gpu" --ignored --test-threads 1 --nocapture "$1" > "$W/$1.log" 2>&1; echo "rc=$?" >> "$W/$1.log"; }
run the_jit_reports 20
run every_wgemm_line_passes 45
tail -40 "$W/the_jit_reports.log"; tail -45 "$W/every_wgemm_line_passes.log"
if grep -q "test result: ok" "$W/every_wgemm_line_passes.log"; then
  run every_wgemm_line_beside 70
  tail -25 "$W/every_wgemm_line_beside.log"
fi
cp "$W"/*.log "$W/env.txt" "$OUT/"
date -u
