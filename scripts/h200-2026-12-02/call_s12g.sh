#!/usr/bin/env bash
# Session 12, last GPU call (2026-12-02): issue 31's build (waves and whole-wave verdicts, the energy phase and
# per-clock figures, persistent copies and the sustained Little's law, rules fixed in advance, the mma_bf16_ilp loop
# at 128 HMMA a trip, the race-check budget and page-locked copy checks) on the H200:
# (1) `host all` with nvcc's twin, timed (the issue: at most 3 minutes), committed as results/2026-12-02-h200-s12;
# (2) scripts/peer-compare.sh, 3 processes a side, ours against the peer and the peer against itself;
# (3) the GPU tests of what changed: mma_gpu, stream_copy_gpu, energy_gpu, whole_waves_gpu.
# Packs: scripts/gpu/pack.sh s12g --tests mma_gpu,stream_copy_gpu,energy_gpu,whole_waves_gpu --twin;
#        peer.cubin built with nvcc 13.0.88 (`$NVCC -cubin -O3 -arch=sm_90 ../shared/peer/blog_kernels.cu`) beside it.
set -u
CALL=call_s12g; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s12g/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin; mkdir -p $W/peer; cp dist/s12g/peer.cubin $W/peer/
step 10 300 all.log bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
python3 scripts/compare-runs.py results/2026-12-02-h200-s11 "$O/all" > "$O/compare_s11.txt" 2>&1; tail -6 "$O/compare_s11.txt"; save
step 320 100 peer.log bash -c "bash scripts/peer-compare.sh $H $W/peer $O/pc 3 && python3 scripts/peer-compare.py $O/pc > $O/pc/verdicts.md"
grep -E "^(mma|ilp):" "$O/pc/verdicts.md"
step 430 40 mma_gpu.log "$W/new/tests/mma_gpu" --ignored --test-threads 1
step 470 30 stream_copy_gpu.log env LAB_TWIN_CUBIN=$TW/twin.cubin "$W/new/tests/stream_copy_gpu" --ignored --test-threads 1
step 500 30 energy_gpu.log "$W/new/tests/energy_gpu" --ignored --test-threads 1
step 530 30 whole_waves_gpu.log "$W/new/tests/whole_waves_gpu" --ignored --test-threads 1
grep -h -E "test result|FAILED|panicked|rc=" $O/*_gpu.log | cut -c1-200
date -u; save
