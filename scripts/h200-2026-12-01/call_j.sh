#!/usr/bin/env bash
# Call J on the H200 (2026-12-01): the GPU-only tests of the final lab, the paths the merges touched first. Same carried
# pack as call I.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
for t in mma_gpu held_gpu sweeps_gpu gemm_check_gpu bf16_gemm_gpu gemm_bf16_gpu regs_variant_gpu cli_gpu cli tensor_gpu wgmma_gpu; do
  [ "$SECONDS" -gt 500 ] && { echo "## $t not run: the call's time is spent"; continue; }
  echo "## $t"; timeout 150 "$D/tests/$t" --ignored --test-threads 1 --nocapture > "$W/test_$t.log" 2>&1
  echo "## $t rc=$?" >> "$W/test_$t.log"; grep -E "^test |test result|panicked|rc=" "$W/test_$t.log" | tail -14
  tar czf "$OUT/call_j_tests.tgz" -C "$W" $(cd "$W" && ls test_*.log)
done
date -u
