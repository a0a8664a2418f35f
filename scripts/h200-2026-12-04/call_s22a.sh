#!/usr/bin/env bash
# Session 22, GPU call S22a (2026-12-04): the wgmma lines' epilogue through each consumer warp's staging buffer
# (sections/wgemm_staging.rs: a warp's 16 rows go out a 128-byte column chunk at a time, staged in shared memory
# and read back as 16-byte pieces of rows, so each global store of the warp writes four whole lines). The packed
# tree was session 22's working tree on 3e37179; its last form (same layout, beta tested once per epilogue) is kept on
# branch staged-epilogue, not merged: Nsight found no cycles saved and its traced twins spilled.
# (1) A/B on one machine: the new host (this tree) and the previous one (HEAD 3e37179, `pack.sh s22old --rev`)
#     alternate, `host gemm_bf16 --variants W1 --size S` (each beside cuBLAS, interleaved), at 4096³, 8192³ and
#     2048x8192x1024 (the short K where the epilogue weighs most).
# (2) Nsight Compute at the base clock: W1 and cuBLAS at 4096³ (cycles, tensor pipe, instructions).
# Packs: scripts/gpu/pack.sh s22a --tests wgemm_gpu,gemm_bf16_gpu,shapes_gpu, its host alone re-packed as dist/s22h
# (the carry limit: both hosts and the tests do not fit one call); scripts/gpu/pack.sh s22old --rev 3e37179
set -u
CALL=call_s22a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22h/pack.tar.xz "$W/new"; unpack dist/s22old/pack.tar.xz "$W/old"; use_host "$W/new"; env_line
N=$W/new/host; P=$W/old/host
ab() { # ab DEADLINE SIZE TAG
  for round in 1 2; do
    step "$1" 60 "ab_$3_new$round.log" "$N" gemm_bf16 --variants W1 --size "$2"
    step "$1" 60 "ab_$3_old$round.log" "$P" gemm_bf16 --variants W1 --size "$2"
  done
  for f in "$O"/ab_$3_*.log; do
    echo "$(basename "$f"): $(grep -E '^│ (W1|cuBLAS)' "$f" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s ;", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' ')"
  done
}
ab 150 4096 4096
ab 300 8192 8192
ab 420 2048x8192x1024 shortk
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 480 110 ncu_4096.log "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
  --section InstructionStats -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x1\$|nvjet" -c 2 -f -o "$O/ncu_4096" \
  "$N" gemm_bf16 --variants W1 --size 4096
"$NCU" -i "$O/ncu_4096.ncu-rep" --page details --print-details all > "$O/ncu_4096.txt" 2>&1
grep -E "^  [a-z_]|Elapsed Cycles|Duration|SM Frequency|Tensor Cycles Active  |Executed Instructions  " "$O/ncu_4096.txt" | head -16
rm -f "$O/ncu_4096.ncu-rep"
date -u; save
