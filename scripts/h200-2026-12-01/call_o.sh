#!/usr/bin/env bash
# Call O on the H200 (2026-12-01, third session): the FP32 chains (fma.rs) now count their trips
# of 16 rounds down as nvcc's loops do (whole iterations, then single trips); ptxas then builds
# fma_ilp1 to nvcc's loop shape (a vector-register counter, one 64-FFMA loop and one 16-FFMA loop).
# Experiment 5 in full against nvcc's twin, and ncu's per-scheduler active cycles at 8 warps/SM.
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=target/release/host
/usr/bin/time -f "%e s" $H ilp --compare "$W/twin.cubin" --compare-label nvcc --out "$W/out/ilp" > "$W/out/ilp.txt" 2> "$W/out/ilp.err"
echo "ilp rc=$?"; tail -2 "$W/out/ilp.err"
grep -v '^#' "$W/out/ilp/ilp.csv" | python3 -c "
import csv,sys
rows=list(csv.DictReader([l for l in sys.stdin if l.strip()]))
r=[float(x['Ours/nvcc']) for x in rows if x.get('Ours/nvcc')]
r.sort(); print('points',len(r),'min',r[0],'median',r[len(r)//2],'max',r[-1])
for x in rows:
    if x['ILP'] in ('1',) : print(x['Op'],x['ILP'],x['Warps/SM'],x['% of peak (%)'][:5],x['Ours/nvcc'][:5])"
M=smsp__cycles_active.avg,smsp__cycles_active.max,smsp__cycles_active.min,gpu__time_duration.sum
timeout 100 ncu --metrics $M -k regex:'^fma_ilp1$' -c 1 $H ilp --ilp 1 --warps-per-sm 8 --controls none --iters 1 --samples 1 > "$W/out/ncu_ours.txt" 2>&1
echo "ncu rc=$?"; grep -E "smsp__|gpu__" "$W/out/ncu_ours.txt"
tar czf "$OUT/call_o.tgz" -C "$W" out
date -u
