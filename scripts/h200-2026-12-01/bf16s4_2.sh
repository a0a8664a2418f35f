#!/usr/bin/env bash
# bf16s4 call 2 on the H200 (2026-12-01, branch bf16s4, commit 7f40911; run from the session's checkout as
# dist/bf16s4/bf16s4_2.sh, a copy of this file): the interior path's copies read loop-carried pointers
# (v3, built into host). Timed interleaved against main's kernels (base.cubin) and cuBLAS at 4096^3 and
# 8192^3; the GPU test of every line at small, odd, interior+edge and chunked-edge sizes; an experiment:
# v4.cubin (v3 with every interior copy of a slice issued at its first k-step; source not committed)
# against v3.cubin (this commit's kernels, built by cargo xtask build) at 4096^3 and 8192^3.
# Carried: dist/bf16s4/pack.tar.xz (host, bf16_gemm_gpu, base.cubin, v3.cubin, v4.cubin).
set -u
W=/tmp/bf16s4; L=$W/logs; mkdir -p "$L"; tar xJf dist/bf16s4/pack.tar.xz -C "$W"
H=$W/host; date -u > "$L/env.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv >> "$L/env.txt" 2>&1
keys() { grep -E "^\| (M|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
timeout 50 "$H" gemm_bf16 --size 4096 --variants M7,M8,M9,M10 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab4096.md" 2>&1; echo "rc=$?" >> "$L/ab4096.md"
keys "$L/ab4096.md"; tar czf "$OUT/call_2.tgz" -C "$W" logs
timeout 70 "$H" gemm_bf16 --size 8192 --variants M7,M8,M9,M10 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab8192.md" 2>&1; echo "rc=$?" >> "$L/ab8192.md"
keys "$L/ab8192.md"; tar czf "$OUT/call_2.tgz" -C "$W" logs
timeout 50 "$W/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small > "$L/odd.log" 2>&1; echo "rc=$?" >> "$L/odd.log"
grep -E "test result|panicked|rc=" "$L/odd.log"; tar czf "$OUT/call_2.tgz" -C "$W" logs
timeout 30 "$H" gemm_bf16 --size 4096 --variants M7,M8,M9 --max-time-ms 1000 --module "$W/v4.cubin" --compare "$W/v3.cubin" --compare-label v3 --format markdown > "$L/v4_vs_v3_4096.md" 2>&1; echo "rc=$?" >> "$L/v4_vs_v3_4096.md"
keys "$L/v4_vs_v3_4096.md"; tar czf "$OUT/call_2.tgz" -C "$W" logs
timeout 35 "$H" gemm_bf16 --size 8192 --variants M7,M9 --max-time-ms 1000 --module "$W/v4.cubin" --compare "$W/v3.cubin" --compare-label v3 --format markdown > "$L/v4_vs_v3_8192.md" 2>&1; echo "rc=$?" >> "$L/v4_vs_v3_8192.md"
keys "$L/v4_vs_v3_8192.md"; tar czf "$OUT/call_2.tgz" -C "$W" logs
date -u
