#!/usr/bin/env bash
# Session 24, GPU call S24b (2026-12-04): line W7 (64x64 tiles, one consumer, a 13-slot ring) added to the table for
# products of few rows. (1) wgemm_gpu, every test: W7 checked element by element at the awkward sizes, cut (split-K)
# and streaming its tail, the same bits on every launch; (2) `host gemm_bf16` at the decode shapes, W7 beside the lines
# the shape sweep chose there (W2, W3) and cuBLAS; (3) `--variants auto` at 128x4096x4096 and 64x4096x4096.
# Pack: scripts/gpu/pack.sh s24b --tests wgemm_gpu; sent with results/ set aside (scripts/gpu/results_aside.sh).
set -u
CALL=call_s24b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 330 wgemm_gpu.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture
grep -h -E "FAILED|test result|panicked|rc=|^test " "$O/wgemm_gpu.log" | cut -c1-300
for s in 64x4096x4096 128x4096x4096 16x4096x4096 1x4096x4096; do
  step 420 60 "decode_$s.log" "$W/new/host" gemm_bf16 --variants W2,W3,W7 --size "$s"
  grep -E '^│ (W2|W3|W7|cuBLAS)' "$O/decode_$s.log" | tr -s ' ' | cut -c1-200
done
for s in 128x4096x4096 64x4096x4096; do
  step 520 60 "auto_$s.log" "$W/new/host" gemm_bf16 --variants auto --size "$s"
  grep -E '^│ |chose|rule' "$O/auto_$s.log" | tr -s ' ' | cut -c1-240 | head -8
done
date -u; save
