#!/usr/bin/env bash
# Prepared in session 34 (2026-12-05), not yet run: the branch `desc-step` (11fad3a) builds a slot's wgmma
# descriptors once and each MMA's as those plus an add (`descriptor_advanced`), which takes W9's K loop from 95 to 67
# SASS instructions (W1 103 -> 93, W8 113 -> 103). Equal descriptors are proved on the CPU for every slot base, and the
# twin is exact on the CPU model of Hopper; no GPU has run it. First every wgmma line at awkward sizes, every
# element (the branch joins main only if this passes), then W9 under Nsight at 4096³, main's build (pack p9u) then
# the branch's (pack pds), then `host gemm_bf16 --variants W8,W9 --size 4096`, main, branch, main, branch.
# Packs: scripts/gpu/pack.sh p9u --tests wgemm_gpu (main's kernels since 9447dd4; the pack of 6076d3d has them);
# scripts/gpu/pack.sh pds --tests wgemm_gpu on desc-step. Carry ["dist/p9u", "dist/pds"], results/ aside. On an H200
# the answer bears on issue 32 (W9 leads there per clock and loses its clock under the cap); on an H100 it gives
# the checks and per-clock counts only.
set -u
CALL=call_s35a; O=/tmp/lead/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9u/pack.tar.xz /tmp/lead/main/new; unpack dist/pds/pack.tar.xz /tmp/lead/branch/new
W=/tmp/lead/branch; use_host "$W/new"; env_line; cat "$O/env.txt"
step 5 280 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
for b in main branch; do
  W=/tmp/lead/$b; use_host "$W/new"
  ncu_base 400 70 ncu_w9_$b 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
done
show() { grep -E "^│ (W8|W9|cuBLAS)" "$O/$1" | head -3 | awk -F'│' '{print $2,$10,$19,$20,$22}'; }
for b in main branch main2 branch2; do
  step 540 40 g_$b.log "/tmp/lead/${b%2}/new/host" gemm_bf16 --variants W8,W9 --size 4096; echo "$b"; show g_$b.log
done
date -u; save
