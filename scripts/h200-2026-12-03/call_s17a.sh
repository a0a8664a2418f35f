#!/usr/bin/env bash
# Session 17, GPU call S17a (2026-12-03): the working tree after bca7e5d with line W4 (128x64 tiles, 8 stages) in the
# wgmma table and the ring mma.sync lines as a kind of their own in the line choice.
# (1) the BF16 shape sweep alone, sampled in full; (2) W1, W2, W4 beside cuBLAS at the two shapes below 0.90 in S16d;
# (3) Nsight Compute (base clock) of W1 and cuBLAS at 2048x8192x1024: what the short-K gap is made of;
# (4) GPU tests: every wgmma line (W4 too) at awkward sizes and split-K, the odd and decode shapes.
# Pack: scripts/gpu/pack.sh s17a --tests wgemm_gpu,shapes_gpu (the tree is 60 MB: no twin, no gemm_bf16_gpu)
set -u
CALL=call_s17a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s17a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
step 10 240 shapes.log bash -c "time $H shapes --families bf16 --out $O/shapes"
grep -E "^real|rc=" "$O/shapes.log"; grep -E "^\| BF16" "$O/shapes.log" | cut -d'|' -f3-6,12-14 | head -30
step 260 60 short_k.log $H gemm_bf16 --variants W1,W2,W4 --size 2048x8192x1024
step 320 60 skinny.log $H gemm_bf16 --variants W1,W2,W4 --size 128x8192x8192
grep -E "^\| *(W1|W2|W4|cuBLAS)" "$O/short_k.log" "$O/skinny.log" | cut -c1-220
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 380 120 ncu_short_k.log "$NCU" --clock-control base --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section LaunchStats --section Occupancy -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x1\$|nvjet" \
  -c 4 -f -o "$O/ncu_short_k" $H gemm_bf16 --variants W1 --size 2048x8192x1024
"$NCU" -i "$O/ncu_short_k.ncu-rep" --page details --print-details all > "$O/ncu_short_k.txt" 2>&1
grep -E "^  [a-z_]|Duration|SM Frequency|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\)|Stall|Warp Cycles Per Issued|Issue Slots" "$O/ncu_short_k.txt" | head -60
save
step 500 60 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
step 540 45 wgemm_split.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
step 570 25 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" $O/*.log | cut -c1-300
date -u; save
