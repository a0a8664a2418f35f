#!/usr/bin/env bash
# Session 38, GPU call S38c (2026-12-05), for a card other than an H200: S37q's checks of the quarter-stage branch
# (every wgmma line's elements at awkward sizes, split-K, the streamed tails, no spills), then, while the call's time
# lasts, main's build (pack m37) and the branch's (pack qs) timed alternating at 4096 with `host gemm_bf16 --variants
# W1,W8`, each row checked by host. Not issue 32's bar (that is the H200's, under its power cap): whether the quarter
# stage moves W1 and W8 at all. Carry ["dist/qs", "dist/m37"], results/ aside. SHORT=1, for a device budget short
# of a whole call, runs only the awkward sizes' check and two rounds of timing.
set -u
. scripts/gpu/steps.sh
start_call call_s38c
for p in m37 qs; do unpack dist/$p/pack.tar.xz "$W/$p"; done
use_host "$W/qs"
# checks: how many of WGEMM_CHECKS run; D: the last second a timing step may start; rounds of timing.
if [ "${SHORT:-0}" = 1 ]; then checks=1 D=230 rounds=2; else checks=${#WGEMM_CHECKS[@]} D=500 rounds=3; fi
test_step 5 420 checks.log "$W/qs/tests/wgemm_gpu" "${WGEMM_CHECKS[@]:0:checks}"
n=0
for _ in $(seq "$rounds"); do
  for p in m37 qs; do n=$((n + 1)); gemm_rows "$D" 50 "g4096_${p}_$n.log" "$W/$p/host" W1,W8 4096; done
done
date -u; save
