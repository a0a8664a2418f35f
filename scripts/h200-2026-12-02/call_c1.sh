#!/usr/bin/env bash
# Call C1 on the H200 (issue 29, item 6: every timed GEMM launch accounted for). Pack
# dist/c/pack.tar.xz: the release host of branch i29-c (stripped) and its GPU test binaries
# gemm_hashes_gpu and gemm_bf16_gpu.
# 1. gemm_hashes_gpu --ignored: the hash kernel against its CPU model, a wrong timed sample and a
#    wrong race launch caught, every side of a clean FP32 run hashed (cuBLAS's determinism printed).
# 2. `host all --out` (plain, no --compare), timed: its wall time, and results.json, whose checks
#    record each side's hashes (which lines and cuBLAS kernels are bit-deterministic).
set -u
W=/tmp/c1; O=$W/out; mkdir -p "$O"; tar xJf dist/c/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=$(pwd)/target/release/host; T="$W/tests"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_c1.tgz" -C "$W" out; }
echo "## hashes tests ($SECONDS s)"
timeout 60 "$T/gemm_hashes_gpu" --ignored --test-threads 1 --nocapture > "$O/hashes_gpu.log" 2>&1; echo "rc=$?" >> "$O/hashes_gpu.log"; save
grep -E "^test |test result|panicked|cuBLAS|NOT" "$O/hashes_gpu.log" | head -30
echo "## host all ($SECONDS s)"
( time timeout 200 "$H" all --out "$O/all" ) > "$O/all.log" 2>&1; echo "rc=$?" >> "$O/all.log"; save
grep -E "^real|^wrote|FAILED|rc=|check" "$O/all.log" | cut -c1-200 | head -20
date -u
