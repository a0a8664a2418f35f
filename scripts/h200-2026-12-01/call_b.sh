#!/usr/bin/env bash
# Call B on the H200 (2026-12-01), right after call A: the previous host (main at b0945e1, sampled GEMM check) on the
# same command, for the added time of the every-element checks; then every GPU-only test. dist/host-old, dist/tests/*
# (cargo test --release -p host --no-run) are carried; the test binaries find the host at the path cargo baked in.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
# dist/pack.tar.xz holds host, host-old and tests/ (xz keeps the carried tree under its size limit).
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
[ -d "$W/peer" ] || bash "$D/peer/build.sh" "$W/peer" sm_90 > "$W/peer_build.log" 2>&1
echo "=== 1. the previous host, same command"
rm -rf "$W/old"
( time "$D/host-old" all --out "$W/old" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" ) > "$W/old_sweep.log" 2>&1
echo "old sweep rc=$?" >> "$W/old_sweep.log"; tail -5 "$W/old_sweep.log"
tar czf "$OUT/old.tgz" -C "$W" old old_sweep.log
echo "=== 2. the calculator against the driver"
"$D/host" calc --device 0 --verify > "$W/calc_verify.log" 2>&1; echo "calc verify rc=$?" | tee -a "$W/calc_verify.log"
tail -3 "$W/calc_verify.log"
echo "=== 3. GPU-only tests"
for t in "$D"/tests/*; do
  echo "## $(basename "$t")"; timeout 300 "$t" --ignored --test-threads 1 --nocapture 2>&1 | grep -vE "^\s*$" | tail -60
done > "$W/gpu_tests.log" 2>&1
grep -E "^## |^test |test result|panicked" "$W/gpu_tests.log"
tar czf "$OUT/tests.tgz" -C "$W" gpu_tests.log calc_verify.log
date -u
