#!/usr/bin/env bash
# Call Y4 on the H200 (2026-12-01, seventh session): the MT lines with each slot's release, wait
# and first loads between the two halves of its last k-step's MMAs (call Y3: the two warps of a
# scheduler read the same slots and reached their ends together, leaving the pipe idle).
# 1. gemm_bf16_gpu's ring-rows test: every ring line (W and MT) verified at 4096^3 and at
#    1000x776x1000 (edge tiles, K no whole number of slices).
# 2. MT1, MT2 beside M2, M7, W1 and cuBLAS at 4096^3, then MT1, MT2, M2 at 8192^3.
# 3. ncu of MT1 at 4096^3: stall reasons per SASS instruction, tensor pipe activity.
# Carried: dist/lead/pack7.tar.xz (scripts/h200-2026-12-01/pack_s7.sh).
set -u
W=/tmp/lead; O=$W/outy4; mkdir -p "$O"; tar xJf dist/lead/pack7.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_y4.tgz" -C "$W" outy4; }
keys() { grep -E "^\| (M|W[0-9]|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
tests() { grep -E "^test |test result|panicked|4096\^3|rc=" "$O/$1" | tail -${2:-12}; }
step 5 150 ring.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
tests ring.log; grep -A12 "panicked" "$O/ring.log" | head -30
step 160 70 b4096.md $H gemm_bf16 --size 4096 --variants M2,M7,W1,MT1,MT2 --format markdown
keys "$O/b4096.md"
step 240 90 b8192.md $H gemm_bf16 --size 8192 --variants M2,MT1,MT2 --max-time-ms 1000 --format markdown
keys "$O/b8192.md"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 340 60 ncu_MT1_run.log "$NCU" --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SourceCounters --section SchedulerStats --section ComputeWorkloadAnalysis \
  --section LaunchStats --section InstructionStats -k "regex:tma_mma_bm128_bn256" -c 1 -f -o "$O/ncu_MT1" \
  "$H" gemm_bf16 --size 4096 --variants MT1 --no-cublas --iters 1 --samples 1
"$NCU" -i "$O/ncu_MT1.ncu-rep" --page details --print-details all > "$O/ncu_MT1.txt" 2>&1
"$NCU" -i "$O/ncu_MT1.ncu-rep" --page source --csv --print-source sass > "$O/ncu_MT1_sass.csv" 2>&1; xz -f "$O/ncu_MT1_sass.csv"
grep -E "Duration|SM Frequency|Tensor Cycles|Stall (Wait|Math|Long|Barrier|MIO|Short)|Warp Cycles Per Issued|Issue Slots Busy" "$O/ncu_MT1.txt" | head -14; save
date -u
