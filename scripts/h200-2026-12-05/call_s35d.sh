#!/usr/bin/env bash
# Session 35, GPU call S35d (2026-12-05): did W9's quarter fewer instructions lower its energy per GEMM? Session 33
# (S33e) found W9 taking 10-11% more energy per GEMM than cuBLAS's kernel, W8 3-5%, and W9's clock the lowest; S35b
# found W9's clock still low with the fewer instructions. So `host gemm_bf16 --variants W8,W9 --size 4096 --energy`
# (each side alone in alternating 1 s windows, NVML's energy counter), old build (pack p9: 422492f, before the lane-0
# index and the descriptors built once) then new (pack pdsT: main's kernels since fdf270f), on an H200 only (any other
# card: it stops at once, unless ANY_CARD=1). Carry ["dist/p9", "dist/pdsT"], results/ aside.
set -u
CALL=${CALL:-call_s35d}; O=/tmp/lead/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
if [ "${ANY_CARD:-0}" != 1 ] && ! grep -q "H200" "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
unpack dist/p9/pack.tar.xz /tmp/lead/old; unpack dist/pdsT/pack.tar.xz /tmp/lead/new
for b in old new; do
  step 200 90 e_$b.log "/tmp/lead/$b/host" gemm_bf16 --variants W8,W9 --size 4096 --energy
  echo "== $b"; sed -n '/nergy windows/,$p' "$O/e_$b.log" | grep -E "^│ (W8|W9|cuBLAS)" | cut -c1-400
done
date -u; save
