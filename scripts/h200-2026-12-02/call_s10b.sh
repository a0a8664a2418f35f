#!/usr/bin/env bash
# The tenth session's second GPU call (2026-12-02): the final issue-30 build (pack_s10.sh, rebuilt after the second
# round of merges) against the last committed run AND against the build that ran before the redesign, on one machine:
# 1. `host all` with nvcc's twin, held against results/2026-12-02-h200-s8 (the last committed run) and against the
#    first call of this session (S10, the first-round merge; dist/s10/prev/);
# 2. the control: the host of the ninth session's final pack (dist/lead/pack9.tar.xz, built before the redesign;
#    same kernels, PTX byte-identical) and the new host, run alternately on the same machine (old, new, old, new) for
#    inflight and for the BF16 lines MT1, W1, M1, so that a shift of the machine is told apart from one of the code;
# 3. faults_gpu (the driver paths the redesign moved: module loading, faults, the launch deadline).
set -u
W=/tmp/lead; O=$W/out10b; mkdir -p "$O" "$W/old"; tar xJf dist/s10/pack10.tar.xz -C "$W"
tar xJf dist/s10/pack9.tar.xz -C "$W/old" host
mkdir -p target/release && cp "$W/host" target/release/host
export LAB_HOST=$(pwd)/target/release/host
H=$LAB_HOST; OLD=$W/old/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version,serial --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_s10b.tgz" -C "$W" out10b; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
step 10 300 all.log bash -c "time $H all --out $O/all --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
python3 scripts/compare-runs.py results/2026-12-02-h200-s8 "$O/all" > "$O/compare_s8.txt" 2>&1; tail -8 "$O/compare_s8.txt"
python3 scripts/compare-runs.py dist/s10/prev "$O/all" > "$O/compare_s10.txt" 2>&1; tail -8 "$O/compare_s10.txt"; save
for i in 1 2; do
  step 330 60 old_inflight$i.log "$OLD" inflight --out "$O/old_inflight$i"
  step 390 60 new_inflight$i.log "$H" inflight --out "$O/new_inflight$i"
  step 450 30 old_bf16_$i.log "$OLD" gemm_bf16 --variants MT1,W1,M1 --out "$O/old_bf16_$i"
  step 470 30 new_bf16_$i.log "$H" gemm_bf16 --variants MT1,W1,M1 --out "$O/new_bf16_$i"
done
for i in 1 2; do for e in inflight bf16_; do
  [ -d "$O/old_$e$i" ] && [ -d "$O/new_$e$i" ] && python3 scripts/compare-runs.py "$O/old_$e$i" "$O/new_$e$i" > "$O/control_$e$i.txt" 2>&1
  tail -4 "$O/control_$e$i.txt" 2>/dev/null
done; done
[ -d "$O/old_inflight1" ] && [ -d "$O/old_inflight2" ] && python3 scripts/compare-runs.py "$O/old_inflight1" "$O/old_inflight2" > "$O/control_old_vs_old.txt" 2>&1 && tail -3 "$O/control_old_vs_old.txt"
save
step 500 90 faults_gpu.log "$T/faults_gpu" --ignored --test-threads 1
grep -E "test result|panicked|FAILED|rc=" "$O/faults_gpu.log" | cut -c1-300 | head -10
date -u
