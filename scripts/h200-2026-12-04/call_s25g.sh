#!/usr/bin/env bash
# Session 25, GPU call S25g (2026-12-04): `host all` with nvcc's twin after the review's mend (RingProblem::cuts, the
# twin's Problem::cuts): nvcc's twins of W4, W6 and W7 changed their schedules with it, so each line is timed again
# against its twin; the run to commit.
# Pack: scripts/gpu/pack.sh s25g --twin; sent with results/ set aside (scripts/gpu/results_aside.sh).
set -u
CALL=call_s25g; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s25g/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
date -u; save
