#!/usr/bin/env bash
# bf16tune call 2 on the H200 (2026-12-01, branch bf16tune): the BF16 GEMM with a straight epilogue for
# tiles inside C at beta = 0 and a copy path without edge tests for interior blocks, timed interleaved
# against call 1's kernels (base.cubin, --compare) and cuBLAS at 4096^3 and 8192^3; the GPU test of every
# line at small and odd sizes; ncu of the new M7. Carried: dist/bf16tune/{host,bf16_gemm_gpu,base.cubin}.xz.
set -u
W=/tmp/bf16tune; L=$W/logs; mkdir -p "$L"; D=$(pwd)/dist/bf16tune
for f in host bf16_gemm_gpu base.cubin; do xz -dc "$D/$f.xz" > "$W/$f"; done; chmod +x "$W/host" "$W/bf16_gemm_gpu"
H=$W/host; date -u > "$L/env.txt"
timeout 34 "$H" gemm_bf16 --size 4096 --variants M1,M7,M8,M10,M12 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab4096.md" 2>&1; echo "rc=$?" >> "$L/ab4096.md"
timeout 34 "$H" gemm_bf16 --size 8192 --variants M1,M7,M8 --max-time-ms 1000 --compare "$W/base.cubin" --compare-label base --format markdown > "$L/ab8192.md" 2>&1; echo "rc=$?" >> "$L/ab8192.md"
tar czf "$OUT/call_2.tgz" -C "$W" logs
timeout 25 "$W/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small > "$L/odd.log" 2>&1; echo "rc=$?" >> "$L/odd.log"
grep -E "^\| M|^\| cuBLAS|rc=" "$L/ab4096.md" "$L/ab8192.md" | cut -c1-80,150-420
grep -E "test result|panicked|rc=" "$L/odd.log"
tar czf "$OUT/call_2.tgz" -C "$W" logs
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 30 "$NCU" --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --section ComputeWorkloadAnalysis -k regex:bm128_bn256_bk64 -c 1 -f -o "$L/ncu_M7new" "$H" gemm_bf16 --size 4096 \
  --variants M7 --no-cublas --iters 1 --samples 1 > "$L/ncu_M7new_run.log" 2>&1; echo "rc=$?" >> "$L/ncu_M7new_run.log"
"$NCU" -i "$L/ncu_M7new.ncu-rep" --page details --print-details all > "$L/ncu_M7new.txt" 2>&1
"$NCU" -i "$L/ncu_M7new.ncu-rep" --page source --csv --print-source sass > "$L/ncu_M7new_sass.csv" 2>&1
grep -E "^\s+(Duration|SM Frequency|Compute \(SM\) Throughput|Stall (Math|Wait|No Inst|Barrier|Short|Long))" "$L/ncu_M7new.txt"
tar czf "$OUT/call_2.tgz" -C "$W" logs
date -u
