#!/usr/bin/env bash
# Session 39, GPU call S39a (2026-12-06): on an H200 first, S38b at 4096³ (LIMIT=230: main's build, the quarter-stage
# branch's and w11-main's alternating; both candidates lost to W8 on an H100 in S38c and S37b, and the H200, where the
# power cap sets the clock, is the card); then, on any card, cli's two GPU tests, whose host runs went through
# support's helper with a hang guard in 6cbb54b (pack: scripts/gpu/pack.sh m39 --tests cli, on main). Carry
# ["dist/m39", "dist/w11", "dist/qs", "dist/m37"], results/ aside.
set -u
. scripts/gpu/steps.sh
start_call call_s39a
if grep -q H200 "$O/env.txt"; then LIMIT=230 bash scripts/h200-2026-12-05/call_s38b.sh; else echo "not an H200: S38b not run"; fi
unpack dist/m39/pack.tar.xz "$W/m39"; use_host "$W/m39"
test_step 400 200 cli_gpu.log "$W/m39/tests/cli" small_run_on_the_gpu_writes_a_results_folder \
  a_failure_in_one_experiment_keeps_the_ones_before_it
date -u; save
