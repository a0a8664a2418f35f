#!/usr/bin/env bash
# Session 12, GPU call S12f (2026-12-02), run as one `run` command: the mma_bf16_ilp main loop at 64 and at 128 HMMA a
# trip (MMA_PER_ITERATION changed in a scratch tree; `cargo run -p xtask -- build --arch sm_90 --out /tmp/altN`,
# kernels_tensor.sm_90.cubin copied to dist/s12f/altN.cubin), each against the peer's nvcc build in 3 processes, ILP 2
# and 4 (the points that missed at 32 a trip in call S12e). dist/s12f/med.py printed the medians of ours/peer.
# Result: alt64 every ILP 2/4 point >= 0.994; alt128 >= 0.995 (ILP 4 at 1-4 warps/SM 1.023).
D=dist/s12f; W=/tmp/lead/s12f; mkdir -p $W && tar xJf $D/pack.tar.xz -C $W
for i in 1 2 3; do for a in alt64 alt128; do
  timeout 60 $W/host mma --no-wgmma --ilp 2,4 --module $D/$a.cubin --compare $D/peer.cubin --compare-label peer --out $W/$a-$i > $W/$a-$i.log 2>&1
done; done
python3 $D/med.py alt64 alt128 | tee $W/med.txt
tar czf $OUT/s12f.tgz -C /tmp/lead s12f
