#!/usr/bin/env bash
# Session 31, GPU call S31a (2026-12-05), after S30a on an H100 (no H200 was lent): W9 ran 0.862 of cuBLAS per clock at
# 4096³ with the L2-to-SM crossbar 81.6% busy; on the H200, W6's turns, at 1.67 times W1's bytes per FLOP to W9's
# 1.33, had run 0.984 (S22f). Is it the card or W9? (1) W6 beside W9, medians, and W6 under Nsight at the base clock
# beside cuBLAS's kernel, at 4096³ on this card; (2) `wgemm_gpu`'s check of every line at the awkward sizes, which ran
# past its 100 s as S30a's first step on a fresh machine (S28c: 22-34 s on an H200): a hang, or the first assembly of
# the built-in modules? Given room to finish, its time printed. On an H200, W9 under Nsight as well, first.
# Pack: dist/pp128 (pack_s30a.sh); carry ["dist/pp128"], results/ aside.
set -u
CALL=call_s31a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/pp128/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 150 medians_4096.log "$W/new/host" gemm_bf16 --variants W6,W9 --size 4096
grep -h -E "^│ (W[0-9]|cuBLAS)|rc=" "$O/medians_4096.log" | cut -c1-220
ncu_base 160 150 ncu_w6_4096 'wgemm_bm64_bn256_bk64_s5_c2_x1$|nvjet' gemm_bf16 --variants W6 --size 4096
# On an H200 (where S30a has not run), W9 under Nsight too, before the check.
if grep -q H200 "$O/env.txt"; then
  ncu_base 315 150 ncu_w9_4096 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
fi
step 470 270 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
date -u; save
