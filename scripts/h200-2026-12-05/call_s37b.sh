#!/usr/bin/env bash
# Session 37, GPU call S37b (2026-12-05): W11 (W8 in clusters of two, B multicast: two thirds of W8's bytes from L2 a
# tile, as cuBLAS's kernel brings in its pairs) on an H200, where the power cap sets the clock and W8 draws 3-5% more
# energy per GEMM than cuBLAS's kernel (S33e). On an H100 (S34b) W11 ran no faster than W8. Branch w11-main (main +
# the w8-cluster commits). W11's elements at awkward sizes passed on an H100 (S37c), so: `host gemm_bf16 --variants W8,W11` at 4096 (three runs) and 8192 (two), the two lines' energy per GEMM at 4096, and
# W11 under Nsight at the base clock at 4096 beside cuBLAS's kernel. Pack: scripts/gpu/pack.sh w11 --tests wgemm_gpu
# on w11-main; carry ["dist/w11"], results/ aside. H200_ONLY=1 stops at once on any other card.
set -u
CALL=${CALL:-call_s37b}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if [ "${H200_ONLY:-0}" = 1 ] && ! grep -q H200 "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack dist/w11/pack.tar.xz "$W/new"; use_host "$W/new"
show() { grep -E "^│ (W8|W11|cuBLAS)" "$O/$1" | head -3 | awk -F'│' '{print $2,$10,$19,$20,$22}'; }
for r in 1 2 3; do
  step 300 45 g4_$r.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 4096; echo "4096 run $r"; show g4_$r.log
done
for r in 1 2; do
  step 360 60 g8_$r.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 8192; echo "8192 run $r"; show g8_$r.log
done
step 440 90 energy.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 4096 --energy
sed -n '/nergy windows/,$p' "$O/energy.log" | grep -E "^│ (W8|W11|cuBLAS)" | cut -c1-400
ncu_base 520 80 ncu_w11_4096 'wgemm_bm128_bn256_bk64_s3_c2_x2$|nvjet' gemm_bf16 --variants W11 --size 4096
date -u; save
