#!/usr/bin/env bash
# Call X1 on the H200 (2026-12-01, sixth session), main at mma_ilp's NVVM-form zeros:
# 1. `host all` with nvcc's twin compared: experiment 6's Rust/nvcc with the new prologue
#    (call U1: ILP 2 at 5 warps/SM 0.90), the whole lab in one run (its results folder).
# 2. Experiment 6's ILP 2 at 4-6 warps/SM twice more against the twin.
# 3. ncu of M2 (128x256x32, 3 stages) at 4096^3 on the interior path: stall reasons per SASS
#    instruction, which no profile of the present main loop has.
# 4. Experiment 7 at 8192^3, 2048x8192x1024, 1000^3.
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh).
set -u
W=/tmp/lead; O=$W/outx1; mkdir -p "$O"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_x1.tgz" -C "$W" outx1; }
keys() { grep -E "^\| (M|W[0-9]|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
ratios() { python3 - "$1" <<'P'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
v = sorted((float(r['Ours/nvcc']), r['ILP'], r['Warps/SM']) for r in rows if r.get('Ours/nvcc'))
print(len(v), 'points; median', v[len(v) // 2][0], '; lowest', v[:4])
P
}
step 10 300 final_sweep.log bash -c "time $H all --out $O/final --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|FAILED|rc=" "$O/final_sweep.log" | head; keys "$O/final/tables.md" | head -20; ratios "$O/final/mma.csv"
for p in 2 3; do
  step 330 30 mma_$p.log $H mma --compare "$TW" --compare-label nvcc --no-wgmma --ilp 2 --warps-per-sm 4,5,6 --out "$O/mma_$p"
  grep rc= "$O/mma_$p.log"; ratios "$O/mma_$p/mma.csv"
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 380 40 ncu_M2_run.log "$NCU" --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SourceCounters --section SchedulerStats --section ComputeWorkloadAnalysis \
  --section LaunchStats --section InstructionStats -k "regex:bm128_bn256_bk32" -c 1 -f -o "$O/ncu_M2" \
  "$H" gemm_bf16 --size 4096 --variants M2 --no-cublas --iters 1 --samples 1
"$NCU" -i "$O/ncu_M2.ncu-rep" --page details --print-details all > "$O/ncu_M2.txt" 2>&1
"$NCU" -i "$O/ncu_M2.ncu-rep" --page source --csv --print-source sass > "$O/ncu_M2_sass.csv" 2>&1; xz -f "$O/ncu_M2_sass.csv"
grep -E "Duration|SM Frequency|Tensor Cycles|Stall (Wait|Math|Long|Barrier|MIO)|Warp Cycles Per Issued" "$O/ncu_M2.txt" | head -12; save
# The main loop alone: one wave of 128x256 tiles (132 of them) over a long K, no wave tail and
# little fill or drain per flop.
step 400 40 loop_1wave.md $H gemm_bf16 --size 1536x2816x32768 --variants M2,M7,M9 --format markdown; keys "$O/loop_1wave.md"
# Calibration: the tensor pipe's active share and the clock at experiment 6's ceiling (ILP 8, 8 warps/SM).
step 440 30 ncu_ilp8_run.log "$NCU" --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section WarpStateStats -k "regex:mma_bf16_ilp8" -c 1 -f -o "$O/ncu_ilp8" $H mma --ilp 8 --warps-per-sm 8 --no-wgmma
"$NCU" -i "$O/ncu_ilp8.ncu-rep" --page details --print-details all > "$O/ncu_ilp8.txt" 2>&1
grep -E "Duration|SM Frequency|Tensor Cycles|Stall (Wait|Math)" "$O/ncu_ilp8.txt" | head -8; save
for s in 8192 2048x8192x1024 1000; do
  step 520 70 bf16_$s.log $H gemm_bf16 --size $s --out "$O/bf16_$s"
  keys "$O/bf16_$s/tables.md"
done
date -u
