#!/usr/bin/env bash
# The ninth session's final call on the H200 (2026-12-02), the merged issue-29 build (pack_s9.sh):
# 1. `host all` with nvcc's twin compared: the build end to end, every figure checked (hashes and race checks now
#    included), and its wall time against the 3-minute budget;
# 2. faults_gpu: a fault named with its side and kernel, the run going on in a new process (--resume), a spinning
#    kernel ended by --launch-timeout (first GPU run of the resume chain);
# 3. the issue's command: built-in kernels against a compared module whose S writes out of bounds;
# 4. the fuzz with a driver present (every experiment line with --check-only);
# 5. gemm_hashes_gpu.
set -u
W=/tmp/lead; O=$W/out9; mkdir -p "$O"; tar xJf dist/lead/pack9.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
export LAB_HOST=$(pwd)/target/release/host
H=$LAB_HOST; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_s9.tgz" -C "$W" out9; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
step 10 230 all.log bash -c "time $H all --out $O/all --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|^wrote|FAILED|error|rc=" "$O/all.log" | cut -c1-200 | tail -14
grep -c '"hashes"' "$O/all/results.json" 2>/dev/null
step 250 130 faults_gpu.log "$T/faults_gpu" --ignored --test-threads 1 --nocapture
grep -E "^test |test result|panicked|FAILED|never completed|going on|ending the process|left:|right:|rc=" \
  "$O/faults_gpu.log" | cut -c1-300 | head -30
BAD=$(ls /tmp/host-faults-rows-*/theirs_s_bad.ptx 2>/dev/null | head -1)
if [ -n "$BAD" ]; then
  cp "$BAD" "$O/theirs_s_bad.ptx"
  step 380 60 issue.log bash -c "time $H occupancy --compare $O/theirs_s_bad.ptx --variants S,A --size 1024 --out $O/issue"
  grep -vE "^\s*$" "$O/issue.log" | cut -c1-300 | tail -16
fi
step 400 60 fuzz.log "$T/fuzz" --nocapture
grep -E "test result|panicked|lines|rc=" "$O/fuzz.log" | cut -c1-200 | tail -6
step 440 60 hashes.log "$T/gemm_hashes_gpu" --ignored --test-threads 1
grep -E "^test |test result|rc=" "$O/hashes.log" | tail -6
date -u
