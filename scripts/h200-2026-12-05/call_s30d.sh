#!/usr/bin/env bash
# Session 31 (2026-12-05; no GPU was lent): prepared, not yet run. After call_s30a.sh, on the same pack
# (pack_s30a.sh): the JIT's report of every wgemm entry, W9 and W10 among them (no spill, no serialized wgmma in the
# driver's compile; 128 s in S28b), then, where W9 or W10 cleared W8 per clock at 4096³, Nsight Compute at the base
# clock, each beside cuBLAS's kernel in one process, at 8192³ (W8 for reference: S29b 2,179,172 vs 2,254,535
# cycles). Read with `python3 scripts/gpu/tensor_idle.py`.
# Pack: scripts/h200-2026-12-05/pack_s30a.sh; carry ["dist/pp128"], results/ aside.
set -u
CALL=call_s30d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/pp128/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 220 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports
grep -h -E "^W(9|10)|FAILED|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
ncu_base 230 120 ncu_w9_8192 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 8192
ncu_base 355 120 ncu_w10_8192 'wgemm_bm128_bn128_bk64_s7_c2_x2$|nvjet' gemm_bf16 --variants W10 --size 8192
date -u; save
