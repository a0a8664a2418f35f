#!/usr/bin/env bash
# Session 38, GPU call S38a (2026-12-05): whichever card comes does what it can. On an H200, S38b (both kernel
# candidates timed against main's build at 4096³); on any other sm_90 card, S38c (S37q's checks of the quarter-stage
# branch, correctness not depending on the card's clock, then its W1 and W8 timed against main's). Carry ["dist/w11",
# "dist/qs", "dist/m37"], results/ aside.
set -u
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  H200_ONLY=1 bash scripts/h200-2026-12-05/call_s38b.sh
else
  bash scripts/h200-2026-12-05/call_s38c.sh
fi
