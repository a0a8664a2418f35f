#!/usr/bin/env bash
# bf16tune call 1 on the H200 (2026-12-01, branch bf16tune): time the BF16 GEMM lines with four new
# candidates (M9 128x128x64 s3, M10 256x128x32 s4, M11 128x256x32 s4, M12 128x128x32 s3) beside
# cuBLAS at 4096^3 and 8192^3; A/B a serpentine mma order (serp.ptx, interleaved as --compare);
# ncu profiles of M7 and M9 at 4096^3. Carried: dist/bf16tune/{host,serp.ptx}.xz.
set -u
W=/tmp/bf16tune; L=$W/logs; mkdir -p "$L"; D=$(pwd)/dist/bf16tune
xz -dc "$D/host.xz" > "$W/host" && chmod +x "$W/host"; xz -dc "$D/serp.ptx.xz" > "$W/serp.ptx"
H=$W/host
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$L/env.txt" 2>&1
date -u >> "$L/env.txt"
ALL=M1,M7,M8,M9,M10,M11,M12
timeout 30 "$H" gemm_bf16 --size 4096 --variants $ALL --max-time-ms 1000 --format markdown > "$L/t4096.md" 2>&1; echo "rc=$?" >> "$L/t4096.md"
timeout 35 "$H" gemm_bf16 --size 8192 --variants $ALL --max-time-ms 1000 --format markdown > "$L/t8192.md" 2>&1; echo "rc=$?" >> "$L/t8192.md"
timeout 18 "$H" gemm_bf16 --size 4096 --variants M1,M7,M9 --max-time-ms 1000 --compare "$W/serp.ptx" --compare-label serp --format markdown > "$L/serp4096.md" 2>&1; echo "rc=$?" >> "$L/serp4096.md"
grep -E "^\| M|cuBLAS|rc=" "$L/t4096.md" "$L/t8192.md" "$L/serp4096.md" | cut -c1-260
tar czf "$OUT/call_1.tgz" -C "$W" logs
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for v in M7:bm128_bn256_bk64 M9:bm128_bn128_bk64; do
  label=${v%%:*}; re=${v#*:}
  timeout 24 "$NCU" --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SourceCounters \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats --section InstructionStats \
    -k "regex:$re" -c 1 -f -o "$L/ncu_$label" "$H" gemm_bf16 --size 4096 --variants "$label" --no-cublas \
    --iters 1 --samples 1 > "$L/ncu_${label}_run.log" 2>&1
  echo "rc=$?" >> "$L/ncu_${label}_run.log"
  "$NCU" -i "$L/ncu_$label.ncu-rep" --page details --print-details all > "$L/ncu_$label.txt" 2>&1
  "$NCU" -i "$L/ncu_$label.ncu-rep" --page source --csv --print-source sass > "$L/ncu_${label}_sass.csv" 2>&1
done
grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|L2 Hit Rate|Bank Conflicts|Stall|Warp Cycles Per Issued" "$L/ncu_M7.txt" | head -40
tar czf "$OUT/call_1.tgz" -C "$W" logs
date -u
