#!/usr/bin/env bash
# Session 16, GPU call S16c (2026-12-03): the tree of 9ccbc79 on the H200 (S16b could not start: no machine).
# (1) `host all` with nvcc's twin, timed, with the phase log: issue 31's 3 minutes after the built-in PTX is
#     assembled by ptxas processes started at once (host/src/cuda/ptx_assembly.rs; S16a: occupancy's loads waited
#     64.6 s behind the driver's JIT of later modules), and the shape sweep with split-K on the wgmma lines;
# (2) GPU tests: wgemm_gpu's split-K test (every element at both settings, the same bits over 20 launches) and its
#     awkward sizes; shapes_gpu's odd and decode shapes; gemm_bf16_gpu's wgmma case.
# Packs: scripts/gpu/pack.sh s16e (host of 9ccbc79), the GPU tests of s16d (e712439) and nvcc's twin of the same kernels
# (cargo xtask build --nvcc --arch sm_90) put in as twin/.
set -u
CALL=call_s16c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s16e/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=|the last in|assembled by|ptxas|driver compiles" "$O/all.log"
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
sort -rn "$O/phase_deltas.txt" | head -12; head -6 "$O/phase_deltas.txt"
python3 scripts/compare-runs.py results/2026-12-03-h200-s15 "$O/all" > "$O/compare_s15.txt" 2>&1; tail -2 "$O/compare_s15.txt"
grep FAIL "$O/compare_s15.txt" | awk '{print $2}' | sort | uniq -c
save
step 330 90 wgemm_split.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_split_k_lines
step 400 100 wgemm_gpu.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture every_wgemm_line_passes_the_check_at_awkward_sizes
step 480 60 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture the_odd_and_decode_shapes
step 520 75 gemm_bf16_gpu.log "$W/new/tests/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -h -E "test result|FAILED|panicked|rc=" $O/*.log | cut -c1-300
date -u; save
