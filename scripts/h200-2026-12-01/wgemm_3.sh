#!/usr/bin/env bash
# wgemm call 3 on the H200 (2026-12-01, branch wgemm): as call 2 (wait_group 1, scale-d 0 at a tile's start), and
# when beta reads C each consumer thread asks L2 for its rows of C 8 K steps before its tile ends
# (prefetch.global.L2). The JIT report, the every-element check at awkward sizes, the lines beside cuBLAS BF16 at
# 2048x8192x1024, 4096^3, 8192^3 with C read (beta 0.5) and not (beta 0), and Nsight Compute's speed-of-light and
# memory sections for one W1 launch at 4096^3. Carried: dist/wgemm/wgemm_gpu.xz (the test binary of
# host/tests/wgemm_gpu.rs, release, stripped; it embeds kernels_sm90a.ptx) and dist/wgemm/kernels_sm90a.ptx.
set -u
W=/tmp/wgemm; mkdir -p "$W"; D=$(pwd)/dist/wgemm
xz -dc "$D/wgemm_gpu.xz" > "$W/wgemm_gpu" && chmod +x "$W/wgemm_gpu"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/env.txt" 2>&1
(ptxas --version | tail -1; ptxas -arch=sm_90a -v "$D/kernels_sm90a.ptx" -o "$W/k.cubin") > "$W/ptxas.log" 2>&1
grep -A3 wgemm "$W/ptxas.log" | grep -E "Used|spill|warn" | head -6
run() { timeout "$2" "$W/wgemm_gpu" --ignored --test-threads 1 --nocapture "$1" > "$W/$1.log" 2>&1; echo "rc=$?" >> "$W/$1.log"; }
run the_jit_reports 20
run every_wgemm_line_passes 40
tail -4 "$W/the_jit_reports.log"; grep -E "FAILED|off;|test result|rc=" "$W/every_wgemm_line_passes.log" | head -20
if grep -q "test result: ok" "$W/every_wgemm_line_passes.log"; then
  run every_wgemm_line_beside 50
  grep -E "TFLOP|test result|rc=|panicked" "$W/every_wgemm_line_beside.log"
  timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy -k regex:wgemm_bm128_bn256 \
    --launch-skip 130 --launch-count 1 "$W/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_beside > "$W/ncu_w1.log" 2>&1
  echo "ncu rc=$?" >> "$W/ncu_w1.log"
  grep -E "Grid Size|Duration|Throughput|Pipe|Busy|L2 Hit|Occupancy|Registers|rc=" "$W/ncu_w1.log" | head -30
fi
cp "$W"/*.log "$W/env.txt" "$OUT/"
date -u
