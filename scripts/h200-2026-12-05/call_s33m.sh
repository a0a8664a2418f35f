#!/usr/bin/env bash
# Session 33, GPU call S33m (2026-12-05): W8 and W9 beside cuBLAS in medians, three times at 4096³ and twice at
# 8192³, samples interleaved, every element checked. Same pack and carry as call_s32a.sh.
set -u
CALL=call_s33m; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for i in 1 2 3; do
  step 240 80 m4096_$i.log "$W/new/host" gemm_bf16 --variants W8,W9 --size 4096
  grep -E "W8|W9|cuBLAS|passed|FAIL|rc=" "$O/m4096_$i.log" | grep -v "^$" | cut -c1-200 | tail -8
done
for i in 1 2; do
  step 330 80 m8192_$i.log "$W/new/host" gemm_bf16 --variants W8,W9 --size 8192
  grep -E "W8|W9|cuBLAS|passed|FAIL|rc=" "$O/m8192_$i.log" | cut -c1-200 | tail -8
done
date -u; save
