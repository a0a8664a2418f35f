#!/usr/bin/env bash
# bf16s4 call 1 on the H200 (2026-12-01, branch bf16s4, commit 5d688c0): the BF16 mma.sync GEMM with an
# interior path (blocks whose tile lies wholly inside A and B copy with no bounds tests, each copy's
# addresses a base plus a constant, B walked by line columns; such a tile is stored with no bounds tests)
# and new lines M9, M10 (M7, M8 at 4 stages). Timed interleaved against main's kernels (base.cubin,
# --compare) and cuBLAS at 4096^3 and 8192^3; the GPU test of every line at small, odd, interior+edge and
# chunked-edge sizes; an experiment: v2.cubin (this commit with every copy of a slice issued at its first
# k-step, copy_step = 0; not committed) against v1.cubin (this commit's kernels) at 4096^3; ncu of M7.
# Carried: dist/bf16s4/pack.tar.xz (host, bf16_gemm_gpu, base.cubin, v1.cubin, v2.cubin).
set -u
W=/tmp/bf16s4; L=$W/logs; mkdir -p "$L"; tar xJf dist/bf16s4/pack.tar.xz -C "$W"
H=$W/host; date -u > "$L/env.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv >> "$L/env.txt" 2>&1
keys() { grep -E "^\| (M|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
timeout 45 "$H" gemm_bf16 --size 4096 --variants M1,M7,M8,M9,M10 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab4096.md" 2>&1; echo "rc=$?" >> "$L/ab4096.md"
keys "$L/ab4096.md"; tar czf "$OUT/call_1.tgz" -C "$W" logs
timeout 70 "$H" gemm_bf16 --size 8192 --variants M7,M8,M9,M10 --max-time-ms 800 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab8192.md" 2>&1; echo "rc=$?" >> "$L/ab8192.md"
keys "$L/ab8192.md"; tar czf "$OUT/call_1.tgz" -C "$W" logs
timeout 45 "$W/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small > "$L/odd.log" 2>&1; echo "rc=$?" >> "$L/odd.log"
grep -E "test result|panicked|rc=" "$L/odd.log"; tar czf "$OUT/call_1.tgz" -C "$W" logs
timeout 25 "$H" gemm_bf16 --size 4096 --variants M7,M8 --max-time-ms 700 --module "$W/v2.cubin" --compare "$W/v1.cubin" --compare-label v1 --format markdown > "$L/v2_vs_v1_4096.md" 2>&1; echo "rc=$?" >> "$L/v2_vs_v1_4096.md"
keys "$L/v2_vs_v1_4096.md"; tar czf "$OUT/call_1.tgz" -C "$W" logs
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 30 "$NCU" --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --section ComputeWorkloadAnalysis -k regex:bm128_bn256_bk64_wm64_wn64_m16n8k16_s3 -c 1 -f -o "$L/ncu_M7v1" "$H" gemm_bf16 --size 4096 \
  --variants M7 --no-cublas --iters 1 --samples 1 > "$L/ncu_M7v1_run.log" 2>&1; echo "rc=$?" >> "$L/ncu_M7v1_run.log"
"$NCU" -i "$L/ncu_M7v1.ncu-rep" --page details --print-details all > "$L/ncu_M7v1.txt" 2>&1
"$NCU" -i "$L/ncu_M7v1.ncu-rep" --page source --csv --print-source sass 2>&1 | xz > "$L/ncu_M7v1_sass.csv.xz"
grep -E "^\s+(Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|Stall (Math|Wait|No Inst|Barrier|Short|Long))" "$L/ncu_M7v1.txt" | head -12
tar czf "$OUT/call_1.tgz" -C "$W" logs
date -u
