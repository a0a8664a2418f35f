#!/usr/bin/env bash
# Call C on the H200 (2026-12-01), after the tensor-core entries moved to their own module: the run that is
# committed (results/2026-12-01-h200: `host all` with nvcc's twin compared, i.e. what `cargo xtask sweep
# --compare-nvcc` runs), the previous host (b0945e1) on the same command for the added time of the checks, the
# calculator against the driver, and the GPU-only tests of the tensor-core kernels and the BF16 host side (full logs).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
( date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv;
  nvcc --version | tail -2 ) | tee "$W/env.txt"
t0=$(date +%s); bash nvcc/build.sh "$W/twin" sm_90 > "$W/twin_build.log" 2>&1 || { echo "TWIN BUILD FAILED"; tail -20 "$W/twin_build.log"; }
echo "twin build: $(( $(date +%s) - t0 )) s"
echo "=== 1. host all, nvcc's twin compared"
( time "$D/host" all --out "$W/h200" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$W/sweep.log" 2>&1
echo "sweep rc=$?" >> "$W/sweep.log"; tail -5 "$W/sweep.log"
tar czf "$OUT/sweep.tgz" -C "$W" h200 sweep.log env.txt twin_build.log twin/twin.ptxas.txt
echo "=== 2. the previous host, same command"
( time "$D/host-old" all --out "$W/old" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$W/old_sweep.log" 2>&1
echo "old sweep rc=$?" >> "$W/old_sweep.log"; tail -5 "$W/old_sweep.log"
tar czf "$OUT/old.tgz" -C "$W" old old_sweep.log
echo "=== 3. the calculator against the driver"
"$D/host" calc --device 0 --verify > "$W/calc_verify.log" 2>&1; echo "calc verify rc=$?" | tee -a "$W/calc_verify.log"
tail -4 "$W/calc_verify.log"
echo "=== 4. GPU-only tests: tensor-core kernels, BF16 host side"
for t in tensor_gpu bf16_gemm_gpu; do
  echo "## $t"; timeout 150 "$D/tests/$t" --ignored --test-threads 1 --nocapture 2>&1
done > "$W/gpu_tests.log" 2>&1
grep -E "^## |^test |test result|panicked" "$W/gpu_tests.log"
echo "=== 5. the tensor-core twin against the Rust kernels (bit for bit, TFLOP/s)"
timeout 150 bash nvcc/check_tensor_on_gpu.sh "$D/kernels_tensor.sm_90.cubin" "$W/tensor" sm_90 > "$W/tensor_twin.log" 2>&1
echo "tensor twin rc=$?" | tee -a "$W/tensor_twin.log"; tail -30 "$W/tensor_twin.log"
tar czf "$OUT/tests.tgz" -C "$W" gpu_tests.log calc_verify.log tensor_twin.log
date -u
