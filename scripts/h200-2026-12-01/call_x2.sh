#!/usr/bin/env bash
# Call X2 on the H200 (2026-12-01, sixth session): main + the BF16 mma.sync GEMM's split barrier
# between K slices (gpu/split_barrier.rs) + the shared, warmed built-in modules.
# 1. Every BF16 line at small and odd sizes, every element (the split barrier's correctness),
#    and the JIT's spill report of every tensor-core entry.
# 2. A/B: the split-barrier lines (built in) against the same lines with bar.sync (the previous
#    build's tensor-core PTX, carried as dist/lead/base_tensor.ptx.xz), interleaved, beside
#    cuBLAS, at 4096^3 and 8192^3.
# 3. `host all` with nvcc's twin: the run's wall time with the module cache, the whole lab.
# 4. The GPU tests of what changed: module sharing (sweeps_gpu), bf16_gemm_gpu, tensor_gpu, and
#    gemm_bf16_gpu's wgmma-rows test (narrowed to the W lines in the fifth session, never run).
# Carried: dist/lead/pack.tar.xz (pack_s5.sh), dist/lead/base_tensor.ptx.xz.
set -u
W=/tmp/lead; O=$W/outx2; mkdir -p "$O"; tar xJf dist/lead/pack.tar.xz -C "$W"
xz -dc dist/lead/base_tensor.ptx.xz > "$W/base_tensor.ptx"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_x2.tgz" -C "$W" outx2; }
keys() { grep -E "^\| (M|W[0-9]|cuBLAS)|rc=" "$1" | cut -c1-66,150-330; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
tests() { grep -E "^test |test result|panicked|rc=" "$O/$1" | tail -${2:-8}; }
step 5 60 odd.log "$T/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_small
tests odd.log
step 70 60 jit.log "$T/tensor_gpu" --ignored --test-threads 1 --nocapture the_jit_reports_every_tensor_core_entry_without_spills every_bf16_gemm_line_is_right_at_small
tests jit.log
step 130 50 ab4096.md $H gemm_bf16 --size 4096 --variants M1,M2,M7,M9 --compare "$W/base_tensor.ptx" --compare-label bar.sync --format markdown
keys "$O/ab4096.md"
step 190 70 ab8192.md $H gemm_bf16 --size 8192 --variants M2,M7,M9 --max-time-ms 1000 --compare "$W/base_tensor.ptx" --compare-label bar.sync --format markdown
keys "$O/ab8192.md"
step 270 300 final_sweep.log bash -c "time $H all --out $O/final --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|^wrote|FAILED|rc=" "$O/final_sweep.log" | cut -c1-200 | head -12; keys "$O/final/tables.md" | head -16
step 480 40 share.log "$T/sweeps_gpu" --ignored --test-threads 1 --nocapture experiments_share_the_built_in_modules_they_load
tests share.log 4
step 500 90 bf16_gemm_gpu.log "$T/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture
tests bf16_gemm_gpu.log
date -u
