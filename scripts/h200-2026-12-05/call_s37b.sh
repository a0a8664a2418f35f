#!/usr/bin/env bash
# Session 37, GPU call S37b (2026-12-05): W11 (W8 in clusters of two, B multicast: two thirds of W8's bytes from L2 a
# tile, as cuBLAS's kernel brings in its pairs) on an H200, where the power cap sets the clock and W8 draws 3-5% more
# energy per GEMM than cuBLAS's kernel (S33e). On an H100 (S34b) W11 ran no faster than W8. Branch w11-main (main +
# the w8-cluster commits). W11's elements at awkward sizes passed on an H100 (S37c), so: the two lines' energy per
# GEMM at 4096, then `host gemm_bf16 --variants W8,W11` at 4096 (three runs) and 8192 (two), then W11 under Nsight at
# the base clock at 4096 beside cuBLAS's kernel. Pack: scripts/gpu/pack.sh w11 --tests wgemm_gpu on w11-main; carry
# ["dist/w11"], results/ aside. H200_ONLY=1 stops at once on any other card.
set -u
. scripts/gpu/steps.sh
start_call call_s37b
unpack dist/w11/pack.tar.xz "$W/new"; use_host "$W/new"
# Energy first (does B multicast lower W11's energy per GEMM?), then time; each step saved as it ends (a call cut by
# the device's budget keeps them).
g() { gemm_rows "$1" "$2" "$3.log" "$W/new/host" W8,W11 "$4"; }
step 20 90 energy.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 4096 --energy
sed -n '/nergy windows/,$p' "$O/energy.log" | grep -E "^│ (W8|W11|cuBLAS)" | cut -c1-400
g 200 45 g4_1 4096; g 250 45 g4_2 4096
g 330 60 g8_1 8192; g 370 45 g4_3 4096; g 420 60 g8_2 8192
ncu_base 480 80 ncu_w11_4096 'wgemm_bm128_bn256_bk64_s3_c2_x2$|nvjet' gemm_bf16 --variants W11 --size 4096
date -u; save
