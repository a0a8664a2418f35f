#!/usr/bin/env bash
# Session 34, GPU call S34c (2026-12-05): the uniform datapath on the card it was made for. On the H100 (S33u, S34a,
# S34d) W9 stays far behind, its loads the limit, but runs a fifth fewer instructions, and under Nsight it kept
# cuBLAS's 1.35 GHz where the old build fell to 1.30. On the H200 W9 led per clock at 4096³ and lost its clock under
# the cap (1.24 GHz against cuBLAS's 1.27-1.28, session 33). So, on an H200 only (any other card: it stops at once):
# W9 of the new build under Nsight at 4096³ (per clock and in time), then `host gemm_bf16 --variants W8,W9 --size
# 4096`, new, old, new (pack p9u: main's kernels since 9447dd4; pack p9: 422492f), then the new build's `host shapes`
# at 4096³ and 8192³ if time allows. Carry ["dist/p9", "dist/p9u"], results/ aside.
set -u
CALL=call_s34c; O=/tmp/lead/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if ! grep -q "H200" "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack dist/p9/pack.tar.xz /tmp/lead/old; unpack dist/p9u/pack.tar.xz /tmp/lead/new/new
W=/tmp/lead/new; use_host "$W/new"
ncu_base 5 60 ncu_w9_new 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
show() { grep -E "^│ (W8|W9|cuBLAS)" "$O/$1" | head -3 | awk -F'│' '{print $2,$10,$19,$20,$22}'; }
for b in new old new2; do
  host=/tmp/lead/new/new; [ "$b" = old ] && host=/tmp/lead/old
  step 150 40 g_$b.log "$host/host" gemm_bf16 --variants W8,W9 --size 4096; echo "$b"; show g_$b.log
done
step 170 45 shapes.log "$W/new/host" shapes --families bf16 --shapes 4096x4096x4096,8192x8192x8192 --out "$O/shapes"
grep -E "│ BF16" "$O/shapes.log" | awk -F'│' '{print $3,$4,$12,$13,$14,$16,$18}'
date -u; save
