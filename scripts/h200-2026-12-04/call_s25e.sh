#!/usr/bin/env bash
# Session 25, GPU call S25e (2026-12-04): S25d's pack again. Is W8's loss the staged epilogue or rustc's code for
# it? Nsight Compute at the base clock on W8 (Rust), nvcc's twin of W8 and cuBLAS in one process; then the streamed
# tails test S25d's call cut off.
set -u
CALL=call_s25e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 200 150 ncu_twin.log "$NCU" --clock-control base --section SpeedOfLight --section InstructionStats \
  -k 'regex:wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' -c 3 "$W/new/host" gemm_bf16 --variants W8 --size 4096 \
  --compare "$W/new/twin/twin_sm90a.cubin"
grep -E "^  [a-z_]|Elapsed Cycles  |Tensor Cycles Active  |Executed Instructions  " "$O/ncu_twin.log" | head -20
grep -E "^│ (W8|cuBLAS)|nvcc|rc=" "$O/ncu_twin.log" | tr -s ' ' | cut -c1-200 | head
step 300 240 tails.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/tails.log" | cut -c1-300
date -u; save
