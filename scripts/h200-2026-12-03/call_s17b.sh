#!/usr/bin/env bash
# Session 17, GPU call S17b (2026-12-03): the working tree after S17a plus the wgmma lines' epilogue for tiles wholly
# inside C (kernels-gpu gemm_wgmma.rs `write_inside`: one 8-byte store per pair at constant offsets, beta tested once,
# C's pairs loaded sixteen at a time where beta reads C), mirrored in nvcc's twin.
# (1) `host all` with nvcc's twin, timed: the run the README links; (2) Nsight Compute (base clock) of W1 and
# cuBLAS at 2048x8192x1024 again. The GPU tests follow in call S17c (the tree is 60 MB of the 64 MiB a call carries).
# Pack: scripts/gpu/pack.sh s17b --tests wgemm_gpu --twin; the tests moved to S17c's pack, the rest re-tarred with
# XZ_OPT="-9e".
set -u
CALL=call_s17b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s17b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 300 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
grep -E "targets \(benchmarks" "$O/all.log" | cut -c1-420
grep -E "│ BF16" "$O/all.log" | awk -F'│' '{printf "%-20s %-5s %-6s %-5s %-10s %-10s %-7s %s\n",$3,$4,$5,$6,$12,$13,$14,$16}'
save
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
step 330 100 ncu_short_k.log "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
  -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x1\$|nvjet" -c 2 -f -o "$O/ncu_short_k" $H gemm_bf16 --variants W1 --size 2048x8192x1024
"$NCU" -i "$O/ncu_short_k.ncu-rep" --page details --print-details all > "$O/ncu_short_k.txt" 2>&1
grep -E "^  [a-z_]|Duration|SM Frequency|Elapsed Cycles|Tensor Cycles Active  |Compute \(SM\) Throughput" "$O/ncu_short_k.txt" | head -20
date -u; save
