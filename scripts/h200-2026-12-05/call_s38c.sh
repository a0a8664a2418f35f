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
checks=(every_wgemm_line_passes_the_check_at_awkward_sizes)
[ "${SHORT:-0}" = 1 ] || checks+=(the_split_k_lines_are_checked the_streamed_tails_are_checked
  the_jit_reports_every_wgemm_entry_without_spills)
step 5 420 checks.log "$W/qs/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture "${checks[@]}"
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
n=0; D=$([ "${SHORT:-0}" = 1 ] && echo 230 || echo 500)
for r in $(seq 1 $([ "${SHORT:-0}" = 1 ] && echo 2 || echo 3)); do
  for p in m37 qs; do
    n=$((n + 1)); log=g4096_${p}_$n.log
    step "$D" 50 "$log" "$W/$p/host" gemm_bf16 --variants W1,W8 --size 4096; echo "4096 $p"; rows "W1|W8|cuBLAS" "$log"
  done
done
date -u; save
