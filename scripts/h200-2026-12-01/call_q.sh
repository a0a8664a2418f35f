#!/usr/bin/env bash
# Call Q on the H200 (2026-12-01, third session): after call P, experiment 4 leaves the bulk-copy
# (tma_copy) lines out unless --bulk-copies is given (they failed their check in call P). Checks that
# `host inflight` now runs clean by default, and the GPU tests call P failed on them or did not reach.
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host; cp "$W/host" /work/main/target/release/host 2>/dev/null
H=$(pwd)/target/release/host; T="$W/tests"; O="$W/out"
( time timeout 90 $H inflight --out "$O/inflight" ) > "$O/inflight.log" 2>&1; echo "inflight rc=$?" | tee -a "$O/inflight.log"; tail -4 "$O/inflight.log"
grep -E "cp_async_copy_t32_b4096_s16 .* 1 " "$O/inflight/tables.md" | head -3
tar czf "$OUT/call_q.tgz" -C "$W" out
for t in "smem_copy_gpu the_sweep_runs" "sweeps_gpu the_read_only_kernels" "regs_variant_gpu" "cli"; do
  set -- $t; [ "$SECONDS" -gt 150 ] && { echo "## $1 not run ($SECONDS s)"; continue; }
  echo "## $1 ${2:-}"; timeout 60 "$T/$1" --ignored --test-threads 1 --nocapture ${2:-} > "$O/test_$1.log" 2>&1
  echo "## rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -6
  tar czf "$OUT/call_q.tgz" -C "$W" out
done
date -u
