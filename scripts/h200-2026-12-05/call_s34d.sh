#!/usr/bin/env bash
# Session 34, GPU call S34d (2026-12-05): per clock, does the uniform datapath save W9 cycles? Nsight Compute at the
# base clock, W9 at 4096³ beside cuBLAS's kernel, old build (pack p9, 422492f) then new (pack p9u, 6076d3d).
# Carry ["dist/p9", "dist/p9u"], results/ aside.
set -u
CALL=call_s34d; O=/tmp/lead/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
for b in old new; do
  W=/tmp/lead/$b; unpack "dist/$([ $b = old ] && echo p9 || echo p9u)/pack.tar.xz" "$W/new"
done
W=/tmp/lead/old; use_host "$W/new"; env_line; cat "$O/env.txt"
ncu_base 120 110 ncu_w9_old 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
W=/tmp/lead/new; use_host "$W/new"
ncu_base 240 110 ncu_w9_new 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
date -u; save
