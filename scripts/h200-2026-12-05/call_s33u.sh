#!/usr/bin/env bash
# Session 33, GPU call S33u (2026-12-05): the consumer warpgroup's index through lane 0 (`from_lane0`), which moves the
# wgmma lines' slot addresses and descriptors onto the uniform datapath (W9's K loop: 124 SASS instructions a slot
# against 94, 71 R2URs in the entry against 18). Does W9 then draw less energy and keep a higher clock? `--energy`
# on the old build (pack p9, main at 422492f) and the new (pack p9u), back to back on one card, 4096³ then 8192³;
# then the new build's wgmma lines at awkward sizes (every element checked), if the call's time allows.
# Packs: scripts/gpu/pack.sh p9 --tests wgemm_gpu --twin; scripts/gpu/pack.sh p9u --tests wgemm_gpu (this tree).
# Carry ["dist/p9", "dist/p9u"], results/ aside.
set -u
CALL=call_s33u; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/old"; unpack dist/p9u/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
show() { grep -A6 "per clock and per joule" "$O/$1" | grep -E "│ (W8|W9|cuBLAS)" | tr -s ' ' | cut -c1-230; }
step 60 45 e4096_old.log "$W/old/host" gemm_bf16 --variants W8,W9 --size 4096 --energy; show e4096_old.log
step 90 45 e4096_new.log "$W/new/host" gemm_bf16 --variants W8,W9 --size 4096 --energy; show e4096_new.log
step 120 45 e8192_new.log "$W/new/host" gemm_bf16 --variants W8,W9 --size 8192 --energy; show e8192_new.log
step 125 100 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
date -u; save
