#!/usr/bin/env bash
# Session 23, GPU call S22f (2026-12-04), branch pingpong: W6, two consumer warpgroups taking one-warpgroup tiles
# (64x256) in turn, each passing over the other's fills, a named barrier pair ordering their turns.
# (1) every element of every wgmma line (W6 included) at awkward sizes and both settings (wgemm_gpu);
# (2) `host gemm_bf16 --variants W1,W6 --size 4096` beside cuBLAS, then at 8192;
# (3) Nsight Compute at the base clock: W6 and cuBLAS's kernel at 4096³ (cycles, stalls, SASS lines).
# Pack: scripts/gpu/pack.sh s22f --tests wgemm_gpu
set -u
CALL=call_s22f; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22f/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 100 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/wgemm_awkward.log" | cut -c1-300 | head -12
row() { grep -E '^│ (W1|W6|cuBLAS)' "$O/$1" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '; tail -3 "$O/$1" | cut -c1-300; }
step 110 100 w1_w6.log "$W/new/host" gemm_bf16 --variants W1,W6 --size 4096; row w1_w6.log
step 220 130 w1_w6_8192.log "$W/new/host" gemm_bf16 --variants W1,W6 --size 8192; row w1_w6_8192.log
ncu_base 360 150 ncu_w6 'wgemm_bm64_bn256_bk64_s5_c2_x1$|nvjet' gemm_bf16 --variants W6 --size 4096
date -u; save
