#!/usr/bin/env bash
# Prepared in session 27 (2026-12-04); not yet run. After call_s27a.sh on the same pack: `host all` with nvcc's
# twin, the run to commit (S26c: 2 min 26 s), then the JIT's report of every wgemm entry (spills, serialized wgmma).
# Pack: scripts/gpu/pack.sh s27a --tests wgemm_gpu --twin; sent with results/ set aside.
set -u
CALL=call_s27b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s27a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
step 360 220 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports
grep -h -E "^W8|FAILED|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
date -u; save
