#!/usr/bin/env bash
# Session 37, GPU call S37a (2026-12-05): issue 32's GPU tests on main's kernels as they stand (6b45555; the last
# H200 run of shapes_gpu was session 21's, before the lane-0 index, the descriptors built once a slot and W8/W9):
# the odd and decode shapes and `--variants auto` (shapes_gpu), every wgmma line at awkward sizes, split-K and the
# streamed tails (wgemm_gpu), the line choice's trials, the wgmma case of gemm_bf16, reading C, and every variant and
# cuBLAS at every size of the check. Pack: scripts/gpu/pack.sh m37 --tests
# shapes_gpu,wgemm_gpu,line_choice_gpu,gemm_bf16_gpu,reading_c_gpu,gemm_check_gpu; carry ["dist/m37"], results/
# aside. H200_ONLY=1 stops at once on any other card.
set -u
CALL=${CALL:-call_s37a}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if [ "${H200_ONLY:-0}" = 1 ] && ! grep -q H200 "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack dist/m37/pack.tar.xz "$W/new"; use_host "$W/new"
T=$W/new/tests
t() { local d=$1 bin=$2; shift 2; step "$d" 200 "$bin.$1.log" "$T/$bin" --ignored --exact --test-threads 1 --nocapture "$@"
  echo "$bin $1: $(grep -h -E "^test result|panicked" "$O/$bin.$1.log" | head -2 | cut -c1-200) $(tail -1 "$O/$bin.$1.log")"; }
t 20 shapes_gpu the_odd_and_decode_shapes_are_chosen_checked_and_beside_cublas
t 120 wgemm_gpu every_wgemm_line_passes_the_check_at_awkward_sizes
t 200 shapes_gpu variants_auto_runs_the_chosen_line_of_either_gemm_experiment
t 260 wgemm_gpu the_split_k_lines_are_checked_and_give_the_same_bits_every_launch
t 300 wgemm_gpu the_streamed_tails_are_checked_and_give_the_same_bits_every_launch
t 340 line_choice_gpu the_short_list_is_timed_together_and_a_wrong_line_fails_its_trial
t 380 gemm_bf16_gpu the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
t 430 reading_c_gpu every_sample_starts_from_the_initial_c_and_gives_the_same_bits
t 460 wgemm_gpu the_jit_reports_every_wgemm_entry_without_spills_or_serialization
t 480 gemm_check_gpu every_variant_and_cublas_pass_at_every_size
grep -h "test result" "$O"/*.log | sort | uniq -c
date -u; save
