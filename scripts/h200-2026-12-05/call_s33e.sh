#!/usr/bin/env bash
# Session 33, GPU call S33e (2026-12-05): does W9 draw more power than W8 and cuBLAS? `--energy`: each side alone in
# 3 alternating windows of 1 s, NVML's energy counter, J per GEMM, and the ratios per second, per clock and per joule.
# 4096³, 8192³, 4096³ again. Same pack and carry as call_s32a.sh.
set -u
CALL=call_s33e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
for s in 4096 8192 4096; do
  step 200 90 e$s.$SECONDS.log "$W/new/host" gemm_bf16 --variants W8,W9 --size $s --energy
done
for f in "$O"/e*.log; do echo "== $f"; sed -n '/nergy/,$p' "$f" | cut -c1-220 | head -30; done
date -u; save
