#!/usr/bin/env bash
# Session 38, GPU call S38a (2026-12-05): whichever card comes does what it can. On an H200, S38b (both kernel
# candidates timed against main's build at 4096³); on any other sm_90 card, S37q's checks of the quarter-stage branch
# (correctness does not depend on the card's clock). Carry ["dist/w11", "dist/qs", "dist/m37"], results/ aside.
set -u
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  H200_ONLY=1 bash scripts/h200-2026-12-05/call_s38b.sh
else
  PART=checks bash scripts/h200-2026-12-05/call_s37q.sh
fi
