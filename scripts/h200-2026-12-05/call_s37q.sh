#!/usr/bin/env bash
# Session 37, GPU call S37q (prepared 2026-12-05, not yet run): the branch `quarter-stage` stages a quarter of
# each tile's C (64-column chunks in unpadded 256-byte rows, their 32-byte segments swizzled by row) where main
# stages half, which leaves W1's fourth ring slot room beside the buffers: on the branch W1 is four slots with C
# staged, W8 three slots with a quarter staged (and W2, W3, W4 and W7 stage too). First every wgmma line's
# elements at awkward sizes, split-K, the streamed tails and no spills in any entry (the branch is measured only
# if these pass), then `host gemm_bf16 --variants W1,W8` at 4096 and 8192, main's build and the branch's
# alternating, then the branch's W1 under Nsight at the base clock at 4096 beside cuBLAS's kernel (issue 32's
# per-clock bar: 1.02). On the branch every CPU test passes (kernels-gpu, xtask with the twin exact on the CPU
# model of Hopper, host) and no Rust entry spills; no GPU has run it.
# Packs: scripts/gpu/pack.sh qs --tests wgemm_gpu on quarter-stage; scripts/gpu/pack.sh m37 on main (or
# `--rev main` from the branch). Carry ["dist/qs", "dist/m37"], results/ aside. Two calls, each within the
# device's per-call limit: PART=checks (any sm_90 card), then PART=time (H200_ONLY=1 stops at once on any other
# card; it times nothing unless the checks' log of the first call says they passed: CHECKED=1 vouches for that).
set -u
PART=${PART:-checks}
. scripts/gpu/steps.sh
start_call call_s37q_$PART
unpack dist/m37/pack.tar.xz /tmp/lead/main/new; unpack dist/qs/pack.tar.xz /tmp/lead/branch/new
W=/tmp/lead/branch; use_host "$W/new"
if [ "$PART" = checks ]; then
test_step 5 500 checks.log "$W/new/tests/wgemm_gpu" "${WGEMM_CHECKS[@]}"
date -u; save; exit 0
fi
[ "${CHECKED:-0}" = 1 ] || { echo "PART=time needs the checks passed (CHECKED=1)"; save; exit 0; }
n=0
for s in 4096 8192 4096 8192 4096; do
  for b in main branch; do n=$((n + 1)); gemm_rows 480 60 "g${s}_${b}_$n.log" "/tmp/lead/$b/new/host" W1,W8 $s; done
done
ncu_base 500 80 ncu_w1q_4096 'wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet' gemm_bf16 --variants W1 --size 4096
date -u; save
