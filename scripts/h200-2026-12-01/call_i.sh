#!/usr/bin/env bash
# Call I on the H200 (2026-12-01): the final lab end to end. nvcc's twin built from this tree's nvcc/, `host all` with
# the twin compared (experiments 1-8), timed; then experiment 7 at the issue's other sizes and experiment 4's copy-size
# sweep from 16 MiB to 4 GiB. Carried: dist/pack.tar.xz (host and the GPU-only test binaries, built here by
# `cargo build --release -p host` and `cargo test --release -p host --no-run`).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
( time bash nvcc/build.sh "$W/twin" sm_90 ) > "$W/twin_build.log" 2>&1 || echo "TWIN BUILD FAILED"; tail -3 "$W/twin_build.log"
echo "=== host all, nvcc's twin compared"
( time "$D/host" all --out "$W/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$W/final_sweep.log" 2>&1
echo "final sweep rc=$?" >> "$W/final_sweep.log"; tail -5 "$W/final_sweep.log"
tar czf "$OUT/call_i.tgz" -C "$W" final final_sweep.log twin_build.log
for s in 8192 2048x8192x1024 1000; do
  echo "=== host gemm_bf16 --size $s"
  timeout 90 "$D/host" gemm_bf16 --size "$s" --out "$W/bf16_$s" > "$W/bf16_$s.log" 2>&1; echo "rc=$?" | tee -a "$W/bf16_$s.log"
  tar czf "$OUT/call_i_runs.tgz" -C "$W" $(cd "$W" && ls -d bf16_*)
done
echo "=== host inflight, copy sizes 16 MiB..4 GiB"
[ "$SECONDS" -lt 420 ] && { timeout 120 "$D/host" inflight --sizes-mib 16,32,64,128,256,512,1024,2048,4096 --loaded-steps 0 --out "$W/sizes" > "$W/sizes.log" 2>&1; echo "rc=$?" | tee -a "$W/sizes.log"; }
tar czf "$OUT/call_i_runs.tgz" -C "$W" $(cd "$W" && ls -d bf16_* sizes sizes.log 2>/dev/null)
date -u
