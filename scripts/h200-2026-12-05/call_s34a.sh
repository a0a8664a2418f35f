#!/usr/bin/env bash
# Session 34, GPU call S34a (2026-12-05): after S33u (one `--energy` run each, on an H100), the medians that decide
# whether the uniform-datapath change stays: `host shapes` at 4096³ and 8192³, BF16, the old build (pack p9, main at
# 422492f) and the new (pack p9u, branch uniform-which) alternating on one card, twice each; then the new build's
# wgmma lines at awkward sizes (every element checked; S33u gave it 100 s, which it needs on an H200 alone).
# Same packs and carry as call_s33u.sh, results/ aside.
set -u
CALL=call_s34a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/old"; unpack dist/p9u/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for i in 1 2; do
  for b in old new; do
    step 260 70 shapes_${b}$i.log "$W/$b/host" shapes --families bf16 --shapes 4096x4096x4096,8192x8192x8192 \
      --out "$O/shapes_${b}$i"
    echo "$b$i"; grep -E "│ BF16" "$O/shapes_${b}$i.log" | tr -s ' ' | cut -c1-200
  done
done
step 320 260 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
date -u; save
