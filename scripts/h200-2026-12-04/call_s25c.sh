#!/usr/bin/env bash
# Session 25, GPU call S25c (2026-12-04): what a 3-slot ring costs W1's K loop, which would free 48 KB of shared memory
# to stage C in. Branch epilogue-bound with a trial line W8 (W1 with 3 stages; commit of that branch): Nsight Compute
# at the base clock, W8 without C's write (LAB_BOUND_SKIP_C=1) and as built, at 4096³ and 8192³ (S25a has W1's).
# Pack: scripts/gpu/pack.sh s25w8 in worktree /work/bound; sent with results/ set aside.
set -u
CALL=call_s25c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25w8/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
K='wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet'
ncu_base 200 150 ncu_w8_plain_4096 "$K" gemm_bf16 --variants W8 --size 4096
export LAB_BOUND_SKIP_C=1
ncu_base 300 150 ncu_w8_skip_4096 "$K" gemm_bf16 --variants W8 --size 4096
ncu_base 400 150 ncu_w8_skip_8192 "$K" gemm_bf16 --variants W8 --size 8192
date -u; save
