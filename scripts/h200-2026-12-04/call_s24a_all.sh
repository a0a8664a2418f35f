#!/usr/bin/env bash
# Session 24, GPU call S24a (second part, 2026-12-04): `host all` with nvcc's twin on S24a's pack, on the machine
# still warm from call_s24a.sh, whose own host_all step was skipped by its deadline.
set -u
CALL=call_s24a_all; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
date -u; save
