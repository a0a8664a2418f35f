#!/usr/bin/env bash
# Call Y7 on the H200 (2026-12-01, seventh session), same pack as Y5: does cuBLAS's paired time
# depend on its partner? Experiment 7 at 4096^3 on M2 alone, MT1 alone, then both in each order;
# cuBLAS's time beside a line is the line's time times its ratio.
set -u
W=/tmp/lead; O=$W/outy7; mkdir -p "$O"; tar xJf dist/lead/pack7.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=$(pwd)/target/release/host
for v in M2 MT1 M2,MT1 MT1,M2; do
  [ "$SECONDS" -gt 150 ] && { echo "## $v not run ($SECONDS s)"; continue; }
  echo "## $v ($SECONDS s)"
  timeout 45 $H gemm_bf16 --size 4096 --variants $v --format markdown > "$O/pair_${v/,/_}.md" 2>&1
  grep -E "^\| (M2|MT1|cuBLAS)" "$O/pair_${v/,/_}.md" | cut -c1-20,150-330
done
tar czf "$OUT/call_y7.tgz" -C "$W" outy7
