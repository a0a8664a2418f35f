#!/usr/bin/env bash
# Call G on the H200 (2026-12-01): the merged lab end to end. nvcc's twin built from this tree's nvcc/, then
# `host all` with the twin compared (every experiment, 1-7), timed. Carried: dist/pack.tar.xz (host and the
# GPU-only test binaries, built here by `cargo build --release -p host` and `cargo test --release -p host --no-run`).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
( time bash nvcc/build.sh "$W/twin" sm_90 ) > "$W/twin_build.log" 2>&1 || echo "TWIN BUILD FAILED"; tail -3 "$W/twin_build.log"
echo "=== host all, nvcc's twin compared"
( time "$D/host" all --out "$W/final" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) > "$W/final_sweep.log" 2>&1
echo "final sweep rc=$?" >> "$W/final_sweep.log"; tail -6 "$W/final_sweep.log"
grep -E "FAIL|failed|error" "$W/final_sweep.log" | head -20
tar czf "$OUT/call_g.tgz" -C "$W" final final_sweep.log twin_build.log
date -u
