#!/usr/bin/env bash
# Call V on the H200 (2026-12-01, fifth session), branch s5 (main + mma_ilp's opaque zeros + the
# persistent mma.sync lines M11, M12 of branch bf16persist), the session's last call:
# 1. The BF16 lines' every-element test at small and odd sizes (M11, M12 among them), and the
#    persistent walk on grids of 1, 2 and 7 blocks and the host's wave.
# 2. Experiment 6 against nvcc's twin with mma_ilp's new prologue: the whole sweep, then ILP 2 at
#    4-6 warps/SM twice more (call U1: 0.90 at 5 warps/SM with the old prologue).
# 3. M7, M9, M11, M12 timed interleaved with cuBLAS at 4096^3, 8192^3, 2048x8192x1024, 1000^3.
# 4. cli_gpu's sweep comparison (changed after call U2), tensor_gpu at small sizes and its JIT report.
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh on branch s5).
set -u
W=/tmp/lead; O=$W/outv; mkdir -p "$O"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1
save() { tar czf "$OUT/call_v.tgz" -C "$W" outv; }
keys() { grep -E "^\| (M|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
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
step 60 45 odd.log "$T/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small
grep -E "^M1[12] |test result|panicked|rc=" "$O/odd.log"
step 100 60 mma_1.log $H mma --compare "$TW" --compare-label nvcc --no-wgmma --out "$O/mma_1"
grep rc= "$O/mma_1.log"; ratios "$O/mma_1/mma.csv"
for p in 2 3; do
  step 180 30 mma_$p.log $H mma --compare "$TW" --compare-label nvcc --no-wgmma --ilp 2 --warps-per-sm 4,5,6 --out "$O/mma_$p"
  grep rc= "$O/mma_$p.log"; ratios "$O/mma_$p/mma.csv"
done
step 240 50 p4096.md $H gemm_bf16 --size 4096 --variants M7,M9,M11,M12 --format markdown; keys "$O/p4096.md"
step 300 65 p8192.md $H gemm_bf16 --size 8192 --variants M7,M9,M11,M12 --max-time-ms 1000 --format markdown; keys "$O/p8192.md"
step 370 40 walk.log "$T/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture persistent_lines_take_every_tile_once_on_any_grid
grep -E "test result|panicked|rc=" "$O/walk.log"
step 400 60 cli_gpu.log "$T/cli_gpu" --ignored --test-threads 1 --nocapture sweeps_compare_every_point_they_run
grep -E "test result|panicked|rc=" "$O/cli_gpu.log"
step 440 30 p2048x8192x1024.md $H gemm_bf16 --size 2048x8192x1024 --variants M7,M9,M11,M12 --format markdown; keys "$O/p2048x8192x1024.md"
step 470 25 p1000.md $H gemm_bf16 --size 1000 --variants M7,M9,M11,M12 --format markdown; keys "$O/p1000.md"
step 480 40 tensor.log "$T/tensor_gpu" --ignored --test-threads 1 --nocapture every_bf16_gemm_line_is_right_at_small the_jit_reports_every_tensor_core_entry_without_spills
grep -E "persistent|test result|panicked|rc=" "$O/tensor.log"
date -u
