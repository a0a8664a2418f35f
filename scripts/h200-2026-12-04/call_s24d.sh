#!/usr/bin/env bash
# Session 24, GPU call S24d (2026-12-04): `host all` with nvcc's twin on the table with line W7 (64x64 tiles, one
# consumer, a 13-slot ring): the run to commit, the shape sweep's short list timing W7 beside the other lines.
# Pack: scripts/gpu/pack.sh s24d --twin; sent with results/ set aside (scripts/gpu/results_aside.sh).
set -u
CALL=call_s24d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
date -u; save
