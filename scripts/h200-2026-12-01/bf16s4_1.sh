#!/usr/bin/env bash
# bf16s4 call 1 on the H200 (2026-12-01, branch bf16s4): the BF16 mma.sync GEMM with an interior path
# (blocks whose tile lies wholly inside A and B copy with no bounds tests, each copy's addresses a base
# plus a constant; the epilogue of such a tile stores with no bounds tests) and B's copies walked by line
# column; new lines M9, M10 (M7, M8 at 4 stages). Timed interleaved against main's kernels (base.cubin,
# --compare) and cuBLAS at 4096^3 and 8192^3; the GPU test of every line at small, odd, interior+edge
# and chunked-edge sizes. Carried: dist/bf16s4/pack.tar.xz (host, bf16_gemm_gpu, base.cubin).
set -u
W=/tmp/bf16s4; L=$W/logs; mkdir -p "$L"; tar xJf dist/bf16s4/pack.tar.xz -C "$W"
H=$W/host; date -u > "$L/env.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv >> "$L/env.txt" 2>&1
timeout 50 "$H" gemm_bf16 --size 4096 --variants M7,M8,M9,M10 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab4096.md" 2>&1; echo "rc=$?" >> "$L/ab4096.md"
grep -E "^\| M|^\| cuBLAS|rc=" "$L/ab4096.md" | cut -c1-80,150-420
tar czf "$OUT/call_1.tgz" -C "$W" logs
timeout 80 "$H" gemm_bf16 --size 8192 --variants M7,M8,M9,M10 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab8192.md" 2>&1; echo "rc=$?" >> "$L/ab8192.md"
grep -E "^\| M|^\| cuBLAS|rc=" "$L/ab8192.md" | cut -c1-80,150-420
tar czf "$OUT/call_1.tgz" -C "$W" logs
timeout 80 "$W/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small > "$L/odd.log" 2>&1; echo "rc=$?" >> "$L/odd.log"
grep -E "test result|panicked|rc=" "$L/odd.log"
tar czf "$OUT/call_1.tgz" -C "$W" logs
date -u
