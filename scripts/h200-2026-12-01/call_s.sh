#!/usr/bin/env bash
# Call S on the H200 (2026-12-01, fourth session): experiment 6's ILP 2 at 5 warps/SM (Rust/nvcc 0.926
# three times in call R: nvcc's launches fall in three modes, 0.445/0.484/0.522 ms, ours almost all in
# the slowest, with the same loop SASS). Does the prologue decide it? Each module below holds
# mma_bf16_ilp2 assembled by ptxas 13.0 (sm_90) from one PTX, timed with `--module` against nvcc's
# twin (twin/twin.cubin, nvcc/build.sh, nvcc 13.0.88), at 4, 5 and 6 warps/SM, twice:
#   rust_pt  our PTX as built (the lab's entry, alone in a module)
#   AB       ours with nvcc's index form ((tid<<2)&124) and bound compare
#   F        AB plus the loop preheader's redundant zeroing removed: prologue SASS = nvcc's but for
#            register names
#   nvcc_pt  nvcc's PTX of the entry through the same ptxas (control: should match the twin)
#   tensor   the lab's new kernels_tensor module (mma_ilp.rs with the index and bound changes)
# Carried: dist/lead/pack.tar.xz (host, twin/) and dist/lead/pt/*.cubin.
set -u
W=/tmp/lead; mkdir -p "$W/out"; tar xJf dist/lead/pack.tar.xz -C "$W"
mkdir -p target/release && cp "$W/host" target/release/host
H=$(pwd)/target/release/host; O="$W/out"
for pass in 1 2; do
  for m in rust_pt AB F nvcc_pt tensor; do
    timeout 40 $H mma --module "dist/lead/pt/$m.cubin" --compare "$W/twin/twin.cubin" --compare-label nvcc --ilp 2 \
      --warps-per-sm 4,5,6 --no-wgmma --out "$O/${m}_$pass" > "$O/${m}_$pass.log" 2>&1; rc=$?
    python3 - "$O/${m}_$pass/results.json" "$m" "$pass" "$rc" <<'P'
import json,sys
try:
    d=json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[2], sys.argv[3], 'rc', sys.argv[4], 'no results', e); sys.exit()
for r in d['mma']['rows']:
    a=sorted(r['timing']['samples_ms']); b=sorted(r['compare']['timing']['samples_ms'])
    q=lambda s:' '.join(f"{s[int(f*(len(s)-1))]:.4f}" for f in (0,0.25,0.5,0.75,1))
    print(f"{sys.argv[2]:8s} pass {sys.argv[3]} w{r['warps_per_sm']} ratio {r['compare']['ratio']:.3f} ours[{q(a)}] nvcc[{q(b)}]")
P
  done
  tar czf "$OUT/call_s.tgz" -C "$W" out
done
date -u
