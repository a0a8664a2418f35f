#!/usr/bin/env bash
# Session 22, GPU call S22c (2026-12-04): W5 (W1's tile in clusters of two, B multicast) back in the table, its
# consumers' remote arrivals on the empty barriers now with the default semantics (release at CTA scope) instead of a
# release at cluster scope, whose MEMBAR.ALL.GPU + ERRBAR before every arrival held half of W5's stall samples (S22b).
# (1) `host gemm_bf16 --variants W1,W5 --size 4096` beside cuBLAS; (2) wgemm_gpu: every wgmma line, W5 included, every
# element at awkward sizes and both settings; (3) `host all` with nvcc's twin (the run to commit).
# Pack: scripts/gpu/pack.sh s22c --tests wgemm_gpu --twin
set -u
CALL=call_s22c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
step 10 150 w1_w5.log "$H" gemm_bf16 --variants W1,W5 --size 4096
grep -E '^│ (W1|W5|cuBLAS)' "$O/w1_w5.log" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '
step 170 110 wgemm_awkward.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "test result|FAILED|panicked|rc=" "$O/wgemm_awkward.log" | cut -c1-300
host_all 290 300 all.log all
date -u; save
