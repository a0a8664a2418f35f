#!/usr/bin/env bash
# Session 25, GPU call S25a (2026-12-04): how much of W1's distance to cuBLAS its epilogue can explain. The host of
# branch epilogue-bound (commit 568cd57: with LAB_BOUND_SKIP_C=1 the wgmma lines' timed launches skip writing C, so
# their timed check fails by design) times W1 as built and W1 without C's write, each beside cuBLAS, in alternation,
# at 4096³ and 8192³; then Nsight Compute at the base clock gives both per clock. No epilogue design can beat W1
# without one.
# Pack: scripts/gpu/pack.sh s25bound (in worktree /work/bound); sent with results/ set aside.
set -u
CALL=call_s25a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25bound/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
for s in 4096 8192; do
  for r in 1 2; do
    step 300 90 "plain_${s}_$r.log" "$H" gemm_bf16 --variants W1 --size "$s"
    step 300 90 "skip_${s}_$r.log" env LAB_BOUND_SKIP_C=1 "$H" gemm_bf16 --variants W1 --size "$s"
  done
  for f in "$O"/plain_${s}_*.log "$O"/skip_${s}_*.log; do
    echo "== $(basename "$f")"; grep -E '^│ (W1|cuBLAS)|rc=' "$f" | tr -s ' ' | cut -c1-220
  done
done
ncu_base 420 150 ncu_plain_4096 'wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet' gemm_bf16 --variants W1 --size 4096
export LAB_BOUND_SKIP_C=1
ncu_base 480 150 ncu_skip_4096 'wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet' gemm_bf16 --variants W1 --size 4096
ncu_base 520 150 ncu_skip_8192 'wgemm_bm128_bn256_bk64_s4_c2_x1$|nvjet' gemm_bf16 --variants W1 --size 8192
date -u; save
