#!/usr/bin/env bash
# Call E on the H200 (2026-12-01): BF16 GEMM tuning. Every BF16 line (M1-M6 with the block rasterization of
# Carried: dist/pack.tar.xz (host, tests/bf16_gemm_gpu, tests/tensor_gpu, the Rust tensor cubin, built on branch
# bf16perf) and dist/nvcc-perf (a copy of that branch's nvcc/, for the twin with the same tile order).
# mma_shape.rs `block_tile`, and the new BK=64 / 4-stage lines M7-M10) against cuBLAS at 4096^3 and 8192^3, every
# element checked (bf16_gemm_gpu); then Rust vs nvcc's twin on every tensor-core entry, bit for bit, with TFLOP/s.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
timeout 300 "$D/tests/bf16_gemm_gpu" --ignored --test-threads 1 --nocapture every_bf16_line_and_cublas_pass_the_check_at_4096 > "$W/bf16_large.log" 2>&1
echo "rc=$?" >> "$W/bf16_large.log"; grep -E "TFLOP|rc=|panicked|test result" "$W/bf16_large.log"
timeout 200 bash dist/nvcc-perf/check_tensor_on_gpu.sh "$D/kernels_tensor.sm_90.cubin" "$W/tc" sm_90 > "$W/tensor_compare.log" 2>&1
echo "rc=$?" >> "$W/tensor_compare.log"; grep -E "bf16_gemm|rc=|FAIL|differ" "$W/tensor_compare.log" | tail -30
tar czf "$OUT/call_e.tgz" -C "$W" bf16_large.log tensor_compare.log
date -u
