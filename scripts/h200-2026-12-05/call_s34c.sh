#!/usr/bin/env bash
# Session 34, GPU call S34c (2026-12-05): the uniform datapath on the card it was made for. On the H100 (S33u, S34a)
# W9 stays far behind, its crossbar the limit; on the H200 it led per clock at 4096³ and lost in time. Old build
# (pack p9, 422492f) and new (pack p9u, 6076d3d: main's kernels since 9447dd4), `host gemm_bf16 --variants W8,W9`
# at 4096³ alternating twice each, then the new build's `host shapes` at 4096³ and 8192³ (twice if time allows). On any card but an
# H200 it stops after the first line (the question is the H200's). Carry ["dist/p9", "dist/p9u"], results/ aside.
set -u
CALL=call_s34c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if ! grep -q "H200" "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack dist/p9/pack.tar.xz "$W/old"; unpack dist/p9u/pack.tar.xz "$W/new"; use_host "$W/new"
show() { grep -E "^│ (W8|W9|cuBLAS)" "$O/$1" | head -3 | awk -F'│' '{print $2,$10,$19,$20,$22}'; }
for i in 1 2; do
  for b in old new; do
    step 110 45 g_${b}$i.log "$W/$b/host" gemm_bf16 --variants W8,W9 --size 4096; echo "$b$i"; show g_${b}$i.log
  done
done
for i in 1 2; do
  step 160 70 shapes$i.log "$W/new/host" shapes --families bf16 --shapes 4096x4096x4096,8192x8192x8192 \
    --out "$O/shapes$i"
  grep -E "│ BF16" "$O/shapes$i.log" | awk -F'│' '{print $3,$4,$12,$13,$14,$16,$18}'
done
date -u; save
