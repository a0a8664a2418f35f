#!/usr/bin/env bash
# Session 22, GPU call S22f (2026-12-04), branch pingpong: W6, two consumer warpgroups taking one-warpgroup tiles
# (64x256) in turn, each passing over the other's fills, a named barrier pair ordering their turns.
# (1) every element of every wgmma line (W6 included) at awkward sizes and both settings (wgemm_gpu);
# (2) `host gemm_bf16 --variants W1,W6 --size 4096` beside cuBLAS.
# Pack: scripts/gpu/pack.sh s22f --tests wgemm_gpu
set -u
CALL=call_s22f; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22f/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 100 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "FAILED|test result|panicked|rc=" "$O/wgemm_awkward.log" | cut -c1-300 | head -12
step 110 90 w1_w6.log "$W/new/host" gemm_bf16 --variants W1,W6 --size 4096
grep -E '^│ (W1|W6|cuBLAS)' "$O/w1_w6.log" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '
tail -5 "$O/w1_w6.log" | cut -c1-300
date -u; save
