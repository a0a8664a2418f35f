#!/usr/bin/env bash
# Call N on the H200 (2026-12-01, third session). Calls L and M: neither fma_ilp1's register numbers
# nor its uniform-datapath counter explains Rust's 0.81 of nvcc's at 5-8 warps/SM, and under ncu
# both issue about one instruction per 2 cycles per scheduler. Here: the two kernels' PTX bodies
# swapped between the two modules (each module built by ptxas 13.0 from its PTX with the other's
# fma_ilp1), timed against nvcc's twin; and ncu's launch, occupancy and per-scheduler active-cycle
# figures for Rust's and nvcc's fma_ilp1 at 8 warps/SM.
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=target/release/host
for m in rust_with_nvcc_body nvcc_with_rust_body; do
  $H ilp --module "$W/$m.cubin" --compare "$W/twin.cubin" --compare-label nvcc --ilp 1 \
    --warps-per-sm 1,4,5,6,7,8,12,64 --controls none --format csv > "$W/out/ilp1_$m.csv" 2> "$W/out/ilp1_$m.err"
  echo "$m rc=$?"
  grep -v '^#' "$W/out/ilp1_$m.csv" | python3 -c "
import csv,sys
rows=list(csv.DictReader([l for l in sys.stdin if l.strip()]))
print(' '.join(f\"{r['Warps/SM']}:{float(r['% of peak (%)']):.1f}%/{float(r['Ours/nvcc']):.3f}\" for r in rows))"
done
M=sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,smsp__cycles_active.avg,smsp__cycles_active.max,smsp__cycles_active.min,smsp__warps_launched.sum,smsp__warps_launched.max,smsp__warps_launched.min,sm__ctas_launched.max,sm__ctas_launched.min,gpu__time_duration.sum,smsp__inst_executed.max,smsp__inst_executed.min
for who in ours nvcc; do
  if [ $who = ours ]; then mod="$W/base_r6_r2_r3.cubin"; else mod="$W/twin.cubin"; fi
  timeout 100 ncu --metrics $M --section LaunchStats --section Occupancy -k regex:'^fma_ilp1$' -c 1 \
    $H ilp --module "$mod" --ilp 1 --warps-per-sm 8 --controls none --iters 1 --samples 1 > "$W/out/ncu2_$who.txt" 2>&1
  echo "ncu $who rc=$?"; grep -E "sm__|smsp__|gpu__|Registers|Shared Memory|Block Limit|Achieved|Waves" "$W/out/ncu2_$who.txt" | head -40
done
tar czf "$OUT/call_n.tgz" -C "$W" out
date -u
