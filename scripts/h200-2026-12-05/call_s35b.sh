#!/usr/bin/env bash
# Session 35, GPU call S35b (2026-12-05): the run to commit, made on main's kernels as they stand (the last committed
# run, results/2026-12-05-h200-s32, predates the lane-0 index and, if S35a passes, the descriptors built once a slot).
# `host all` with nvcc's twin compared into all/, then, on an H200 only, W8 and W9 under Nsight at the base clock at
# 4096³ beside cuBLAS's kernel (per clock: issue 32's 1.02). PACK names the pack (default pdsT: desc-step with twin,
# scripts/gpu/pack.sh pdsT --tests wgemm_gpu --twin on that branch); carry ["dist/$PACK"], results/ aside.
# H200_ONLY=1 stops at once on any other card (S35b ran it on an H100 first, with CALL=call_s35b_h100).
set -u
CALL=${CALL:-call_s35b}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if [ "${H200_ONLY:-0}" = 1 ] && ! grep -q H200 "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack "dist/${PACK:-pdsT}/pack.tar.xz" "$W/new"; use_host "$W/new"
host_all 10 "${ALL_S:-330}" all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
if grep -q H200 "$O/env.txt"; then
  ncu_base 420 80 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
  ncu_base 500 80 ncu_w9_4096 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
fi
date -u; save
