#!/usr/bin/env bash
# Call Z5 on the H200 (2026-12-02, eighth session), the session's final build (pack_s8.sh; the
# kernels as in the seventh session's run, the host after its review):
# 1. gemm_bf16_gpu's ring-rows test (W and MT lines verified at 4096^3 and 1000x776x1000), not
#    run on a GPU since the seventh session's review folded its checks into one helper.
# 2. `host all` with nvcc's twin compared, as the seventh session's run was made: the build's
#    end-to-end check and a second committed sample of the run (the seventh's stays the lab's).
set -u
W=/tmp/lead; O=$W/outz5; mkdir -p "$O"; tar xJf dist/lead/pack8.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
H=$(pwd)/target/release/host; T="$W/tests"; TW="$W/twin/twin.cubin"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_z5.tgz" -C "$W" outz5; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
step 5 120 ring.log "$T/gemm_bf16_gpu" --ignored --test-threads 1 --nocapture the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas
grep -E "^test |test result|panicked|4096\^3|rc=" "$O/ring.log" | tail -12
step 130 300 final_sweep.log bash -c "time $H all --out $O/final --compare $TW --compare-caps $W/twin --compare-label nvcc"
grep -E "^real|^wrote|FAILED|rc=" "$O/final_sweep.log" | cut -c1-160 | head -12
grep -E "^\| (M[0-9]|W[0-9]|MT|cuBLAS)" "$O/final/tables.md" | cut -d"|" -f2,10,13,15 | head -40
date -u
