#!/usr/bin/env bash
# Session 11, fifth GPU call (2026-12-02): the rest of S11d's control. S11d ran old before new and found only the
# power-capped BF16 GEMM lines (W1, M4) and one wgmma row faster with the new host (+12-14%); here the order is
# reversed (new, then old), twice for gemm_bf16, so that a shift of the power-capped clock shows as a flip of sign.
# And regs, which S11d's time limit cut (old first, as in S11d).
# Packs: as S11d.
set -u
CALL=call_s11e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s11c/pack.tar.xz "$W/new"; unpack dist/old930075a/pack.tar.xz "$W/old"; env_line
pair() { # experiment tag first second
  step 380 100 $3_$1$2.log "$W/$3/host" $1 --out "$O/$3_$1$2"
  step 420 100 $4_$1$2.log "$W/$4/host" $1 --out "$O/$4_$1$2"
  if [ -d "$O/old_$1$2" ] && [ -d "$O/new_$1$2" ]; then
    python3 scripts/compare-runs.py "$O/old_$1$2" "$O/new_$1$2" > "$O/control_$1$2.txt" 2>&1
    echo "== $1$2: $(grep -E '^FAIL|median' "$O/control_$1$2.txt" | tr '\n' ' ')"
  fi
  save
}
pair gemm_bf16 1 new old
pair mma "" new old
pair regs "" old new
pair gemm_bf16 2 new old
date -u
