#!/usr/bin/env bash
# Session 29 (2026-12-05): where W8's idle cycles at 4096³ go, four builds of the same tree (34db2eb for the pauses,
# HEAD d1b9cc6 for the rest; W8's SASS is the same in both but for the change each makes):
# - pause100, pause250: call_s27c.sh's pacing question, on the packs session 28 built
#   (scripts/h200-2026-12-04/pack_s27c.sh): each storer warp pauses C_STORE_PAUSE_NS after each row it stores until
#   the producer has issued its last load. The unpaced build is S28a's (4096³ 296,479 vs cuBLAS 292,296 cycles;
#   8192³ 2,182,223 vs 2,257,360).
# - cs: C's stores `st.global.cs` (evict first in L2) in store_global2/store_global4 (kernels-gpu/src/gpu/tensor.rs,
#   gpu.rs): do C's lines, written once, push A's and B's slices out of L2 before the next tile reads them?
# - csel: cs, and TMA's loads of A and B with an L2 evict-last policy (`createpolicy.fractional.L2::evict_last`,
#   `.L2::cache_hint` in gpu/tma.rs's load).
# Nsight Compute at the base clock, W8 beside cuBLAS's kernel in one process; each profile's host run checks every
# element of C. Read with `python3 scripts/gpu/tensor_idle.py FILE 1.02`. Carry the packs named; results/ aside.
# Usage: PACKS="pause100 pause250 cs csel" SIZES=4096 bash scripts/h200-2026-12-05/call_s29a.sh (S29a); S29b, at
# 8192³ with the unpaced build beside them (pack s28a):
#   CALL=call_s29b PACKS="s28a cs csel pause100" SIZES=8192 bash scripts/h200-2026-12-05/call_s29a.sh
# S29d, W8's floor: pack noc, W8 with no store of C reaching global memory (store_pairs returns at once and the
# storers skip their stores, each behind a test on a pointer that never passes, so the accumulators stay live; the
# staged half still goes through shared memory). Its host's check fails by design, after the profiled launches:
#   CALL=call_s29d PACKS=noc SIZES="4096 8192" bash scripts/h200-2026-12-05/call_s29a.sh
set -u
CALL=${CALL:-call_s29a}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line
at=5
for size in ${SIZES:-4096}; do
  for p in ${PACKS:-pause100 pause250 cs csel}; do
    rm -rf "$W/new"; unpack "dist/$p/pack.tar.xz" "$W/new"; use_host "$W/new"
    ncu_base "$at" 140 "ncu_${p}_$size" 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size "$size"
    at=$((at + 115))
  done
done
date -u; save
