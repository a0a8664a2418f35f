#!/usr/bin/env bash
# Session 34, GPU call S34b (2026-12-05): W11, W8 in clusters of two (B multicast, the idle producer warps storing
# C as on W8), beside W8 and cuBLAS: `host gemm_bf16 --variants W8,W11` at 4096³ and 8192³ (every element of the
# last timed launch and of one launch at alpha=1.5, beta=0.5 checked), 4096³ again, then the JIT's report and every
# wgmma line at awkward sizes. Pack: scripts/gpu/pack.sh p11 --tests wgemm_gpu (branch w8-cluster). Carry
# ["dist/p11"], results/ aside.
set -u
CALL=call_s34b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p11/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
show() { grep -E "^│ (W8|W11|cuBLAS)" "$O/$1" | tr -s ' ' | cut -c1-260; grep -iE "not run|error|panick" "$O/$1" | head -5; }
step 60 60 g4096a.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 4096; show g4096a.log
step 120 60 g8192.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 8192; show g8192.log
step 180 60 g4096b.log "$W/new/host" gemm_bf16 --variants W8,W11 --size 4096; show g4096b.log
step 240 60 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  the_jit_reports_every_wgemm_entry_without_spills_or_serialization
grep -h -E "W11|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
step 300 280 awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture \
  every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/awkward.log" | cut -c1-300
date -u; save
