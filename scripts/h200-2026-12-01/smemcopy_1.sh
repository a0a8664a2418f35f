#!/usr/bin/env bash
# smemcopy call 1 on the H200 (2026-12-01, branch smemcopy): the copies whose bytes in flight live
# in shared memory (variant table smem_copy, cp.async rings). Carried: dist/smemcopy/smem_copy_gpu.xz
# (release test binary of host/tests/smem_copy_gpu.rs, stripped) and dist/smemcopy/host.xz (the host
# binary, release, stripped). Runs: the exact ragged-copy check of every line (and under
# compute-sanitizer racecheck), the small sweep with the one-warp verdict, and a wider `host inflight`.
set -u
W=/tmp/smemcopy; mkdir -p "$W/out"; D=$(pwd)/dist/smemcopy
xz -dc "$D/smem_copy_gpu.xz" > "$W/t" && chmod +x "$W/t"
xz -dc "$D/host.xz" > "$W/host" && chmod +x "$W/host"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/out/env.txt" 2>&1
timeout 20 "$W/t" --ignored --test-threads 1 --nocapture every_smem_line > "$W/out/ragged.log" 2>&1; echo "rc=$?" >> "$W/out/ragged.log"
tail -22 "$W/out/ragged.log"
timeout 25 compute-sanitizer --tool racecheck "$W/t" --ignored --test-threads 1 every_smem_line > "$W/out/racecheck.log" 2>&1; echo "rc=$?" >> "$W/out/racecheck.log"
tail -5 "$W/out/racecheck.log"
timeout 25 "$W/t" --ignored --test-threads 1 --nocapture the_sweep_runs > "$W/out/sweep.log" 2>&1; echo "rc=$?" >> "$W/out/sweep.log"
grep -v "^  rule" "$W/out/sweep.log" | tail -60
timeout 60 "$W/host" inflight --threads 32,256,1024 --loads 8,16,32 --widths 4 --warps-per-sm 1,2,4,8,16,32 --loaded-steps 0 --sizes-mib 0 --iters 10 --samples 5 --out "$W/out/inflight" > "$W/out/inflight.log" 2>&1; echo "rc=$?" >> "$W/out/inflight.log"
tail -4 "$W/out/inflight.log"
grep -E "cp_async|Entry" "$W/out/inflight/inflight.csv" 2>/dev/null | cut -c1-200 | head -40
cd "$W" && tar czf "$OUT/smemcopy_1.tgz" out
date -u
