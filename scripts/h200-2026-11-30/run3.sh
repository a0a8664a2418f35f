#!/usr/bin/env bash
# Third H200 call of 2026-11-30: the peer's own timer (compare.py) on the built-in PTX against nvcc's build, both
# role orders, as an independent check of experiment 1 and 2's Rust/nvcc ratios.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
date -u
nvcc -cubin -O3 -arch=sm_90 "$D/peer/blog_kernels.cu" -o "$W/peer.cubin"
python3 "$D/peer/compare.py" --project "$D/k80/kernels.ptx" --peer "$W/peer.cubin" 2>&1
echo "### swapped roles (peer as --project)"
python3 "$D/peer/compare.py" --project "$W/peer.cubin" --peer "$D/k80/kernels.ptx" 2>&1
date -u
