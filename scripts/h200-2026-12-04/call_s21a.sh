#!/usr/bin/env bash
# Session 21, GPU call S21a (2026-12-04): the tuned SGEMM family with a third build of its body for interior blocks
# (no bounds test or zero-fill size on any copy, each copy's address the slice's pointer plus a multiple of one stride:
# R4's K loop 2256 SASS instructions a slice against 2345, FFMAs 90.8% of them against 87.3%).
# (1) The A/B, interleaved: the new host's R lines against the previous build's (dist/s21a/old_kernels.ptx, the
#     sm_80 module of 1e1f994) as the compared module, at 4096³ and 8192³.
# (2) gemm_check_gpu: every FP32 line and cuBLAS, every element, at 1x1x1, 333x250x77 (edge blocks), 4096³, 8192³.
# (3) `host all` with nvcc's twin (the run to commit), then shapes_gpu's odd and decode shapes.
# Pack: scripts/gpu/pack.sh s21a --tests gemm_check_gpu,shapes_gpu --twin; cp <old build's kernels.ptx> dist/s21a/
set -u
CALL=call_s21a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s21a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; OLD=$W/old_kernels.ptx; xz -dc dist/s21a/old_kernels.ptx.xz > "$OLD"
step 10 60 ab_4096.log "$H" occupancy --variants R1,R3,R4,R5 --size 4096 --compare "$OLD" --compare-label before
step 70 90 ab_8192.log "$H" occupancy --variants R4 --size 8192 --compare "$OLD" --compare-label before
grep -h -E "│ (R[0-9]|cuBLAS)|rc=" "$O"/ab_4096.log "$O"/ab_8192.log | tr -s ' ' | cut -c1-400
T=$W/new/tests
step 160 90 gemm_check_gpu.log "$T/gemm_check_gpu" --ignored --test-threads 1 --nocapture every_variant_and_cublas_pass_at_every_size
grep -h -E "R[0-9]:|test result|FAILED|panicked|rc=" "$O/gemm_check_gpu.log" | cut -c1-200
host_all 250 240 all.log all
step 480 100 shapes_gpu.log "$T/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" "$O/shapes_gpu.log" | cut -c1-300
date -u; save
