#!/usr/bin/env bash
# Call M on the H200 (2026-12-01, third session). Call L showed that fma_ilp1's register numbers do
# not matter (five allocations, all 0.81 of nvcc's at 5-8 warps/SM). Left between the two loops:
# Rust's round counter on the uniform datapath (UIADD3 UR4 / ISETP ... UR4), nvcc's in a vector
# register (IADD3 R8 / ISETP R8). counter_vector_r5 is the Rust module whose fma_ilp1 PTX seeds the
# counter from tid.x >> 12 (zero, but not provably uniform), so ptxas keeps it in R5; the 64 FFMAs
# are unchanged. Then ncu's warp-state statistics of Rust's and nvcc's fma_ilp1 at 8 warps/SM.
# Carried: dist/lead/pack.tar.xz (host, twin.cubin, counter_vector_r5.cubin, base_r6_r2_r3.cubin).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=target/release/host
for m in counter_vector_r5 base_r6_r2_r3; do
  $H ilp --module "$W/$m.cubin" --compare "$W/twin.cubin" --compare-label nvcc --ilp 1 \
    --warps-per-sm 1,4,5,6,7,8,12,64 --controls none --format csv > "$W/out/ilp1_$m.csv" 2> "$W/out/ilp1_$m.err"
  echo "$m rc=$?"
  grep -v '^#' "$W/out/ilp1_$m.csv" | python3 -c "
import csv,sys
rows=list(csv.DictReader([l for l in sys.stdin if l.strip()]))
print(' '.join(f\"{r['Warps/SM']}:{float(r['% of peak (%)']):.1f}%/{float(r['Ours/nvcc']):.3f}\" for r in rows))"
done
for who in ours nvcc; do
  if [ $who = ours ]; then mod="$W/base_r6_r2_r3.cubin"; else mod="$W/twin.cubin"; fi
  timeout 120 ncu --section WarpStateStats --section SchedulerStats --section InstructionStats -k regex:'^fma_ilp1$' -c 1 \
    $H ilp --module "$mod" --ilp 1 --warps-per-sm 8 --controls none --iters 1 --samples 1 > "$W/out/ncu_$who.txt" 2>&1
  echo "ncu $who rc=$?"; grep -E "Stall|Issue|Eligible|Active Warps|Warp Cycles|No Eligible|Executed Ipc" "$W/out/ncu_$who.txt" | head -30
done
tar czf "$OUT/call_m.tgz" -C "$W" out
date -u
