#!/usr/bin/env bash
# Prepared in session 27 (2026-12-04, no GPU lent); its pauses were run by scripts/h200-2026-12-05/call_s29a.sh (S29a, S29b): slower. Does pacing the storer warps give W8's loads back?
# The run page's "where the tensor pipe idles" reads S25a/S26a as: the staged rows leave in a burst that slows the
# next tile's loads (the consumers' full-barrier wait 18.7% of W8's stall samples against W1's 3.7%), so W8 wins back
# 2,812 of the 23,132 idle cycles writing C costs at 4096³. Here each storer warp pauses C_STORE_PAUSE_NS after each
# row it stores (0, 100, 250 ns), until the producer has issued its last load (`c_loads_done`): the last tile's
# rows leave unpaced, so the kernel's end waits out no pause. Also read: a consumer waits on "empty" if its
# storer has not drained the previous tile's rows (48 rows a storer, nanosleep waking within twice P: up to 24 µs
# at 250 ns, against a tile's 57 µs at 4096³ and 106 µs at 8192³). For each pause, Nsight Compute at the base
# clock, W8 and cuBLAS at 8192³ and 4096³ (ncu_base's steps took about 70 s each in S26a); then, here,
# `python3 scripts/gpu/tensor_idle.py ncu_pauseP_S.txt 1.02` on the logs. Each profile's host run checks every
# element of C, so a paced build is checked as it is timed.
# Pack: scripts/h200-2026-12-04/pack_s27c.sh 0 100 250; carry dist/pause0, dist/pause100, dist/pause250; sent with
# results/ set aside. The pause only delays a storer warp; call_s28a.sh (scripts/h200-2026-12-05) checks the pause-0 build.
set -u
CALL=call_s27c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line
at=5
for p in 0 100 250; do
  rm -rf "$W/new"; unpack "dist/pause$p/pack.tar.xz" "$W/new"; use_host "$W/new"
  for size in 8192 4096; do
    ncu_base "$at" 150 "ncu_pause${p}_$size" 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size "$size"
    at=$((at + 85))
  done
done
date -u; save
