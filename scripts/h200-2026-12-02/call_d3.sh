#!/usr/bin/env bash
# Call D3 on the H200 (issue 29, item 10: faults), pack from pack_d.sh. NOT RUN: the session's device
# budget was below the 900 s floor when it was ready; for the lead to run (carry dist/d). After calls D1 and D2 (no
# context can be made in a process after a sticky fault, even after a reset), the run goes on in
# a new process (--resume). 1. faults_gpu; 2. the command: the built-in kernels against a
# compared module whose S writes out of bounds (the test's module, cut to S, A and D): exit 1, S
# named, A measured by the process that goes on.
set -u
W=/tmp/d; O=$W/out; mkdir -p "$O"; tar xJf dist/d/pack.tar.xz -C "$W"
export LAB_HOST=$W/host
save() { tar czf "$OUT/call_d3.tgz" -C "$W" out; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
echo "## faults_gpu ($SECONDS s)"
timeout 150 "$W/faults_gpu" --ignored --test-threads 1 --nocapture > "$O/faults_gpu.log" 2>&1
echo "rc=$?" >> "$O/faults_gpu.log"; save
grep -E "^test |test result|panicked|^host \[|FAILED|never completed|going on|ending the process|left:|right:" \
  "$O/faults_gpu.log" | cut -c1-300 | head -40
BAD=$(ls /tmp/host-faults-rows-*/theirs_s_bad.ptx 2>/dev/null | head -1)
if [ -n "$BAD" ] && [ "$SECONDS" -lt 170 ]; then
  cp "$BAD" "$O/theirs_s_bad.ptx"
  echo "## issue command ($SECONDS s)"
  ( time timeout 60 "$W/host" occupancy --compare "$O/theirs_s_bad.ptx" --variants S,A --size 1024 \
      --out "$O/issue" ) > "$O/issue.log" 2>&1
  echo "rc=$?" >> "$O/issue.log"; rm -f "$O/theirs_s_bad.ptx"; save
  grep -vE "^\s*$" "$O/issue.log" | cut -c1-300 | tail -25
fi
date -u
