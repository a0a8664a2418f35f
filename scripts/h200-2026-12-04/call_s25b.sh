#!/usr/bin/env bash
# Session 25, GPU call S25b (2026-12-04): is W1's epilogue slow per SM, or because every SM writes its tile at once?
# Nsight Compute at the base clock on S25a's pack (branch epilogue-bound): W1 as built and without C's write
# (LAB_BOUND_SKIP_C=1) at shapes of 48 and 96 tiles (fewer than 44 would cut K), one block each, so that 48 or 96 SMs write together (against
# 132 in S25a's 4096³ and 8192³).
# Pack: S25a's (scripts/gpu/pack.sh s25bound in worktree /work/bound); sent with results/ set aside.
set -u
CALL=call_s25b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25bound/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
K='wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet'
ncu_base 200 120 ncu_plain_48 "$K" gemm_bf16 --variants W1 --size 768x2048x4096
ncu_base 260 120 ncu_plain_96 "$K" gemm_bf16 --variants W1 --size 1536x2048x4096
export LAB_BOUND_SKIP_C=1
ncu_base 320 120 ncu_skip_48 "$K" gemm_bf16 --variants W1 --size 768x2048x4096
ncu_base 380 120 ncu_skip_96 "$K" gemm_bf16 --variants W1 --size 1536x2048x4096
date -u; save
