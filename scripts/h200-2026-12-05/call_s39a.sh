#!/usr/bin/env bash
# Session 39, GPU call S39a (2026-12-06): on any card, cli's two GPU tests, whose host runs went through support's
# helper with a hang guard in 6cbb54b (pack: scripts/gpu/pack.sh m39 --tests cli, on main); then, on an H200 only,
# S38b: main's build, the quarter-stage branch's and w11-main's alternating at 4096³ and 8192³ (both candidates lost
# to W8 on an H100 in S38c and S37b; the H200, where the power cap sets the clock, is the card). Carry
# ["dist/m39", "dist/w11", "dist/qs", "dist/m37"], results/ aside.
set -u
. scripts/gpu/steps.sh
start_call call_s39a
unpack dist/m39/pack.tar.xz "$W/m39"; use_host "$W/m39"
test_step 60 120 cli_gpu.log "$W/m39/tests/cli" small_run_on_the_gpu_writes_a_results_folder \
  a_failure_in_one_experiment_keeps_the_ones_before_it
if grep -q H200 "$O/env.txt"; then bash scripts/h200-2026-12-05/call_s38b.sh; else echo "not an H200: S38b not run"; fi
date -u; save
