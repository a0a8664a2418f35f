#!/usr/bin/env bash
# Session 29 (2026-12-05): call_s27c.sh's pacing question, run on the packs session 28 built
# (scripts/h200-2026-12-04/pack_s27c.sh 0 100 250, from 34db2eb). The pause-0 build's SASS is W8's as committed, and
# S28a profiled it (4096³ 296,479 vs cuBLAS 292,296 cycles; 8192³ 2,182,223 vs 2,257,360), so only the paced builds
# run here: each storer warp pauses C_STORE_PAUSE_NS (100, 250 ns) after each row it stores until the producer has
# issued its last load. Nsight Compute at the base clock, W8 beside cuBLAS's kernel in one process, 4096³ first (the
# target the pacing is for), then 8192³; each profile's host run checks every element of C. Read with
# `python3 scripts/gpu/tensor_idle.py FILE 1.02`. Carry dist/pause100, dist/pause250; results/ set aside.
set -u
CALL=call_s29a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line
at=5
for size in 4096 8192; do
  for p in 100 250; do
    rm -rf "$W/new"; unpack "dist/pause$p/pack.tar.xz" "$W/new"; use_host "$W/new"
    ncu_base "$at" 140 "ncu_pause${p}_$size" 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size "$size"
    at=$((at + 120))
  done
done
date -u; save
