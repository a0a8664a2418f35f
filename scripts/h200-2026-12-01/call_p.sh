#!/usr/bin/env bash
# Call P on the H200 (2026-12-01, third session): the lab after this session's merges, end to end.
# 1. fma_ilp1's two-warp interleaving: the second warp on each scheduler waits D clock cycles before
#    the loop (D = 0..64), in our body and in nvcc's (both assembled by ptxas 13.0 into our module),
#    timed at ILP 1 against nvcc's twin.
# 2. The GPU-only tests, new ones first (the shared-memory copies, the wgmma GEMM, the wgmma table).
# 3. `host all` with nvcc's twin compared: the session's results folder.
# 4. The remaining GPU-only tests while the call's time lasts.
# Carried: dist/lead/pack.tar.xz: host, the GPU test binaries (tests/), nvcc's twin built here by
# nvcc/build.sh with nvcc 13.0.88 (twin/), the spin modules (spin/).
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; O="$W/out"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$O/env.txt" 2>&1
echo "== spin"
for m in "$W"/spin/*.cubin; do
  n=$(basename "$m" .cubin)
  timeout 40 $H ilp --module "$m" --compare "$W/twin/twin.cubin" --compare-label nvcc --ilp 1 --warps-per-sm 5,8 \
    --controls none --format csv > "$O/spin_$n.csv" 2> "$O/spin_$n.err"
  echo "$n rc=$? $(grep -v '^#' "$O/spin_$n.csv" | python3 -c "
import csv,sys
rows=list(csv.DictReader([l for l in sys.stdin if l.strip()]))
print(' '.join(f\"{r['Warps/SM']}:{float(r['% of peak (%)']):.1f}%/{float(r['Ours/nvcc']):.3f}\" for r in rows))" 2>&1)"
done
tar czf "$OUT/call_p.tgz" -C "$W" out
gpu_test() { # name timeout
  [ "$SECONDS" -gt "$3" ] && { echo "## $1 not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $1"; timeout "$2" "$T/$1" --ignored --test-threads 1 --nocapture > "$O/test_$1.log" 2>&1
  echo "## $1 rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -8
  tar czf "$OUT/call_p.tgz" -C "$W" out
}
gpu_test smem_copy_gpu 90 200
gpu_test wgemm_gpu 150 200
gpu_test wgmma_table_gpu 60 250
echo "== host all ($SECONDS s in)"
( time timeout 330 $H all --out "$O/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$O/final_sweep.log" 2>&1
echo "final sweep rc=$?" >> "$O/final_sweep.log"; tail -6 "$O/final_sweep.log"
tar czf "$OUT/call_p.tgz" -C "$W" out
for t in gemm_bf16_gpu bf16_gemm_gpu gemm_check_gpu held_gpu sweeps_gpu wgmma_gpu mma_gpu tensor_gpu regs_variant_gpu cli; do
  gpu_test $t 90 500
done
gpu_test cli_gpu 150 430
date -u
