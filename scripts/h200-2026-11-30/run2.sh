#!/usr/bin/env bash
# Second H200 call of 2026-11-30: the two GPU tests fixed after the first call, the tuned GEMMs and cuBLAS at
# the other sizes, a bytes-in-flight probe at <= 12.5% occupancy, and the SASS of fma_ilp1 (ours, peer).
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
date -u
echo "=== fixed GPU tests"
"$D/tests/cli" --ignored --exact a_failure_in_one_experiment_keeps_the_ones_before_it 2>&1 | grep -E "^test |test result|panicked|assert" 
"$D/tests/sweeps_gpu" --ignored 2>&1 | grep -E "^test |test result|panicked|assert|rows"
echo "=== tuned + cuBLAS at other sizes"
for s in 8192 2048x8192x1024 2048 1024; do
  "$D/host" occupancy --variants D,R1,R2,R3,R4 --size $s --out "$W/gemm_$s" > "$W/gemm_$s.txt" 2>&1; echo "size $s rc=$?"
  grep -E "^\| (D|R[0-9]|cuBLAS)" "$W/gemm_$s/tables.md" | awk -F'|' '{print $2, $10, $15}'
done
echo "=== bytes in flight probe, 1 GiB copy"
"$D/host" inflight --threads 128,256 --loads 8,12,14,16,24,32 --widths 2,4 --warps-per-sm 4,8 --copy-mib 1024 --out "$W/probe" > "$W/probe.txt" 2>&1; echo "probe rc=$?"
grep -E "^\| memcpy" "$W/probe/tables.md" | awk -F'|' '{print $2, $6, $7, $8, $12, $13}' | sort -t'%' -k2 | tail -30
grep -E "D2D|Least" "$W/probe/tables.md"
echo "=== SASS of fma_ilp1"
nvcc -cubin -O3 -arch=sm_90 "$D/peer/blog_kernels.cu" -o "$W/peer.cubin"
cuobjdump -sass -fun fma_ilp1 "$D/k90/kernels.sm_90.cubin" > "$W/sass_ours_fma_ilp1.txt" 2>&1
cuobjdump -sass -fun fma_ilp1 "$W/peer.cubin" > "$W/sass_peer_fma_ilp1.txt" 2>&1
for f in ours peer; do echo "## $f: $(grep -c FFMA $W/sass_${f}_fma_ilp1.txt) FFMA"; grep -E "FFMA|BRA|ISETP|IADD" "$W/sass_${f}_fma_ilp1.txt" | head -12; done
tar czf "$OUT/run2.tgz" -C "$W" gemm_8192 gemm_2048x8192x1024 gemm_2048 gemm_1024 probe probe.txt sass_ours_fma_ilp1.txt sass_peer_fma_ilp1.txt gemm_8192.txt
date -u
