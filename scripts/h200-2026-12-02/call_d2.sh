#!/usr/bin/env bash
# Call D2 on the H200 (issue 29, item 10: faults), pack from pack_d.sh (now also ours.ptx,
# spin.ptx and spin2.ptx: the built-in PTX cut to S, S spinning on a volatile load, S spinning on
# nanosleep). Call D1 found (1) no context can be created beside one a fault lost (the recovery
# now resets the primary context), (2) a host with a spinning compared kernel printing nothing in
# 120 s; this call traces its waits (LAB_TRACE_WAITS) and looks at its threads, then runs the
# faults_gpu tests and the command.
set -u
W=/tmp/d; O=$W/out; mkdir -p "$O"; tar xJf dist/d/pack.tar.xz -C "$W"
export LAB_HOST=$W/host
save() { tar czf "$OUT/call_d2.tgz" -C "$W" out; }
diag() { # name module
  local n=$1 m=$2
  echo "## $n ($SECONDS s)"
  LAB_TRACE_WAITS=1 timeout -s KILL 25 "$W/host" occupancy --module "$W/ours.ptx" --compare "$W/$m" \
    --variants S --size 256 --iters 2 --samples 2 --launch-timeout 3 --out "$O/$n" \
    > "$O/$n.stdout" 2> "$O/$n.stderr" &
  local pid=$!; sleep 8; local hp; hp=$(pgrep -P "$pid" | head -1)
  { date -u; echo "host pid $hp"; ps -L -o pid,tid,stat,pcpu,wchan:32,comm -p "$hp";
    for t in /proc/$hp/task/*; do echo "$t $(cat $t/comm) $(cat $t/wchan)"; done
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
    command -v gdb > /dev/null && timeout 20 gdb -batch -ex "thread apply all bt 14" -p "$hp" 2>&1 |
      grep -E "^#|^Thread" | head -80; } > "$O/$n.diag" 2>&1
  wait "$pid"; echo "rc=$?" >> "$O/$n.stderr"; save
  cut -c1-300 "$O/$n.stderr" | tail -12; grep -vE "^\s*$" "$O/$n.diag" | cut -c1-200 | head -30
}
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
diag spin_volatile spin.ptx
diag spin_nanosleep spin2.ptx
echo "## faults_gpu ($SECONDS s)"
timeout 110 "$W/faults_gpu" --ignored --test-threads 1 --nocapture > "$O/faults_gpu.log" 2>&1
echo "rc=$?" >> "$O/faults_gpu.log"; save
grep -E "^test |test result|panicked|^host \[|FAILED|never completed|ending the process|left:|right:" \
  "$O/faults_gpu.log" | cut -c1-400 | head -40
BAD=$(ls /tmp/host-faults-rows-*/theirs_s_bad.ptx 2>/dev/null | head -1)
if [ -n "$BAD" ] && [ "$SECONDS" -lt 170 ]; then
  cp "$BAD" "$O/theirs_s_bad.ptx"
  echo "## issue command ($SECONDS s)"
  ( time timeout 60 "$W/host" occupancy --compare "$O/theirs_s_bad.ptx" --variants S,A --size 1024 \
      --out "$O/issue" ) > "$O/issue.log" 2>&1
  echo "rc=$?" >> "$O/issue.log"; rm -f "$O/theirs_s_bad.ptx"; save
  grep -vE "^\s*$" "$O/issue.log" | cut -c1-400 | tail -25
fi
date -u
