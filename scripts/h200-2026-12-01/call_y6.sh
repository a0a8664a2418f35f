#!/usr/bin/env bash
# Call Y6 on the H200 (2026-12-01, seventh session), same pack as Y5: wgemm_gpu's JIT report and
# its awkward sizes (8^3, 1x264x40, 333x264x80, 1000^3, 2048x8192x1024, both settings) on every
# gemm_wgmma line, the MT lines included.
set -u
W=/tmp/lead; O=$W/outy6; mkdir -p "$O"; tar xJf dist/lead/pack7.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
T="$W/tests"
timeout 200 "$T/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports_every_wgemm_entry_without_spills_or_serialization every_wgemm_line_passes_the_check_at_awkward_sizes > "$O/wgemm_gpu.log" 2>&1; echo "rc=$?" >> "$O/wgemm_gpu.log"
grep -E "^test |test result|FAILED|registers|panicked|rc=" "$O/wgemm_gpu.log" | head -30
tar czf "$OUT/call_y6.tgz" -C "$W" outy6
