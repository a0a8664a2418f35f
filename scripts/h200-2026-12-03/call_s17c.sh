#!/usr/bin/env bash
# Session 17, GPU call S17c (2026-12-03), right after S17b on the same machine (it uses S17b's unpacked host in
# /tmp/lead/new): the GPU tests of the S17b tree, every wgmma line (W4 and the new inside-tile epilogue) at awkward
# sizes at both settings, and split-K at shapes where every line cuts K.
# Pack: the test of scripts/gpu/pack.sh s17b --tests wgemm_gpu, tarred alone at the top (XZ_OPT="-9e").
set -u
CALL=call_s17c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
[ -x "$W/new/host" ] || { echo "no host from S17b on this machine"; exit 3; }
unpack dist/s17c-tests/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 90 wgemm_awkward.log "$W/new/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check_at_awkward_sizes
step 100 90 wgemm_split.log "$W/new/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines
grep -h -E "test result|FAILED|panicked|rc=" $O/wgemm_*.log | cut -c1-300
date -u; save
