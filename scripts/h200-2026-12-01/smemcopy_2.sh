#!/usr/bin/env bash
# smemcopy call 2 on the H200 (2026-12-01, branch smemcopy): the copies through shared memory (cp.async
# rings and Hopper bulk-copy rings) checked on ragged copies and swept in experiment 4, and experiment 6's
# second table (wgmma vs warpgroups per SM) with its verdict. Carried: dist/smemcopy/smem_copy_gpu.xz,
# dist/smemcopy/wgmma_table_gpu.xz (release test binaries, stripped) and dist/smemcopy/host.xz.
set -u
W=/tmp/smemcopy; mkdir -p "$W/out"; D=$(pwd)/dist/smemcopy
for b in smem_copy_gpu wgmma_table_gpu host; do xz -dc "$D/$b.xz" > "$W/$b" && chmod +x "$W/$b"; done
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$W/out/env.txt" 2>&1
timeout 15 "$W/smem_copy_gpu" --ignored --test-threads 1 --nocapture every_cp_async_line > "$W/out/ragged_cp_async.log" 2>&1; echo "rc=$?" >> "$W/out/ragged_cp_async.log"
tail -3 "$W/out/ragged_cp_async.log"
timeout 15 "$W/smem_copy_gpu" --ignored --test-threads 1 --nocapture every_bulk_copy_line > "$W/out/ragged_bulk.log" 2>&1; echo "rc=$?" >> "$W/out/ragged_bulk.log"
grep -E "tma_copy|panicked|rc=" "$W/out/ragged_bulk.log" | cut -c1-160 | tail -16
timeout 30 "$W/wgmma_table_gpu" --ignored --test-threads 1 --nocapture > "$W/out/wgmma_table.log" 2>&1; echo "rc=$?" >> "$W/out/wgmma_table.log"
grep -E "^\| wgmma|one-warpgroup|evidence|panicked|rc=|Headline" "$W/out/wgmma_table.log" | cut -c1-230 | tail -72
timeout 70 "$W/host" inflight --threads 32,256,1024 --loads 8,16,32 --widths 4 --warps-per-sm 1,2,4,8,16 --loaded-steps 0 --sizes-mib 0 --iters 10 --samples 10 --out "$W/out/inflight" > "$W/out/inflight.log" 2>&1; echo "rc=$?" >> "$W/out/inflight.log"
tail -3 "$W/out/inflight.log"
grep -E "^(cp_async|tma)" "$W/out/inflight/inflight.csv" 2>/dev/null | awk -F, '{print $1, $6, $7, $10, $12, $13}'
grep -A3 "### 5. one warp per SM" "$W/out/inflight/report.md" | cut -c1-400
cd "$W" && tar czf "$OUT/smemcopy_2.tgz" out
date -u
