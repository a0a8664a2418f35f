#!/usr/bin/env bash
# Session 32, GPU call S32b (2026-12-05), after S32a on the same pack: the JIT's report of every wgemm entry, W9 among
# them (no spill, no serialized wgmma in the driver's compile), W9 under Nsight at the base clock at 8192³ beside
# cuBLAS's kernel, and the every-element check of every wgmma line at awkward sizes.
# Pack: dist/p9; carry ["dist/p9"], results/ aside.
set -u
CALL=call_s32b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
ncu_base 5 120 ncu_w9_8192 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 8192
step 130 220 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports
grep -h -E "^W9|FAILED|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
step 360 150 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
date -u; save
