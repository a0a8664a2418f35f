#!/usr/bin/env bash
# Session 12, GPU call S12e (2026-12-02), run as one `run` command: scripts/peer-compare.sh with the mma_bf16_ilp loop
# at 32 HMMA a trip (branch s12-p merged), 3 processes a side; peer.cubin built here with nvcc 13.0.88
# (`$NVCC -cubin -O3 -arch=sm_90 ../shared/peer/blog_kernels.cu`). Packs: scripts/gpu/pack.sh s12e
# Result: mma 49 of 58 points >= 0.99 (ILP 1 all; ILP 4 at 1-4 warps/SM 0.957, ILP 2 at 10-12 0.976, 32-64 0.989-0.990);
# ilp 115 of 126 (ILP 1 at 5-8 warps/SM 0.822).
W=/tmp/lead/s12e; mkdir -p $W $W/peer && tar xJf dist/s12e/pack.tar.xz -C $W && cp dist/s12e/peer.cubin $W/peer/
bash scripts/peer-compare.sh $W/host $W/peer $W/pc 3 > $W/pc.log 2>&1
python3 scripts/peer-compare.py $W/pc > $W/pc/verdicts.md
tar czf $OUT/peer_compare.tgz -C $W pc pc.log
