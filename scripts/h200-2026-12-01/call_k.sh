#!/usr/bin/env bash
# Call K on the H200 (2026-12-01): after call J, the two tests whose expectations were fixed (the read-only kernels
# beside their copies; host all's missing experiments), and cli_gpu with the time it needs (call J's 150 s cut it off
# in its last test). Carried: dist/pack.tar.xz (host, tests/{cli,cli_gpu,sweeps_gpu}, built from main after the fixes).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
run() { local t=$1; shift; echo "## $t $*"; timeout "$T" "$D/tests/$t" --ignored --test-threads 1 --nocapture "$@" > "$W/test_$t.log" 2>&1
  echo "## $t rc=$?" >> "$W/test_$t.log"; grep -E "^test |test result|panicked|rc=" "$W/test_$t.log" | tail -14
  tar czf "$OUT/call_k_tests.tgz" -C "$W" $(cd "$W" && ls test_*.log); }
T=60 run sweeps_gpu the_read_only_kernels_run_beside_their_copies_verified
T=60 run cli a_failure_in_one_experiment_keeps_the_ones_before_it
T=200 run cli_gpu
date -u
