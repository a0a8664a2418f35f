#!/usr/bin/env bash
# Session 23, GPU call S23c (2026-12-04): main with line W6 (consumers in ping-pong, streaming its tail where the
# rule says so) merged. (1) `host all` with nvcc's twin (the run to commit); (2) Nsight Compute at the base clock, W6
# and cuBLAS's kernel at 8192³ (per clock); (3) `host gemm_bf16 --variants W1,W6 --size 4096` once more, if time is left.
# Pack: scripts/gpu/pack.sh s23c --twin
set -u
CALL=call_s23c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s23c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 300 all.log all
ncu_base 330 150 ncu_w6_8192 'wgemm_bm64_bn256_bk64_s5_c2_x1$|nvjet' gemm_bf16 --variants W6 --size 8192
step 470 100 w1_w6.log "$W/new/host" gemm_bf16 --variants W1,W6 --size 4096
grep -E '^│ (W1|W6|cuBLAS)' "$O/w1_w6.log" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '
date -u; save
