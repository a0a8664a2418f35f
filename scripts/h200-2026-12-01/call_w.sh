#!/usr/bin/env bash
# Call W on the H200 (2026-12-01, fifth session): main's final build (kernels as in call U1), the two
# GPU test binaries the scripts of call U2 stopped at 60 s before they finished: gemm_bf16_gpu
# (experiment 7 with every mma.sync and wgmma line, cuBLAS's kernel through CUPTI, part II's
# picture) and tensor_gpu (every BF16 line at 4096^3 and 8192^3 and at odd sizes, the mma_ilp entries
# bit for bit, the JIT's spill report).
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh on main).
set -u
W=/tmp/lead; O=$W/outw; mkdir -p "$O"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
T="$W/tests"
save() { tar czf "$OUT/call_w.tgz" -C "$W" outw; }
for t in gemm_bf16_gpu tensor_gpu; do
  echo "## $t ($SECONDS s)"; timeout 150 "$T/$t" --ignored --test-threads 1 --nocapture > "$O/test_$t.log" 2>&1
  echo "## $t rc=$?" >> "$O/test_$t.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$t.log" | tail -8; save
done
date -u
