#!/usr/bin/env bash
# Prepared in sessions 27 and 28 (2026-12-04/05; no GPU was lent in either); not yet run.
# - Session 27's "W8's own stores share write_inside's loop" changed W8's SASS by a few integer instructions (same
#   4096 instructions, 168 registers, no spills): W8 is checked and timed again before its figures are quoted.
# - Session 28's line choice times every line within 2% of its kind's best SM efficiency, and every line tied with the
#   third: at 4096³ BF16 W8 joins W1 and W5, at 16384³ the 128x256 lines join the streamed 128x128 and 64x256 ones.
# Steps: (1) wgemm_gpu: every line at the awkward sizes, split-K and streamed tails, the same bits every launch;
# (2) the lines the new rule adds, beside cuBLAS, interleaved: 16384³ W1, W2, W3, W8 and 4096³ W1, W5, W8;
# (3) Nsight Compute at the base clock, W8 and cuBLAS at 4096³ and 8192³ (S26a: 297,422 vs 291,975 and 2,170,252
#     vs 2,248,432 cycles). Then, in a second call on the same pack, the run to commit (`host all` and the JIT's
#     report, as S26c): sed -e 's/call_s26c/call_s28b/' -e 's|dist/s26c|dist/s28a|'
#     scripts/h200-2026-12-04/call_s26c.sh | bash. Each call stays within the 600 s a command may run.
# Pack: scripts/gpu/pack.sh s28a --tests wgemm_gpu --twin; sent with results/ set aside.
set -u
CALL=call_s28a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s28a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 200 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check \
  the_split_k_lines the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
step 210 90 band_16384.log "$W/new/host" gemm_bf16 --variants W1,W2,W3,W8 --size 16384
step 300 60 tie_4096.log "$W/new/host" gemm_bf16 --variants W1,W5,W8 --size 4096
grep -h -E "^│ (W[0-9]|cuBLAS)|Ours/cuBLAS|rc=" "$O/band_16384.log" "$O/tie_4096.log" | cut -c1-220
ncu_base 360 110 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 470 110 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
date -u; save
