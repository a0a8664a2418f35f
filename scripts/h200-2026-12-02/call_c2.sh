#!/usr/bin/env bash
# Call C2 on the H200 (issue 29, item 6). Pack dist/c/pack2.tar.xz: the release host of branch
# i29-c (as in call C1; only tests changed since) and, as the baseline, main's release host
# from before the hashes (built 05:40 UTC, `host_old`).
# 1. `host all --out` (plain), timed: the cost of the hashes and race checks on the whole run.
# 2. The baseline's `regs`, `held` and `gemm_bf16` alone, timed, to set beside their times in 1.
set -u
W=/tmp/c2; O=$W/out; mkdir -p "$O"; tar xJf dist/c/pack2.tar.xz -C "$W"
H=$W/host; OLD=$W/host_old
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_c2.tgz" -C "$W" out; }
echo "## host all ($SECONDS s)"
( time timeout 200 "$H" all --out "$O/all" ) > "$O/all.log" 2>&1; echo "rc=$?" >> "$O/all.log"; save
grep -E "^real|^wrote|FAILED|rc=" "$O/all.log" | cut -c1-200 | head -20
for e in regs held gemm_bf16; do
  [ "$SECONDS" -gt 215 ] && { echo "## old $e not run ($SECONDS s)"; continue; }
  echo "## old $e ($SECONDS s)"
  ( time timeout 40 "$OLD" $e --out "$O/old_$e" ) > "$O/old_$e.log" 2>&1; echo "rc=$?" >> "$O/old_$e.log"; save
  grep -E "^real|rc=" "$O/old_$e.log"
done
date -u
