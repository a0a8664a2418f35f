#!/usr/bin/env bash
# The pack of calls S30a and S30c (session 30, 2026-12-05): HEAD with one line added to the gemm_wgmma section of the
# variant table, after W8's, the line of turns on 128x128 tiles that the calls check and time before it joins the
# table for good:
#   ("W9", wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }), // 384
# built in a worktree of HEAD (dist/worktree-pp128), assembled first by `cargo xtask build --arch sm_90` (which fails
# on a spill or a serialized wgmma), then packed with nvcc's twin (whose header `--twin` regenerates) by
# scripts/gpu/pack.sh into dist/pp128/pack.tar.xz. Usage, from the repository root:
#   scripts/h200-2026-12-05/pack_s30a.sh
set -euo pipefail
root=$(pwd); wt=$root/dist/worktree-pp128
[ -d "$wt" ] || git worktree add --detach "$wt" HEAD
mkdir -p "$wt/dist"
f=$wt/kernels-gpu/src/variants.rs
line='        ("W9",    wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }), // 384'
grep -qF '("W9",' "$f" || sed -i "/(\"W8\", *wgmma {/a\\
$line" "$f"
grep -qF "$line" "$f" || { echo "pack_s30a.sh: W9's line is not in $f" >&2; exit 1; }
(cd "$wt" && cargo run -q -p xtask -- build --arch sm_90 --out dist/kernels-sm90 > dist/kernels-sm90.log 2>&1) ||
  { tail -20 "$wt/dist/kernels-sm90.log" >&2; exit 1; }
grep -A3 "bm128_bn128_bk64_s7_c2_x1'" "$wt/dist/kernels-sm90/kernels_sm90a.sm_90a.ptxas.txt"
(cd "$wt" && scripts/gpu/pack.sh pp128 --tests wgemm_gpu --twin)
mkdir -p "$root/dist/pp128" && cp "$wt/dist/pp128/pack.tar.xz" "$wt/dist/pp128/twin_build.log" "$root/dist/pp128/"
