#!/usr/bin/env bash
# wgmma call 2 on the H200 (2026-12-01, branch wgmma): the sm_90a module's JIT report, the bit check of every
# wgmma_bf16 line (again, after the model's +0.0 fix), the microbenchmark's table. Carried: dist/wgmma/wgmma_gpu.xz (the test binary of
# host/tests/wgmma_gpu.rs, release, stripped; it embeds kernels_sm90a.ptx) and dist/wgmma/kernels_sm90a.ptx.
set -u
W=/tmp/wgmma; mkdir -p "$W"; D=$(pwd)/dist/wgmma
xz -dc "$D/wgmma_gpu.xz" > "$W/wgmma_gpu" && chmod +x "$W/wgmma_gpu"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/env.txt" 2>&1
(ptxas --version | tail -1; ptxas -arch=sm_90a -v "$D/kernels_sm90a.ptx" -o "$W/k.cubin") > "$W/ptxas.log" 2>&1
grep -E "warning|error" "$W/ptxas.log" | head -5
# The SASS: HGMMA per entry, and any warpgroup arrive/wait ptxas added.
cuobjdump -sass "$W/k.cubin" > "$W/sass.txt" 2>&1; grep -E "Function|HGMMA|WARPGROUP" "$W/sass.txt" | sed -E "s/ +/ /g" | cut -c1-90 > "$W/sass_summary.log"; grep -c HGMMA "$W/sass.txt"
for t in the_jit_reports every_wgmma_line wgmma_throughput; do
  timeout 55 "$W/wgmma_gpu" --ignored --test-threads 1 --nocapture "$t" > "$W/$t.log" 2>&1
  echo "rc=$?" >> "$W/$t.log"
done
cat "$W/the_jit_reports.log" | tail -20; tail -6 "$W/every_wgmma_line.log"; cat "$W/wgmma_throughput.log"
cp "$W"/*.log "$W/env.txt" "$OUT/"
date -u
