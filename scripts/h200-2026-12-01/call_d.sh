#!/usr/bin/env bash
# Call D on the H200 (2026-12-01): the final host (after the experiment-trait refactor and the duplicate clean-up)
# checked end to end: `host all` with nvcc's twin compared, then the GPU-only tests whose code paths the refactor
# touched (GEMM check, BF16 host side, the run loop's folder handling, the sweeps, the compared modules).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
bash nvcc/build.sh "$W/twin" sm_90 > "$W/twin_build.log" 2>&1 || echo "TWIN BUILD FAILED"
echo "=== host all, nvcc's twin compared"
( time "$D/host" all --out "$W/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$W/final_sweep.log" 2>&1
echo "final sweep rc=$?" >> "$W/final_sweep.log"; tail -4 "$W/final_sweep.log"
tar czf "$OUT/final.tgz" -C "$W" final final_sweep.log
for t in gemm_check_gpu bf16_gemm_gpu cli sweeps_gpu cli_gpu; do
  echo "## $t"; timeout 150 "$D/tests/$t" --ignored --test-threads 1 --nocapture > "$W/test_$t.log" 2>&1
  echo "## $t rc=$?" >> "$W/test_$t.log"; grep -E "^test |test result|panicked|rc=" "$W/test_$t.log"
  tar czf "$OUT/tests.tgz" -C "$W" $(cd "$W" && ls test_*.log)
done
date -u
