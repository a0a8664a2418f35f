#!/usr/bin/env bash
# Session 22, GPU call S22e (2026-12-04), S22c's pack (the code of 6c8eb88): `host all` with nvcc's twin once more, on
# a fresh machine, for its wall time against issue 32's 3-minute bar (S22c took 3 min 0.1 s) and the spread of its
# figures; only the log and the shapes table are kept.
set -u
CALL=call_s22e; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22c/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 300 all.log all
cp "$O/all/shapes.csv" "$O/shapes.csv" 2>/dev/null; rm -rf "$O/all"
date -u; save
