#!/usr/bin/env bash
# Session 11, fourth GPU call (2026-12-02), right after S11c on the same machine: the control that tells a shift of
# the machine from one of the code. For every experiment, the host built before the redesign (commit 930075a, same
# kernels: PTX byte-identical) and the merged issue-30 host run back to back (old, new), each held against the other
# with scripts/compare-runs.py (figures within 3%, BF16 GEMMs within 10%, median within 1%).
# Packs: scripts/gpu/pack.sh s11c ... (as S11c) and scripts/gpu/pack.sh old930075a --rev 930075a
set -u
CALL=call_s11d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s11c/pack.tar.xz "$W/new"; unpack dist/old930075a/pack.tar.xz "$W/old"; env_line
for e in inflight gemm_bf16 bandwidth ilp mma held occupancy regs; do
  step 440 100 old_$e.log "$W/old/host" $e --out "$O/old_$e"
  step 500 100 new_$e.log "$W/new/host" $e --out "$O/new_$e"
  if [ -d "$O/old_$e" ] && [ -d "$O/new_$e" ]; then
    python3 scripts/compare-runs.py "$O/old_$e" "$O/new_$e" > "$O/control_$e.txt" 2>&1
    echo "== $e: $(tail -2 "$O/control_$e.txt" | tr '\n' ' ')"
  fi
  save
done
date -u
