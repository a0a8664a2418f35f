#!/usr/bin/env bash
# Fourth H200 call of 2026-11-30: fma_ilp1 with one 16-round trip per loop iteration (ptxas then assigns the chain
# to R4 instead of R6) against nvcc's build, as experiment 5 runs it, ILP 1, 2 and 4 over the default warps.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
date -u
nvcc -cubin -O3 -arch=sm_90 "$D/peer/blog_kernels.cu" -o "$W/peer.cubin"
"$D/exp/host" ilp --ilp 1,2,4 --compare "$W/peer.cubin" --out "$W/ilp_exp" > "$W/ilp_exp.txt" 2>&1; echo "rc=$?"
grep -E "^\| (1|2|4) " "$W/ilp_exp/tables.md" | awk -F'|' '{print $2, $3, $8, $(NF-4), $(NF-2)}'
tar czf "$OUT/ilp_exp.tgz" -C "$W" ilp_exp ilp_exp.txt
date -u
