#!/usr/bin/env bash
# Call U2 on the H200 (2026-12-01, fifth session), right after U1: the rest of the GPU-only tests on
# the same build, cli_gpu (cut short by its script's limit in call R) and cli's GPU tests first.
# Carried: dist/lead/pack.tar.xz (scripts/h200-2026-12-01/pack_s5.sh).
set -u
W=/tmp/lead; mkdir -p "$W/out2"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release /work/main/target/release && cp "$W/host" target/release/host && cp "$W/host" /work/main/target/release/host
T="$W/tests"; O="$W/out2"
pack() { tar czf "$OUT/call_u2.tgz" -C "$W" out2; }
gpu_test() { # name timeout deadline [filter]
  [ "$SECONDS" -gt "$3" ] && { echo "## $1 not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $1 ${4:-} ($SECONDS s)"; timeout "$2" "$T/$1" --ignored --test-threads 1 --nocapture ${4:-} > "$O/test_$1.log" 2>&1
  echo "## $1 rc=$?" >> "$O/test_$1.log"; grep -E "^test |test result|panicked|rc=" "$O/test_$1.log" | tail -12
  pack
}
gpu_test cli_gpu 240 100
gpu_test cli 120 340
gpu_test wgmma_gpu 60 460
gpu_test gemm_bf16_gpu 60 480
gpu_test tensor_gpu 60 500
gpu_test sweeps_gpu 80 500
gpu_test gemm_check_gpu 60 530
gpu_test held_gpu 30 560
gpu_test regs_variant_gpu 30 570
date -u
