#!/usr/bin/env bash
# Session 12, fourth GPU call (2026-12-02): the race-check budget and the page-locked copy download (commit 5cca168)
# on the H200, on a host with the temporary phase trace (not committed): `host occupancy`, `regs`, `inflight` and
# `bandwidth` timed (compare with call S12b's trace), and the GPU tests of what changed: gemm_hashes_gpu (the race
# check), smem_copy_gpu and faults_gpu.
# Packs: scripts/gpu/pack.sh s12d --tests gemm_hashes_gpu,smem_copy_gpu,faults_gpu
set -u
CALL=call_s12d; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s12d/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
step 10 120 occupancy.log bash -c "time $H occupancy"
step 140 120 regs.log bash -c "time $H regs"
step 270 120 inflight.log bash -c "time $H inflight"
step 400 60 bandwidth.log bash -c "time $H bandwidth"
step 470 60 gemm_hashes_gpu.log "$W/new/tests/gemm_hashes_gpu" --ignored --test-threads 1
step 530 30 smem_copy_gpu.log "$W/new/tests/smem_copy_gpu" --ignored --test-threads 1
step 560 30 faults_gpu.log "$W/new/tests/faults_gpu" --ignored --test-threads 1
grep -h -E "^real|test result|FAILED|rc=" $O/*.log
for f in $O/*.log; do echo "== $(basename $f)"; grep TRACE $f | grep -E "experiment|inflight|cublas open" ; done
date -u; save
