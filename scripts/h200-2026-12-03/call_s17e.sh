#!/usr/bin/env bash
# Session 17, GPU call S17e (2026-12-03): S17d's pack (the kernels of f8ab731), Nsight Compute at the base clock of W1
# and cuBLAS at 4096^3 and 8192^3: cycles, tensor-pipe activity and instructions per clock, the per-clock side of
# issue 32's 1.02 bar, after the inside-tile epilogue.
set -u
CALL=call_s17e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s17d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for s in 4096 8192; do
  step 400 150 ncu_$s.log "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x1\$|nvjet" -c 2 -f -o "$O/ncu_$s" \
    $H gemm_bf16 --variants W1 --size $s
  "$NCU" -i "$O/ncu_$s.ncu-rep" --page details --print-details all > "$O/ncu_$s.txt" 2>&1
  grep -E "^  [a-z_]|Elapsed Cycles|Duration|SM Frequency|Tensor Cycles Active  |Executed Instructions  " "$O/ncu_$s.txt" | head -16
  rm -f "$O/ncu_$s.ncu-rep"
done
date -u; save
