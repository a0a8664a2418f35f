#!/usr/bin/env bash
# Call X3 on the H200 (2026-12-01, sixth session), main at the shared, warmed built-in modules
# (the split barrier of call X2 reverted): the session's results folder.
# 1. `host all` with nvcc's twin compared (results/2026-12-01-h200-s6): its wall time with each
#    experiment's in the log, every check, Rust/nvcc for experiment 6, the BF16 ratios.
# 2. gemm_bf16_gpu's wgmma-rows test, narrowed to the W lines in the fifth session (never run).
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh).
set -u
W=/tmp/lead; O=$W/outx3; mkdir -p "$O"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_x3.tgz" -C "$W" outx3; }
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
grep -E "^real|^wrote|FAILED|rc=" "$O/final_sweep.log" | cut -c1-160 | head -14; keys "$O/final/tables.md" | head -16; ratios "$O/final/mma.csv"
step 250 170 wgmma_rows.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -E "^test |test result|panicked|rc=|W[0-9] " "$O/wgmma_rows.log" | tail -12
date -u
