#!/usr/bin/env bash
# Call H on the H200 (2026-12-01): every GPU-only test of the merged lab, then experiment 7 at the issue's other sizes
# and experiment 4's full copy-size sweep. Same carried pack as call G.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
for s in 8192 2048x8192x1024 1000; do
  echo "=== host gemm_bf16 --size $s"
  timeout 120 "$D/host" gemm_bf16 --size "$s" --out "$W/bf16_$s" > "$W/bf16_$s.log" 2>&1; echo "rc=$?" | tee -a "$W/bf16_$s.log"
done
echo "=== host inflight, copy sizes 16 MiB..4 GiB"
timeout 150 "$D/host" inflight --sizes-mib 16,32,64,128,256,512,1024,2048,4096 --out "$W/sizes" > "$W/sizes.log" 2>&1; echo "rc=$?" | tee -a "$W/sizes.log"
tar czf "$OUT/call_h_runs.tgz" -C "$W" $(cd "$W" && ls -d bf16_* sizes sizes.log)
for t in "$D"/tests/*; do
  n=$(basename "$t"); echo "## $n"
  timeout 240 "$t" --ignored --test-threads 1 --nocapture > "$W/test_$n.log" 2>&1; echo "## $n rc=$?" >> "$W/test_$n.log"
  grep -E "^test |test result|panicked|rc=" "$W/test_$n.log" | tail -30
  tar czf "$OUT/call_h_tests.tgz" -C "$W" $(cd "$W" && ls test_*.log)
done
date -u
