#!/usr/bin/env bash
# Call A on the H200 (2026-12-01): the peer and the lab's nvcc twin built there, then `host all` with every GEMM
# element checked, compared with the peer (what the 2026-11-30 run did) and with the twin (what `cargo xtask sweep
# --compare-nvcc` runs). dist/ is carried from the development machine: dist/host (cargo build --release -p host),
# dist/peer (a copy of ../shared/peer). Each step's files are tarred into $OUT as soon as it ends.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
# dist/pack.tar.xz holds host, host-old and tests/ (xz keeps the carried tree under its size limit).
[ -x "$D/host" ] || tar xJf "$D/pack.tar.xz" -C "$D"
( date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv;
  nvcc --version | tail -2 ) | tee "$W/env.txt"
t0=$(date +%s); bash "$D/peer/build.sh" "$W/peer" sm_90 > "$W/peer_build.log" 2>&1 || echo "PEER BUILD FAILED"
echo "peer build: $(( $(date +%s) - t0 )) s"
t0=$(date +%s); bash nvcc/build.sh "$W/twin" sm_90 > "$W/twin_build.log" 2>&1 || { echo "TWIN BUILD FAILED"; tail -20 "$W/twin_build.log"; }
echo "twin build: $(( $(date +%s) - t0 )) s"

echo "=== 1. host all, peer compared"
( time "$D/host" all --out "$W/h200" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" ) > "$W/sweep.log" 2>&1
echo "sweep rc=$?" >> "$W/sweep.log"; tail -8 "$W/sweep.log"
tar czf "$OUT/sweep.tgz" -C "$W" h200 sweep.log env.txt peer_build.log twin_build.log

echo "=== 2. the twin: tuned lines at odd sizes, then host all with the twin compared"
tuned=$(sed -n 's/^#define LAB_TUNED_LABELS "\(.*\)"$/\1/p' nvcc/variants.h)
for size in 1000x1001x17 2048x2048x1000; do
  "$D/host" occupancy --variants "$tuned" --size $size --no-cublas --compare "$W/twin/twin.cubin" --compare-label nvcc \
    > "$W/twin_odd_$size.txt" 2>&1; echo "twin odd $size rc=$?" | tee -a "$W/twin_odd_$size.txt"
done
( time "$D/host" all --out "$W/twin-run" --compare "$W/twin/twin.cubin" --compare-caps "$W/twin" --compare-label nvcc ) \
  > "$W/twin_sweep.log" 2>&1
echo "twin sweep rc=$?" >> "$W/twin_sweep.log"; tail -8 "$W/twin_sweep.log"
tar czf "$OUT/twin.tgz" -C "$W" twin-run twin_sweep.log twin_odd_1000x1001x17.txt twin_odd_2048x2048x1000.txt twin/twin.ptxas.txt
date -u
