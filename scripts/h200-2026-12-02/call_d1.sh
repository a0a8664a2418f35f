#!/usr/bin/env bash
# Call D1 on the H200 (issue 29, item 10: faults), with the pack pack_d.sh builds on the CPU
# machine (dist/d/pack.tar.xz: the release host and the faults_gpu test binary, stripped):
# 1. faults_gpu: a kernel's fault named and a fresh context used after it; `host occupancy` with
#    ours faulting in D and the compared module in S (failed rows, the run going on); a compared
#    kernel that spins, ended by --launch-timeout 3.
# 2. The command, the built-in kernels against a compared module whose S writes out of
#    bounds (the test's module, cut to S and A): exit 1, S named, A measured.
set -u
W=/tmp/d; O=$W/out; mkdir -p "$O"; tar xJf dist/d/pack.tar.xz -C "$W"
export LAB_HOST=$W/host
save() { tar czf "$OUT/call_d1.tgz" -C "$W" out; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
echo "## faults_gpu ($SECONDS s)"
timeout 200 "$W/faults_gpu" --ignored --test-threads 1 --nocapture > "$O/faults_gpu.log" 2>&1
echo "rc=$?" >> "$O/faults_gpu.log"; save
grep -E "^test |test result|panicked|^host \[|FAILED|never completed|ending the process" "$O/faults_gpu.log" | cut -c1-400 | head -40
BAD=$(ls /tmp/host-faults-rows-*/theirs_s_bad.ptx 2>/dev/null | head -1)
if [ -n "$BAD" ] && [ "$SECONDS" -lt 150 ]; then
  cp "$BAD" "$O/theirs_s_bad.ptx"
  echo "## issue command ($SECONDS s)"
  ( time timeout 80 "$W/host" occupancy --compare "$O/theirs_s_bad.ptx" --variants S,A --size 1024 \
      --out "$O/issue" ) > "$O/issue.log" 2>&1
  echo "rc=$?" >> "$O/issue.log"; rm -f "$O/theirs_s_bad.ptx"; save
  grep -vE "^\s*$" "$O/issue.log" | cut -c1-400 | tail -25
fi
date -u
