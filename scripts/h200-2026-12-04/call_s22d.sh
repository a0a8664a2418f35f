#!/usr/bin/env bash
# Session 22, GPU call S22d (2026-12-04), S22c's pack: W5 (clusters of two, remote arrivals at CTA scope) per clock.
# (1) Nsight Compute at the base clock, W5 with cuBLAS's kernel at 4096³ and 8192³ (cycles, tensor pipe, stalls);
# (2) `host gemm_bf16 --variants W1,W5 --size 8192` beside cuBLAS.
set -u
CALL=call_s22d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for s in 4096 8192; do
  step 250 150 ncu_w5_$s.log "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x2\$|nvjet" -c 2 -f -o "$O/ncu_w5_$s" \
    "$H" gemm_bf16 --variants W5 --size $s
  "$NCU" -i "$O/ncu_w5_$s.ncu-rep" --page details --print-details all > "$O/ncu_w5_$s.txt" 2>&1
  grep -E "^  [a-z_]|Elapsed Cycles|SM Frequency|Tensor Cycles Active  |Executed Instructions  |Stall (Barrier|Wait|Long|GMMA|MIO|Branch)" "$O/ncu_w5_$s.txt" | head -30
  rm -f "$O/ncu_w5_$s.ncu-rep"
done
step 420 140 w1_w5_8192.log "$H" gemm_bf16 --variants W1,W5 --size 8192
grep -E '^│ (W1|W5|cuBLAS)' "$O/w1_w5_8192.log" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '
date -u; save
