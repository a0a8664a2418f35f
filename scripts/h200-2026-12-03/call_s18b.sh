#!/usr/bin/env bash
# Session 18, GPU call S18b (2026-12-03): the tree of 83681ba (the short list timed together, its samples
# interleaved; the figure reading C at 8192³). (1) line_choice_gpu; (2) `host all` with nvcc's twin, timed;
# (3) shapes_gpu's odd and decode shapes.
# Pack: scripts/gpu/pack.sh s18b --tests line_choice_gpu,shapes_gpu --twin
set -u
CALL=call_s18b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s18b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 10 60 line_choice_gpu.log "$W/new/tests/line_choice_gpu" --ignored --test-threads 1
grep -h -E "test |test result|panicked" "$O/line_choice_gpu.log" | cut -c1-300
host_all 60 300 all.log all
step 330 90 shapes_gpu.log "$W/new/tests/shapes_gpu" --ignored --test-threads 1 the_odd_and_decode_shapes
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-300
date -u; save
