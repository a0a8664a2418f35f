#!/usr/bin/env bash
# Session 23, GPU call S23d (2026-12-04), S23c's pack (the kernels of 88a5260): W1 and W6 per clock in one call, each
# beside cuBLAS's kernel, Nsight Compute at the base clock, 4096³ then 8192³ (cuBLAS's own cycles moved 2.5% between
# S22d and S23c, so lines compared across calls can differ by that much).
set -u
CALL=call_s23d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s23c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for s in 4096 8192; do
  ncu_base $(( s == 4096 ? 5 : 150 )) 150 ncu_w1_$s 'wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet' gemm_bf16 --variants W1 --size $s
  ncu_base $(( s == 4096 ? 80 : 300 )) 150 ncu_w6_$s 'wgemm_bm64_bn256_bk64_s5_c2_x1$|nvjet' gemm_bf16 --variants W6 --size $s
done
date -u; save
