#!/usr/bin/env bash
# Session 12, GPU call S12h (2026-12-02), run as one `run` command: stream_copy_gpu after its fix (call S12g failed
# it asking 2 blocks/SM of a line whose registers allow one) and energy_gpu with room (S12g's 30 s step cut it).
# Packs: scripts/gpu/pack.sh s12h --tests stream_copy_gpu,energy_gpu
# Result: stream_copy_gpu 1 passed (11.1 s), energy_gpu 2 passed (39.7 s).
W=/tmp/lead/h; mkdir -p $W && tar xJf dist/s12h/pack.tar.xz -C $W && mkdir -p target/release && cp $W/host target/release/host && export LAB_HOST=$(pwd)/target/release/host
timeout 60 $W/tests/stream_copy_gpu --ignored --test-threads 1 > $W/stream.log 2>&1; echo "stream rc=$?"
timeout 90 $W/tests/energy_gpu --ignored --test-threads 1 --nocapture > $W/energy.log 2>&1; echo "energy rc=$? $SECONDS s"
grep -E "test result|FAILED|panicked" $W/stream.log $W/energy.log
tar czf $OUT/h.tgz -C /tmp/lead h/stream.log h/energy.log
