#!/usr/bin/env bash
# Session 26, GPU call S26c (2026-12-04): `host all` with nvcc's twin after W8 (the storer-warp epilogue, merged from
# branch storer-warps) joined the table, the run to commit; then the JIT's report of every wgemm entry (spills,
# serialized wgmma) on its own with room to finish (call_w8_storers's awkward step ran out of time in it).
# Pack: scripts/gpu/pack.sh s26c --tests wgemm_gpu --twin; sent with results/ set aside.
set -u
CALL=call_s26c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s26c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
step 360 220 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports
grep -h -E "^W8|FAILED|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
date -u; save
