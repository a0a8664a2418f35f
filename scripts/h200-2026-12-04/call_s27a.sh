#!/usr/bin/env bash
# Prepared in session 27 (2026-12-04, no GPU lent that session); not yet run. Commit "W8's own stores share
# write_inside's loop" changed W8's SASS by a few integer instructions (same 4096 instructions, same 168 registers,
# no spills; every other entry byte-identical): W8 is checked and timed again before its figures are quoted.
# (1) wgemm_gpu: every line at the awkward sizes, split-K and streamed tails, the same bits every launch;
# (2) Nsight Compute at the base clock, W8 and cuBLAS at 4096³ and 8192³ (S26a: 297,422 vs 291,975 and
#     2,170,252 vs 2,248,432 cycles). Then, in a second call on the same pack, the run to commit (`host all` and
#     the JIT's report, as S26c): sed -e 's/call_s26c/call_s27b/' -e 's|dist/s26c|dist/s27a|'
#     scripts/h200-2026-12-04/call_s26c.sh | bash. Each call stays within the 600 s a command may run.
# Pack: scripts/gpu/pack.sh s27a --tests wgemm_gpu --twin; sent with results/ set aside.
set -u
CALL=call_s27a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s27a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 240 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check \
  the_split_k_lines the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
ncu_base 250 150 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 405 150 ncu_w8_8192 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 8192
date -u; save
