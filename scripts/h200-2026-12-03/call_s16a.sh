#!/usr/bin/env bash
# Session 16, GPU call S16a (2026-12-03): the tree of session 15's end (510becd) on the H200.
# (1) `host all` with nvcc's twin, timed, with the phase log (LAB_PHASE_TIMES=1): issue 31's 3 minutes after the
#     warm-up change (built-in modules compiled on one thread in the order of first need, registry::warm_order);
# (2) what compiling the built-in PTX with ptxas would cost instead of the driver's JIT: each module timed alone,
#     with --split-compile 0, and all at once (16 cores), for the decision whether to compile out of process;
# (3) GPU tests of what changed after S15b: gemm_bf16_gpu (its odd-size case now 256x257x260: M1 and W1 run and
#     are checked, MT1 refuses the odd N), wgemm_gpu's awkward sizes, shapes_gpu's odd and decode shapes.
# Packs: scripts/gpu/pack.sh s16a --tests gemm_bf16_gpu,wgemm_gpu,shapes_gpu --twin; the release build's PTX
# (target/release/build/host-*/out/*.ptx: main, check, sm90a, mma_ilp, tensor, cap128) tarred as dist/s16a/ptx.tar.xz.
set -u
CALL=call_s16a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s16a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=|the last in" "$O/all.log"
grep "^\[phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' > "$O/phase_deltas.txt"
sort -rn "$O/phase_deltas.txt" | head -30
head -20 "$O/phase_deltas.txt"
python3 scripts/compare-runs.py results/2026-12-03-h200-s15 "$O/all" > "$O/compare_s15.txt" 2>&1; tail -4 "$O/compare_s15.txt"; save
P=$W/ptx; unpack dist/s16a/ptx.tar.xz "$P"; PX=/usr/local/cuda/bin/ptxas; mkdir -p "$W/cubin"
ptxtime() {  # LABEL ARCH FILE [FLAGS]: one ptxas compile, timed (at most 90 s)
  local label=$1 arch=$2 f=$3; shift 3
  local t0=$EPOCHREALTIME; timeout 90 "$PX" -arch=$arch "$@" -o "$W/cubin/$label.cubin" "$f" > /dev/null 2>&1; local rc=$?
  echo "$label $(basename $f) rc=$rc $(awk "BEGIN{print $EPOCHREALTIME - $t0}") s"
}
{
  echo "## one at a time"
  ptxtime check sm_90 $P/kernels_check.ptx; ptxtime main sm_90 $P/kernels.ptx
  echo "## --split-compile 0"
  ptxtime main_s sm_90 $P/kernels.ptx --split-compile 0; ptxtime tensor_s sm_90 $P/kernels_tensor.ptx --split-compile 0
  ptxtime sm90a_s sm_90a $P/kernels_sm90a.ptx --split-compile 0
  echo "## all five at once, --split-compile 0"
  t0=$EPOCHREALTIME
  ptxtime p_main sm_90 $P/kernels.ptx --split-compile 0 & ptxtime p_check sm_90 $P/kernels_check.ptx &
  ptxtime p_sm90a sm_90a $P/kernels_sm90a.ptx --split-compile 0 & ptxtime p_mma sm_90 $P/kernels_mma_ilp.ptx &
  ptxtime p_tensor sm_90 $P/kernels_tensor.ptx --split-compile 0 & wait
  echo "all: $(awk "BEGIN{print $EPOCHREALTIME - $t0}") s"
} > "$O/ptxas_times.txt" 2>&1
cat "$O/ptxas_times.txt"; save
step 430 120 gemm_bf16_gpu.log "$W/new/tests/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
step 490 60 wgemm_gpu.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture every_wgemm_line_passes_the_check_at_awkward_sizes
step 500 100 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 --nocapture the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-300
date -u; save
