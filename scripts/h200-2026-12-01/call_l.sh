#!/usr/bin/env bash
# Call L on the H200 (2026-12-01, third session): what costs Rust's fma_ilp1 19% against nvcc's at
# 5-8 warps/SM. Five builds of the same module whose fma_ilp1 loops are the same 64 FFMAs and
# differ only in register numbers (made by ptxas from hand-edited PTX: see docs/runs), each timed
# interleaved with nvcc's twin at ILP 1; then the full experiment 5 of the Rust build that makes
# the output address before the loop (fma.rs), against the twin.
# Carried: dist/lead/pack.tar.xz (host, twin.cubin, bank/*.cubin).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/out/env.txt" 2>&1
for m in "$W"/bank/*.cubin; do
  n=$(basename "$m" .cubin)
  /usr/bin/time -f "%e s" target/release/host ilp --module "$m" --compare "$W/twin.cubin" --compare-label nvcc \
    --ilp 1 --warps-per-sm 1,2,3,4,5,6,7,8,12,16,32,64 --controls none --format csv > "$W/out/bank_$n.csv" 2> "$W/out/bank_$n.err"
  echo "$n rc=$?"; python3 - "$W/out/bank_$n.csv" <<'PY'
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
print(' '.join(f"{r['Warps/SM']}:{float(r['Ours/nvcc']):.3f}" for r in rows if r.get('Ours/nvcc')))
PY
done
/usr/bin/time -f "%e s" target/release/host ilp --compare "$W/twin.cubin" --compare-label nvcc --out "$W/out/ilp" > "$W/out/ilp.txt" 2> "$W/out/ilp.err"
echo "ilp rc=$?"; grep -E "^\| *(ffma|fadd|fmul)" "$W/out/ilp/tables.md" | awk -F'|' '$3+0<=2' | head -60
tar czf "$OUT/call_l.tgz" -C "$W" out
date -u
